"""``tablectl run --simulate --manual`` played by hand, as the web process plays it: the
daemon a real process on its simulators' pseudo-terminals, the dealer's and
floorperson's commands over its sockets, the cards drawn and shuffles started with
``controller.simpanel.SimulatedDevices`` (docs/manual.md)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from controller.bench.simulated import autoplay_scenario
from controller.games import GAMES
from controller.simpanel import PanelError, SimulatedDevices
from tests.support.manual import ManualTable


def _played(t: ManualTable, wager: dict[str, object], stand: bool = True) -> dict[str, Any]:
    """One round by hand, each step what ``status`` says the table needs and takes."""
    wagered = False
    for _ in range(400):
        table = t.status()
        assert table is not None
        if table["rounds_played"] == 1:
            return table
        need, accepts = table["need"], table["accepts"]
        if "offer_answer" in accepts:  # Baccarat's cut and shoe, offered seat by seat
            offer = t.last("offer")
            answer = "decline"
            reply = t.command(
                "dealer", "offer_answer", what=offer["what"], seat=offer["seat"], answer=answer
            )
        elif need == "shuffle":
            t.panel.shuffle()
            t.wait(lambda s: s["need"] != "shuffle", "the shuffle")
            continue
        elif need == "card":
            t.draw()
            continue
        elif need == "wagers":
            name, args = ("no_more_bets", {}) if wagered else ("wager", wager)
            assert name in accepts
            reply = t.command("dealer", name, **args)
            wagered = True
        elif need == "inspection":
            reply = t.command("floor", "inspect_reader")
            t.wait(lambda s: s["need"] != "inspection" and s["need"] != "device", "inspection")
        elif need == "peek":
            assert t.panel.insert_hole_card() == {"inserted": True}  # no card in the reply
            t.wait(lambda s: s["need"] not in ("peek", "device"), "the peek")
            continue
        elif need == "decision":
            decision = table["decision"]
            assert "stand" in decision["allowed"] and "decision" in accepts
            reply = t.command("dealer", "decision", box=decision["box"], decision="stand")
        elif need == "reveal":
            reply = t.command("dealer", "dealers_card")
        else:
            time.sleep(0.05)  # a device's answer on its way
            continue
        assert reply.get("outcome") == "done", f"{reply} {t.status()}"
    raise AssertionError(f"the round did not end: {t.status()}")


def test_a_baccarat_round_played_by_hand(tmp_path: Path) -> None:
    t = ManualTable(tmp_path, "baccarat")
    try:
        time.sleep(1.0)
        before = t.status()
        assert before is not None and before["need"] == "shuffle"
        # The robot is off: nothing is shuffled or drawn until the panel asks.
        assert [e for e in t.journal() if e.get("event") in ("card_drawn", "shuffle_started")] == []
        table = _played(t, {"seat": 1, "bet": "banker", "amount": 25})
    finally:
        code, err = t.stop()
    assert code == 0, err
    journal = t.journal()
    (round_end,) = [e for e in journal if e["type"] == "round_end"]
    assert round_end["round"] == 1
    assert table["need"] == "wagers" and "wager" in table["accepts"]
    commands = [e for e in journal if e["type"] == "command"]
    assert commands and all(e["login"] == "tester" for e in commands)


def _peek_seed() -> int:
    """A shoe whose first up card is a K, Q or J over a hole card that is no ace: the
    reader peeks and play goes on (551.8(e)); found from the seeded order, as the
    simulated shoe deals it (burn, box 1, up card, box 1, hole card)."""
    rules = GAMES["spanish21"].defaults()
    for seed in range(1000):
        order = autoplay_scenario(rules, seed).order
        if order[2][0] in "KQJ" and order[4][0] != "A":
            return seed
    raise AssertionError("no seed deals a K, Q or J up card")


def test_a_spanish21_round_with_a_peek_played_by_hand(tmp_path: Path) -> None:
    t = ManualTable(tmp_path, "spanish21", seed=_peek_seed())
    try:
        table = _played(t, {"seat": 1, "bet": "spanish21", "amount": 10})
        with pytest.raises(PanelError, match=r"^insert_hole_card: the reader is not waiting"):
            t.panel.insert_hole_card()  # no hole card in the reader's wait now
    finally:
        code, err = t.stop()
    assert code == 0, err
    journal = t.journal()
    (round_end,) = [e for e in journal if e["type"] == "round_end"]
    assert round_end["round"] == 1
    assert [e["event"] for e in journal if e.get("device") == "reader"][-2:] == [
        "card_inserted",
        "peek_result",
    ]
    # The hole card was sealed until "Dealer's Card" (551.8(e)).
    sealed = [e for e in journal if e.get("type") == "dealt" and e.get("sealed")]
    assert sealed and all(e["card"] is None for e in sealed)
    assert table["need"] == "wagers"


def test_the_panel_refuses_in_one_line(tmp_path: Path) -> None:
    t = ManualTable(tmp_path, "baccarat")
    try:
        panel = t.panel
        with pytest.raises(PanelError, match=r"^insert_hole_card: no reader at this table$"):
            panel.insert_hole_card()
        with pytest.raises(PanelError, match=r"^unplug: no device 'printer'; expected shoe"):
            panel.unplug("printer", 100)
        with pytest.raises(PanelError, match=r"^unplug: ms must be a whole number"):
            panel.unplug("shoe", -1)
        with pytest.raises(PanelError, match=r"^reader_malfunction: code must be"):
            panel.reader_malfunction(256)
        with pytest.raises(PanelError, match=r"^reader malfunction: no reader at this table \("):
            panel.reader_malfunction(3)
        assert sorted(panel.status()) == ["shoe", "shuffler"]
        assert panel.status()["shoe"]["cards_left"] == 416
        assert panel.face_up() == {} and panel.jam() == {}
        gone = SimulatedDevices(tmp_path / "nowhere")
        with pytest.raises(PanelError, match=r"^shoe draw: no shoe at this table \("):
            gone.draw()
    finally:
        code, err = t.stop()
    assert code == 0, err


def test_an_unplugged_shoe_stops_play_and_the_floor_clears_it(tmp_path: Path) -> None:
    t = ManualTable(tmp_path, "baccarat")
    try:
        assert t.panel.unplug("shoe", 300) == {}
        halted = t.wait(lambda s: s["need"] == "floor", "the halt")
        assert halted["accepts"] == ["call_floor", "floor_clear"]
        assert (
            t.command("dealer", "call_floor", reason="the shoe is unplugged")["outcome"] == "done"
        )
        t.wait(lambda s: s["devices"]["shoe"] == "connected", "the shoe back")
        assert t.command("floor", "floor_clear")["outcome"] == "done"
        assert t.status()["need"] == "shuffle"  # type: ignore[index]
    finally:
        code, err = t.stop()
    assert code == 0, err
    calls = [e for e in t.journal() if e.get("command") == "call_floor"]
    assert calls == [
        {
            "type": "command",
            "command": "call_floor",
            "reason": "the shoe is unplugged",
            "login": "tester",
        }
    ]
