"""``tablectl run`` killed with SIGKILL at aimed points (drivers/failpoints.py) and
started again, as a real table is: every interrupted round resolved in the journal, a
restart from the last snapshot replaying only what follows it, and a journal that
cannot be replayed refused in one line with nothing written (issue 9)."""

from __future__ import annotations

import signal
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from controller.journal import SqliteJournal, verify
from tests.support.daemon import daemon, entries, finish

KILLED = -signal.SIGKILL


def table_args(game: str, workdir: Path) -> tuple[str, ...]:
    return (
        "--simulate",
        "--game",
        game,
        "--seed",
        "7",
        "--pace-ms",
        "0",
        "--workdir",
        str(workdir),
    )


def run(game: str, workdir: Path, *args: str, failpoint: str | None = None) -> tuple[int, str]:
    env = {"TABLECTL_FAILPOINTS": failpoint} if failpoint else None
    code, _, err = finish(daemon(*table_args(game, workdir), *args, env=env), timeout=90)
    return code, err


def reference(tmp_path: Path, game: str) -> list[dict[str, Any]]:
    """The first round at the same seed, played without a kill: the cards are the same."""
    work = tmp_path / "reference"
    work.mkdir()
    code, err = run(game, work, "--rounds", "1")
    assert code == 0, err
    return entries(work / "journal.db")


def nth_dealt(played: list[dict[str, Any]], pick: Any) -> int:
    """Which ``dealt`` row, counted from 1, is the one ``pick`` chooses in ``played``."""
    dealt = [e for e in played if e["type"] == "dealt"]
    return dealt.index(pick(played, dealt)) + 1


def last_of_round_one(played: list[dict[str, Any]], dealt: list[dict[str, Any]]) -> Any:
    end = next(i for i, e in enumerate(played) if e["type"] == "round_end")
    return [e for e in played[:end] if e["type"] == "dealt"][-1]


def the_hole_card(played: list[dict[str, Any]], dealt: list[dict[str, Any]]) -> Any:
    return next(e for e in dealt if e.get("sealed"))


def restarted(game: str, work: Path, kill: str, rounds: int = 2) -> tuple[list[Any], list[Any]]:
    """The journal as the kill left it, and the rows the next start added."""
    code, err = run(game, work, failpoint=kill)
    assert code == KILLED, err
    before = entries(work / "journal.db")
    code, err = run(game, work, "--rounds", str(rounds))
    assert code == 0 and "Traceback" not in err, err
    after = entries(work / "journal.db")
    assert after[: len(before)] == before, "nothing journaled is lost or changed"
    assert verify(work / "journal.db").ok
    return before, after[len(before) :]


@pytest.mark.parametrize("game", ["spanish21", "baccarat"])
def test_killed_after_its_last_card_the_round_is_settled_in_the_journal(
    tmp_path: Path, game: str
) -> None:
    n = nth_dealt(reference(tmp_path, game), last_of_round_one)
    work = tmp_path / "table"
    work.mkdir()
    before, added = restarted(game, work, f"journal.committed:dealt@{n}")
    assert before[-1]["type"] == "dealt" and not [e for e in before if e["type"] == "round_end"]
    kinds = [e["type"] for e in added]
    resumed = added[kinds.index("resumed")]
    written = added[: kinds.index("resumed")]
    # Settled from the journal alone, before the restart's own row: nothing waits for
    # a floorperson, and the round's wagers are settled, not skipped.
    assert "round_end" in [e["type"] for e in written] and resumed["written"] == len(written)
    assert resumed["interrupted"] is None and resumed["state"] == "wagering"
    (end,) = [e for e in written if e["type"] == "round_end"]
    assert end["round"] == 1 and end["void"] is False
    assert not [e for e in added if "interrupted_round" in (e.get("causes") or ())]


@pytest.mark.reg("551.8(e)")
def test_killed_with_the_hole_card_sealed_the_round_is_voided_and_play_goes_on(
    tmp_path: Path,
) -> None:
    n = nth_dealt(reference(tmp_path, "spanish21"), the_hole_card)
    work = tmp_path / "table"
    work.mkdir()
    before, added = restarted("spanish21", work, f"journal.committed:dealt@{n}", rounds=3)
    assert before[-1].get("sealed") and before[-1]["to"] == "dealer"
    resumed = next(e for e in added if e["type"] == "resumed")
    assert resumed["interrupted"]["seal"] == before[-1]["seal"]
    # The bench's floorperson clears without the card: the round is void, the hole
    # card collected unread, and the next rounds are played.
    ends = [e for e in added if e["type"] == "round_end"]
    assert ends[0]["round"] == 1 and ends[0]["void"] is True and ends[0]["dealer"][1] is None
    assert [e["void"] for e in ends[1:]] == [False] * (len(ends) - 1) and len(ends) == 3
    assert "?" not in str([e.get("card") for e in added])  # no stand-in is ever journaled


