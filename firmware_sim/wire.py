"""The simulated device's transmit line: link frames pass the fault layer, wait in FIFO
order for their release time, and leave in as few writes as the port takes."""

from __future__ import annotations

import os
import time
from collections import deque
from collections.abc import Callable

from drivers import codec
from drivers import messages as m
from firmware_sim.faults import FaultLayer, Outgoing


class Wire:
    """The transmit line: link frames pass the fault layer, then leave in FIFO order."""

    def __init__(self, faults: FaultLayer, clock: Callable[[], float] = time.monotonic) -> None:
        self.faults = faults
        self._clock = clock
        self._queue: deque[Outgoing] = deque()
        self.silent_until = 0.0
        # --trace-writes: event id -> monotonic ns of the first write of each card frame
        # (benchmarks/link_bench.py measures latency from it; the card itself is not kept).
        self.card_writes: dict[int, int] | None = None

    def write(self, frame: bytes) -> None:
        """The link's write callback."""
        now = self._clock()
        if now < self.silent_until:
            return
        self._queue.extend(self.faults.apply(frame, now))

    def ready(self, now: float) -> bool:
        return bool(self._queue) and self._queue[0].not_before <= now

    def next_release(self) -> float | None:
        return self._queue[0].not_before if self._queue else None

    def flush(self, fd: int, now: float) -> None:
        """Write the frames that are due, in one system call when they all fit."""
        while due := self._due(now):
            if self.card_writes is not None:
                for item in due:
                    _trace_card(item.data, self.card_writes)
            data = due[0].data if len(due) == 1 else b"".join(item.data for item in due)
            try:
                n = os.write(fd, data)
            except BlockingIOError:
                return  # the host is not reading; select waits for room
            if not self._written(n):
                return

    def _due(self, now: float) -> list[Outgoing]:
        """The frames at the queue's head that may leave now. A delayed head holds back
        everything behind it, as on a real serial line."""
        due: list[Outgoing] = []
        for item in self._queue:
            if item.not_before > now:
                break
            due.append(item)
        return due

    def _written(self, n: int) -> bool:
        """Drop the ``n`` bytes written from the queue's head; False if a frame was cut."""
        queue = self._queue
        while n and queue:
            head = queue[0]
            if n < len(head.data):
                head.data = head.data[n:]
                return False
            n -= len(head.data)
            queue.popleft()
        return True

    def save_trace(self, path: str) -> None:
        with open(path, "w", encoding="ascii") as fh:
            for event_id, ns in sorted((self.card_writes or {}).items()):
                fh.write(f"{event_id} {ns}\n")

    def clear(self) -> None:
        self._queue.clear()


def _trace_card(data: bytes, writes: dict[int, int]) -> None:
    """Note when a CARD_DRAWN frame first leaves (its event id is at offset 7)."""
    if len(data) >= 11 and data[0] == codec.SYNC and data[6] == m.MsgType.CARD_DRAWN:
        writes.setdefault(int.from_bytes(data[7:11], "big"), time.monotonic_ns())
