"""The simulator's JSON log, written in batches.

structlog renders each line as before; this sink keeps the lines and the simulator's
loop writes them out (``flush``) once ``FLUSH_AFTER`` has passed since the first line
waiting, before it stops, and when the lines waiting pass ``FLUSH_BYTES``. A shoe
dealing flat out logs a few lines a card: one write a batch instead of two system
calls a line (print and its flush). Nothing waiting, no deadline: an idle simulator
is not woken for its log.
"""

from __future__ import annotations

import datetime
import json
import os
import time
from collections.abc import Callable
from typing import Any

from structlog.processors import ExceptionRenderer
from structlog.tracebacks import ExceptionDictTransformer
from structlog.typing import EventDict, Processor

FLUSH_AFTER = 0.05  # seconds a line may wait in memory
FLUSH_BYTES = 1 << 16


_UTC = datetime.UTC
_LEVELS = {"warn": "warning", "exception": "error"}  # structlog's map_method_name


def processors(device: str) -> list[Processor]:
    """The line structlog's merge_contextvars (device bound), add_log_level,
    TimeStamper(fmt="iso", utc=True), ExceptionRenderer and JSONRenderer made, key for
    key, in two steps instead of five."""
    encode = json.JSONEncoder(default=repr).encode

    def fields(_logger: Any, method: str, event_dict: EventDict) -> EventDict:
        event_dict.setdefault("device", device)
        event_dict["level"] = _LEVELS.get(method, method)
        now = datetime.datetime.now(tz=_UTC)
        event_dict["timestamp"] = now.isoformat().replace("+00:00", "Z")
        return event_dict

    def render(_logger: Any, _method: str, event_dict: EventDict) -> str:
        return encode(event_dict)

    exceptions = ExceptionRenderer(ExceptionDictTransformer(show_locals=False))
    return [fields, exceptions, render]


class LogSink:
    """A structlog logger writing its lines to ``fd`` in batches."""

    def __init__(self, fd: int, clock: Callable[[], float] = time.monotonic) -> None:
        self._fd = fd
        self._clock = clock
        self._lines: list[str] = []
        self._size = 0
        self._since: float | None = None

    def msg(self, message: str) -> None:
        if self._since is None:
            self._since = self._clock()
        self._lines.append(message)
        self._size += len(message)
        if self._size >= FLUSH_BYTES:
            self.flush()

    log = debug = info = warn = warning = err = error = critical = exception = fatal = msg

    def due(self) -> float | None:
        """When the lines waiting must be written; None when there are none."""
        return None if self._since is None else self._since + FLUSH_AFTER

    def flush(self) -> None:
        if not self._lines:
            return
        data = ("\n".join(self._lines) + "\n").encode("utf-8", "backslashreplace")
        self._lines.clear()
        self._size = 0
        self._since = None
        view = memoryview(data)
        while view:
            view = view[os.write(self._fd, view) :]
