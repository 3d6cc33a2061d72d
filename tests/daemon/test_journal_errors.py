"""What the journal's one line says when SQLite cannot use its file: a full disk or a
read-only filesystem is "cannot write" or "cannot open" with the reason, and only bytes
that are not a journal are "damaged" (a technician who read "damaged" for a full disk
would restore a backup over a journal that was fine). Real SQLite files on a real tmpfs
of the test's own."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.journal import JournalError, SqliteJournal, verify
from controller.journal.errors import failure, unusable
from tests.support.filesystems import fill, remount, small_filesystem


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[Path]:
    with small_filesystem(tmp_path / "disk", size="4m") as path:
        yield path


def _rows(path: Path) -> list[tuple[object, ...]]:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return db.execute("SELECT seq, ts, body, hash FROM rows ORDER BY seq").fetchall()
    finally:
        db.close()


def test_a_full_disk_is_a_write_the_journal_cannot_take_not_a_damaged_journal(
    disk: Path,
) -> None:
    path = disk / "journal.db"
    with SqliteJournal(path) as journal:
        journal.record({"type": "opened"})
        fill(disk, leave=0)
        with pytest.raises(JournalError) as refused:
            for n in range(2_000):  # the WAL's next page finds no space
                journal.record({"type": "note", "n": n, "pad": "x" * 2_000})
        written = journal.last_seq
    message = str(refused.value)
    assert message.startswith(f"{path}: cannot write the journal: the disk is full (")
    assert "damaged" not in message and "\n" not in message
    assert refused.value.disk_full  # the daemon's last line leads with it (test_health)
    (disk / "filler").unlink()
    assert len(_rows(path)) == written and verify(path).ok  # nothing durable lost


def test_a_read_only_filesystem_is_a_journal_that_cannot_be_opened_for_writing(
    disk: Path,
) -> None:
    path = disk / "journal.db"
    with SqliteJournal(path) as journal:
        journal.record({"type": "opened"})
    before = _rows(path)
    remount(disk, read_only=True)
    try:
        with pytest.raises(JournalError) as refused:
            SqliteJournal(path)
        assert verify(path).ok  # reading it needs no write
    finally:
        remount(disk, read_only=False)
    message = str(refused.value)
    assert "damaged" not in message and "\n" not in message
    assert message.startswith(f"{path}: cannot "), message
    assert "read-only" in message.lower(), message
    assert not refused.value.disk_full
    assert _rows(path) == before


def test_bytes_that_are_no_database_are_still_a_damaged_journal(tmp_path: Path) -> None:
    path = tmp_path / "journal.db"
    with SqliteJournal(path) as journal:
        journal.record({"type": "opened"})
    data = bytearray(path.read_bytes())
    data[:16] = b"not a database!!"
    path.write_bytes(bytes(data))
    db = sqlite3.connect(path)
    with pytest.raises(sqlite3.DatabaseError) as raised:
        db.execute("PRAGMA application_id").fetchone()
    db.close()
    assert unusable(raised.value) is None
    assert str(failure(path, raised.value)).startswith(f"{path}: the journal is damaged: ")


def test_a_body_that_is_not_json_is_damage_not_a_place_problem(tmp_path: Path) -> None:
    assert unusable(ValueError("Expecting value")) is None
    assert str(failure("j.db", ValueError("x"))) == "j.db: the journal is damaged: x"
