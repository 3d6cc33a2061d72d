"""Each simulated device as a real process on a real pty, driven by the host drivers."""

from __future__ import annotations

import queue
import random
import time
from collections.abc import Sequence
from pathlib import Path

import pytest

from drivers import messages as m
from drivers.device import DeviceDriver
from firmware_sim.harness import SimError, SimProcess
from tests.support.devices import KEY, Drivers
from tests.support.sim import FAST, Host, Start, tokens, wait_status


def ids(events: Sequence[m.Event]) -> list[int | None]:
    return [e.event_id for e in events]


# --------------------------------------------------------------------------- shoe


def test_stacked_shoe_deals_in_order(start: Start) -> None:
    sim, host = start("shoe", ["--cards", "AS 10D kh CUT 2C"])
    loaded = host.connect()
    assert loaded == [m.CardsLoaded("shoe", 1, 4)]
    assert sim.control("draw", count=5) == {"ok": True, "event_ids": [2, 3, 4, 5, 6, 7]}
    events = host.take(6)
    assert tokens(events) == ["AS", "TD", "KH", "CutCardSeen", "2C", "ShoeEmpty"]
    assert ids(events) == [2, 3, 4, 5, 6, 7]
    host.quiet(0.1)
    status = sim.control("status")
    assert status["cards_left"] == 0
    assert status["connected"] is True
    assert status["sessions"] == 1
    with pytest.raises(SimError, match="the shoe is empty"):
        sim.control("draw")


def test_seeded_spanish_shoe_deals_the_seeded_shuffle(start: Start, tmp_path: Path) -> None:
    _, host = start(
        "shoe", ["--decks", "1", "--spanish", "--seed", "42", "--cut-at", "10", "--pace", "instant"]
    )
    reference = [r + s for s in "SHDC" for r in "A23456789JQK"]
    random.Random(42).shuffle(reference)
    events = host.take(1 + 1 + 49 + 1)  # connected, loaded, 48 cards and the cut card, empty
    assert events[1] == m.CardsLoaded("shoe", 1, 48)
    dealt = tokens(events[2:])
    assert dealt[-1] == "ShoeEmpty"
    assert dealt[-12] == "CutCardSeen"  # ten cards from the end
    assert dealt[:-12] + dealt[-11:-1] == reference
    assert ids(events[1:]) == list(range(1, 52))


def test_instant_pace_deals_at_link_speed_and_keeps_every_uncommitted_event(
    tmp_path: Path, drivers: Drivers
) -> None:
    sim = SimProcess("shoe", tmp_path, KEY, ["--decks", "1", "--seed", "1", "--pace", "instant"])
    with sim:
        events: queue.Queue[m.Event] = queue.Queue()
        driver: DeviceDriver = drivers.start(sim.driver(events, config=FAST))
        try:
            # Nothing is committed: the link still carries the whole shoe, and the
            # device keeps every event until the host says it is recorded.
            got = [events.get(timeout=2) for _ in range(2 + 52 + 1)]
            assert [type(e) for e in got[:2]] == [m.DeviceConnected, m.CardsLoaded]
            assert all(isinstance(e, m.CardDrawn) for e in got[2:-1])
            assert isinstance(got[-1], m.ShoeEmpty)
            assert sim.control("status")["backlog"] == 1 + 52 + 1
            driver.commit(got[30].event_id or 0)
            wait_status(sim, "backlog", 1 + 52 + 1 - (got[30].event_id or 0))
            driver.commit(got[-1].event_id or 0)
            wait_status(sim, "backlog", 0)
        finally:
            drivers.stop()  # before the simulator


def test_realistic_pace_deals_only_while_connected(tmp_path: Path, drivers: Drivers) -> None:
    with SimProcess(
        "shoe", tmp_path, KEY, ["--cards", "AS KS QS JS", "--pace", "realistic", "--pace-ms", "100"]
    ) as sim:
        time.sleep(0.25)
        assert sim.control("status")["cards_left"] == 4
        host = Host(sim, drivers)
        try:
            host.connect()
            first = host.one()
            t1 = time.monotonic()
            second = host.one()
            gap = time.monotonic() - t1
            assert tokens([first, second]) == ["AS", "KS"]
            assert 0.08 <= gap < 0.3
        finally:
            host.stop()


