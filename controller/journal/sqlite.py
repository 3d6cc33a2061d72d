"""The journal's SQLite file: its marks (application id, schema version), its one
table with the triggers that keep it append-only, and a read-only connection for those
who must never write to the table's record (``verify``, ``export``, the start-up
check)."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Final

from controller.journal.errors import JournalError, failure

APPLICATION_ID: Final = 0x7462_6C63  # "tblc": marks a tablectl journal file
SCHEMA_VERSION: Final = 1

SCHEMA: Final = """
CREATE TABLE rows (
    seq  INTEGER PRIMARY KEY,
    ts   TEXT NOT NULL,
    body TEXT NOT NULL,
    prev TEXT NOT NULL,
    hash TEXT NOT NULL
);
CREATE TRIGGER rows_no_update BEFORE UPDATE ON rows
BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;
CREATE TRIGGER rows_no_delete BEFORE DELETE ON rows
BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;
"""


def open_read_only(path: str | os.PathLike[str], *, alone: bool = False) -> sqlite3.Connection:
    """A journal opened read-only: JournalError (one line) when it is missing,
    unreadable or not a tablectl journal. A read-only connection never checkpoints
    the write-ahead log into the file nor removes it, whatever it finds. ``alone``: no
    other process has the journal open (the daemon's start), so a journal without a
    write-ahead log is read as it is, without creating one."""
    p = Path(path)
    if not p.is_file():
        raise JournalError(f"{p}: no such journal")
    untouched = alone and not p.with_name(p.name + "-wal").exists()
    try:
        db = sqlite3.connect(f"file:{p}?mode=ro{'&immutable=1' if untouched else ''}", uri=True)
    except sqlite3.Error as exc:
        raise failure(p, exc, "open") from None
    try:
        (app,) = db.execute("PRAGMA application_id").fetchone()
    except sqlite3.DatabaseError as exc:
        db.close()
        raise failure(p, exc) from None
    if app != APPLICATION_ID:
        db.close()
        raise JournalError(f"{p}: not a tablectl journal")
    return db


def has_schema(db: sqlite3.Connection) -> bool:
    """Whether the journal's table exists (a creation interrupted by the old, non-atomic
    code left a marked file without it)."""
    found = db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'rows'")
    return found.fetchone() is not None
