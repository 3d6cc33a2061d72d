"""The table's journal on disk: SQLite, append-only, each row chained to the one before.

A row is written and committed (WAL, ``synchronous=FULL``) before ``record`` returns,
so the table acknowledges a card to the shoe only once the card is on disk: neither a
crash nor a power cut loses a dealt card.

Each row carries the SHA-256 of the row before it and its own hash over its sequence
number, time, the previous hash and its body; ``verify`` recomputes the chain and names
every row that was edited, removed or moved. Triggers refuse UPDATE and DELETE, so the
daemon cannot rewrite its own history by mistake; the chain is what catches someone
who bypasses them with another tool.

A file that is not a tablectl journal, or fails SQLite's own check, or whose last row
does not match its hash, is refused with one line (``JournalError``): the daemon never
starts a fresh journal over a damaged one.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

from drivers import failpoints

APPLICATION_ID = 0x7462_6C63  # "tblc": marks a tablectl journal file
SCHEMA_VERSION = 1
GENESIS = "0" * 64  # the "previous hash" of the first row

_SCHEMA = """
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


class JournalError(Exception):
    """The journal cannot be used; the message is one line naming the file."""


def row_hash(seq: int, ts: str, prev: str, body: str) -> str:
    """A row's hash: over its place, its time, the hash before it and its body."""
    h = hashlib.sha256()
    for part in (str(seq), ts, prev, body):
        data = part.encode("utf-8")
        h.update(len(data).to_bytes(4, "big"))
        h.update(data)
    return h.hexdigest()


def _json_value(value: object) -> object:
    if isinstance(value, Decimal):
        return str(value)  # exact: an amount is never rounded through a float
    raise TypeError(f"{type(value).__name__} cannot be journaled")


def encode(entry: Mapping[str, object]) -> str:
    """An entry as the canonical JSON its hash is taken over."""
    return json.dumps(entry, sort_keys=True, separators=(",", ":"), default=_json_value)


@dataclass(frozen=True, slots=True)
class Row:
    seq: int
    ts: str
    entry: dict[str, Any]


class SqliteJournal:
    """The journal the daemon writes. ``record`` is durable when it returns."""

    def __init__(self, path: str | os.PathLike[str], *, clock: Any = None) -> None:
        self.path = Path(path)
        self._clock = clock or (lambda: datetime.now(UTC))
        new = not self.path.exists() or self.path.stat().st_size == 0
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise JournalError(f"{self.path}: cannot open the journal: {exc}") from None
        try:
            if new:
                self._create()
            else:
                self._check_header()
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            if not new:
                self._check_contents()
            self._seq, self._prev = self._head()
        except sqlite3.DatabaseError as exc:
            self._db.close()
            raise JournalError(f"{self.path}: the journal is damaged: {exc}") from None
        except JournalError:
            self._db.close()
            raise

    # ------------------------------------------------------------------ opening

    def _create(self) -> None:
        self._db.execute(f"PRAGMA application_id={APPLICATION_ID}")
        self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        self._db.executescript(_SCHEMA)

    def _check_header(self) -> None:
        (app,) = self._db.execute("PRAGMA application_id").fetchone()
        if app != APPLICATION_ID:
            raise JournalError(f"{self.path}: not a tablectl journal")
        (version,) = self._db.execute("PRAGMA user_version").fetchone()
        if version != SCHEMA_VERSION:
            raise JournalError(
                f"{self.path}: journal schema {version}, this tablectl reads {SCHEMA_VERSION}"
            )

    def _check_contents(self) -> None:
        (result,) = self._db.execute("PRAGMA quick_check").fetchone()
        if result != "ok":
            raise JournalError(f"{self.path}: the journal is damaged: {result}")
        last = self._db.execute(
            "SELECT seq, ts, prev, body, hash FROM rows ORDER BY seq DESC LIMIT 1"
        ).fetchone()
        if last is not None and row_hash(*last[:4]) != last[4]:
            raise JournalError(
                f"{self.path}: row {last[0]} does not match its hash: run `tablectl journal verify`"
            )

    def _head(self) -> tuple[int, str]:
        last = self._db.execute("SELECT seq, hash FROM rows ORDER BY seq DESC LIMIT 1").fetchone()
        return (0, GENESIS) if last is None else (int(last[0]), str(last[1]))

    # ------------------------------------------------------------------ writing

    def record(self, entry: Mapping[str, object]) -> None:
        body = encode(entry)
        seq = self._seq + 1
        ts = self._clock().isoformat(timespec="microseconds")
        digest = row_hash(seq, ts, self._prev, body)
        try:
            self._db.execute(
                "INSERT INTO rows (seq, ts, body, prev, hash) VALUES (?, ?, ?, ?, ?)",
                (seq, ts, body, self._prev, digest),
            )
        except sqlite3.Error as exc:
            raise JournalError(f"{self.path}: cannot write the journal: {exc}") from None
        self._seq, self._prev = seq, digest
        if failpoints.ARMED:
            failpoints.reached(f"journal.committed:{entry.get('type')}")

    # ------------------------------------------------------------------ reading

    @property
    def last_seq(self) -> int:
        return self._seq

    def rows(self, after: int = 0) -> Iterator[Row]:
        cursor = self._db.execute(
            "SELECT seq, ts, body FROM rows WHERE seq > ? ORDER BY seq", (after,)
        )
        for seq, ts, body in cursor:
            yield Row(int(seq), str(ts), json.loads(body))

    def rows_backwards(self, before: int | None = None) -> Iterator[Row]:
        """The rows from the last (or from the one before ``before``) back to the first,
        read as they are needed: a reader looking for the latest row of a kind reads no
        further than it."""
        limit = self._seq + 1 if before is None else before
        cursor = self._db.execute(
            "SELECT seq, ts, body FROM rows WHERE seq < ? ORDER BY seq DESC", (limit,)
        )
        for seq, ts, body in cursor:
            yield Row(int(seq), str(ts), json.loads(body))

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> SqliteJournal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_read_only(path: str | os.PathLike[str]) -> sqlite3.Connection:
    """A journal opened read-only, for tools that must never write to the table's record:
    JournalError (one line) when it is missing, unreadable or not a tablectl journal."""
    p = Path(path)
    if not p.is_file():
        raise JournalError(f"{p}: no such journal")
    try:
        db = sqlite3.connect(f"file:{p}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise JournalError(f"{p}: cannot open the journal: {exc}") from None
    try:
        (app,) = db.execute("PRAGMA application_id").fetchone()
    except sqlite3.DatabaseError as exc:
        db.close()
        raise JournalError(f"{p}: the journal is damaged: {exc}") from None
    if app != APPLICATION_ID:
        db.close()
        raise JournalError(f"{p}: not a tablectl journal")
    return db
