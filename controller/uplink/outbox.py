"""The journal as the uplink's outbox, read read-only (``open_read_only``: the daemon
is writing it; a reader never checkpoints it nor removes its write-ahead log).

Polling is cheap: once the reader has reached the last row, ``PRAGMA data_version``
(which changes only when another connection commits) tells whether there can be new
rows, so an idle table costs one pragma per poll and no row is read twice. No read
transaction is held between calls, so the daemon's checkpoints are never held back.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from controller.journal import JournalError, open_read_only
from controller.journal.errors import failure


class OutRow(NamedTuple):
    seq: int
    ts: str
    body: str
    hash: str


class Outbox:
    """The rows of the journal at ``path`` after a seq, in order."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._db = open_read_only(self.path)
        self._end: int | None = None  # the last seq when the reader last reached the end
        self._version: int | None = None  # data_version then
        try:
            # Read once now, so a journal that cannot be read is said at start: e.g.
            # the daemon stopped, its write-ahead log gone, and this user unable to
            # create one beside the journal (a read-only reader needs it to exist).
            self.last = self.last_seq()
        except JournalError:
            self._db.close()
            raise

    def last_seq(self) -> int:
        """The last row's seq (0: no row)."""
        try:
            ((last,),) = self._db.execute("SELECT coalesce(max(seq), 0) FROM rows").fetchall()
        except sqlite3.Error as exc:
            raise self._failed(exc) from None
        return int(last)

    def _failed(self, exc: sqlite3.Error) -> JournalError:
        return failure(self.path, exc)

    def _data_version(self) -> int:
        # fetchall, not fetchone: the statement runs to its end, so no read
        # transaction is left open to hold back the daemon's checkpoints.
        ((version,),) = self._db.execute("PRAGMA data_version").fetchall()
        return int(version)

    def after(self, seq: int, limit: int) -> list[OutRow]:
        """Up to ``limit`` rows after row ``seq``, in order; JournalError (one line)
        when the journal cannot be read."""
        try:
            version = self._data_version()
            if self._end is not None and seq >= self._end and version == self._version:
                return []  # nothing committed since the end was read
            found = self._db.execute(
                "SELECT seq, ts, body, hash FROM rows WHERE seq > ? ORDER BY seq LIMIT ?",
                (seq, limit),
            ).fetchall()
        except sqlite3.Error as exc:
            raise self._failed(exc) from None
        rows = [OutRow(int(s), str(t), str(b), str(h)) for s, t, b, h in found]
        if len(rows) < limit:
            self._end, self._version = (rows[-1].seq if rows else seq), version
        return rows

    def hash_of(self, seq: int) -> str | None:
        """Row ``seq``'s hash, or None when there is no such row."""
        try:
            found = self._db.execute("SELECT hash FROM rows WHERE seq = ?", (seq,)).fetchall()
        except sqlite3.Error as exc:
            raise self._failed(exc) from None
        return str(found[0][0]) if found else None

    def bodies(self, upto: int, batch: int = 1000) -> Iterator[tuple[int, str, str]]:
        """(seq, ts, body) of every row up to ``upto``, read a batch at a time so no
        read transaction stays open long."""
        at = 0
        while at < upto:
            try:
                found = self._db.execute(
                    "SELECT seq, ts, body FROM rows WHERE seq > ? AND seq <= ? "
                    "ORDER BY seq LIMIT ?",
                    (at, upto, batch),
                ).fetchall()
            except sqlite3.Error as exc:
                raise self._failed(exc) from None
            if not found:
                return
            for seq, ts, body in found:
                yield int(seq), str(ts), str(body)
            at = int(found[-1][0])

    def close(self) -> None:
        self._db.close()
