"""An in-memory journal: the table's record as a list; and a real journal's files read
and damaged as another tool would."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Mapping
from pathlib import Path


class MemoryJournal:
    """Keeps every entry, in order; durable for as long as the process lives."""

    def __init__(self) -> None:
        self.entries: list[dict[str, object]] = []

    def record(self, entry: Mapping[str, object]) -> None:
        self.entries.append(dict(entry))

    def of_type(self, kind: str) -> list[dict[str, object]]:
        return [e for e in self.entries if e.get("type") == kind]


# --------------------------------------------------------------------------- damage
# The files of a real journal, read and damaged as someone with another tool would,
# never through the journal's own writer.

JOURNAL_FILES = (
    "journal.db",
    "journal.db-wal",
    "journal.checkpoint",
    "journal.tail",
    "journal.sealkey",
)


def stored_rows(path: Path) -> list[tuple[int, str, str, str, str]]:
    """Every row as stored (seq, ts, body, prev, hash), read-only: reading changes
    nothing, not even the write-ahead log."""
    alone = "" if path.with_name(path.name + "-wal").exists() else "&immutable=1"
    db = sqlite3.connect(f"file:{path}?mode=ro{alone}", uri=True)
    try:
        return list(db.execute("SELECT seq, ts, body, prev, hash FROM rows ORDER BY seq"))
    finally:
        db.close()


def files_of(workdir: Path) -> dict[str, bytes]:
    """The journal's files in ``workdir`` as bytes, to show a refused start changed none
    (an empty write-ahead log, which a reader may make or remove, holds nothing)."""
    found = {n: (workdir / n).read_bytes() for n in JOURNAL_FILES if (workdir / n).exists()}
    if found.get("journal.db-wal") == b"":
        del found["journal.db-wal"]
    return found


def flip(path: Path, needle: bytes, at: int = 0) -> int:
    """Flip one bit of the byte ``at`` bytes into the only place ``needle`` is in the
    file at ``path``; the offset of that byte."""
    data = bytearray(path.read_bytes())
    where = data.find(needle)
    assert where >= 0 and data.find(needle, where + 1) < 0, f"{needle!r} is not in one place"
    data[where + at] ^= 0x01
    path.write_bytes(bytes(data))
    return where + at


def cut(path: Path, count: int) -> None:
    """Cut ``count`` bytes off the end of the file at ``path``."""
    os.truncate(path, path.stat().st_size - count)


def remove_rows(path: Path, where: str) -> None:
    """Remove the rows ``where`` says, as someone with another tool would."""
    db = sqlite3.connect(path)
    db.execute("DROP TRIGGER rows_no_delete")
    db.execute(f"DELETE FROM rows WHERE {where}")
    db.commit()
    db.close()


def remove_rows_after(path: Path, seq: int) -> None:
    """Remove the rows after ``seq`` (a truncated copy, a torn write-ahead log)."""
    remove_rows(path, f"seq > {seq:d}")


def lose(path: Path, how: str) -> None:
    """The journal at ``path`` ``"deleted"``, or left ``"zero-length"``."""
    if how == "deleted":
        path.unlink()
    else:
        path.write_bytes(b"")
