"""The table's journal: the SQLite file the daemon writes (``store``), the check of its
hash chain (``verify``), and the journal the table's own thread can watch
(``observed``)."""

from controller.journal.store import (
    APPLICATION_ID,
    GENESIS,
    SCHEMA_VERSION,
    JournalError,
    Row,
    SqliteJournal,
    encode,
    open_read_only,
    row_hash,
)
from controller.journal.verify import Verdict, verify

__all__ = [
    "APPLICATION_ID",
    "GENESIS",
    "SCHEMA_VERSION",
    "JournalError",
    "Row",
    "SqliteJournal",
    "Verdict",
    "encode",
    "open_read_only",
    "row_hash",
    "verify",
]
