"""The journal's start-up check, its witnesses, its header and its atomic creation, on
real SQLite files and, for the kills, real processes killed with SIGKILL at a failpoint
(drivers/failpoints.py): the journal as the daemon opens it, where the daemon adds
nothing (the daemon's own cases are in test_journal_damage.py)."""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from controller.journal import JournalError, SqliteJournal, verify
from controller.journal.fullcheck import full_check
from controller.journal.header import Identity, open_table_journal
from controller.journal.sealkey import fingerprint
from drivers.keys import load_key, write_key
from tests.support.journal import (
    cut,
    files_of,
    flip,
    lose,
    remove_rows,
    remove_rows_after,
    stored_rows,
)

SPANISH21 = Identity("s21-03", "spanish21", seals=True)
BACCARAT = Identity("bac-07", "baccarat", seals=False)


def _table_journal(workdir: Path, identity: Identity = SPANISH21, rows: int = 5) -> Path:
    path = workdir / "journal.db"
    journal, _ = open_table_journal(path, identity)
    with journal:
        for n in range(rows):
            journal.record({"type": "note", "n": n, "mark": f"row-{n:04d}"})
    return path


def _refused(path: Path, identity: Identity = SPANISH21) -> str:
    """The one line a start is refused with; nothing of the journal changed by it."""
    before = files_of(path.parent)
    with pytest.raises(JournalError) as refused:
        open_table_journal(path, identity)
    assert files_of(path.parent) == before
    message = str(refused.value)
    assert "\n" not in message
    return message


def test_a_new_journal_says_what_it_is_in_its_first_row(tmp_path: Path) -> None:
    path = _table_journal(tmp_path)
    (seq, _, body, _, _), *_ = stored_rows(path)
    header = json.loads(body)
    sealkey = tmp_path / "journal.sealkey"
    assert sealkey.stat().st_mode & 0o777 == 0o600
    stored = bytes.fromhex(sealkey.read_text().strip())
    assert (seq, header) == (
        1,
        {
            "type": "journal",
            "format": 1,
            "table": "s21-03",
            "game": "spanish21",
            "sealing_key": fingerprint(stored),
        },
    )
    assert stored.hex() not in body  # the fingerprint, never the key
    # Nothing of its creation is left over.
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "journal.checkpoint",
        "journal.db",
        "journal.sealkey",
        "journal.tail",
    ]
    assert verify(path).ok and verify(path).rows == 6


def test_a_game_that_seals_no_card_has_no_key_and_a_null_fingerprint(tmp_path: Path) -> None:
    path = _table_journal(tmp_path, BACCARAT)
    header = json.loads(stored_rows(path)[0][2])
    assert header["sealing_key"] is None and header["game"] == "baccarat"
    assert not (tmp_path / "journal.sealkey").exists()
    journal, key = open_table_journal(path, BACCARAT)
    journal.close()
    assert key is None


@pytest.mark.parametrize(
    ("identity", "named"),
    [
        (Identity("s21-04", "spanish21", seals=True), "table 's21-03' (spanish21)"),
        (Identity("s21-03", "baccarat", seals=False), "table 's21-03' (spanish21)"),
    ],
)
def test_a_header_naming_another_table_or_game_is_refused(
    tmp_path: Path, identity: Identity, named: str
) -> None:
    path = _table_journal(tmp_path)
    message = _refused(path, identity)
    assert message.startswith(f"{path}: the journal of {named}, by its header (row 1)")
    assert f"the configuration is table {identity.table!r} ({identity.game})" in message


