"""One I/O thread for the sessions of every driver whose transport can be polled.

A driver still connects, handshakes and reconnects on its own thread; once its
session is up it hands the session to the ``SessionPoller`` (``serve``) and waits for
its end. The poller's thread polls every session's port and wake-up pipe at once and
runs a session's turn (``DeviceDriver._turn``: the bytes read, its timers) when its
port has input, its wake-up pipe was written or its deadline has come. Devices whose
heartbeats come at the same moment (both connected at the daemon's start) so cost one
wake-up between them, not one each and a hand-over of the GIL from one driver thread
to the other (docs/benchmarks.md, issue 10). A transport that cannot be polled (USB)
keeps its driver's own loop.

A turn that raises ends that session alone: the exception is re-raised on the
driver's thread, which reports it and reconnects as before.
"""

from __future__ import annotations

import contextlib
import os
import select
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable


@runtime_checkable
class Pollable(Protocol):
    """A transport the poller can serve: its port's and its wake-up pipe's descriptors,
    a read that does not wait, and the wake-up pipe's draining."""

    def fds(self) -> tuple[int, int]: ...

    def read_ready(self, max_bytes: int) -> bytes: ...

    def drain_wake(self) -> None: ...


class Served(Protocol):
    """What the poller needs of a driver (drivers/device/driver.py)."""

    def turn(self, data: bytes) -> None: ...

    @property
    def waiting_until(self) -> float: ...

    @property
    def stopping(self) -> bool: ...


@dataclass(eq=False)
class _Session:
    driver: Served
    transport: Pollable
    ended: threading.Event = field(default_factory=threading.Event)
    error: BaseException | None = None


class SessionPoller:
    """The poller's thread: started by the first session it serves, ended when it
    serves none."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._joining: list[_Session] = []
        self._sessions: dict[int, _Session] = {}  # by port and by wake-up descriptor
        self._poll = select.poll()
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        self._poll.register(self._wake_r, select.POLLIN)
        self._thread: threading.Thread | None = None

    def serve(self, driver: Served, transport: Pollable) -> None:
        """Run ``driver``'s session on the poller's thread until it ends: returns when
        the driver stops, raises what a turn raised."""
        session = _Session(driver, transport)
        with self._lock:
            self._joining.append(session)
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="driver-sessions", daemon=True
                )
                self._thread.start()
        self._wake()
        session.ended.wait()
        if session.error is not None:
            raise session.error

    def _wake(self) -> None:
        with contextlib.suppress(BlockingIOError):  # a wake-up is pending already
            os.write(self._wake_w, b"\0")

    def _run(self) -> None:
        while self._admit():
            due = min((s.driver.waiting_until for s in self._served()), default=None)
            timeout = None if due is None else max(0.0, due - self._clock()) * 1000
            ready = self._ready(self._poll.poll(timeout))
            now = self._clock()
            for session in self._served():
                if session in ready or now >= session.driver.waiting_until:
                    self._turn(session, ready.get(session, False))

    def _ready(self, events: list[tuple[int, int]]) -> dict[_Session, bool]:
        """The sessions a poll found something for: whether their port has input (else
        their wake-up pipe was written). Wake-up pipes are drained."""
        ready: dict[_Session, bool] = {}
        for fd, _ in events:
            session = self._sessions.get(fd)
            if session is None:
                self._drain()
                continue
            port, wake = session.transport.fds()
            if fd == wake:
                session.transport.drain_wake()
            ready[session] = ready.get(session, False) or fd == port
        return ready

    def _served(self) -> list[_Session]:
        return list(dict.fromkeys(self._sessions.values()))

    def _admit(self) -> bool:
        """Sessions handed over since the last turn, registered on this thread; False
        when none is left to serve: the thread ends (the next ``serve`` starts one)."""
        with self._lock:
            joining, self._joining = self._joining, []
            if not joining and not self._sessions:
                self._thread = None
                return False
        for session in joining:
            for fd in session.transport.fds():
                self._sessions[fd] = session
                self._poll.register(fd, select.POLLIN)
        return True

    def _turn(self, session: _Session, readable: bool) -> None:
        if session.driver.stopping:
            self._end(session, None)
            return
        try:
            data = session.transport.read_ready(4096) if readable else b""
            session.driver.turn(data)
        except BaseException as exc:
            self._end(session, exc)

    def _end(self, session: _Session, error: BaseException | None) -> None:
        for fd in session.transport.fds():
            if self._sessions.pop(fd, None) is not None:
                self._poll.unregister(fd)
        session.error = error
        session.ended.set()

    def _drain(self) -> None:
        with contextlib.suppress(BlockingIOError):
            while os.read(self._wake_r, 64):
                pass
