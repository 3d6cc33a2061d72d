"""What the follower holds back: each QoS 1 message's acknowledgement waits until the
seqs it moved are saved (tracks.py), so the broker sends again whatever a crashed
floor had not kept.

The save runs in a thread of its own (the disk's fsyncs take milliseconds) while the
network loop reads on; when it is done, the acknowledgements it covers go out, in the
order the messages came (MQTT 4.6). A save starts once ``BATCH`` messages wait or the
oldest has waited ``DELAY`` seconds; the broker's in-flight window (Mosquitto's
``max_inflight_messages``, 100 in the example) bounds how many are held.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import wait as wait_all
from pathlib import Path
from typing import Final

import structlog

from controller.floor import tracks
from controller.floor.tracks import Track

log = structlog.get_logger("tablectl.floor")

BATCH: Final = 50  # messages held before a save starts
DELAY: Final = 0.02  # seconds the oldest held message waits for a save to start at most
IDLE: Final = 0.2  # the network loop's wait with nothing held
POLL: Final = 0.005  # ... while a save runs: its end is looked for this often
RETRY: Final = 1.0  # seconds after a failed save before the next


class Keeper:
    def __init__(
        self,
        state_dir: Path,
        snapshot: Callable[[], dict[str, Track]],
        acknowledge: Callable[[int], object],
    ) -> None:
        self.state_dir = state_dir
        self._snapshot = snapshot
        self._acknowledge = acknowledge
        self.dirty = False  # a track moved since the last snapshot saved
        self._pending: list[int] = []  # message ids, in the order received
        self._since = 0.0  # when the oldest uncovered one came
        self._saving: Future[None] | None = None
        self._covered = 0  # the pending ids the save in flight covers
        self._retry_at = 0.0  # after a failed save, not before
        self._saver = ThreadPoolExecutor(1, thread_name_prefix="floor-saver")

    @property
    def held(self) -> int:
        return len(self._pending)

    def hold(self, mid: int) -> None:
        if len(self._pending) == self._covered:
            self._since = time.monotonic()
        self._pending.append(mid)

    def wait(self) -> float:
        """How long the network loop may wait for the socket."""
        return POLL if self._saving is not None else DELAY if self._pending else IDLE

    def tend(self) -> None:
        """After each turn of the loop: acknowledge what a finished save kept, start the
        next save when one is due, acknowledge at once what moved nothing."""
        if self._saving is not None:
            if not self._saving.done():
                return
            self._finish(acknowledge=True)
        if not self._pending:
            return
        if not self.dirty:
            self._release(len(self._pending))
        elif time.monotonic() >= self._retry_at and (
            len(self._pending) >= BATCH or time.monotonic() - self._since >= DELAY
        ):
            self._start()

    def _start(self) -> None:
        snapshot = self._snapshot()
        self.dirty = False
        self._covered = len(self._pending)
        self._saving = self._saver.submit(tracks.save, self.state_dir, snapshot)

    def _finish(self, acknowledge: bool) -> bool:
        assert self._saving is not None
        error = self._saving.exception()
        self._saving = None
        covered, self._covered = self._covered, 0
        if error is not None:  # not kept, so not acknowledged: saved again next time
            self.dirty = True
            self._retry_at = time.monotonic() + RETRY
            log.error("floor_state_unsaved", state_dir=str(self.state_dir), error=str(error))
            return False
        if acknowledge:
            self._release(covered)
        self._since = time.monotonic()
        return True

    def _release(self, count: int) -> None:
        for mid in self._pending[:count]:
            self._acknowledge(mid)
        del self._pending[:count]

    def _settle(self, acknowledge: bool) -> None:
        if self._saving is not None:
            wait_all([self._saving])
            self._finish(acknowledge)

    def drop(self) -> None:
        """The connection is gone: the held ids with it (the broker sends those
        messages again; the saved seqs tell the rows already had)."""
        self._settle(acknowledge=False)
        self._pending.clear()

    def close(self, connected: bool) -> None:
        """The follower stops: save what is left, then acknowledge it all if the
        connection is still up."""
        self._settle(acknowledge=connected)
        if self.dirty:
            self._start()
            self._settle(acknowledge=connected)
        if connected and not self.dirty:
            self._release(len(self._pending))
        self._pending.clear()
        self._saver.shutdown()
