"""What a table's journal is, said by its first row, and the daemon's opening of it.

Every journal the daemon creates starts with

    {"type": "journal", "format": 1, "table": "bac-07", "game": "baccarat",
     "sealing_key": "3f9c0a6e1b2d4c58"}

``sealing_key`` is the fingerprint of the key beside the journal (controller/journal/
sealkey.py), null for a game that seals no card. A start is refused, in one line,
when the header names another table or game than the configuration, or when the key
is missing or is another one. A journal written before there were headers is taken as
it is, its key made or taken as before.
"""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass
from typing import Any, Final

from controller.journal.create import complete_key
from controller.journal.errors import JournalError
from controller.journal.files import JournalFiles
from controller.journal.inspect import HEADER_TYPE
from controller.journal.sealkey import KEY_BYTES, encode_key, fingerprint, load_key
from controller.journal.store import SqliteJournal
from drivers import durable

FORMAT: Final = 1


@dataclass(frozen=True, slots=True)
class Identity:
    """The configuration's table: its id, its game, and whether the game seals cards
    (``controller.games.Game.seals_cards``), so the journal has a sealing key."""

    table: str
    game: str
    seals: bool

    def header(self, key: bytes | None) -> dict[str, object]:
        return {
            "type": HEADER_TYPE,
            "format": FORMAT,
            "table": self.table,
            "game": self.game,
            "sealing_key": None if key is None else fingerprint(key),
        }


def open_table_journal(
    path: str | os.PathLike[str], identity: Identity
) -> tuple[SqliteJournal, bytes | None]:
    """The table's journal, checked (controller/journal/inspect.py) and checked against
    ``identity``, and its sealing key (None for a game that seals no card); a new
    journal, with its header and key, where there is none and none was used."""
    new_key = secrets.token_bytes(KEY_BYTES) if identity.seals else None
    journal = SqliteJournal(path, header=identity.header(new_key), sealing_key=new_key)
    try:
        key = _key(journal, identity)
    except (JournalError, OSError):
        journal.close()
        raise
    return journal, key


def _key(journal: SqliteJournal, identity: Identity) -> bytes | None:
    files = journal.files
    header = journal.header
    if header is None:
        return _old_key(files) if identity.seals else None
    _check_header(files, header, identity)
    named = header.get("sealing_key")
    if named is None:
        return None
    complete_key(files, str(named), journal.last_seq)
    key = load_key(files.sealkey)
    if key is None:
        raise JournalError(
            f"{files.sealkey}: missing, and the journal's header (row 1) names sealing key "
            f"{named}: restore that key beside the journal (docs/recovery.md)"
        )
    if fingerprint(key) != named:
        raise JournalError(
            f"{files.sealkey}: holds sealing key {fingerprint(key)}, the journal's header "
            f"(row 1) names {named}: restore the table's own key (docs/recovery.md)"
        )
    return key


def _check_header(files: JournalFiles, header: dict[str, Any], identity: Identity) -> None:
    if header.get("format") != FORMAT:
        raise JournalError(
            f"{files.db}: journal format {header.get('format')!r}, this tablectl reads {FORMAT}"
        )
    written = (header.get("table"), header.get("game"))
    if written != (identity.table, identity.game):
        raise JournalError(
            f"{files.db}: the journal of table {written[0]!r} ({written[1]}), by its header "
            f"(row 1); the configuration is table {identity.table!r} ({identity.game}): "
            "give each table its own journal"
        )
    if identity.seals and header.get("sealing_key") is None:
        raise JournalError(
            f"{files.db}: the journal's header (row 1) names no sealing key, and a "
            f"{identity.game} table seals cards"
        )


def _old_key(files: JournalFiles) -> bytes:
    """A journal from before there were headers: its key as it was kept then, made on
    first use."""
    key = load_key(files.sealkey)
    if key is None:
        key = secrets.token_bytes(KEY_BYTES)
        durable.create(files.sealkey, encode_key(key), 0o600, "key.writing")
    return key
