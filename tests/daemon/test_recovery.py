"""A table rebuilt from its SQLite journal after a restart (controller.recovery): the
journal's inputs replayed into a fresh table, a round in play stopped for a floorperson,
and the hole card sealed in the journal yet recoverable (551.8(e))."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from controller.journal import Row, SqliteJournal
from controller.recovery import RecoveryError, resume
from controller.table.baccarat import BaccaratTable
from controller.table.events import (
    CallFloor,
    FloorClear,
    Journal,
    ManualShuffle,
    Need,
    NoMoreBets,
    Wager,
)
from controller.table.halts import HALTED, INTERRUPTED
from controller.table.seal import Sealer, opens
from drivers import messages as m
from tests.support.journal import MemoryJournal
from tests.support.recovery import (
    KEY,
    Crash,
    CrashAfter,
    Run,
    baccarat,
    baccarat_hand,
    command,
    play,
    script,
    spanish21,
)
from tests.support.tables import DAY, Devices


def reference(tmp_path: Path) -> dict[str, Any]:
    """The same round played without a restart: its round_end line."""
    run = Run(tmp_path / "reference.sqlite")
    run.open()
    play(run, script())
    (end,) = run.of_type("round_end")
    return end


def result(end: dict[str, Any]) -> tuple[object, object, object]:
    return end["dealer"], end["boxes"], end["void"]


# --------------------------------------------------------------------------- the seal


@pytest.mark.reg("551.8(e)", "551.8(h)")
def test_the_hole_card_is_sealed_in_the_journal_and_the_reveal_opens_the_seal(
    tmp_path: Path,
) -> None:
    run = Run(tmp_path / "j.sqlite")
    run.open()
    play(run, script()[:-1])
    rows = run.rows()
    reveal = next(i for i, e in enumerate(rows) if e["type"] == "reveal")
    before = json.dumps(rows[:reveal])
    hole = next(e for e in rows if e["type"] == "dealt" and e.get("sealed"))
    device = next(e for e in rows if e["type"] == "device" and e.get("sealed"))
    assert hole["seal"] == device["seal"] and hole["card"] is None
    assert '"5C"' not in before  # nowhere before the reveal, in any row
    (opened,) = rows[reveal]["opened"]
    assert opened["card"] == rows[reveal]["card"] == "5C"
    assert opens(device["seal"], opened["nonce"], "5C")
    assert not opens(device["seal"], opened["nonce"], "7C")


@pytest.mark.reg("551.8(e)")
def test_a_seal_is_checked_only_with_the_key_and_hides_the_card_without_it() -> None:
    sealer = Sealer(KEY)
    sealed = sealer.seal("QS")
    assert sealer.matches(sealed, "QS") and not sealer.matches(sealed, "QH")
    assert not Sealer(bytes(32)).matches(sealed, "QS")
    assert sealed.seal != Sealer(KEY).seal("QS").seal  # a fresh salt each time
    with pytest.raises(ValueError):
        Sealer(b"short")


# --------------------------------------------------------------------------- Spanish 21


def interrupted_at(tmp_path: Path, steps: int) -> Run:
    run = Run(tmp_path / "j.sqlite")
    run.open()
    play(run, script()[:steps])
    run.crash()
    return run


def finish(run: Run, steps: int) -> None:
    play(run, script()[steps:])


def test_a_restart_before_the_deal_rebuilds_the_round_and_play_goes_on(tmp_path: Path) -> None:
    run = interrupted_at(tmp_path, 3)  # "no more bets": not a card out yet
    assert run.restart() is None
    assert run.table.state == "dealing" and run.table.need is Need.CARD
    assert run.of_type("resumed")[-1]["interrupted"] is None
    finish(run, 3)
    assert result(run.of_type("round_end")[-1]) == result(reference(tmp_path))


@pytest.mark.reg("551.8(i)")
def test_a_restart_mid_deal_stops_for_the_floor_then_completes_the_round(tmp_path: Path) -> None:
    run = interrupted_at(tmp_path, 6)  # three cards dealt
    interrupted = run.restart()
    assert interrupted is not None and interrupted.seal is None
    assert [c["card"] for c in interrupted.cards] == ["8C", "9H", "AD"]
    assert not any(c.get("sealed") for c in interrupted.cards)
    assert run.table.state == HALTED and run.table.need is Need.FLOOR
    halt = run.of_type("halt")[-1]
    assert halt["cause"] == INTERRUPTED and "round 1" in halt["detail"]
    run.handle(NoMoreBets())  # nothing goes on until the floorperson clears
    assert run.of_type("refused")[-1]["command"] == "no_more_bets"
    run.handle(FloorClear())
    assert run.table.state == "dealing"
    finish(run, 6)
    assert result(run.of_type("round_end")[-1]) == result(reference(tmp_path))


@pytest.mark.reg("551.8(e)")
def test_after_the_peek_the_floorpersons_hole_card_is_checked_against_the_seal(
    tmp_path: Path,
) -> None:
    run = interrupted_at(tmp_path, 11)  # dealt, peeked, box 1 split
    interrupted = run.restart()
    assert interrupted is not None and interrupted.seal is not None
    (hole,) = [c for c in interrupted.cards if c.get("sealed")]
    assert hole["to"] == "dealer" and hole["card"] is None
    assert run.table.state == HALTED
    assert run.table.hands_of(1)[0].cards == ("8C",)  # the split is rebuilt
    run.handle(FloorClear(card="7C"))  # not the card under the seal
    refusal = run.of_type("refused")[-1]
    assert refusal["section"] == "551.8(e)" and refusal["card"] is None and refusal["sealed"]
    assert run.table.state == HALTED
    run.handle(FloorClear(card="5C"))
    assert run.table.state == "playing"
    finish(run, 11)
    end = run.of_type("round_end")[-1]
    assert result(end) == result(reference(tmp_path))
    reveal = run.of_type("reveal")[-1]
    assert reveal["card"] == "5C" and {o["card"] for o in reveal["opened"]} == {"5C"}


@pytest.mark.reg("551.16(l)(1)")
def test_mid_decisions_without_the_hole_card_the_round_is_void_and_wagers_returned(
    tmp_path: Path,
) -> None:
    run = interrupted_at(tmp_path, 17)  # box 2 doubled and drew
    run.restart()
    run.handle(FloorClear())
    end = run.of_type("round_end")[-1]
    assert end["void"] is True and end["dealer"] == ["AD", None]
    # The split's second wager and the Double Down come back with the original wagers.
    assert end["returned"] == {"1": "20", "2": "20"}
    assert not run.of_type("reveal")  # the hole card is collected unread
    assert run.table.state == "wagering"


def test_without_the_sealing_key_no_card_can_be_checked_so_the_round_is_voided(
    tmp_path: Path,
) -> None:
    run = interrupted_at(tmp_path, 13)
    run.restart(key=None)  # a table whose key died with the process
    run.handle(FloorClear(card="5C"))
    assert run.of_type("refused")[-1]["section"] == "551.8(e)"
    run.handle(FloorClear())
    assert run.of_type("round_end")[-1]["void"] is True


def test_a_restart_after_the_reveal_completes_the_round_from_the_journal(tmp_path: Path) -> None:
    run = interrupted_at(tmp_path, 18)  # "Dealer's Card": the dealer draws next
    interrupted = run.restart()
    assert interrupted is not None and interrupted.seal is None  # the reveal released it
    assert [c["card"] for c in interrupted.cards if c["to"] == "dealer"] == ["AD", "5C"]
    run.handle(FloorClear())
    assert run.table.state == "dealer_turn"
    finish(run, 18)
    assert result(run.of_type("round_end")[-1]) == result(reference(tmp_path))


def test_dealers_card_journaled_but_cut_short_is_announced_again_after_the_clear(
    tmp_path: Path,
) -> None:
    run = Run(tmp_path / "j.sqlite")
    run.table = spanish21(CrashAfter(run.journal, command("dealers_card")), run.devices)
    run.open()
    with pytest.raises(Crash):
        play(run, script()[:18])
    run.crash()
    interrupted = run.restart()
    assert interrupted is not None and interrupted.seal is not None
    (announced,) = interrupted.dropped
    assert run.rows()[announced - 1]["command"] == "dealers_card"
    assert "announcement" in run.of_type("halt")[-1]["detail"]
    run.handle(FloorClear(card="5C"))
    assert run.table.need is Need.REVEAL
    finish(run, 17)
    assert result(run.of_type("round_end")[-1]) == result(reference(tmp_path))
    run.crash()
    assert run.restart() is None  # the replay skips the announcement cut short


def test_a_journal_replayed_whole_rebuilds_the_same_table(tmp_path: Path) -> None:
    run = interrupted_at(tmp_path, len(script()))
    assert run.restart() is None
    assert run.table.state == "wagering" and run.table.rounds_completed == 1
    # The next round is played as it would have been without the restart.
    play(run, script())
    ends = run.of_type("round_end")
    assert [result(e) for e in ends] == [result(reference(tmp_path))] * 2


@pytest.mark.reg("551.2(e)")
def test_a_restart_on_a_later_gaming_day_replays_the_days_as_journaled(tmp_path: Path) -> None:
    run = interrupted_at(tmp_path, len(script()))
    assert run.restart(day="2026-03-03") is None  # the replay follows the journal's day
    assert run.table.need is Need.INSPECTION  # yesterday's inspection is not today's
    run.handle(Wager(1, "spanish21", 10))
    run.handle(NoMoreBets())
    assert run.of_type("refused")[-1]["section"] == "551.2(e)"
    run.crash()
    assert run.restart(day="2026-03-03") is None  # and the refusal replays as it was


def test_a_second_restart_replays_the_first_restart_and_its_floorpersons_entry(
    tmp_path: Path,
) -> None:
    run = interrupted_at(tmp_path, 11)
    run.restart()
    run.handle(FloorClear(card="5C"))
    play(run, script()[11:14])
    run.crash()
    # The hole card is still sealed and never released: it is entered again.
    again = run.restart()
    assert again is not None and again.seal is not None
    assert run.table.hands_of(1)[1].cards == ("8D", "KD")  # the clear and play replayed
    run.handle(FloorClear(card="5C"))
    assert run.table.state == "playing"
    finish(run, 14)
    assert result(run.of_type("round_end")[-1]) == result(reference(tmp_path))
    assert len(run.of_type("resumed")) == 2


def test_a_restart_while_the_interrupted_round_waits_keeps_it_waiting(tmp_path: Path) -> None:
    run = interrupted_at(tmp_path, 11)
    first = run.restart()
    run.crash()
    again = run.restart()
    assert again == first and run.table.state == HALTED
    run.handle(FloorClear(card="5C"))
    assert run.table.state == "playing"


def test_a_journal_the_replay_cannot_follow_is_refused_in_one_line(tmp_path: Path) -> None:
    def replay(rows: list[Row]) -> Any:
        return resume(
            rows,
            spanish21,
            journal=MemoryJournal(),
            devices=Devices(),
            sealer=Sealer(KEY),
            gaming_day=lambda: DAY,
        )

    run = interrupted_at(tmp_path, 6)
    journal = SqliteJournal(run.path)
    rows = list(journal.rows())
    edited = [
        Row(r.seq, r.ts, {**r.entry, "card": "QS"})
        if r.entry.get("type") == "dealt" and r.entry.get("card") == "9H"
        else r
        for r in rows
    ]
    with pytest.raises(RecoveryError) as caught:
        replay(edited)
    assert "\n" not in str(caught.value) and str(caught.value).startswith("row ")
    forged = [
        Row(r.seq, r.ts, {**r.entry, "opened": [{"card": "QS", "seal": "00", "nonce": "00"}]})
        if i == 3
        else r
        for i, r in enumerate(rows)
    ]
    with pytest.raises(RecoveryError, match="does not match its seal"):
        replay(forged)


# --------------------------------------------------------------------------- Baccarat


@pytest.mark.parametrize("game", ["baccarat", "midibaccarat"])
def test_a_baccarat_hand_interrupted_mid_deal_is_completed_from_the_journal(
    tmp_path: Path, game: str
) -> None:
    burn = ["5S", "2C", "3C", "4C", "5C", "7C"]  # 5: five more burned
    hand = ["9S", "2H", "3D", "4H", "5C", "6H"]

    def start(journal: Journal, devices: Devices) -> tuple[BaccaratTable, Any]:
        table, card = baccarat_hand(journal, devices, game)
        table.handle(ManualShuffle())
        for token in burn:
            card(token)
        table.handle(Wager(1, "player", 10))
        table.handle(Wager(2, "banker", 20))
        table.handle(NoMoreBets())
        return table, card

    ref_journal = MemoryJournal()
    table, card = start(ref_journal, Devices())
    for token in hand:
        card(token)
    want = [e for e in ref_journal.entries if e["type"] == "round_end"]
    assert want and table.state is not None

    path = tmp_path / "bac.sqlite"
    journal = SqliteJournal(path)
    table, card = start(journal, Devices())
    card(hand[0])
    card(hand[1])
    journal.close()
    journal = SqliteJournal(path)
    table2, interrupted = resume(
        journal.rows(),
        baccarat(game),
        journal=journal,
        devices=Devices(),
        sealer=Sealer(),
        gaming_day=lambda: DAY,
    )
    assert interrupted is not None and interrupted.seal is None
    assert [c["card"] for c in interrupted.cards] == hand[:2]
    assert table2.state == HALTED
    table2.handle(FloorClear())
    ids = itertools.count(1000)
    for token in hand[2:]:
        table2.handle(m.CardDrawn("shoe", next(ids), token[0], token[1], False))
    got = [r.entry for r in journal.rows() if r.entry["type"] == "round_end"]
    assert [(e["void"], e.get("result"), e.get("player"), e.get("banker")) for e in got] == [
        (e["void"], e.get("result"), e.get("player"), e.get("banker")) for e in want
    ]


def test_driver_positions_pick_up_after_the_last_journaled_event() -> None:
    from controller.journal import Row
    from controller.recovery import driver_positions

    entries = [
        {"type": "device", "device": "shoe", "event": "device_connected", "serial": "S1"},
        {"type": "device", "device": "shoe", "event": "card_drawn", "event_id": 7},
        {"type": "device", "device": "shoe", "event": "card_drawn", "event_id": 8},
        {"type": "command", "command": "no_more_bets"},
        {"type": "device", "device": "reader", "event": "device_connected", "serial": "R1"},
        {"type": "device", "device": "reader", "event": "self_test_result", "event_id": 3},
        # The shuffler was swapped for another unit: its ids are its own.
        {"type": "device", "device": "shuffler", "event": "device_connected", "serial": "F1"},
        {"type": "device", "device": "shuffler", "event": "batch_ready", "event_id": 90},
        {"type": "device", "device": "shuffler", "event": "device_connected", "serial": "F2"},
        {"type": "device", "device": "shuffler", "event": "batch_ready", "event_id": 2},
    ]
    rows = [Row(n, "t", e) for n, e in enumerate(entries, start=1)]
    assert driver_positions(rows) == {"shoe": ("S1", 8), "reader": ("R1", 3), "shuffler": ("F2", 2)}


def test_commands_given_with_a_login_replay_and_the_replay_keeps_the_logins(
    tmp_path: Path,
) -> None:
    """A command's ``login`` is part of its line (docs/api.md): the replay writes it again
    as journaled, and a dealer's ``call_floor`` replays as the nothing it changed."""
    path = tmp_path / "login.sqlite"
    journal = SqliteJournal(path)
    table, card = baccarat_hand(journal, Devices(), "baccarat")
    table.handle(ManualShuffle(), login="floor 1")
    for token in ["5S", "2C", "3C", "4C", "5C", "7C"]:
        card(token)
    table.handle(CallFloor("a dispute"), login="dealer 7")
    table.handle(Wager(1, "player", 10), login="dealer 7")
    table.handle(NoMoreBets())
    journal.close()
    journal = SqliteJournal(path)
    before = [r.entry for r in journal.rows()]
    table2, interrupted = resume(
        journal.rows(),
        baccarat("baccarat"),
        journal=journal,
        devices=Devices(),
        sealer=Sealer(),
        gaming_day=lambda: DAY,
    )
    assert interrupted is None and table2.state == "dealing"
    logins = [(e["command"], e.get("login")) for e in before if e["type"] == "command"]
    assert logins == [
        ("manual_shuffle", "floor 1"),
        ("call_floor", "dealer 7"),
        ("wager", "dealer 7"),
        ("no_more_bets", None),
    ]
    after = [r.entry for r in journal.rows()]
    assert after[: len(before)] == before  # nothing journaled is changed
