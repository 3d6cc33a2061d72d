"""Recovery that always ends in a known state (issue 9): a stand-in no shoe can hold,
every interrupted round resolved in the journal, and a journal that cannot be replayed
refused in one line with nothing written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from controller.journal import Row, SqliteJournal
from controller.recovery import RecoveryError, Snapshots, from_last_snapshot
from controller.rules.cards import STAND_IN_SUIT
from controller.table.events import (
    CardsSpread,
    DealersCard,
    Decision,
    FloorClear,
    ManualShuffle,
    NoMoreBets,
    Wager,
)
from controller.table.halts import HALTED
from controller.table.snapshot import capture
from tests.support.recovery import (
    Crash,
    CrashAfter,
    Run,
    baccarat,
    baccarat_hand,
    play,
    resumed,
    script,
    spanish21,
)
from tests.support.tables import Devices


def result(end: dict[str, Any]) -> tuple[object, object, object]:
    return end["dealer"], end["boxes"], end["void"]


def no_stand_in_journaled(run: Run) -> None:
    """No row shows a stand-in as a card: it holds a place, it is never a reading."""
    assert f'{STAND_IN_SUIT}"' not in json.dumps(run.rows())


# --------------------------------------------------------------------------- the stand-in

# Six decks hold six 2S: the burn and five dealt put all of them out before the hole card.
EVERY_2S = [("card", c) for c in ("2S", "2S", "2S", "9H", "2S", "2S", "3S")]


def all_twos_then_hole(run: Run) -> None:
    """Boxes 1-3 wager; the burn and five cards dealt are every 2S of the six decks; the
    dealer's 9H up (no peek), then the hole card, 5C, sealed."""
    run.open()  # the burn: 2S
    for box in (1, 2, 3):
        run.handle(Wager(box, "spanish21", 10))
    run.handle(NoMoreBets())
    play(run, EVERY_2S)
    run.card("5C")


def the_rest(run: Run) -> None:
    for box in (1, 2, 3):
        run.handle(Decision(box, "stand"))
    run.handle(DealersCard())
    run.card("4D")  # 9H 5C 4D: the dealer stands on 18


@pytest.mark.reg("551.8(e)", "551.3(a)")
def test_a_sealed_hole_card_never_collides_with_the_cards_the_shoe_has_dealt(
    tmp_path: Path,
) -> None:
    reference = Run(tmp_path / "reference.sqlite")
    all_twos_then_hole(reference)
    the_rest(reference)
    (want,) = reference.of_type("round_end")
    # Killed with the hole card sealed: before issue 9 the replay's stand-in was a 2S,
    # a seventh 2S out of six decks, and every start since failed ("foreign_card").
    run = Run(tmp_path / "j.sqlite")
    all_twos_then_hole(run)
    run.crash()
    interrupted = run.restart()
    assert interrupted is not None and interrupted.seal is not None
    assert run.table.state == HALTED and not run.of_type("internal_error")
    assert run.of_type("halt")[-1]["cause"] == "interrupted_round"
    run.crash()
    assert run.restart() == interrupted  # and again: the table is never bricked
    run.handle(FloorClear(card="5C"))  # as the floorperson reads it, checked against the seal
    the_rest(run)
    assert result(run.of_type("round_end")[-1]) == result(want)
    no_stand_in_journaled(run)


@pytest.mark.reg("551.8(e)", "551.3(a)")
def test_without_its_key_a_hole_card_is_stood_in_for_by_no_card_a_shoe_holds(
    tmp_path: Path,
) -> None:
    run = Run(tmp_path / "j.sqlite")
    all_twos_then_hole(run)
    run.crash()
    # The key is lost: the replay cannot read the seal, and stands in a "2?" where the
    # 2S of issue 9 would have been a seventh out of six decks.
    interrupted = run.restart(key=None)
    assert interrupted is not None and interrupted.seal is not None
    assert run.table.state == HALTED and not run.of_type("internal_error")
    assert run.table._round.dealer[1] == "2" + STAND_IN_SUIT  # type: ignore[attr-defined]
    run.handle(FloorClear(card="5" + STAND_IN_SUIT))
    refusal = run.of_type("refused")[-1]
    assert "not a card" in refusal["reason"] and run.table.state == HALTED
    run.handle(FloorClear())  # the round is voided; the wagers go back
    (end,) = run.of_type("round_end")
    assert end["void"] is True and end["dealer"] == ["9H", None]
    assert end["returned"] == {"1": "10", "2": "10", "3": "10"}
    no_stand_in_journaled(run)
    run.crash()
    assert run.restart(key=None) is None  # the void replays as it was
    assert run.table.state == "wagering"


# --------------------------------------------------------------------------- the round's end


def is_dealt(card: str) -> Any:
    return lambda e: e.get("type") == "dealt" and e.get("card") == card


def of_type(kind: str) -> Any:
    return lambda e: e.get("type") == kind


