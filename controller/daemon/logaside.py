"""The daemon's log set aside while the live view owns the terminal.

The log (structlog JSON lines, controller/logformat.py) goes to stderr; on the
terminal the view draws on, each line would land in the middle of the table. So
while the view draws, file descriptor 2 itself is a file: every writer of stderr
(structlog, the drivers, Python's own last words) writes there, and the screen says
where. Under systemd stderr is journald's stream and no view draws; a stderr the
user sent elsewhere (a file, a pipe) is left where it is.

The file: ``tablectl.log`` beside the table's journal (a simulated table's work
directory); for a simulated table in a temporary directory, removed at exit, a
``tablectl-*.log`` of the system's temporary directory, kept, its path on the last
line.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

LOG_NAME = "tablectl.log"


def log_path(journal: str, temporary: bool) -> Path:
    """Where the log goes while the view draws (the file is created here)."""
    if temporary:
        fd, name = tempfile.mkstemp(prefix="tablectl-", suffix=".log")
        os.close(fd)
        return Path(name)
    return Path(journal).parent / LOG_NAME


def stderr_is_terminal() -> bool:
    try:
        return os.isatty(2)
    except OSError:
        return False


class LogAside:
    """File descriptor 2 pointed at ``path`` until ``restore`` (which may be called
    again: it restores once)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC
        fd = os.open(path, flags, 0o600)
        sys.stderr.flush()
        self._saved: int | None = os.dup(2)
        os.dup2(fd, 2)
        os.close(fd)

    def restore(self) -> None:
        if self._saved is None:
            return
        with contextlib.suppress(ValueError, OSError):  # stderr closed already
            sys.stderr.flush()
        os.dup2(self._saved, 2)
        os.close(self._saved)
        self._saved = None


@contextlib.contextmanager
def view_failure(finish: Callable[[], None], aside: LogAside | None) -> Iterator[None]:
    """A failure while the view draws: the view is finished and stderr given back to
    the terminal before the failure's one line is written there."""
    try:
        yield
    except BaseException:
        finish()
        if aside is not None:
            aside.restore()
        raise
