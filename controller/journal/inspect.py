"""The start-up check of a journal that exists, read-only (a refused start changes
nothing, not even the write-ahead log), at a cost that does not grow with the journal:

- the file is a tablectl journal of this schema;
- the checkpoint is not marked broken, and the journal reaches the row it names;
- the tail record's row, if it is past the checkpoint, is in the journal;
- the chain is intact from the checkpoint's row (whose hash must be the checkpoint's) to
  the last row.

Rows before the checkpoint were checked when it was written; the full check after start
checks them again (controller/journal/fullcheck.py). Without a checkpoint (a journal
written before there were any) the whole chain is checked, once.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Any

from controller.journal.chain import GENESIS, Chain, row_hash
from controller.journal.checkpoint import Mark, read_checkpoint, read_tail
from controller.journal.errors import JournalError, failure
from controller.journal.files import JournalFiles
from controller.journal.sqlite import SCHEMA_VERSION, has_schema, open_read_only

HEADER_TYPE = "journal"  # the type of a journal's first row (controller/journal/header.py)


@dataclass(frozen=True, slots=True)
class Inspection:
    last: Mark  # the journal's last row
    checked: int  # rows whose chain the start checked
    header: dict[str, Any] | None  # row 1, when it is a journal's header
    checkpoint: Mark | None


def inspect(files: JournalFiles) -> Inspection:
    """What the start-up check found; JournalError (one line) when the journal must not
    be used."""
    db = open_read_only(files.db, alone=True)
    try:
        _check_schema(files, db)
        checkpoint = read_checkpoint(files.checkpoint)
        start = checkpoint or Mark(0, GENESIS)
        if start.broken is not None:
            raise JournalError(
                f"{files.db}: the full check found the chain broken ({start.broken}, "
                f"recorded in {files.checkpoint.name}): the journal must be repaired before "
                "play goes on (docs/recovery.md)"
            )
        last = _last(db)
        tail = read_tail(files.tail)
        for witness, name in ((start, "its checkpoint"), (tail, "its tail record")):
            if witness is not None and witness.seq > last.seq:
                raise JournalError(
                    f"{files.db}: row {witness.seq} is missing: the journal ends at row "
                    f"{last.seq}, {name} saw row {witness.seq} (docs/recovery.md)"
                )
        checked = _chain_from(files, db, start, tail)
        return Inspection(last, checked, _header(files, db), checkpoint)
    except sqlite3.DatabaseError as exc:
        raise failure(files.db, exc) from None
    finally:
        db.close()


def broken(files: JournalFiles, problem: str) -> JournalError:
    """The one line a broken chain is refused with, naming its first bad row."""
    return JournalError(
        f"{files.db}: the chain is broken at {problem}: `tablectl journal verify` names "
        "every bad row (docs/recovery.md)"
    )


def _check_schema(files: JournalFiles, db: sqlite3.Connection) -> None:
    (version,) = db.execute("PRAGMA user_version").fetchone()
    if version != SCHEMA_VERSION or not has_schema(db):
        raise JournalError(
            f"{files.db}: journal schema {version}, this tablectl reads {SCHEMA_VERSION}"
        )


def _last(db: sqlite3.Connection) -> Mark:
    last = db.execute("SELECT seq, hash FROM rows ORDER BY seq DESC LIMIT 1").fetchone()
    return Mark(0, GENESIS) if last is None else Mark(int(last[0]), str(last[1]))


def _chain_from(files: JournalFiles, db: sqlite3.Connection, start: Mark, tail: Mark | None) -> int:
    """Check the rows from ``start``'s to the end; how many were read."""
    cursor = db.execute(
        "SELECT seq, ts, body, prev, hash FROM rows WHERE seq >= ? ORDER BY seq", (start.seq,)
    )
    chain = Chain(start.seq, start.hash)
    count = 0
    for seq, ts, body, prev, stored in cursor:
        count += 1
        if count == 1 and start.seq:
            problem = _at_checkpoint(files, seq, ts, body, prev, stored, start)
        else:
            problems = chain.see(seq, ts, body, prev, stored)
            problem = problems[0] if problems else None
            if problem is None and tail is not None and seq == tail.seq and stored != tail.hash:
                problem = f"row {seq} is not the row {files.tail.name} saw (replaced)"
        if problem is not None:
            raise broken(files, problem)
    return count


def _at_checkpoint(
    files: JournalFiles, seq: int, ts: str, body: str, prev: str, stored: str, start: Mark
) -> str | None:
    """The checkpoint's own row."""
    if seq != start.seq:
        return f"row {start.seq}: missing, {files.checkpoint.name} saw it (removed)"
    if stored != start.hash:
        return f"row {seq}: not the row {files.checkpoint.name} saw (replaced)"
    if row_hash(seq, ts, prev, body) != stored:
        return f"row {seq}: contents do not match its hash (edited)"
    return None


def _header(files: JournalFiles, db: sqlite3.Connection) -> dict[str, Any] | None:
    """Row 1, when it is a journal's header; None for a journal written before there
    were headers. Its own hash is checked wherever the checkpoint is: what it says
    decides how the journal is opened."""
    first = db.execute("SELECT ts, body, prev, hash FROM rows WHERE seq = 1").fetchone()
    if first is None:
        return None
    ts, body, prev, stored = first
    if prev != GENESIS or row_hash(1, ts, prev, body) != stored:
        raise broken(files, "row 1: contents do not match its hash (edited)")
    try:
        entry = json.loads(body)
    except ValueError:
        return None
    return entry if isinstance(entry, dict) and entry.get("type") == HEADER_TYPE else None
