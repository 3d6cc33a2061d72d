"""The journal's full check after start (controller/journal/fullcheck.py), and what a
broken chain it finds does to the running table: play stops for a floorperson (a
``journal_broken`` halt, handed to the table's thread through its inbox), and no
floorperson's clear is taken until the journal is repaired, which needs the daemon
stopped: the API refuses ``floor_clear`` (error ``journal_broken``) and the simulated
console stops playing. The checkpoint is marked broken, so every later start is refused
in one line until then (docs/recovery.md). And a real device's witness that the journal
lost its tail, said in the log (``LostTail``)."""

from __future__ import annotations

from collections.abc import Mapping

import structlog

from controller.api import Ticket
from controller.api.wire import Refused
from controller.daemon.inbox import Inbox
from controller.journal import SqliteJournal
from controller.journal.fullcheck import FullCheck
from controller.table.events import Command, FloorClear
from controller.table.halts import Halt

CAUSE = "journal_broken"

log = structlog.get_logger("controller.daemon")


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


class LostTail:
    """A watcher of the rows written after a start (``ObservedJournal.watchers``). A
    real device's driver picks up after the last event the journal holds for it; an
    event gap it reports before the device's first connection of this run means the
    device's backlog starts past that event: it was acknowledged for events the journal
    no longer holds (the journal lost its tail: a torn log, an old copy put back) or it
    dropped them. The table stops for a floorperson over the gap (``event_gap``, ending
    the shoe for the shoe); this says in the log what it means."""

    def __init__(self) -> None:
        self._connected: set[str] = set()

    def __call__(self, entry: Mapping[str, object]) -> None:
        if entry.get("type") != "device":
            return
        device = str(entry.get("device"))
        if entry.get("event") == "device_connected":
            self._connected.add(device)
            return
        expected, got = entry.get("expected"), entry.get("got")
        if entry.get("event") != "event_gap" or device in self._connected:
            return
        if isinstance(expected, int) and isinstance(got, int) and got > expected:
            log.error(
                "journal_tail_lost",
                device=device,
                journal_last_event=expected - 1,
                device_backlog_from=got,
                detail=f"{device} events {expected}..{got - 1} acknowledged, not in the journal",
            )