@pytest.mark.reg("551.8(e)")
def test_a_missing_or_replaced_sealing_key_is_refused(tmp_path: Path) -> None:
    path = _table_journal(tmp_path)
    sealkey = tmp_path / "journal.sealkey"
    own = sealkey.read_bytes()
    named = json.loads(stored_rows(path)[0][2])["sealing_key"]
    sealkey.unlink()
    assert _refused(path) == (
        f"{sealkey}: missing, and the journal's header (row 1) names sealing key {named}: "
        "restore that key beside the journal (docs/recovery.md)"
    )
    assert not sealkey.exists(), "no key is made over a journal that names one"
    other = secrets.token_bytes(32)
    sealkey.write_text(other.hex() + "\n")
    sealkey.chmod(0o600)
    assert _refused(path) == (
        f"{sealkey}: holds sealing key {fingerprint(other)}, the journal's header (row 1) "
        f"names {named}: restore the table's own key (docs/recovery.md)"
    )
    sealkey.write_bytes(own)  # the table's own key back: it opens
    journal, key = open_table_journal(path, SPANISH21)
    journal.close()
    assert key is not None and fingerprint(key) == named


def test_a_journal_from_before_headers_is_taken_as_it_is(tmp_path: Path) -> None:
    path = tmp_path / "journal.db"
    with SqliteJournal(path) as bare:  # no header: as journals were written before
        bare.record({"type": "device", "device": "shoe", "event": "device_connected"})
    (tmp_path / "journal.checkpoint").unlink()  # nor a checkpoint: the whole chain is checked
    journal, key = open_table_journal(path, SPANISH21)
    with journal:
        assert journal.header is None and journal.inspection.checked == 1
    assert key is not None and (tmp_path / "journal.sealkey").exists()  # made as before


# --------------------------------------------------------------------------- witnesses


@pytest.mark.parametrize(
    ("keep", "witness"),
    [
        ("journal.checkpoint", "its checkpoint journal.checkpoint saw row 6"),
        ("journal.tail", "its tail record journal.tail saw row 6"),
        ("journal.sealkey", "its sealing key journal.sealkey exists"),
    ],
)
@pytest.mark.parametrize("damage", ["deleted", "zero-length"])
def test_no_fresh_journal_where_a_witness_shows_the_table_was_used(
    tmp_path: Path, keep: str, witness: str, damage: str
) -> None:
    path = _table_journal(tmp_path)
    for name in {"journal.checkpoint", "journal.tail", "journal.sealkey"} - {keep}:
        (tmp_path / name).unlink()
    lose(path, damage)
    assert _refused(path) == (
        f"{path}: no journal, but {witness}: the table has been in use, so no fresh journal "
        "is started (docs/recovery.md)"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [keep, *(["journal.db"] if damage == "zero-length" else [])]
    )


def test_a_write_ahead_log_with_frames_is_a_witness_too(tmp_path: Path) -> None:
    path = tmp_path / "journal.db"
    (tmp_path / "journal.db-wal").write_bytes(b"\x37\x7f\x06\x82" + bytes(4092))
    message = _refused(path)
    assert "its write-ahead log journal.db-wal holds 4096 bytes" in message


def test_a_journal_that_ends_before_its_checkpoint_or_tail_is_refused(tmp_path: Path) -> None:
    path = _table_journal(tmp_path, rows=300)
    remove_rows_after(path, 250)  # as a truncated copy, or a torn write-ahead log, would
    assert _refused(path) == (
        f"{path}: row 301 is missing: the journal ends at row 250, its checkpoint saw row "
        "301 (docs/recovery.md)"
    )
    (tmp_path / "journal.checkpoint").unlink()
    assert _refused(path) == (
        f"{path}: row 301 is missing: the journal ends at row 250, its tail record saw row "
        "301 (docs/recovery.md)"
    )


def test_a_torn_write_ahead_log_that_lost_a_committed_row_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "journal.db"
    writer = subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(path), "40"], stdout=subprocess.PIPE, text=True
    )
    assert writer.stdout is not None
    assert writer.stdout.readline().strip() == "41"  # the header and 40 rows acknowledged
    writer.kill()  # SIGKILL: the write-ahead log stays as it was
    writer.wait()
    cut(tmp_path / "journal.db-wal", 7)
    assert len(stored_rows(path)) == 40, "SQLite drops the torn last row without a word"
    assert _refused(path) == (
        f"{path}: row 41 is missing: the journal ends at row 40, its tail record saw row 41 "
        "(docs/recovery.md)"
    )


