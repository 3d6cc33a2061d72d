"""The files of one journal, all beside ``journal.db`` and named from it.

- ``journal.db`` (and SQLite's ``journal.db-wal``, ``journal.db-shm``): the rows.
- ``journal.checkpoint``: the last row whose chain was verified (controller/journal/
  checkpoint.py), written whole every so many rows, at start and at a clean stop.
- ``journal.tail``: the last row written, overwritten in place after every row.
- ``journal.sealkey``: the key that seals hole cards (controller/journal/sealkey.py),
  for a game that seals cards.

Any of the last three, or a write-ahead log with frames in it, shows that the table
has been in use: a journal missing beside them is refused, never started afresh
(``witness``). A journal file with no schema (``unfinished``) is what a creation left
before creations were atomic: it never held a row, and counts as missing.

A new journal is built as ``.journal.db.creating`` and its sealing key as
``.journal.sealkey.new`` (controller/journal/create.py); with the temporary files of
durable writes (``.NAME.tmp``) those are the leftovers of an interrupted creation,
cleared before a journal is created (``clear_leftovers``).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from controller.journal.checkpoint import read_checkpoint, read_tail
from controller.journal.errors import JournalError
from controller.journal.sqlite import has_schema, open_read_only
from drivers import durable


@dataclass(frozen=True, slots=True)
class JournalFiles:
    db: Path

    @classmethod
    def of(cls, path: str | os.PathLike[str]) -> JournalFiles:
        return cls(Path(path))

    def _beside(self, name: str) -> Path:
        return self.db.with_name(name)

    @property
    def wal(self) -> Path:
        return self._beside(self.db.name + "-wal")

    @property
    def checkpoint(self) -> Path:
        return self.db.with_suffix(".checkpoint")

    @property
    def tail(self) -> Path:
        return self.db.with_suffix(".tail")

    @property
    def sealkey(self) -> Path:
        return self.db.with_suffix(".sealkey")

    @property
    def creating(self) -> Path:
        """The journal being created, until it is renamed into place."""
        return self._beside(f".{self.db.name}.creating")

    @property
    def sealkey_new(self) -> Path:
        """The new journal's sealing key, until the journal is in place."""
        return self._beside(f".{self.sealkey.name}.new")

    def missing(self) -> bool:
        """No journal: no file, or an empty one."""
        try:
            return self.db.stat().st_size == 0
        except FileNotFoundError:
            return True

    def unfinished(self) -> bool:
        """A marked journal file without its schema: what a creation before creations
        were atomic left when it was interrupted. It never held a row."""
        try:
            if self.db.stat().st_size == 0:
                return False
            db = open_read_only(self.db)
        except (OSError, JournalError):
            return False
        try:
            return not has_schema(db)
        except sqlite3.DatabaseError:
            return False
        finally:
            db.close()

    def witness(self) -> str | None:
        """What shows the table has been in use, in words; None: nothing does."""
        for path, what, read in (
            (self.checkpoint, "its checkpoint", _checkpoint_seq),
            (self.tail, "its tail record", _tail_seq),
            (self.sealkey, "its sealing key", None),
        ):
            if path.exists():
                seq = None if read is None else read(path)
                return f"{what} {path.name} " + ("exists" if seq is None else f"saw row {seq}")
        with contextlib.suppress(FileNotFoundError):
            size = self.wal.stat().st_size
            if size:
                return f"its write-ahead log {self.wal.name} holds {size} bytes"
        return None

    def leftovers(self) -> list[Path]:
        """The files an interrupted creation may have left."""
        names = (
            self.creating,
            self._beside(self.creating.name + "-journal"),
            self.sealkey_new,
            *(durable.leftover(p) for p in (self.sealkey_new, self.checkpoint, self.tail)),
        )
        return [p for p in names if p.exists()]

    def clear_leftovers(self) -> list[Path]:
        """Remove the leftovers of an interrupted creation (never a journal in use); what
        was removed."""
        cleared = self.leftovers()
        for path in cleared:
            path.unlink()
        return cleared


def _checkpoint_seq(path: Path) -> int | None:
    try:
        mark = read_checkpoint(path)
    except JournalError:
        return None  # unreadable: it shows the table was used all the same
    return None if mark is None else mark.seq


def _tail_seq(path: Path) -> int | None:
    mark = read_tail(path)
    return None if mark is None else mark.seq
