"""The SQLite journal: durable rows, an unbroken hash chain, damage found and named."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest

from controller.journal import JournalError, SqliteJournal, verify
from controller.journal.store import UtcText


def _filled(path: Path, n: int = 10) -> None:
    with SqliteJournal(path) as j:
        for i in range(n):
            j.record({"type": "dealt", "n": i, "amount": Decimal("12.50")})


def _tamper(path: Path, *sql: str) -> None:
    """Someone with another tool: drops the guards, then rewrites rows."""
    db = sqlite3.connect(path)
    db.execute("DROP TRIGGER rows_no_update")
    db.execute("DROP TRIGGER rows_no_delete")
    for statement in sql:
        db.execute(statement)
    db.commit()
    db.close()


def test_rows_survive_reopening_in_order_with_exact_amounts(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    _filled(path, 5)
    with SqliteJournal(path) as j:
        j.record({"type": "prompt", "text": "PLACE YOUR BETS"})
        rows = list(j.rows())
    assert [r.seq for r in rows] == [1, 2, 3, 4, 5, 6]
    assert rows[0].entry == {"type": "dealt", "n": 0, "amount": "12.50"}
    assert rows[-1].entry["text"] == "PLACE YOUR BETS"
    assert verify(path).ok and verify(path).rows == 6


def test_the_journal_is_append_only(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    _filled(path, 2)
    db = sqlite3.connect(path)
    for statement in ("UPDATE rows SET body = '{}' WHERE seq = 1", "DELETE FROM rows"):
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            db.execute(statement)
    db.close()
    assert verify(path).ok


def test_an_edited_row_is_named(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    _filled(path)
    _tamper(path, """UPDATE rows SET body = replace(body, '"n":4', '"n":5') WHERE seq = 5""")
    verdict = verify(path)
    assert verdict.problems == ("row 5: contents do not match its hash (edited)",)


def test_a_removed_row_is_named(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    _filled(path)
    _tamper(path, "DELETE FROM rows WHERE seq IN (3, 4)")
    assert verify(path).problems == ("rows 3-4 missing before row 5 (removed)",)


def test_rows_moved_into_each_others_places_are_named(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    _filled(path)
    # Swap rows 6 and 7 whole (body, prev and hash), keeping the sequence numbers.
    _tamper(
        path,
        "UPDATE rows SET seq = -6 WHERE seq = 6",
        "UPDATE rows SET seq = 6 WHERE seq = 7",
        "UPDATE rows SET seq = 7 WHERE seq = -6",
    )
    assert verify(path).problems == (
        "row 6: holds the row written as row 7 (moved)",
        "row 7: holds the row written as row 6 (moved)",
        "row 8: does not follow row 7 (moved, or the row before it was replaced)",
    )


def test_a_rewritten_last_row_stops_the_daemon_from_opening_it(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    _filled(path, 3)
    _tamper(path, """UPDATE rows SET body = '{"type":"x"}' WHERE seq = 3""")
    with pytest.raises(
        JournalError, match=r"chain is broken at row 3: contents do not match its hash"
    ):
        SqliteJournal(path)


def test_a_file_that_is_not_a_journal_is_refused_not_replaced(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    path.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(JournalError) as info:
        SqliteJournal(path)
    assert "\n" not in str(info.value) and str(path) in str(info.value)
    assert path.read_bytes() == b"this is not sqlite at all" * 100  # nothing overwritten
    other = tmp_path / "other.db"
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE t (x)")
    db.commit()
    db.close()
    with pytest.raises(JournalError, match="not a tablectl journal"):
        SqliteJournal(other)


def test_a_corrupted_page_is_found(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    with SqliteJournal(path) as j:
        for i in range(400):
            j.record({"type": "dealt", "n": i, "pad": "x" * 200})
    data = bytearray(path.read_bytes())
    for i in range(8192, 12288):  # the middle of the rows' b-tree
        data[i] = 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(JournalError) as opening:
        SqliteJournal(path)
    assert "damaged" in str(opening.value) or "hash" in str(opening.value)
    with pytest.raises(JournalError, match="damaged"):
        verify(path)


_WRITER = """
import sys
from controller.journal import SqliteJournal
j = SqliteJournal(sys.argv[1])
n = 0
while True:
    n += 1
    j.record({"type": "dealt", "n": n})
    print(n, flush=True)  # acknowledged: only now would the shoe forget the card
"""


def test_a_killed_writer_loses_no_acknowledged_row(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    writer = subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(path)], stdout=subprocess.PIPE, text=True
    )
    assert writer.stdout is not None
    acknowledged = 0
    for line in writer.stdout:
        acknowledged = int(line)
        if acknowledged >= 200:
            break
    writer.kill()
    writer.wait()
    with SqliteJournal(path) as j:
        seqs = [r.entry["n"] for r in j.rows()]
    assert seqs[:acknowledged] == list(range(1, acknowledged + 1))
    assert verify(path).ok


def test_journal_verify_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from controller.cli import main

    path = tmp_path / "j.db"
    _filled(path, 4)
    assert main(["journal", "verify", str(path)]) == 0
    assert capsys.readouterr().out == f"{path}: 4 rows, chain intact\n"
    _tamper(path, "DELETE FROM rows WHERE seq = 2")
    assert main(["journal", "verify", str(path)]) == 1
    assert capsys.readouterr().out == f"{path}: row 2 missing before row 3 (removed)\n"
    assert main(["journal", "verify", str(tmp_path / "none.db")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no such journal" in err


def test_the_witnesses_are_readable_by_the_journals_group_and_verify_says_why_not(
    tmp_path: Path,
) -> None:
    """The checkpoint and the tail record hold a row's number and hash, as the journal
    does: 0640 like it, so that a reader in its group (the web's /floor) checks them
    too. One that cannot be read is said so, not called "not a checkpoint"."""
    path = tmp_path / "j.db"
    _filled(path, 3)
    for name in ("j.checkpoint", "j.tail"):
        assert (tmp_path / name).stat().st_mode & 0o777 == 0o640, name
    checkpoint = tmp_path / "j.checkpoint"
    checkpoint.unlink()
    checkpoint.mkdir()  # read_text fails with an OSError, as without permission
    problems = verify(path).problems
    assert len(problems) == 1 and "cannot read the checkpoint" in problems[0], problems


def test_rows_are_read_backwards_from_the_end_or_from_a_row(tmp_path: Path) -> None:
    with SqliteJournal(tmp_path / "journal.db") as journal:
        for n in range(5):
            journal.record({"type": "t", "n": n})
        assert [r.seq for r in journal.rows_backwards()] == [5, 4, 3, 2, 1]
        assert [r.entry["n"] for r in journal.rows_backwards(before=3)] == [1, 0]
        backwards = journal.rows_backwards()
        assert next(backwards).entry == {"type": "t", "n": 4}


def test_a_rows_time_is_written_as_an_aware_utc_datetime_writes_it() -> None:
    now = UtcText()
    for _ in range(3):
        before = datetime.now(UTC).replace(microsecond=0)
        text = now()
        written = datetime.fromisoformat(text)
        assert text == written.isoformat(timespec="microseconds")
        assert before <= written <= datetime.now(UTC) + timedelta(milliseconds=1)