_WRITER = """
import sys, time
from controller.journal.header import Identity, open_table_journal
journal, _ = open_table_journal(sys.argv[1], Identity("t", "baccarat", seals=False))
for n in range(int(sys.argv[2])):
    journal.record({"type": "note", "n": n})
print(journal.last_seq, flush=True)
time.sleep(60)
"""


# --------------------------------------------------------------------------- the chain


def test_a_broken_chain_after_the_checkpoint_is_refused_naming_the_row(tmp_path: Path) -> None:
    path = _table_journal(tmp_path, rows=30)
    checkpoint = tmp_path / "journal.checkpoint"
    checkpoint.write_text(json.dumps({"format": 1, "seq": 3, "hash": stored_rows(path)[2][4]}))
    flip(path, b"row-0020")  # row 22, after the checkpoint's row 3
    assert _refused(path) == (
        f"{path}: the chain is broken at row 22: contents do not match its hash (edited): "
        "`tablectl journal verify` names every bad row (docs/recovery.md)"
    )


def test_a_broken_row_before_the_checkpoint_is_left_to_the_full_check(tmp_path: Path) -> None:
    path = _table_journal(tmp_path, rows=30)
    flip(path, b"row-0020")  # row 22: before the checkpoint (a clean stop: the last row)
    with SqliteJournal(path) as journal:
        assert journal.inspection.checked == 1  # the start read the checkpoint's row alone
        problem = full_check(journal)
        assert problem == "row 22: contents do not match its hash (edited)"
        journal.checkpoint.mark_broken(problem)
    message = _refused(path)
    assert message == (
        f"{path}: the full check found the chain broken (row 22: contents do not match its "
        "hash (edited), recorded in journal.checkpoint): the journal must be repaired before "
        "play goes on (docs/recovery.md)"
    )


def test_a_checkpoint_that_is_not_one_is_refused(tmp_path: Path) -> None:
    path = _table_journal(tmp_path)
    (tmp_path / "journal.checkpoint").write_text("{not json")
    assert _refused(path) == (
        f"{tmp_path / 'journal.checkpoint'}: not a journal checkpoint: move it aside and the "
        "next start checks the whole chain (docs/recovery.md)"
    )
    (tmp_path / "journal.checkpoint").unlink()
    journal, _ = open_table_journal(path, SPANISH21)
    with journal:
        assert journal.inspection.checked == 6  # the whole chain, once


def test_a_replaced_or_removed_checkpoint_row_is_refused(tmp_path: Path) -> None:
    path = _table_journal(tmp_path)
    checkpoint = tmp_path / "journal.checkpoint"
    checkpoint.write_text(json.dumps({"format": 1, "seq": 4, "hash": "ab" * 32}))
    assert "row 4: not the row journal.checkpoint saw (replaced)" in _refused(path)
    checkpoint.write_text(json.dumps({"format": 1, "seq": 4, "hash": stored_rows(path)[3][4]}))
    remove_rows(path, "seq = 4")
    assert "at row 4: missing, journal.checkpoint saw it (removed)" in _refused(path)


def test_an_edited_header_is_refused_wherever_the_checkpoint_is(tmp_path: Path) -> None:
    path = _table_journal(tmp_path)
    flip(path, b'"game":"spanish21"', at=8)  # "spanish21" -> "rpanish21", say
    assert _refused(path) == (
        f"{path}: the chain is broken at row 1: contents do not match its hash (edited): "
        "`tablectl journal verify` names every bad row (docs/recovery.md)"
    )


def test_the_start_up_check_reads_a_bounded_number_of_rows(tmp_path: Path) -> None:
    path = tmp_path / "journal.db"
    with SqliteJournal(path, checkpoint_every=100) as journal:
        for n in range(450):
            journal.record({"type": "note", "n": n})
        # As after a kill: the checkpoint is where the writer last advanced it.
        assert journal.checkpoint.mark is not None and journal.checkpoint.mark.seq == 400
        (tmp_path / "killed.checkpoint").write_bytes((tmp_path / "journal.checkpoint").read_bytes())
    os.replace(tmp_path / "killed.checkpoint", tmp_path / "journal.checkpoint")
    with SqliteJournal(path) as reopened:
        assert reopened.inspection.checked == 51  # rows 400-450, not 450
    with SqliteJournal(path) as again:
        assert again.inspection.checked == 1  # the clean stop left it at the last row


