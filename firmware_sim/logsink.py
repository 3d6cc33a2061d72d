"""The simulator's JSON log, written in batches.

structlog's call keeps each line's fields, with the moment it was made; this sink
holds them and the simulator's loop writes them out (``flush``) once ``FLUSH_AFTER``
has passed since the first line waiting, before it stops, and when ``FLUSH_LINES``
are waiting. A shoe dealing flat out logs a few lines a card: one write a batch
instead of two system calls a line (print and its flush), and the lines of a batch
are rendered together, in one warm loop, instead of one at a time between the
frames. The bytes are the ones structlog's JSONRenderer made at the call. Nothing
waiting, no deadline: an idle simulator is not woken for its log.
"""

from __future__ import annotations

import datetime
import os
import time
from collections.abc import Callable
from typing import Any

from structlog.processors import ExceptionRenderer
from structlog.tracebacks import ExceptionDictTransformer
from structlog.typing import EventDict, Processor

from drivers.jsontext import encoder

FLUSH_AFTER = 0.05  # seconds a line may wait in memory
FLUSH_LINES = 512

_UTC = datetime.UTC
# How structlog calls the sink: ``msg(event_dict)``.
_SinkCall = tuple[tuple[EventDict], dict[str, Any]]
_LEVELS = {"warn": "warning", "exception": "error"}  # structlog's map_method_name


def processors(device: str) -> list[Processor]:
    """The fields structlog's merge_contextvars (device bound), add_log_level,
    TimeStamper(fmt="iso", utc=True) and ExceptionRenderer made, key for key, in one
    step; the timestamp is the call's ``time.time_ns()`` until the sink renders it.
    The fields go to the sink as they are; its ``flush`` renders them as JSONRenderer."""
    exceptions = ExceptionRenderer(ExceptionDictTransformer(show_locals=False))

    def fields(logger: Any, method: str, event_dict: EventDict) -> _SinkCall:
        event_dict.setdefault("device", device)
        event_dict["level"] = _LEVELS.get(method, method)
        event_dict["timestamp"] = time.time_ns()
        if "exc_info" in event_dict:
            event_dict = exceptions(logger, method, event_dict)
        return (event_dict,), {}

    return [fields]


class _Timestamps:
    """``datetime.now(UTC).isoformat()`` with "Z" for "+00:00", for a ``time_ns()``;
    the date and time of day formatted once a second."""

    def __init__(self) -> None:
        self._second = -1
        self._prefix = ""

    def __call__(self, ns: int) -> str:
        second, micros = divmod(ns // 1000, 1_000_000)
        if second != self._second:
            self._second = second
            when = datetime.datetime.fromtimestamp(second, _UTC)
            self._prefix = when.strftime("%Y-%m-%dT%H:%M:%S")
        # isoformat leaves the fraction out when it is zero
        return f"{self._prefix}.{micros:06d}Z" if micros else f"{self._prefix}Z"


class LogSink:
    """A structlog logger writing its lines to ``fd`` in batches. Each line's values
    are rendered at the flush: a caller hands over values it does not change
    afterwards (every log call here passes fresh numbers, strings and copies)."""

    def __init__(self, fd: int, clock: Callable[[], float] = time.monotonic) -> None:
        self._fd = fd
        self._clock = clock
        self._entries: list[EventDict] = []
        self._since: float | None = None
        self._encode = encoder(separators=(", ", ": "), default=repr)
        self._stamp = _Timestamps()

    def msg(self, entry: EventDict) -> None:
        if self._since is None:
            self._since = self._clock()
        self._entries.append(entry)
        if len(self._entries) >= FLUSH_LINES:
            self.flush()

    log = debug = info = warn = warning = err = error = critical = exception = fatal = msg

    def due(self) -> float | None:
        """When the lines waiting must be written; None when there are none."""
        return None if self._since is None else self._since + FLUSH_AFTER

    def flush(self) -> None:
        if not self._entries:
            return
        entries, self._entries = self._entries, []
        self._since = None
        view = memoryview(self._render(entries).encode("utf-8", "backslashreplace"))
        while view:
            view = view[os.write(self._fd, view) :]

    def _render(self, entries: list[EventDict]) -> str:
        encode, stamp = self._encode, self._stamp
        lines = []
        for entry in entries:
            ns = entry.get("timestamp")
            if isinstance(ns, int):
                entry["timestamp"] = stamp(ns)  # same key, same place in the line
            lines.append(encode(entry))
        lines.append("")
        return "\n".join(lines)
