"""The journal's full check after start (controller/journal/fullcheck.py), and what a
broken chain it finds does to the running table: play stops for a floorperson (a
``journal_broken`` halt, handed to the table's thread through its inbox), and no
floorperson's clear is taken until the journal is repaired, which needs the daemon
stopped: the API refuses ``floor_clear`` (error ``journal_broken``) and the simulated
console stops playing. The checkpoint is marked broken, so every later start is refused
in one line until then (docs/recovery.md)."""

from __future__ import annotations

from controller.api import Ticket
from controller.api.wire import Refused
from controller.daemon.inbox import Inbox
from controller.journal import SqliteJournal
from controller.journal.fullcheck import FullCheck
from controller.table.events import Command, FloorClear
from controller.table.halts import Halt

CAUSE = "journal_broken"


class JournalGuard:
    """Between the API and the table's inbox (``submit``), and the full check's thread."""

    def __init__(self, journal: SqliteJournal, inbox: Inbox) -> None:
        self._inbox = inbox
        self.broken: str | None = None
        self.check = FullCheck(journal, self._found)

    def start(self) -> None:
        self.check.start()

    def submit(self, command: Command, ticket: Ticket) -> bool:
        """The API's ``submit``: a floorperson's clear is refused while the journal is
        broken; everything else goes to the table's inbox."""
        if self.broken is not None and isinstance(command, FloorClear):
            raise Refused(
                CAUSE,
                f"the journal's chain is broken ({self.broken}): play stays stopped until "
                "the journal is repaired and the daemon restarted (docs/recovery.md)",
            )
        return self._inbox.submit(command, ticket)

    def _found(self, problem: str) -> None:
        # Set before the halt is queued: a clear submitted after it is refused, one
        # submitted before it reaches the table before the halt does.
        self.broken = problem
        self._inbox.interrupt(Halt(CAUSE, None, problem))
