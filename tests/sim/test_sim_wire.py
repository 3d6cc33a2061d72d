"""The simulator's port as the host sees it: unplug and replug, silence, wire faults,
and an idle simulator that sleeps."""

from __future__ import annotations

import json
import os
import termios
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from drivers import messages as m
from drivers.device import DriverConfig
from drivers.link import LinkConfig
from firmware_sim.harness import SimError, SimProcess
from tests.support.devices import KEY, Drivers
from tests.support.sim import Host, Start, tokens, wait_status

# --------------------------------------------------------------------------- unplug, silence


def test_published_port_is_a_raw_tty(tmp_path: Path) -> None:
    """Raw from the start: no echo of the host's frames, no newline translation."""
    with SimProcess("reader", tmp_path, KEY) as sim:
        fd = os.open(sim.link_path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        try:
            iflag, oflag, _cflag, lflag, *_ = termios.tcgetattr(fd)
        finally:
            os.close(fd)
        assert lflag & (termios.ECHO | termios.ICANON | termios.ISIG) == 0
        assert oflag & termios.OPOST == 0
        assert iflag & (termios.ICRNL | termios.IXON) == 0
        assert os.readlink(sim.link_path) == sim.control("status")["tty"]


def test_unplug_replug_loses_and_repeats_nothing(start: Start) -> None:
    sim, host = start("shoe", ["--cards", "AS KS QS JS TS 9S"])
    host.connect()
    sim.control("draw", count=2)
    assert tokens(host.take(1)) == ["AS"]
    held = host.take(1, commit=False)[0]  # delivered, not yet journaled: the device keeps it
    wait_status(sim, "backlog", 1)
    # Event 4 is in flight (held back on the wire) when the cable is pulled.
    sim.control("faults", script=[{"at_event": 4, "fault": "delay", "delay_ms": 2000}])
    sim.control("draw")  # QS
    sim.control("unplug", duration_ms=300)
    assert isinstance(host.one(), m.DeviceLost)
    status = sim.control("status")
    assert (status["plugged"], status["connected"], status["backlog"]) == (False, False, 2)
    assert not sim.link_path.exists() and not sim.link_path.is_symlink()
    with pytest.raises(SimError, match="already unplugged"):
        sim.control("unplug", duration_ms=10)
    sim.control("draw", count=2)  # dealt while unplugged: kept for the host
    assert isinstance(host.one(), m.DeviceConnected)
    host.driver.commit(held.event_id)
    events = host.take(3)
    assert tokens(events) == ["QS", "JS", "TS"]
    assert [e.event_id for e in events] == [4, 5, 6]
    host.quiet(0.2)  # event 3 was replayed too, and dropped by the driver as seen
    status = sim.control("status")
    assert (status["plugged"], status["sessions"], status["next_event_id"]) == (True, 2, 7)
    wait_status(sim, "backlog", 0)


def test_silent_device_is_lost_then_resumes(tmp_path: Path, drivers: Drivers) -> None:
    sim = SimProcess("shuffler", tmp_path, KEY).start()
    config = DriverConfig(link=LinkConfig(link_timeout=0.5), reconnect_min=0.02)
    host = Host(sim, drivers, config)
    try:
        host.connect()
        sim.control("silent", duration_ms=800)
        assert sim.control("status")["silent"] is True
        sim.control("shuffle")
        assert isinstance(host.one(), m.DeviceLost)
        assert isinstance(host.one(timeout=4), m.DeviceConnected)
        assert tokens(host.take(3)) == ["ShuffleStarted", "ShuffleCompleted", "BatchReady"]
        host.quiet(0.2)
        status = sim.control("status")
        assert (status["silent"], status["sessions"]) == (False, 2)
    finally:
        host.stop()
        assert sim.stop() == 0


# --------------------------------------------------------------------------- wire faults


def eventually(check: Callable[[], bool], timeout: float = 2.0) -> None:
    end = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < end, "condition not met in time"
        time.sleep(0.01)


def test_scripted_wire_faults_each_leave_their_mark(start: Start, tmp_path: Path) -> None:
    faults = tmp_path / "faults.json"
    script = [
        {"at_event": 2, "fault": "corrupt"},
        {"at_event": 4, "fault": "drop"},
        {"at_event": 6, "fault": "duplicate"},
        {"at_event": 8, "fault": "delay", "delay_ms": 300},
        {"at_event": 10, "fault": "nak"},
    ]
    faults.write_text(json.dumps({"seed": 1, "script": script}))
    sim, host = start("shoe", ["--cards", "AS " * 10, "--faults", str(faults)])
    host.connect()

    dealt: list[m.Event] = []

    def deal() -> tuple[dict[str, int], dict[str, int], float]:
        """Deal one card: how the host's and the device's link counters moved, and the time."""
        host_before = host.driver.link_stats
        dev_before = sim.control("status")["link"]
        t0 = time.monotonic()
        sim.control("draw")
        dealt.append(host.one())
        elapsed = time.monotonic() - t0
        host_after = host.driver.link_stats
        dev_after = sim.control("status")["link"]
        host_delta = {k: host_after[k] - host_before[k] for k in host_after}
        dev_delta = {k: dev_after[k] - dev_before[k] for k in dev_after}
        return host_delta, dev_delta, elapsed

    host_d, _, _ = deal()  # 2: corrupted, so the host skips garbage and asks again
    assert host_d["garbage_bytes"] > 0 and host_d["frames_rx"] >= 1
    deal()
    _, dev_d, _ = deal()  # 4: dropped, so the device sends it again
    assert dev_d["retransmits"] >= 1
    deal()
    duplicates = host.driver.link_stats["duplicates"]
    deal()  # 6: sent twice; the copy may still be on its way
    eventually(lambda: host.driver.link_stats["duplicates"] > duplicates)
    deal()
    _, _, elapsed = deal()  # 8: held back on the wire
    assert elapsed >= 0.3
    deal()
    assert host.driver.link_stats["naks_rx"] == 0
    deal()  # 10: followed by a NAK from the device
    wait_status(
        sim,
        "wire_faults",
        dict.fromkeys(("corrupted", "dropped", "duplicated", "delayed", "naks"), 1),
    )
    eventually(lambda: host.driver.link_stats["naks_rx"] == 1)
    assert [e.event_id for e in dealt] == list(range(2, 11))
    assert tokens(dealt) == ["AS"] * 9
    host.quiet(0.1)


def test_random_wire_faults_lose_and_repeat_nothing(start: Start) -> None:
    sim, host = start("shoe", ["--decks", "1", "--seed", "9"])
    host.connect()
    rates = {"corrupt": 0.1, "drop": 0.1, "duplicate": 0.1}
    sim.control("faults", seed=5, rates=rates)
    sim.control("draw", count=52)
    # A lost link (every frame may be hit) would reconnect and replay: count events only.
    events = [e for e in host.take(53, timeout=15) if e.event_id is not None]
    while len(events) < 53:
        events += [e for e in host.take(1, timeout=15) if e.event_id is not None]
    assert [e.event_id for e in events] == list(range(2, 55))
    assert len(set(tokens(events[:-1]))) == 52
    assert isinstance(events[-1], m.ShoeEmpty)
    host.quiet(0.2)
    counts = sim.control("status")["wire_faults"]
    assert counts["corrupted"] and counts["dropped"] and counts["duplicated"]
    sim.control("faults")  # an empty set replaces the rates
    sim.control("load", cards=["KD"])
    host.take(1)
    assert sim.control("status")["wire_faults"] == counts


# --------------------------------------------------------------------------- idle


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_idle_connected_simulator_sleeps(start: Start) -> None:
    sim, host = start("shoe", ["--decks", "1", "--pace", "manual"])
    host.connect()
    assert sim.process is not None
    before = cpu_seconds(sim.process.pid)
    time.sleep(1.0)
    used = cpu_seconds(sim.process.pid) - before
    assert used <= 0.02, f"idle simulator used {used:.3f} s of CPU in 1 s"
    assert sim.control("status")["connected"] is True
