"""The log every ``tablectl`` command writes: structlog JSON lines on stderr, each led
by the syslog priority of its level as journald reads it (``<4>{"event": ...}``).

systemd's stream to journald takes a leading ``<N>`` as the line's priority and
strips it (``SyslogLevelPrefix=``, on by default), so ``journalctl -p warning`` shows
the daemon's warnings and ``journalctl -o cat`` prints the JSON alone, ready for
``jq``. A file or a pipe gets the same bytes: ``sed 's/^<[0-7]>//'`` makes it JSON.

No traceback renders its frames' local variables (551.8(e)): while the hole card is
sealed it is a local of some frame of the table's thread, and the log goes to the
system journal, which the members of ``adm`` and ``systemd-journal`` may read. structlog's own
``dict_tracebacks`` shows locals; ``ExceptionDictTransformer(show_locals=False)``
keeps the frames and the exception.

``catch_uncaught`` (the daemon's): what would reach stderr past structlog (an
uncaught exception's traceback, a thread's, a Python warning, a library's standard
``logging`` record) is logged as one such line instead, so that stream holds one
format only.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import warnings
from collections.abc import Callable
from types import TracebackType
from typing import Any, Final, TextIO

from drivers.logs import structlog

# syslog's priorities for structlog's levels (RFC 5424 6.2.1), as journald stores them.
PRIORITY: Final = {"debug": 7, "info": 6, "warning": 4, "error": 3, "critical": 2}
_DEFAULT_PRIORITY: Final = 6  # a level structlog has no name for: info


def priority_renderer() -> Callable[[Any, str, Any], str]:
    """structlog's last processor: the event as one JSON line after ``<N>``."""
    to_json = structlog.processors.JSONRenderer()

    def render(logger: Any, method: str, event_dict: Any) -> str:
        level = PRIORITY.get(str(event_dict.get("level")), _DEFAULT_PRIORITY)
        line = to_json(logger, method, event_dict)
        return f"<{level}>{line if isinstance(line, str) else line.decode()}"

    return render


def configure_logging(level: str = "warning", stream: TextIO | None = None) -> None:
    """structlog as ``<N>`` JSON lines, one event name per line; tracebacks without
    locals (551.8(e))."""
    tracebacks = structlog.tracebacks.ExceptionDictTransformer(show_locals=False)
    structlog.configure(
        processors=[
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.ExceptionRenderer(tracebacks),
            priority_renderer(),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(
            logging.getLevelNamesMapping()[level.upper()]
        ),
        logger_factory=structlog.PrintLoggerFactory(stream or sys.stderr),
        cache_logger_on_first_use=True,
    )


def stderr_is_journal() -> bool:
    """Whether stderr is systemd's stream to journald: ``JOURNAL_STREAM`` names its
    device and inode (systemd.exec(5)); a redirected stderr is another file."""
    device, _, inode = os.environ.get("JOURNAL_STREAM", "").partition(":")
    try:
        st = os.fstat(sys.stderr.fileno())
        return (st.st_dev, st.st_ino) == (int(device), int(inode))
    except (ValueError, OSError, AttributeError):
        return False


class _ToStructlog(logging.Handler):
    """A library's standard ``logging`` record as one of our lines."""

    def emit(self, record: logging.LogRecord) -> None:
        structlog.get_logger("library").log(
            record.levelno, "library_log", logger=record.name, message=record.getMessage()
        )


def catch_uncaught() -> None:
    """Log, as one line each, what Python would otherwise print on stderr itself."""
    log = structlog.get_logger("tablectl")

    def uncaught(kind: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
        log.critical("uncaught_exception", exc_info=(kind, value, tb))

    def thread_died(args: threading.ExceptHookArgs) -> None:
        if args.exc_value is None or issubclass(args.exc_type, SystemExit):
            return
        where = None if args.thread is None else args.thread.name
        exc_info = (args.exc_type, args.exc_value, args.exc_traceback)
        log.critical("thread_died", thread=where, exc_info=exc_info)

    def warned(
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: TextIO | None = None,
        line: str | None = None,
    ) -> None:
        where = f"{filename}:{lineno}"
        log.warning("python_warning", category=category.__name__, message=str(message), where=where)

    sys.excepthook = uncaught
    threading.excepthook = thread_died
    warnings.showwarning = warned
    logging.basicConfig(handlers=[_ToStructlog()], level=logging.WARNING, force=True)