def test_a_restart_after_a_snapshot_replays_only_the_rows_after_it(tmp_path: Path) -> None:
    work = tmp_path / "table"
    work.mkdir()
    journal = work / "journal.db"
    code, err = run("spanish21", work, failpoint="journal.committed:snapshot")
    assert code == KILLED, err
    taken = SqliteJournal(journal).last_seq  # killed right after the snapshot was durable
    code, err = run("spanish21", work, failpoint="journal.committed:round_end@2")
    assert code == KILLED, err
    last = SqliteJournal(journal).last_seq
    code, err = run("spanish21", work, "--rounds", "1")
    assert code == 0, err
    rows = entries(journal)
    resumed = [e for e in rows if e["type"] == "resumed"]
    assert resumed[0]["snapshot"] == taken and resumed[0]["rows"] == 0
    # The second start replayed from the last snapshot before its kill, and no further.
    latest = max(n for n, e in enumerate(rows[:last], 1) if e["type"] == "snapshot")
    assert resumed[1]["snapshot"] == latest and resumed[1]["rows"] == last - latest
    assert taken > 500 and last - latest < 500 and verify(journal).ok


def test_a_journal_that_cannot_be_replayed_is_one_line_naming_the_row_and_left_as_it_was(
    tmp_path: Path,
) -> None:
    played = reference(tmp_path, "baccarat")
    work, dealt = _forged(tmp_path, played)
    journal = work / "journal.db"
    stored = _stored(journal)
    code, err = run("baccarat", work, "--rounds", "1")
    lines = err.strip().splitlines()
    assert code == 1 and len(lines) == 1 and "Traceback" not in err
    assert f"row {dealt + 1}:" in lines[0] and "replay" in lines[0]
    assert "earlier tablectl" not in lines[0]  # its header row says it is today's format
    assert _stored(journal) == stored


def test_a_journal_from_before_headers_that_does_not_replay_says_how_to_upgrade(
    tmp_path: Path,
) -> None:
    played = reference(tmp_path, "baccarat")[1:]  # an earlier tablectl wrote no header
    work, dealt = _forged(tmp_path, played)
    journal = work / "journal.db"
    stored = _stored(journal)
    code, err = run("baccarat", work, "--rounds", "1")
    lines = err.strip().splitlines()
    assert code == 1 and len(lines) == 1 and "Traceback" not in err
    assert f"row {dealt + 1}:" in lines[0]
    assert lines[0].endswith("written by an earlier tablectl: see Upgrading in docs/recovery.md)")
    assert _stored(journal) == stored


def _forged(tmp_path: Path, played: list[dict[str, Any]]) -> tuple[Path, int]:
    """A table's work directory whose journal holds ``played`` with an intact chain and
    its first card changed: a line no table would write. The card's index."""
    dealt = next(i for i, e in enumerate(played) if e["type"] == "dealt")
    work = tmp_path / "table"
    work.mkdir()
    with SqliteJournal(work / "journal.db") as forged:
        for i, entry in enumerate(played):
            wrong = i == dealt and entry["card"] != "QS"
            forged.record({**entry, "card": "QS"} if wrong else entry)
    return work, dealt


def _stored(path: Path) -> list[tuple[Any, ...]]:
    db = sqlite3.connect(path)
    try:
        return db.execute("SELECT seq, ts, body, prev, hash FROM rows ORDER BY seq").fetchall()
    finally:
        db.close()


@pytest.mark.reg("551.2(e)")
def test_killed_while_the_readers_self_test_runs_the_reader_is_inspected_again(
    tmp_path: Path,
) -> None:
    # The kill falls between journaling the inspection and the reader's answer: the
    # request died with the process. The table used to wait for that answer for good,
    # refusing every new inspection as "running".
    work = tmp_path / "table"
    work.mkdir()
    before, added = restarted("spanish21", work, "journal.committed:reader_inspection")
    assert before[-1]["type"] == "reader_inspection"
    kinds = [e["type"] for e in added]
    assert kinds.index("resumed") < kinds.index("reader_inspection")
    assert kinds.index("reader_inspection") < kinds.index("reader_inspected")
    assert kinds.index("reader_inspected") < kinds.index("no_more_bets")
    assert [e["void"] for e in added if e["type"] == "round_end"] == [False, False]