@pytest.mark.parametrize(
    "killed_after",
    [is_dealt("5D"), of_type("settlement")],
    ids=["its last card", "its settlement"],
)
def test_a_round_killed_before_its_end_is_settled_in_the_journal(
    tmp_path: Path, killed_after: Any
) -> None:
    reference = Run(tmp_path / "reference.sqlite")
    reference.open()
    play(reference, script())
    (want,) = reference.of_type("round_end")
    run = Run(tmp_path / "j.sqlite")
    run.table = spanish21(CrashAfter(run.journal, killed_after), run.devices)
    run.open()
    with pytest.raises(Crash):
        play(run, script())
    before = run.rows()
    assert not run.of_type("round_end")
    run.crash()
    assert run.restart() is None  # nothing left for a floorperson
    rows = run.rows()
    (resumed,) = run.of_type("resumed")
    written = rows[len(before) : rows.index(resumed)]
    # The rest of the last input's work, in order, before the restart's own row.
    assert [e["type"] for e in written][-2:] == ["round_end", "prompt"]  # PLACE YOUR BETS
    assert resumed["written"] == len(written) and resumed["interrupted"] is None
    assert result(run.of_type("round_end")[0]) == result(want)
    assert run.table.state == "wagering"
    run.crash()
    assert run.restart() is None
    assert run.rows()[len(rows) :] == [{**run.of_type("resumed")[-1]}]
    assert run.of_type("resumed")[-1]["written"] == 0  # written once, replayed after


@pytest.mark.parametrize("game", ["baccarat", "midibaccarat"])
def test_a_baccarat_hand_killed_after_its_last_card_is_settled_in_the_journal(
    tmp_path: Path, game: str
) -> None:
    path = tmp_path / "bac.sqlite"
    journal = SqliteJournal(path)
    hand = ["9S", "2H", "3D", "4H", "5C"]  # the Player draws a 5: the Banker stands on 6
    last = CrashAfter(journal, lambda e: e.get("type") == "dealt" and e.get("card") == hand[-1])
    table, card = baccarat_hand(last, Devices(), game)
    table.handle(ManualShuffle())
    for token in ["5S", "2C", "3C", "4C", "5C", "7C"]:
        card(token)
    table.handle(Wager(1, "player", 10))
    table.handle(NoMoreBets())
    with pytest.raises(Crash):
        for token in hand:
            card(token)
    journal.close()
    journal = SqliteJournal(path)
    assert not [r for r in journal.rows() if r.entry["type"] == "round_end"]
    rebuilt, interrupted = resumed(journal.rows(), baccarat(game), journal)
    assert interrupted is None and rebuilt.state == "wagering"
    kinds = [r.entry["type"] for r in journal.rows()]
    assert kinds.index("round_end") < kinds.index("resumed")


# --------------------------------------------------------------------------- refused in one line


def rechained(rows: list[Row], path: Path, edit: Any) -> SqliteJournal:
    """The rows as a journal whose chain is intact: edited before they were written, as a
    table with a bug would have written them."""
    journal = SqliteJournal(path)
    for row in rows:
        journal.record(edit(dict(row.entry)))
    return journal


def played(tmp_path: Path, steps: int) -> list[Row]:
    run = Run(tmp_path / "played.sqlite")
    run.open()
    play(run, script()[:steps])
    run.crash()
    return list(SqliteJournal(run.path).rows())


def _unreadable_card(entry: dict[str, Any]) -> dict[str, Any]:
    # A card the shoe never reads: the replayed table's own error on it.
    return {**entry, "card": "ZZ"} if entry.get("card") == "9H" else entry


def _unsealed_hole(entry: dict[str, Any]) -> dict[str, Any]:
    # The hole card's input journaled without its seal: the replay seals what it did not.
    if entry.get("type") == "device" and entry.get("sealed"):
        unsealed = {k: v for k, v in entry.items() if k not in ("sealed", "seal", "salt")}
        return {**unsealed, "card": "5C"}
    return entry


@pytest.mark.parametrize(
    ("edit", "says"),
    [(_unreadable_card, "internal_error"), (_unsealed_hole, "sealed a card the journal did not")],
    ids=["the table's own error", "a seal the journal lacks"],
)
def test_a_replay_that_cannot_proceed_is_one_line_naming_the_row_and_writes_nothing(
    tmp_path: Path, edit: Any, says: str
) -> None:
    journal = rechained(played(tmp_path, 11), tmp_path / "j.sqlite", edit)
    rows = list(journal.rows())
    with pytest.raises(RecoveryError) as caught:
        resumed(rows, journal=journal)
    message = str(caught.value)
    assert "\n" not in message and message.startswith("row ") and says in message
    seq = int(message.split()[1].rstrip(":"))
    assert 1 <= seq <= rows[-1].seq
    assert journal.last_seq == rows[-1].seq  # nothing written by the failed start


def test_a_journal_cut_past_the_replay_is_refused_naming_the_first_row_not_written(
    tmp_path: Path,
) -> None:
    rows = played(tmp_path, 8)
    # A line no table writes, between two inputs.
    forged = [*rows[:10], Row(rows[10].seq, rows[10].ts, {"type": "note"}), *rows[11:]]
    with pytest.raises(RecoveryError, match=f"^row {rows[10].seq}: the replay wrote"):
        resumed(forged)


@pytest.mark.reg("551.8(e)")
def test_a_hole_card_voided_unread_after_a_restart_is_in_no_snapshot(tmp_path: Path) -> None:
    run = Run(tmp_path / "j.sqlite")
    all_twos_then_hole(run)
    run.crash()
    run.restart()  # the key reads the seal: the shoe counts the 5C, as it did
    run.handle(FloorClear())  # voided: the 5C is collected unread, never released
    assert '"5C"' not in json.dumps(run.rows())
    assert '"5C"' in json.dumps(capture(run.table))  # in the discard rack, by value
    snapshots = Snapshots(from_last_snapshot(run.journal), every=0)
    assert not snapshots.due and not snapshots.write(run.table, run.journal)
    run.handle(CardsSpread())  # 551.5(h): the shoe ends
    snapshots = Snapshots(from_last_snapshot(run.journal), every=0)
    assert snapshots.due and snapshots.write(run.table, run.journal)
    assert '"5C"' not in json.dumps(run.rows())
