"""A new journal, created whole or not at all.

1. The sealing key, if the table keeps one, is written whole as ``.journal.sealkey.new``.
2. The journal is built as ``.journal.db.creating``: its marks, its schema and its first
   row (the header, controller/journal/header.py) in place, fsynced.
3. It is linked into place as ``journal.db`` and the directory fsynced.
4. The key is linked into place as ``journal.sealkey`` and the directory fsynced.

The checkpoint and the tail record follow when the journal is opened. A crash before 3
leaves no journal and only leftovers, which the next creation clears (nothing to lose:
no row was ever acknowledged); a crash between 3 and 4 leaves a journal of one row
whose key is still ``.journal.sealkey.new``: the next start puts it in place
(``complete_key``). So a crash never leaves a file that fails every later start, and a
missing journal beside a checkpoint, a tail record or a sealing key always means one
that was in use.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Mapping
from datetime import datetime

from controller.journal.chain import GENESIS, encode, row_hash
from controller.journal.errors import JournalError
from controller.journal.files import JournalFiles
from controller.journal.sealkey import encode_key, fingerprint, load_key
from controller.journal.sqlite import APPLICATION_ID, SCHEMA, SCHEMA_VERSION
from drivers import durable, failpoints


def create_journal(
    files: JournalFiles,
    header: Mapping[str, object] | None,
    sealing_key: bytes | None,
    now: datetime,
) -> None:
    """Create ``files.db`` with ``header`` as its first row (None: no row, as tools and
    tests make a bare journal) and, with ``sealing_key``, its key file. The caller has
    made sure no journal is there and nothing shows one was (``JournalFiles.witness``).
    JournalError (one line) when it cannot be created."""
    try:
        _create(files, header, sealing_key, now)
    except (OSError, sqlite3.Error) as exc:
        raise JournalError(f"{files.db}: cannot create the journal: {exc}") from None


def _create(
    files: JournalFiles,
    header: Mapping[str, object] | None,
    sealing_key: bytes | None,
    now: datetime,
) -> None:
    files.clear_leftovers()
    for stale in (files.wal, files.db.with_name(files.db.name + "-shm")):
        with contextlib.suppress(FileNotFoundError):
            stale.unlink()  # an empty log of no journal: SQLite must not apply it to this one
    if sealing_key is not None:
        durable.create(files.sealkey_new, encode_key(sealing_key), 0o600, "key.writing")
    _build(files, header, now)
    if files.db.exists() and (files.missing() or files.unfinished()):
        files.db.unlink()  # nothing in it: it is replaced
    durable.put_in_place(files.creating, files.db)
    if failpoints.ARMED:
        failpoints.reached("journal.placed")
    if sealing_key is not None:
        durable.put_in_place(files.sealkey_new, files.sealkey)


def _build(files: JournalFiles, header: Mapping[str, object] | None, now: datetime) -> None:
    db = sqlite3.connect(files.creating, isolation_level=None)
    try:
        db.execute("PRAGMA synchronous=FULL")
        db.execute(f"PRAGMA application_id={APPLICATION_ID}")
        if failpoints.ARMED:
            failpoints.reached("journal.creating")
        db.executescript(f"BEGIN; PRAGMA user_version={SCHEMA_VERSION}; {SCHEMA} COMMIT;")
        if header is not None:
            body = encode(header)
            ts = now.isoformat(timespec="microseconds")
            db.execute(
                "INSERT INTO rows (seq, ts, body, prev, hash) VALUES (1, ?, ?, ?, ?)",
                (ts, body, GENESIS, row_hash(1, ts, GENESIS, body)),
            )
    finally:
        db.close()
    fd = os.open(files.creating, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def complete_key(files: JournalFiles, header_key: str | None, rows: int) -> bool:
    """A creation interrupted between steps 3 and 4 (see the module): the journal holds
    its header alone, and its key, the one the header names, is still the new one. Put
    it in place; whether it was."""
    if header_key is None or rows != 1 or files.sealkey.exists():
        return False
    if not files.sealkey_new.exists():
        return False
    staged = load_key(files.sealkey_new)
    if staged is None or fingerprint(staged) != header_key:
        return False
    durable.put_in_place(files.sealkey_new, files.sealkey)
    return True
