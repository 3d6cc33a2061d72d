"""The hand-over of lines from the table's thread to the API's I/O thread, for when
the table's thread does not send them itself (controller/api/server.py ``_send``)."""

from __future__ import annotations

import contextlib
import socket
from collections import deque
from collections.abc import Iterator

from controller.api.fanout import Out


class Inbox:
    """Lines from the table's thread to the I/O thread: a deque, and one byte on a
    socket pair that wakes the I/O thread's selector."""

    def __init__(self) -> None:
        self._lines: deque[Out] = deque()
        self._pending = False
        self.reader: socket.socket | None = None
        self._writer: socket.socket | None = None

    def open(self) -> socket.socket:
        """The wake-up pair; its reader is for the I/O thread's selector."""
        self.reader, self._writer = socket.socketpair()
        self.reader.setblocking(False)
        self._writer.setblocking(False)
        return self.reader

    def put(self, out: Out) -> None:
        """Queue ``out``: the table's thread sends it, or wakes the I/O thread for it,
        once for several lines (controller/api/server.py ``_send``)."""
        self._lines.append(out)

    def wake(self) -> None:
        # One byte in flight is enough: the I/O thread drains the whole deque each time.
        if self._pending or self._writer is None:
            return
        self._pending = True
        with contextlib.suppress(OSError):
            self._writer.send(b"\0")

    def stop(self) -> None:
        """Wake the I/O thread whatever is pending, so that it sees it is stopping."""
        assert self._writer is not None
        with contextlib.suppress(OSError):
            self._writer.send(b"\0")

    def drain_wake(self) -> None:
        assert self.reader is not None
        with contextlib.suppress(BlockingIOError):
            while self.reader.recv(4096):
                pass
        # Cleared only once the bytes are gone, and before the deque is drained: a
        # put that finds it set has appended before that drain.
        self._pending = False

    def take(self) -> Iterator[Out]:
        while self._lines:
            yield self._lines.popleft()

    def close(self) -> None:
        for closable in (self.reader, self._writer):
            if closable is not None:
                closable.close()
        self.reader = self._writer = None
