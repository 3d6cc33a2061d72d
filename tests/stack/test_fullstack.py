"""Full stack over real pseudo-terminals: simulator processes <-> serial transport,
link and drivers, with faults injected by the simulator."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import random
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from drivers import messages as m
from drivers.device import DeviceDriver, DriverConfig, ShoeDriver, ShufflerDriver
from drivers.link import LinkConfig
from drivers.transport import SerialTransport
from firmware_sim.harness import SimProcess
from tests.support.devices import KEY, Drivers, next_event

RANKS = "A23456789TJQK"
SUITS = "SHDC"


def eight_deck_stack(seed: int) -> list[str]:
    cards = [r + s for r in RANKS for s in SUITS] * 8
    random.Random(seed).shuffle(cards)
    cards.insert(len(cards) - 16, "CUT")  # cover card 16 from the bottom
    return cards


@pytest.fixture
def sims(tmp_path: Path) -> Iterator[list[SimProcess]]:
    started: list[SimProcess] = []
    yield started
    for sim in started:
        sim.stop()


def driver_for(
    drivers: Drivers,
    cls: type[DeviceDriver],
    sim: SimProcess,
    q: queue.Queue[m.Event],
    approved: list[bytes] | None = None,
    config: DriverConfig | None = None,
) -> DeviceDriver:
    path = str(sim.link_path)
    drv = cls(
        sim.name if hasattr(sim, "name") else "dev",
        lambda: SerialTransport(path),
        KEY,
        q,
        approved if approved is not None else [sim.firmware_hash],
        config=config,
    )
    return drivers.start(drv)


def test_eight_deck_shoe_survives_faults_and_two_unplugs(
    tmp_path: Path, sims: list[SimProcess], drivers: Drivers
) -> None:
    stack = eight_deck_stack(seed=2026)
    stack_file = tmp_path / "stack.json"
    stack_file.write_text(json.dumps(stack))
    faults = tmp_path / "faults.json"
    faults.write_text(
        json.dumps({"seed": 5, "rates": {"corrupt": 0.01, "drop": 0.01, "duplicate": 0.01}})
    )
    sim = SimProcess(
        "shoe",
        tmp_path,
        KEY,
        ["--stack-file", str(stack_file), "--pace", "manual", "--faults", str(faults)],
    )
    sims.append(sim.start())
    q: queue.Queue[m.Event] = queue.Queue()
    drv = driver_for(drivers, ShoeDriver, sim, q)
    next_event(q, m.DeviceConnected, timeout=5)
    tokens: list[str] = []
    ids: list[int] = []
    lost = connected = 0
    cut_at: int | None = None
    empty = False
    unplug_at = {140, 280}
    requested = 0
    deadline = time.monotonic() + 60
    while not empty:
        assert time.monotonic() < deadline, f"stalled after {len(tokens)} cards"
        # Deal card by card: the next card leaves the shoe once the last one is in.
        if requested == len(tokens) + (cut_at is not None) and requested < len(stack):
            if len(tokens) in unplug_at:
                unplug_at.discard(len(tokens))
                sim.control("unplug", duration_ms=300)
            sim.control("draw", count=1)
            requested += 1
        try:
            event = q.get(timeout=0.05)
        except queue.Empty:
            continue
        if isinstance(event, m.CardDrawn):
            tokens.append(event.token)
        elif isinstance(event, m.CutCardSeen):
            cut_at = len(tokens)
        elif isinstance(event, m.ShoeEmpty):
            empty = True
        elif isinstance(event, m.DeviceLost):
            lost += 1
        elif isinstance(event, m.DeviceConnected):
            connected += 1
        elif isinstance(event, (m.CardsLoaded, m.DeviceUnavailable)):
            pass  # loaded at start; the port is missing while unplugged
        else:
            raise AssertionError(f"unexpected {event!r}")
        if event.event_id is not None:
            ids.append(event.event_id)
            drv.commit(event.event_id)
    real = [c for c in stack if c != "CUT"]
    assert tokens == real  # every card, in order, none lost, none twice
    assert cut_at == stack.index("CUT")
    assert ids == list(range(ids[0], ids[0] + len(ids)))  # event ids: no gap, no repeat
    assert (lost, connected) == (2, 2)
    status = sim.control("status")
    deadline = time.monotonic() + 3
    while status["backlog"] and time.monotonic() < deadline:
        time.sleep(0.05)
        status = sim.control("status")
    assert status["backlog"] == 0  # everything committed was acknowledged
    stats = drv.link_stats
    assert stats["garbage_bytes"] > 0 and stats["duplicates"] + stats["out_of_order"] > 0


@pytest.mark.parametrize("timeout", [1.0, 0.4])
def test_lost_link_is_detected_within_the_configured_time(
    tmp_path: Path, sims: list[SimProcess], drivers: Drivers, timeout: float
) -> None:
    sim = SimProcess("shuffler", tmp_path, KEY)
    sims.append(sim.start())
    q: queue.Queue[m.Event] = queue.Queue()
    cfg = DriverConfig(link=LinkConfig(link_timeout=timeout))
    driver_for(drivers, ShufflerDriver, sim, q, config=cfg)
    next_event(q, m.DeviceConnected)
    time.sleep(0.5)
    sim.control("silent", duration_ms=int(timeout * 3000))
    went_silent = time.monotonic()
    next_event(q, m.DeviceLost, timeout=timeout + 1)
    detected = time.monotonic() - went_silent
    # Heard at most one heartbeat interval before the silence began.
    assert timeout - cfg.link.heartbeat_interval - 0.05 <= detected <= timeout + 0.1
    next_event(q, m.DeviceConnected, timeout=timeout * 3 + 3)  # back after the silence


def test_an_idle_link_stays_up_and_a_hung_or_killed_simulator_is_lost_in_time(
    tmp_path: Path, sims: list[SimProcess], drivers: Drivers
) -> None:
    # The default lost-link time (docs/protocol.md 7.7: 1.0 s); the device heartbeats
    # at a third of it (7.6), the host answers.
    sim = SimProcess("shuffler", tmp_path, KEY)
    sims.append(sim.start())
    q: queue.Queue[m.Event] = queue.Queue()
    drv = driver_for(drivers, ShufflerDriver, sim, q)
    next_event(q, m.DeviceConnected)
    rx = drv.link_stats["frames_rx"]
    time.sleep(3)
    idle_events = [q.get_nowait() for _ in range(q.qsize())]
    assert drv.connected.is_set()
    assert not [e for e in idle_events if isinstance(e, m.DeviceLost)]  # no loss while idle
    assert drv.link_stats["frames_rx"] - rx >= 6  # about three heartbeats a second
    assert sim.process is not None
    timeout = LinkConfig().link_timeout
    os.kill(sim.process.pid, signal.SIGSTOP)  # hung: the port stays open, nothing comes
    try:
        stopped = time.monotonic()
        next_event(q, m.DeviceLost, timeout=timeout + 1)
        assert time.monotonic() - stopped <= timeout + 0.1
    finally:
        os.kill(sim.process.pid, signal.SIGCONT)
    next_event(q, m.DeviceConnected, timeout=5)
    sim.process.kill()  # killed: its end of the port closes
    killed = time.monotonic()
    next_event(q, m.DeviceLost, timeout=timeout + 1)
    assert time.monotonic() - killed <= timeout + 0.1


def test_unplugged_device_is_reported_lost_at_once(
    tmp_path: Path, sims: list[SimProcess], drivers: Drivers
) -> None:
    sim = SimProcess("shoe", tmp_path, KEY, ["--decks", "1", "--seed", "3", "--pace", "manual"])
    sims.append(sim.start())
    q: queue.Queue[m.Event] = queue.Queue()
    driver_for(drivers, ShoeDriver, sim, q)
    next_event(q, m.DeviceConnected)
    sim.control("unplug", duration_ms=500)
    t0 = time.monotonic()
    lost = next_event(q, m.DeviceLost, timeout=2)
    assert time.monotonic() - t0 < 0.5
    assert lost.reason  # type: ignore[attr-defined]
    next_event(q, m.DeviceConnected, timeout=5)


@pytest.mark.parametrize(
    ("kind", "args", "approve", "reason"),
    [
        ("shuffler", [], True, "wrong_kind"),  # the shoe's port answered by a shuffler
        ("shoe", ["--protocol-version", "2"], True, "protocol_version"),
        ("shoe", ["--firmware-version", "9.9.9-unapproved"], False, "firmware_not_approved"),
    ],
)
def test_refused_handshakes_with_real_simulators(
    tmp_path: Path,
    sims: list[SimProcess],
    drivers: Drivers,
    kind: str,
    args: list[str],
    approve: bool,
    reason: str,
) -> None:
    sim = SimProcess(kind, tmp_path, KEY, args)
    sims.append(sim.start())
    q: queue.Queue[m.Event] = queue.Queue()
    driver_for(drivers, ShoeDriver, sim, q, approved=[sim.firmware_hash] if approve else [])
    refused = next_event(q, m.DeviceRefused, timeout=5)
    assert refused.reason == reason  # type: ignore[attr-defined]
    deadline = time.monotonic() + 2
    while sim.control("status").get("refused") is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert sim.control("status").get("refused") is not None


def test_device_with_another_key_is_never_connected(
    tmp_path: Path, sims: list[SimProcess], drivers: Drivers
) -> None:
    # It cannot authenticate the HELLO, so it never answers; nor could it forge a reply.
    sim = SimProcess("shoe", tmp_path, b"\x42" * 32, ["--decks", "1", "--pace", "manual"])
    sims.append(sim.start())
    q: queue.Queue[m.Event] = queue.Queue()
    drv = driver_for(drivers, ShoeDriver, sim, q)
    event = next_event(q, m.DeviceUnavailable, timeout=5)
    assert "no answer to HELLO" in event.reason  # type: ignore[attr-defined]
    time.sleep(1.0)
    assert not drv.connected.is_set()
    assert sim.control("status")["connected"] is False


def test_device_sending_only_garbage_is_reported_once_and_nothing_crashes(
    tmp_path: Path, drivers: Drivers
) -> None:
    import os
    import threading
    import tty

    master, slave = os.openpty()
    tty.setraw(slave)
    link = tmp_path / "noisy"
    link.symlink_to(os.ttyname(slave))
    stop = threading.Event()

    def spew() -> None:
        rng = random.Random(9)
        while not stop.is_set():
            # Garbage, with SYNC bytes and plausible headers among it.
            junk = bytes(rng.choice((0xA5, rng.randrange(256))) for _ in range(64))
            with contextlib.suppress(OSError):
                os.write(master, junk)
            time.sleep(0.01)

    spewer = threading.Thread(target=spew, daemon=True)
    spewer.start()
    q: queue.Queue[m.Event] = queue.Queue()
    drv = drivers.start(ShoeDriver("shoe", lambda: SerialTransport(str(link)), KEY, q, []))
    try:
        event = next_event(q, m.DeviceUnavailable, timeout=5)
        assert "no answer to HELLO" in event.reason  # type: ignore[attr-defined]
        time.sleep(2.5)  # several more attempts
        assert q.empty()
        assert drv._thread is not None and drv._thread.is_alive()
    finally:
        drivers.stop()  # before its port closes
        stop.set()
        spewer.join(2)
        os.close(master)
        os.close(slave)


def test_busy_port_is_reported_as_a_fault_event(
    tmp_path: Path, sims: list[SimProcess], drivers: Drivers
) -> None:
    sim = SimProcess("shoe", tmp_path, KEY, ["--decks", "1", "--pace", "manual"])
    sims.append(sim.start())
    holder = SerialTransport(str(sim.link_path))
    holder.open()  # another process's exclusive hold, as far as the driver can tell
    q: queue.Queue[m.Event] = queue.Queue()
    driver_for(drivers, ShoeDriver, sim, q)
    event = next_event(q, m.DeviceUnavailable, timeout=5)
    assert "in use by another process" in event.reason  # type: ignore[attr-defined]
    holder.close()
    next_event(q, m.DeviceConnected, timeout=5)  # retried with backoff, then connected
