"""Bounded restart (issue 9): the table's state in a ``snapshot`` row, and a restart
that replays only the rows after the last one, reading the journal backwards no
further than it."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from controller.export import export_round, read_rows
from controller.journal import Row, SqliteJournal, verify
from controller.recovery import SNAPSHOT, RecoveryError, Snapshots, from_last_snapshot
from controller.rules.spanish21 import Spanish21Rules
from controller.table.events import FloorClear, Journal, ReaderDevices
from controller.table.snapshot import capture
from controller.table.spanish21 import Spanish21Table
from tests.support.recovery import Run, play, resumed, script


def rounds(run: Run, n: int) -> None:
    for _ in range(n):
        play(run, script())


def result(end: dict[str, Any]) -> tuple[object, object, object]:
    return end["dealer"], end["boxes"], end["void"]


def test_a_restart_after_a_snapshot_replays_only_the_rows_after_it(tmp_path: Path) -> None:
    reference = Run(tmp_path / "reference.sqlite")
    reference.open()
    rounds(reference, 3)
    run = Run(tmp_path / "j.sqlite")
    run.open()
    rounds(run, 2)
    taken = run.snapshot()
    play(run, script()[:11])  # round 3: dealt, peeked, box 1 split
    last = run.journal.last_seq
    run.crash()
    interrupted = run.restart()
    (resumed,) = run.of_type("resumed")
    assert resumed["snapshot"] == taken and resumed["rows"] == last - taken
    assert interrupted is not None and interrupted.round == 3
    run.handle(FloorClear(card="5C"))
    play(run, script()[11:])
    assert [result(e) for e in run.of_type("round_end")] == [
        result(e) for e in reference.of_type("round_end")
    ]
    assert verify(run.path).ok


def test_a_restart_from_a_snapshot_rebuilds_the_table_a_whole_replay_does(
    tmp_path: Path,
) -> None:
    run = Run(tmp_path / "j.sqlite")
    run.open()
    rounds(run, 2)
    run.snapshot()
    play(run, script()[:6])
    run.crash()
    rows = list(SqliteJournal(run.path).rows())
    whole = [r for r in rows if r.entry["type"] != SNAPSHOT]

    def rebuilt(given: list[Row]) -> Any:
        table, _ = resumed(given)
        return capture(table)

    assert rebuilt(from_last_snapshot(SqliteJournal(run.path))) == rebuilt(whole)


def test_the_journal_is_read_back_to_its_last_snapshot_and_no_further(tmp_path: Path) -> None:
    run = Run(tmp_path / "j.sqlite")
    run.open()
    rounds(run, 1)
    run.snapshot()
    rounds(run, 1)
    taken = run.snapshot()
    play(run, script()[:5])
    read = from_last_snapshot(run.journal)
    assert read[0].seq == taken and read[0].entry["type"] == SNAPSHOT
    assert [r.seq for r in read] == list(range(taken, run.journal.last_seq + 1))
    fresh = Run(tmp_path / "fresh.sqlite")
    fresh.open()
    assert [r.seq for r in from_last_snapshot(fresh.journal)] == list(
        range(1, fresh.journal.last_seq + 1)
    )  # no snapshot yet: the whole journal, which is young


def other_rules(journal: Journal, devices: ReaderDevices, **kwargs: Any) -> Spanish21Table:
    return Spanish21Table(Spanish21Rules.from_dict({"decks": 8}), journal, devices, **kwargs)


def test_a_snapshot_is_restored_under_its_own_rules_or_refused_in_one_line(
    tmp_path: Path,
) -> None:
    run = Run(tmp_path / "j.sqlite")
    run.open()
    rounds(run, 1)
    taken = run.snapshot()
    run.crash()
    journal = SqliteJournal(run.path)
    with pytest.raises(RecoveryError, match=f"^row {taken}: .*other rules") as caught:
        resumed(journal.rows(), other_rules, journal)
    assert "\n" not in str(caught.value)
    assert journal.last_seq == taken  # nothing written


def test_a_snapshot_that_is_not_a_tables_state_is_refused_in_one_line(tmp_path: Path) -> None:
    run = Run(tmp_path / "j.sqlite")
    run.open()
    rounds(run, 1)
    taken = run.snapshot()
    run.crash()
    rows = list(SqliteJournal(run.path).rows())
    state = rows[-1].entry["table"]
    damaged = Row(taken, rows[-1].ts, {**rows[-1].entry, "table": {**state, "format": 0}})
    with pytest.raises(RecoveryError, match=f"^row {taken}: the snapshot cannot be restored"):
        resumed([*rows[:-1], damaged])


def test_no_snapshot_is_written_while_a_round_is_dealt_or_a_card_is_sealed(
    tmp_path: Path,
) -> None:
    run = Run(tmp_path / "j.sqlite")
    run.open()
    play(run, script()[:3])  # "no more bets"
    snapshots = Snapshots(from_last_snapshot(run.journal), every=0)
    assert not snapshots.due and not snapshots.write(run.table, run.journal)
    play(run, script()[3:])
    rounds(run, 1)
    snapshots = Snapshots(from_last_snapshot(run.journal), every=0)
    assert snapshots.due and snapshots.write(run.table, run.journal)


def test_an_export_skips_snapshots_and_shows_each_round_as_without_them(tmp_path: Path) -> None:
    run = Run(tmp_path / "j.sqlite")
    run.open()
    rounds(run, 1)
    run.snapshot()
    rounds(run, 1)
    run.snapshot()
    rows = read_rows(run.path)
    plain = [r for r in rows if r.entry["type"] != SNAPSHOT]
    for number in (1, 2):
        exported = export_round(rows, number)
        assert exported == export_round(plain, number)
        assert SNAPSHOT not in json.dumps(exported["events"])
    db = sqlite3.connect(run.path)
    (count,) = db.execute("SELECT COUNT(*) FROM rows WHERE body LIKE '%\"snapshot\"%'").fetchone()
    assert count == 2


def test_the_daemons_rows_are_never_taken_for_the_tables_output(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    with SqliteJournal(path) as journal:  # a journal's header, as its creation writes it
        journal.record({"type": "journal", "table": "t1", "game": "spanish21", "key": "ab"})
    run = Run(path)
    run.open()
    rounds(run, 1)
    run.crash()
    assert run.restart() is None  # the header, then the table's rows
    run.snapshot()
    play(run, script()[:3])
    run.crash()
    assert run.restart() is None  # a resumed row and a snapshot among them
    assert run.table.state == "dealing"
    (header, *_) = run.rows()
    assert header["type"] == "journal" and [e["type"] for e in run.rows()].count("resumed") == 2
