"""The table's journal: the SQLite file the daemon writes (``store``), its files and
their witnesses (``files``, ``checkpoint``), its atomic creation (``create``), its
start-up check (``inspect``), the daemon's header row and sealing key (``header``,
``sealkey``), the check of its whole chain (``verify``, ``fullcheck``), and the journal
the table's own thread can watch (``observed``)."""

from controller.journal.chain import GENESIS, Row, encode, row_hash
from controller.journal.checkpoint import CHECKPOINT_EVERY
from controller.journal.errors import JournalError
from controller.journal.files import JournalFiles
from controller.journal.sqlite import APPLICATION_ID, SCHEMA_VERSION, open_read_only
from controller.journal.store import SqliteJournal
from controller.journal.verify import Verdict, verify

__all__ = [
    "APPLICATION_ID",
    "CHECKPOINT_EVERY",
    "GENESIS",
    "SCHEMA_VERSION",
    "JournalError",
    "JournalFiles",
    "Row",
    "SqliteJournal",
    "Verdict",
    "encode",
    "open_read_only",
    "row_hash",
    "verify",
]
