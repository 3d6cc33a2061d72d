"""The table's journal on disk: SQLite, append-only, each row chained to the one before.

A row is written and committed (WAL, ``synchronous=FULL``) before ``record`` returns,
so the table acknowledges a card to the shoe only once the card is on disk: neither a
crash nor a power cut loses a dealt card. Inside ``transaction()`` (the daemon's: every
row one input, or a group of queued device events, produces) each row is chained as it
is recorded and all are inserted and committed together when it ends (one statement
for the rows, one fsync); each is durable then, and only then does the daemon act on
them.

Each row carries the SHA-256 of the row before it and its own hash over its sequence
number, time, the previous hash and its body (controller/journal/chain.py); ``verify``
recomputes the chain and names every row that was edited, removed or moved. Triggers
refuse UPDATE and DELETE, so the daemon cannot rewrite its own history by mistake; the
chain is what catches someone who bypasses them with another tool.

Opening checks the journal without writing to it (controller/journal/inspect.py): a
file that is not a tablectl journal, a chain broken after the checkpoint, a journal
that ends before its checkpoint or its tail record is refused with one line
(``JournalError``). A missing or empty journal is created (controller/journal/
create.py) only where nothing shows a table used one (``JournalFiles.witness``): the
daemon never starts a fresh journal over a damaged or lost one.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import sqlite3
import time
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from typing import Any, Final

import structlog

from controller.journal.chain import Row, encode, row_hash
from controller.journal.checkpoint import CHECKPOINT_EVERY, Checkpoint, Mark, Tail
from controller.journal.create import create_journal
from controller.journal.errors import JournalError, failure, unusable
from controller.journal.files import JournalFiles
from controller.journal.inspect import Inspection, inspect
from drivers import failpoints

log = structlog.get_logger("controller.journal")

_INSERT: Final = "INSERT INTO rows (seq, ts, body, prev, hash) VALUES (?, ?, ?, ?, ?)"
_ONE_STATEMENT: Final = 64  # rows a commit inserts in one statement at most


@functools.cache
def _inserting(count: int) -> str:
    """The INSERT of ``count`` rows in one statement."""
    return _INSERT + ", (?, ?, ?, ?, ?)" * (count - 1)


def _text(when: datetime) -> str:
    return when.isoformat(timespec="microseconds")


class UtcText:
    """The system clock's time now, as ``_text(datetime.now(UTC))`` writes it
    (``2026-12-01T13:59:24.123456+00:00``), its date and second formatted once a
    second: a row's time at a quarter of the cost."""

    def __init__(self) -> None:
        self._second = -1
        self._prefix = ""

    def __call__(self) -> str:
        second, micros = divmod(time.time_ns() // 1_000, 1_000_000)
        if second != self._second:
            self._second = second
            self._prefix = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
        return f"{self._prefix}.{micros:06d}+00:00"


class SqliteJournal:
    """The journal the daemon writes. ``record`` is durable when it returns.

    ``header`` (the daemon's: controller/journal/header.py) is the first row of a
    journal created here, and ``sealing_key`` its key file; without a header a new
    journal starts with no row (tools and tests). ``checkpoint_every``: rows between two
    checkpoints."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        clock: Any = None,
        header: Mapping[str, object] | None = None,
        sealing_key: bytes | None = None,
        checkpoint_every: int = CHECKPOINT_EVERY,
    ) -> None:
        self.files = JournalFiles.of(path)
        self.path = self.files.db
        self._clock = clock or (lambda: datetime.now(UTC))
        # A row's time as text: the given clock's, or the system's (``UtcText``).
        self._now: Any = UtcText() if clock is None else lambda: _text(clock())
        self._every = checkpoint_every
        self.created = self.files.missing() or self.files.unfinished()
        if self.created:
            witness = self.files.witness()
            if witness is not None:
                raise JournalError(
                    f"{self.path}: no journal, but {witness}: the table has been in use, "
                    "so no fresh journal is started (docs/recovery.md)"
                )
            create_journal(self.files, header, sealing_key, self._clock())
        self.inspection = inspect(self.files)
        self._db = self._connect(self.inspection)
        self._closed = False
        self._seq, self._prev = self.inspection.last.seq, self.inspection.last.hash
        self._open: list[tuple[int, str, str]] | None = None  # a transaction's rows
        self._rows: list[tuple[int, str, str, str, str]] = []  # ... to be inserted
        self.checkpoint = Checkpoint(self.files.checkpoint, self.inspection.checkpoint)
        try:
            if self.inspection.checkpoint != self.inspection.last:
                self.checkpoint.advance(self._seq, self._prev)  # checked up to here just now
            self._tail = Tail(self.files.tail, self._seq, self._prev)
        except OSError as exc:
            self._db.close()
            raise JournalError(f"{self.path}: cannot write beside the journal: {exc}") from None

    @property
    def header(self) -> dict[str, Any] | None:
        """Row 1 when it says what the journal is; None for a journal without one."""
        return self.inspection.header

    def _connect(self, seen: Inspection) -> sqlite3.Connection:
        try:
            db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise failure(self.path, exc, "open") from None
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
            last = db.execute("SELECT seq, hash FROM rows ORDER BY seq DESC LIMIT 1").fetchone()
        except sqlite3.DatabaseError as exc:
            db.close()
            raise failure(self.path, exc) from None
        found = seen.last if last is None and seen.last.seq == 0 else Mark(*last or (-1, ""))
        if found != seen.last:
            db.close()
            raise JournalError(f"{self.path}: the journal changed while it was opened")
        return db

    # ------------------------------------------------------------------ writing

    def record(self, entry: Mapping[str, object]) -> str:
        """Write ``entry`` as the next row: durable when this returns, or inside
        ``transaction()`` when that ends. Its body, the canonical JSON the row holds
        (the API streams these bytes: controller/daemon/wiring.py)."""
        kind = f"journal.committed:{entry.get('type')}" if failpoints.ARMED else ""
        # A crash test aimed at this row (drivers/failpoints.py): it is committed on its
        # own, as every row was before transactions, so the kill leaves the journal
        # ending with it.
        aimed = self._open is not None and kind in failpoints.ARMED
        if aimed:
            self._commit()
        seq = self._seq + 1
        ts = self._now()
        body = encode(entry)
        digest = row_hash(seq, ts, self._prev, body)
        row = (seq, ts, body, self._prev, digest)
        if self._open is None:
            self._insert([row])
            self._seq, self._prev = seq, digest
            self._durable([(seq, digest, kind)])
            return body
        self._seq, self._prev = seq, digest
        # Inside a transaction the row waits for its commit, which inserts all of them
        # in one statement: one call into SQLite (one release of the GIL) a commit.
        self._rows.append(row)
        self._open.append((seq, digest, kind))
        if aimed:
            self._commit()
        return body

    def _insert(self, rows: list[tuple[int, str, str, str, str]]) -> None:
        """Insert ``rows`` (seq, ts, body, prev, hash), at most ``_ONE_STATEMENT``, in
        one statement: outside a transaction that is its own, committed with it (all of
        its rows or none)."""
        try:
            self._db.execute(_inserting(len(rows)), [v for row in rows for v in row])
        except sqlite3.Error as exc:
            raise failure(self.path, exc, "write") from None

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """The rows recorded inside, committed as one transaction when it ends (none of
        them if it raises); nested, the outer one commits. ``JournalError`` when the
        commit fails."""
        if self._open is not None:
            yield
            return
        self._open = []
        before = self._seq, self._prev
        try:
            yield
            self._commit()
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
            self._seq, self._prev = before
            raise
        finally:
            self._open = None
            self._rows = []

    def _commit(self) -> None:
        """The transaction's rows so far, inserted and committed together: in one
        statement, its own transaction (one call into SQLite, one release of the GIL),
        unless some were inserted already (``_flush``) or they are many."""
        assert self._open is not None
        rows, self._open = self._open, []
        if not rows:
            return
        if not self._db.in_transaction and 0 < len(self._rows) <= _ONE_STATEMENT:
            pending, self._rows = self._rows, []
            self._insert(pending)
        else:
            self._flush()
            try:
                self._db.execute("COMMIT")
            except sqlite3.Error as exc:
                raise failure(self.path, exc, "write") from None
        self._durable(rows)

    def _flush(self) -> None:
        """The open transaction's rows not inserted yet, inserted (not committed)."""
        pending, self._rows = self._rows, []
        if pending:
            try:
                if not self._db.in_transaction:
                    self._db.execute("BEGIN")
                self._db.executemany(_INSERT, pending)
            except sqlite3.Error as exc:
                raise failure(self.path, exc, "write") from None

    def _durable(self, rows: list[tuple[int, str, str]]) -> None:
        """``rows`` (sequence number, hash, failpoint) are committed: the witnesses say
        so, then each row's failpoint, in row order."""
        seq, digest, _ = rows[-1]
        self._witness(seq, digest)
        if failpoints.ARMED:
            for _seq, _digest, kind in rows:
                failpoints.reached(kind)

    def _witness(self, seq: int, digest: str) -> None:
        """The row is durable: the tail record says so, and every ``checkpoint_every``
        rows the checkpoint. Neither is the row: one that cannot be written (a full disk)
        is logged and the table goes on, its next start checking a little more."""
        try:
            self._tail.wrote(seq, digest)
            mark = self.checkpoint.mark
            if mark is None or seq - mark.seq >= self._every:
                self.checkpoint.advance(seq, digest)
        except OSError as exc:
            log.warning("journal_witness_unwritten", seq=seq, error=str(exc))

    # ------------------------------------------------------------------ reading

    @property
    def last_seq(self) -> int:
        return self._seq

    @property
    def last(self) -> Mark:
        return Mark(self._seq, self._prev)

    def rows(self, after: int = 0) -> Iterator[Row]:
        return self._read("WHERE seq > ? ORDER BY seq", after)

    def rows_backwards(self, before: int | None = None) -> Iterator[Row]:
        """The rows from the last (or from the one before ``before``) back to the first,
        read as they are needed: a reader looking for the latest row of a kind reads no
        further than it."""
        limit = self._seq + 1 if before is None else before
        return self._read("WHERE seq < ? ORDER BY seq DESC", limit)

    def _read(self, where: str, bound: int) -> Iterator[Row]:
        """Rows as they are read; JournalError (one line, naming the row) for one that
        cannot be (a damaged page, a body that is not JSON)."""
        at = ""
        try:
            self._flush()  # a transaction's own rows are read as they were written
            cursor = self._db.execute(f"SELECT seq, ts, body FROM rows {where}", (bound,))
            for seq, ts, body in cursor:
                at = f" at row {seq}"
                yield Row(int(seq), str(ts), json.loads(body))
                at = f" after row {seq}"
        except (sqlite3.DatabaseError, ValueError) as exc:
            reason = unusable(exc)
            if reason is not None:
                raise JournalError(f"{self.path}: cannot read the journal{at}: {reason}") from None
            raise JournalError(
                f"{self.path}: the journal is damaged{at}: {exc}: run `tablectl journal verify`"
            ) from None

    def close(self) -> None:
        """Close the journal; a clean stop leaves its checkpoint at the last row."""
        if self._closed:
            return
        self._closed = True
        try:
            mark = self.checkpoint.mark
            if mark is None or (mark.seq, mark.hash) != (self._seq, self._prev):
                self.checkpoint.advance(self._seq, self._prev)
        except OSError as exc:
            log.warning("journal_checkpoint_unwritten", seq=self._seq, error=str(exc))
        finally:
            self._tail.close()
            self._db.close()

    def __enter__(self) -> SqliteJournal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
