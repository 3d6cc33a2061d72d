"""The uplink's parts on their own, on real files: the back-off's ceilings, the cursor
written whole and tied to its table, and the outbox that reads only what another
connection committed."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from controller.journal import SqliteJournal
from controller.uplink.cursor import Cursor, CursorError
from controller.uplink.outbox import Outbox
from controller.uplink.publisher import Backoff


def test_the_back_off_doubles_to_its_ceiling_with_full_jitter() -> None:
    top = Backoff(0.5, 30.0, rand=lambda: 1.0)
    assert [top.next() for _ in range(9)] == [0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 30.0, 30.0, 30.0]
    top.reset()
    assert top.next() == 0.5
    bottom = Backoff(0.5, 30.0, rand=lambda: 0.0)
    assert [bottom.next() for _ in range(3)] == [0.0, 0.0, 0.0]  # full jitter: from 0
    assert [Backoff(0.5, 30.0).next() for _ in range(200)] != [0.25] * 200


def test_the_cursor_is_replaced_whole_and_belongs_to_its_table(tmp_path: Path) -> None:
    state = tmp_path / "state"
    cursor = Cursor(state, "T1")
    assert (cursor.seq, cursor.hash) == (0, None) and not cursor.path.exists()
    cursor.save(7, "ab" * 32)
    cursor.save(9, "cd" * 32)
    assert sorted(p.name for p in state.iterdir()) == ["cursor.json"]  # no temporary left
    assert json.loads(cursor.path.read_text()) == {"table": "T1", "seq": 9, "hash": "cd" * 32}
    again = Cursor(state, "T1")
    assert (again.seq, again.hash) == (9, "cd" * 32)
    with pytest.raises(CursorError, match="the cursor of table 'T1', not 'T2'"):
        Cursor(state, "T2")
    cursor.path.write_text('{"seq": "nine"}')
    with pytest.raises(CursorError, match="not an uplink cursor"):
        Cursor(state, "T1")


def test_the_outbox_sees_new_rows_only_once_committed(tmp_path: Path) -> None:
    path = tmp_path / "journal.db"
    writer = SqliteJournal(path)
    for n in range(5):
        writer.record({"type": "prompt", "text": f"LINE {n}", "shown": True})
    outbox = Outbox(path)
    try:
        assert [r.seq for r in outbox.after(0, 3)] == [1, 2, 3]
        assert [r.seq for r in outbox.after(3, 10)] == [4, 5]
        assert outbox.after(5, 10) == []  # at the end, nothing committed since
        with writer.transaction():
            writer.record({"type": "prompt", "text": "LINE 5", "shown": True})
            assert outbox.after(5, 10) == []  # not committed yet
        (row,) = outbox.after(5, 10)
        assert (row.seq, json.loads(row.body)["text"]) == (6, "LINE 5")
        assert [r.seq for r in outbox.after(2, 2)] == [3, 4]  # back, after a reconnection
        assert outbox.hash_of(6) == row.hash and outbox.hash_of(7) is None
        # The reader holds no read transaction between calls: the writer's checkpoint
        # can take the whole write-ahead log.
        other = sqlite3.connect(path)
        try:
            assert other.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()[0][0] == 0
        finally:
            other.close()
    finally:
        outbox.close()
        writer.close()
