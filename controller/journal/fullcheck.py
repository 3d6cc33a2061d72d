"""The check of the whole journal that runs after start, beside the table: SQLite's
``quick_check`` over every page, then every row's hash and link (``verify``). The
start-up check reads only the rows after the checkpoint (controller/journal/
inspect.py), so its cost does not grow with the journal; this one does, and so it runs
in the background. What it finds marks the checkpoint broken (every later start is
refused until the journal is repaired) and is handed to ``found``."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable

import structlog

from controller.journal.errors import JournalError
from controller.journal.sqlite import open_read_only
from controller.journal.store import SqliteJournal
from controller.journal.verify import verify

log = structlog.get_logger("controller.journal")


def full_check(journal: SqliteJournal) -> str | None:
    """The first problem found in the whole journal; None: it is intact."""
    try:
        db = open_read_only(journal.path)
        try:
            (result,) = db.execute("PRAGMA quick_check").fetchone()
        finally:
            db.close()
        if result != "ok":
            return f"the file is damaged ({result})"
        verdict = verify(journal.path, first=True)
    except (JournalError, sqlite3.DatabaseError) as exc:
        return str(exc).removeprefix(f"{journal.path}: ")
    return verdict.problems[0] if verdict.problems else None


class FullCheck:
    """``full_check`` on a thread of its own, once; ``found`` is called on that thread
    with what it found, after the checkpoint is marked broken."""

    def __init__(self, journal: SqliteJournal, found: Callable[[str], None]) -> None:
        self._journal = journal
        self._found = found
        self._thread = threading.Thread(target=self._run, name="journal-check", daemon=True)
        self.problem: str | None = None
        self.done = threading.Event()

    def start(self) -> None:
        self._thread.start()

    def _run(self) -> None:
        began = time.monotonic()
        try:
            self.problem = full_check(self._journal)
            if self.problem is None:
                log.info("journal_checked", seconds=round(time.monotonic() - began, 3))
                return
            log.error("journal_broken", problem=self.problem)
            try:
                self._journal.checkpoint.mark_broken(self.problem)
            except OSError as exc:  # play stops all the same
                log.error("checkpoint_unwritable", error=str(exc))
            self._found(self.problem)
        finally:
            self.done.set()