def test_an_unreadable_row_is_one_line_naming_where(tmp_path: Path) -> None:
    path = _table_journal(tmp_path, rows=30)
    flip(path, b'{"mark":"row-0020"')  # '{' flipped: row 22 is no longer JSON
    with SqliteJournal(path) as journal, pytest.raises(JournalError) as unreadable:
        list(journal.rows())
    assert str(unreadable.value).startswith(f"{path}: the journal is damaged at row 22: ")


# --------------------------------------------------------------------------- creation


def _killed(env_failpoints: str, program: str, *args: str) -> None:
    env = {**os.environ, "TABLECTL_FAILPOINTS": env_failpoints}
    done = subprocess.run(
        [sys.executable, "-c", program, *args], env=env, capture_output=True, timeout=60
    )
    assert done.returncode == -signal.SIGKILL, done.stderr


_CREATE = """
import sys
from controller.journal.header import Identity, open_table_journal
journal, _ = open_table_journal(sys.argv[1], Identity("t", sys.argv[2], sys.argv[2] != "baccarat"))
journal.close()
"""


@pytest.mark.parametrize(
    ("failpoint", "game", "left"),
    [
        ("journal.creating", "spanish21", [".journal.db.creating", ".journal.sealkey.new"]),
        ("journal.creating", "baccarat", [".journal.db.creating"]),
        ("key.writing", "spanish21", ["..journal.sealkey.new.tmp"]),
        ("journal.placed", "spanish21", [".journal.sealkey.new", "journal.db"]),
    ],
)
def test_a_kill_while_a_journal_is_created_leaves_nothing_that_fails_the_next_start(
    tmp_path: Path, failpoint: str, game: str, left: list[str]
) -> None:
    path = tmp_path / "journal.db"
    _killed(failpoint, _CREATE, str(path), game)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(left)
    if failpoint == "journal.creating":
        assert (tmp_path / ".journal.db.creating").stat().st_size == 4096  # what bricked before
    identity = Identity("t", game, seals=game != "baccarat")
    journal, key = open_table_journal(path, identity)  # the next start
    with journal:
        header = journal.header
        assert header is not None and header["game"] == game
    assert (key is None) == (game == "baccarat")
    if key is not None:
        assert fingerprint(key) == header["sealing_key"]  # completed, or made afresh
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".")]
    assert verify(path).ok


def test_a_marked_file_without_a_schema_is_an_interrupted_creation(tmp_path: Path) -> None:
    # What the non-atomic creation left when it was killed: every start then failed
    # with "journal schema 0" (issue 9, item 7).
    import sqlite3

    path = tmp_path / "journal.db"
    db = sqlite3.connect(path)
    db.execute("PRAGMA application_id=1952607331")
    db.close()
    assert path.stat().st_size == 4096
    with SqliteJournal(path) as journal:
        assert journal.created and journal.last_seq == 0
    assert verify(path).ok


_KEY = """
import sys
from drivers.keys import write_key
write_key(sys.argv[1])
"""


def test_a_kill_while_a_key_is_written_leaves_no_half_key(tmp_path: Path) -> None:
    path = tmp_path / "shoe.key"
    _killed("key.writing", _KEY, str(path))
    assert not path.exists()  # before: 32 of 64 digits, and every start failed
    assert [p.name for p in tmp_path.iterdir()] == [".shoe.key.tmp"]
    key = write_key(str(path))  # the next start writes it whole
    assert load_key(str(path)) == key and path.stat().st_mode & 0o777 == 0o400
    assert list(tmp_path.iterdir()) == [path]
    with pytest.raises(FileExistsError):
        write_key(str(path))


def test_a_journal_that_cannot_be_created_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "no such directory" / "journal.db"
    with pytest.raises(JournalError) as refused:
        open_table_journal(path, SPANISH21)
    message = str(refused.value)
    assert message.startswith(f"{path}: cannot create the journal: ") and "\n" not in message
    assert not path.parent.exists()