def test_display_status_and_lid(start: Start) -> None:
    sim, host = start("shoe", ["--cards", "AS KS"])
    host.connect()
    host.driver.display("BANKER DRAWS")
    wait_status(sim, "display", "BANKER DRAWS")
    host.driver.request_status()
    assert host.one() == m.Status("shoe", None, m.StatusState.IDLE, 2, 0)
    assert sim.control("lid", open=True)["event_ids"] == [2]
    assert host.one() == m.LidChanged("shoe", 2, True)
    host.driver.request_status()
    assert host.one() == m.Status("shoe", None, m.StatusState.IDLE, 2, m.STATUS_FLAG_OPEN)
    sim.control("lid", open=False)
    assert host.one() == m.LidChanged("shoe", 3, False)
    assert sim.control("status")["lid_open"] is False


def test_shoe_fault_commands(start: Start) -> None:
    sim, host = start("shoe", ["--cards", "AS KS QS JS 9H"])
    host.connect()
    sim.control("unreadable")
    sim.control("face_up")
    sim.control("draw", count=2)
    assert tokens(host.take(2)) == ["UnreadableCard", "KS"]  # the misread card used both
    sim.control("face_up")
    sim.control("draw")
    assert tokens(host.take(1)) == ["QS^"]
    assert sim.control("ten") == {"ok": True, "cards_left": 3}
    sim.control("draw")
    (ten,) = host.take(1)
    assert isinstance(ten, m.CardDrawn) and ten.rank == "T" and ten.suit in "SHDC"
    sim.control("fault", code=int(m.FaultCode.SENSOR), detail=513)
    assert host.one() == m.DeviceFault("shoe", 6, m.FaultCode.SENSOR, 513)
    host.driver.request_status()
    assert host.one() == m.Status("shoe", None, m.StatusState.FAULT, 2, 0)
    assert sim.control("load", cards=["QD", "10c", "CUT"])["event_ids"] == [7]
    assert host.one() == m.CardsLoaded("shoe", 7, 2)
    with pytest.raises(SimError, match="not a card: 'ZZ'"):
        sim.control("load", cards=["ZZ"])
    sim.control("draw", count=3)
    assert tokens(host.take(4)) == ["QD", "TC", "CutCardSeen", "ShoeEmpty"]
    host.driver.request_status()
    assert host.one() == m.Status("shoe", None, m.StatusState.IDLE, 0, 0)


# --------------------------------------------------------------------------- reader


def arm(sim: SimProcess, host: Host, target: m.PeekTarget) -> None:
    host.driver.arm(target)
    wait_status(sim, "armed", True)


def test_reader_peeks_once_per_arming(start: Start) -> None:
    # 551.8(e): the reader answers blackjack yes or no, once per insertion it was armed for
    sim, host = start("reader")
    assert host.connect() == []
    answers = []
    for target, card in [
        (m.PeekTarget.TEN_VALUE, "KS"),
        (m.PeekTarget.TEN_VALUE, "9S"),
        (m.PeekTarget.ACE, "AD"),
        (m.PeekTarget.ACE, "JD"),
    ]:
        arm(sim, host, target)
        host.driver.request_status()
        assert host.one() == m.Status("reader", None, 0, 0, m.STATUS_FLAG_ARMED)
        sim.control("insert", card=card)
        inserted, peek = host.take(2)
        assert inserted == m.CardInserted("reader", inserted.event_id, True)
        assert isinstance(peek, m.PeekResult)
        answers.append(peek.blackjack)
        assert sim.control("status")["armed"] is False
    assert answers == [True, False, True, False]
    sim.control("insert", card="AS")  # not armed: no peek
    assert tokens(host.take(1)) == ["CardInserted"]
    host.quiet(0.1)
    arm(sim, host, m.PeekTarget.ACE)
    host.driver.disarm()
    wait_status(sim, "armed", False)
    sim.control("insert", card="AS")
    assert host.one() == m.CardInserted("reader", 10, False)
    sim.control("wrong_answer")
    arm(sim, host, m.PeekTarget.ACE)
    sim.control("insert", card="AS")
    assert host.take(2)[1] == m.PeekResult("reader", 12, False)
    with pytest.raises(SimError, match="not a card"):
        sim.control("insert", card="CUT")


