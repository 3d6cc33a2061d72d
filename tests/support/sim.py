"""Simulators as processes on real ptys, each driven by a host driver."""

from __future__ import annotations

import queue
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from drivers import messages as m
from drivers.device import DriverConfig
from firmware_sim.harness import SimProcess
from tests.support.devices import KEY, Drivers

FAST = DriverConfig(reconnect_min=0.02, reconnect_max=0.1)


class Host:
    """A driver for a simulator, started by the owner of the test's drivers, and the
    events it delivers, committed as taken (as the controller does once an event is
    journaled)."""

    def __init__(self, sim: SimProcess, drivers: Drivers, config: DriverConfig = FAST) -> None:
        self.sim = sim
        self.events: queue.Queue[m.Event] = queue.Queue()
        self.driver: Any = drivers.start(sim.driver(self.events, config=config))
        self.last_id = 0

    def take(self, n: int = 1, timeout: float = 3.0, commit: bool = True) -> list[m.Event]:
        """The next ``n`` events, leaving out DeviceUnavailable (its count depends on timing)."""
        out: list[m.Event] = []
        end = time.monotonic() + timeout
        while len(out) < n:
            try:
                event = self.events.get(timeout=max(0.0, end - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"got {out}, expected {n} events within {timeout} s") from None
            if isinstance(event, m.DeviceUnavailable):
                continue
            if event.event_id is not None:
                self.last_id = event.event_id
                if commit:
                    self.driver.commit(event.event_id)
            out.append(event)
        return out

    def one(self, timeout: float = 3.0) -> m.Event:
        return self.take(1, timeout)[0]

    def connect(self) -> list[m.Event]:
        """DeviceConnected, then the events the device held: all of them, by id."""
        assert isinstance(self.one(), m.DeviceConnected)
        status = self.sim.control("status")
        return self.take(int(status["next_event_id"]) - 1 - self.last_id)

    def quiet(self, seconds: float) -> None:
        """Nothing but DeviceUnavailable arrives for ``seconds``."""
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            try:
                event = self.events.get(timeout=left)
            except queue.Empty:
                return
            assert isinstance(event, m.DeviceUnavailable), f"unexpected {event}"

    def stop(self) -> None:
        self.driver.stop()


Start = Callable[..., tuple[SimProcess, Host]]


def launcher(tmp_path: Path) -> Iterator[Start]:
    """start(kind, args) -> a running simulator and a started host; both stopped after,
    the hosts first."""
    running: list[SimProcess] = []
    drivers = Drivers()

    def _start(
        kind: str, args: Sequence[str] = (), *, name: str | None = None
    ) -> tuple[SimProcess, Host]:
        sim = SimProcess(kind, tmp_path, KEY, args, name=name).start()
        running.append(sim)
        return sim, Host(sim, drivers)

    yield _start
    drivers.stop()
    for sim in running:
        assert sim.stop() == 0


def tokens(events: Sequence[m.Event]) -> list[str]:
    out = []
    for e in events:
        if isinstance(e, m.CardDrawn):
            out.append(e.token + ("^" if e.face_up else ""))
        else:
            out.append(type(e).__name__)
    return out


def wait_status(sim: SimProcess, key: str, value: object, timeout: float = 2.0) -> None:
    end = time.monotonic() + timeout
    while sim.control("status")[key] != value:
        assert time.monotonic() < end, f"status {key} never became {value!r}"
        time.sleep(0.01)