def test_reader_self_test_and_faults(start: Start) -> None:
    sim, host = start("reader")
    host.connect()
    host.driver.self_test()
    assert host.one() == m.SelfTestResult("reader", 1, True, 0)
    sim.control("self_test_fail", code=9)
    host.driver.self_test()
    assert host.one() == m.SelfTestResult("reader", 2, False, 9)
    sim.control("malfunction", code=3)
    assert host.one() == m.ReaderMalfunction("reader", 3, 3)
    sim.control("tamper")
    assert host.one() == m.ReaderTamper("reader", 4)
    host.driver.request_status()
    assert host.one() == m.Status("reader", None, m.StatusState.FAULT, 0, 0)
    host.driver.self_test()
    assert host.one() == m.SelfTestResult("reader", 5, True, 0)
    host.driver.request_status()
    assert host.one() == m.Status("reader", None, m.StatusState.IDLE, 0, 0)
    with pytest.raises(SimError, match="unknown command 'draw' for a reader"):
        sim.control("draw")


# --------------------------------------------------------------------------- shuffler


def test_shuffler_shuffles_spanish_decks(start: Start) -> None:
    _, host = start("shuffler", ["--decks", "6", "--spanish", "--shuffle-ms", "200"])
    assert host.connect() == [m.ShufflerAttached("shuffler", 1)]
    host.driver.start_shuffle()
    assert host.one() == m.ShuffleStarted("shuffler", 2)
    t0 = time.monotonic()
    host.driver.request_status()
    assert host.one() == m.Status("shuffler", None, m.StatusState.BUSY, 288, 0)
    assert host.take(2) == [
        m.ShuffleCompleted("shuffler", 3, 288),
        m.BatchReady("shuffler", 4, 288),
    ]
    assert time.monotonic() - t0 >= 0.15
    host.driver.request_status()
    assert host.one() == m.Status("shuffler", None, m.StatusState.IDLE, 288, 0)


def test_shuffler_fault_commands(start: Start) -> None:
    sim, host = start("shuffler", ["--decks", "2"])
    host.connect()
    sim.control("jam")
    sim.control("shuffle")
    assert tokens(host.take(2)) == ["ShuffleStarted", "ShufflerJam"]
    host.driver.request_status()
    assert host.one() == m.Status("shuffler", None, m.StatusState.FAULT, 104, 0)
    sim.control("incomplete")
    host.driver.start_shuffle()
    assert tokens(host.take(2)) == ["ShuffleStarted", "CycleIncomplete"]
    sim.control("wrong_count", delta=-2)
    sim.control("shuffle")
    assert host.take(3)[1:] == [
        m.ShuffleCompleted("shuffler", 7, 102),
        m.BatchReady("shuffler", 8, 104),
    ]
    sim.control("door", open=True)
    assert host.one() == m.DoorChanged("shuffler", 9, True)
    sim.control("remove")
    assert host.one() == m.ShufflerRemoved("shuffler", 10)
    with pytest.raises(SimError, match="removed"):
        sim.control("shuffle")
    sim.control("attach")
    assert host.one() == m.ShufflerAttached("shuffler", 11)
    sim.control("stop")
    assert host.one() == m.ShufflerStopped("shuffler", 12)
    host.quiet(0.1)


def test_stop_ends_a_running_shuffle(start: Start) -> None:
    sim, host = start("shuffler", ["--shuffle-ms", "200"])
    host.connect()
    sim.control("shuffle")
    with pytest.raises(SimError, match="already running"):
        sim.control("shuffle")
    sim.control("stop")
    assert tokens(host.take(2)) == ["ShuffleStarted", "ShufflerStopped"]
    host.quiet(0.3)  # no completion after a stop
    assert sim.control("status")["shuffling"] is False
