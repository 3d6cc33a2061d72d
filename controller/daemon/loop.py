"""The table's one thread: it takes device events (from the drivers) and console
commands (from the API's ``submit``) from one queue, in order, and hands each to the
table. What one input makes the table write is one journal transaction
(``PublishingJournal.batch``): its device is acknowledged, its command answered and its
rows streamed once that has committed. Device events already queued behind one share
its transaction (group commit, ``_take``): the journal's rows and their order are the
same, each event is still acknowledged only after the commit that holds its rows.
STATUS= follows the table's state and the devices' health (never a card); WATCHDOG=1 is
sent from this loop, and only after its health check. A simulated table's console
(controller/daemon/console.py) takes its turn here too."""

from __future__ import annotations

import contextlib
import signal
import time
from collections.abc import Mapping, MutableMapping
from typing import Final

import structlog

from controller.api import ApiServer, Ticket
from controller.config import TableSettings
from controller.daemon.arguments import Options
from controller.daemon.console import Console
from controller.daemon.inbox import Inbox, Interrupt, Item, Note, Stop
from controller.daemon.sdnotify import Notifier
from controller.daemon.shuffles import ShuffleWatch
from controller.daemon.view import LiveView
from controller.daemon.wiring import PublishingJournal
from controller.errors import EXIT_OK
from controller.recovery import Snapshots
from controller.recovery.rounds import ENDS
from controller.table.accepts import accepts
from controller.table.core import Table
from controller.table.events import AcknowledgeShuffleAlert, Command
from drivers import messages as m
from drivers.device import DeviceDriver, corked

# The loop looks at its clocks at least this often while something waits for a pass
# of it: a view drawn on a terminal (its redraw after the last change) or a
# notification systemd's socket could not take yet. What else it does when idle waits
# for its own time (the watchdog's ping, the console's pace and polling) or comes
# through the inbox, which wakes it at once; so otherwise it wakes once in IDLE_WAKE.
# At 0.2 s this wake was a quarter of an idle daemon's wake-ups, at 1.0 s a seventh of
# its CPU (benchmarks/idle_bench.py).
WAKE: Final = 1.0
IDLE_WAKE: Final = 5.0
GROUP_LIMIT: Final = 64  # device events in one transaction at most
SETTLE: Final = 3.0  # seconds a stop waits for the shuffle monitor to read the last rows
STALLED_AFTER: Final = 10.0  # the queue not emptied for this long: no watchdog ping
# What each device event says of its device's health, for STATUS= and the live view.
HEALTH: Final[Mapping[type[m.Event], str]] = {
    m.DeviceConnected: "connected",
    m.DeviceLost: "lost",
    m.DeviceUnavailable: "unavailable",
    m.DeviceRefused: "refused",
    m.DeviceFault: "fault",
}

log = structlog.get_logger("controller.daemon")


class StatusLine:
    """systemd's STATUS= and the live view's state line, sent when the text changes."""

    def __init__(self, notifier: Notifier) -> None:
        self._notifier = notifier
        self._text = ""
        self.view: LiveView | None = None  # once the view exists

    def show(self, text: str) -> None:
        if text != self._text:
            self._text = text
            self._notifier.status(text)
            if self.view is not None:
                self.view.state(text)


class TableLoop:
    """The table's thread, from the devices' first events until a signal or the rounds
    asked for; ``health`` is each device's, as the live view shows it."""

    def __init__(
        self,
        *,
        settings: TableSettings,
        options: Options,
        notifier: Notifier,
        status: StatusLine,
        inbox: Inbox,
        api: ApiServer,
        journal: PublishingJournal,
        drivers: Mapping[str, DeviceDriver],
        table: Table,
        health: MutableMapping[str, str],
        view: LiveView,
        console: Console | None,
        snapshots: Snapshots | None = None,
        shuffles: ShuffleWatch | None = None,
    ) -> None:
        self.settings = settings
        self.options = options
        self.notifier = notifier
        self.status = status
        self.inbox = inbox
        self.api = api
        self.journal = journal
        self.drivers = drivers
        self.table = table
        self.health = health
        self.view = view
        self.console = console
        if console is not None:
            console.pace(options.pace_ms)
        self.snapshots = snapshots
        self.shuffles = shuffles
        self.ready = False
        self.next_step = 0.0
        self.unhealthy = False
        self.interrupted = False  # an ``Interrupt`` stopped play for good
        self._shown: tuple[object, ...] = ()  # what the status was made from last

    def run(self) -> int:
        watchdog = self.notifier.watchdog_interval()
        next_ping = time.monotonic()
        while True:
            item = self.inbox.get(self._timeout(next_ping if watchdog else None))
            while item is not None:
                if isinstance(item, Stop):
                    return self._stop(f"signal {signal.Signals(item.signum).name}")
                after = self._take(item)
                self._show_status()  # what each input did, for the next status request
                self._snapshot_if_due()
                if self._done():
                    return self._stop("rounds played")
                item = self._after(after)
            self._play()
            self._snapshot_if_due()
            if self._done():
                return self._stop("rounds played")
            self._show_status()
            # What systemd's socket could not take yet (READY=1, a ping), tried again on
            # every pass: never a blocking send (controller/daemon/sdnotify.py).
            self.notifier.retry()
            self.view.refresh()
            due = watchdog is not None and time.monotonic() >= next_ping
            if due and self._healthy():
                assert watchdog is not None
                self.notifier.watchdog()
                next_ping = time.monotonic() + watchdog

    def _timeout(self, next_ping: float | None) -> float:
        now = time.monotonic()
        wait = WAKE if self.view.drawing or self.notifier.unsent else IDLE_WAKE
        if next_ping is not None:
            wait = min(wait, max(0.0, next_ping - now))
        if self.console is not None and self.ready:
            if self.console.polling:
                wait = min(wait, self.console.poll_interval)
            if self.options.pace_ms:
                wait = min(wait, max(0.0, self.next_step - now))
            # At pace 0 the console has just done all it could (``_play``): the next
            # thing it needs is an event, so the loop sleeps on the queue, not spins.
        return wait

    def _take(self, item: m.Event | tuple[Command, Ticket] | Interrupt | Note) -> Item | None:
        """Handle ``item`` and the device events queued behind it (group commit): one
        transaction for them all, then each device acknowledged, as every event is, only
        once its rows are durable. What ends the group (a command, a stop, the next
        snapshot's moment) is returned, not handled."""
        if not isinstance(item, m.Event) or not self._groups():
            self._handle(item)
            return None
        group: list[m.Event] = []
        next_item: Item | None = item
        with self._corked(), self.journal.batch():  # one commit; then the acknowledgements
            begun = self.journal.file.last_seq
            while isinstance(next_item, m.Event):
                held = self.journal.held
                self.table.handle(next_item)
                group.append(next_item)
                if len(group) >= GROUP_LIMIT or self._group_ends(begun, held):
                    next_item = None
                    break
                next_item = self.inbox.get(0)
        for event in group:
            self._saw(event)
        return next_item

    def _after(self, left: Item | None) -> Item | None:
        """The next input: the one that ended a group, else the queue's next, if any."""
        return self.inbox.get(0) if left is None else left

    def _groups(self) -> bool:
        """Whether device events may share a transaction now: once ready (the start's
        connections, each followed by what readiness does), and never while a snapshot
        is due (it is written after the one input that made it so)."""
        snapshots = self.snapshots
        return self.ready and (snapshots is None or not snapshots.due)

    def _group_ends(self, begun: int, held: int) -> bool:
        """After an event of a group (its entries held from the ``held``'th on):
        whether it is the group's last, because the rounds asked for are played or a
        snapshot may be due after it: an entry that ends a round or opens a seal, or the
        rows that make one due by their number (``Snapshots.due`` changes only so)."""
        if self._done():
            return True
        snapshots = self.snapshots
        if snapshots is None:
            return False
        if snapshots.since + self.journal.file.last_seq - begun >= snapshots.every:
            return True
        return any(
            entry.get("type") in ENDS or "opened" in entry for entry in self.journal.held_from(held)
        )

    def _handle(self, item: m.Event | tuple[Command, Ticket] | Interrupt | Note) -> None:
        if isinstance(item, Note):
            self.journal.record(item.entry)  # between two inputs: a commit of its own
            return
        if isinstance(item, Interrupt):
            # Found off this thread (the journal's full check): play stops, and the
            # simulated console's floorperson, who would clear it, plays no more.
            with self._corked(), self.journal.batch():
                self.table.interrupt(item.halt)
            self.interrupted = True
            return
        if isinstance(item, tuple):
            command, ticket = item
            log.info(
                "command",
                command=command.name,
                socket=ticket.socket,
                uid=ticket.peer.uid,
                login=ticket.login,
            )
            # The reply goes out once the command's rows are durable, and after the
            # status they made: a console that asks for it on the result sees them.
            with self.api.handling(ticket):
                with self._corked(), self.journal.batch():
                    self.table.handle(command, login=ticket.login)
                self._show_status()
            return
        with self._corked(), self.journal.batch():  # one commit; then the acknowledgement
            self.table.handle(item)
        self._saw(item)

    def _corked(self) -> contextlib.AbstractContextManager[None]:
        """Around one input and its commit: what the table sends its devices meanwhile
        (prompts, the reader's commands, the acknowledgements, after the commit) goes
        out at the end, one write for each device (``DeviceDriver.cork``)."""
        return corked(self.drivers.values())

    def _saw(self, item: m.Event) -> None:
        """After ``item``'s commit: the console, the device's health, readiness."""
        if self.console is not None:
            self.console.saw(item)
        health = HEALTH.get(type(item))
        if health is not None:
            self.health[item.device] = health
        if not self.ready and all(h == "connected" for h in self.health.values()):
            # Every device's connection is journaled, and the journal is open.
            self.ready = True
            self.notifier.ready()
            log.info("daemon_ready")
            if self.console is not None:
                self.console.start()

    def _play(self) -> None:
        """The simulated console's turn: one action per pace interval."""
        console = self.console
        if console is None or not self.ready or self.interrupted:
            return
        pace = self.options.pace_ms / 1000
        while time.monotonic() >= self.next_step:
            with self._corked(), self.journal.batch():  # what the dealer did, in one commit
                acted = console.step()
            if pace:
                self.next_step = time.monotonic() + pace
            if not acted or self._done():
                return

    def _snapshot_if_due(self) -> None:
        """Between two inputs: the table's state in the journal when one is due, so a
        restart replays only what follows (controller/recovery/snapshots.py)."""
        if self.snapshots is not None:
            self.snapshots.write(self.table, self.journal)

    def _done(self) -> bool:
        rounds = self.options.rounds
        return rounds is not None and self.journal.counts["round_end"] >= rounds

    def _healthy(self) -> bool:
        """The watchdog's check: the queue is being drained and the journal can take
        the next commits (controller/daemon/health.py). A device that is down is not
        unhealthy: the table is halted for it. Logged when the verdict changes, with
        the reason, not at every ping."""
        stalled = time.monotonic() - self.inbox.emptied_at > STALLED_AFTER
        journal = self.journal.problem()
        healthy = not stalled and journal is None
        if healthy == self.unhealthy:
            self.unhealthy = not healthy
            (log.error if self.unhealthy else log.info)(
                "health_check", healthy=healthy, stalled=stalled, journal=journal
            )
        return healthy

    def _show_status(self) -> None:
        """STATUS= and the API's status, made again only when something they show may
        have changed: every input writes a row, so the journal's last row, the table's
        state and readiness tell; and what the shuffle monitor says, off this thread
        (seen at the loop's next pass: within ``IDLE_WAKE`` seconds)."""
        shuffles = None if self.shuffles is None else self.shuffles.mark()
        mark = (self.journal.file.last_seq, self.table.state, self.ready, shuffles)
        if mark == self._shown:
            return
        self._shown = mark
        self.status.show(self._state())
        self.api.set_status(self._snapshot())

    def _state(self) -> str:
        table = self.table
        if not self.ready:
            return self.connecting()
        devices = ", ".join(f"{name} {health}" for name, health in self.health.items())
        return (
            f"{table.state}, shoe {table.shoe_number} round {table.round}, "
            f"{self.journal.counts['round_end']} rounds played; {devices}"
        )

    def _snapshot(self) -> dict[str, object]:
        """What ``tablectl status`` shows (the API's ``status`` reply): never a card."""
        table = self.table
        return {
            "id": self.settings.id,
            "game": self.settings.game,
            "ready": self.ready,
            "state": str(table.state),
            "shoe": table.shoe_number,
            "round": table.round,
            "rounds_played": self.journal.counts["round_end"],
            "seq": self.journal.file.last_seq,
            "devices": dict(self.health),
            "need": table.need.value,
            "accepts": self._accepts(),
            "decision": table.decisions(),
            "shuffle_alert": None if self.shuffles is None else self.shuffles.view(),
            "shuffle_monitor": "off" if self.shuffles is None else self.shuffles.state(),
        }

    def _accepts(self) -> list[str]:
        """The table's, and the floorperson's acknowledgement while a shuffle alert waits."""
        names = accepts(self.table)
        if self.shuffles is not None and self.shuffles.waiting():
            names = sorted({*names, AcknowledgeShuffleAlert.name})
        return names

    def connecting(self) -> str:
        waiting = [name for name, health in self.health.items() if health != "connected"]
        return f"connecting: {', '.join(waiting)}"

    def _last_notes(self) -> None:
        """At a stop: the shuffle alerts of the last rows, written before the journal
        closes, once the monitor has read them (``SETTLE`` seconds at most; one it has
        not found by then is found at the next start). Nothing else is taken now."""
        if self.shuffles is None:
            return
        self.shuffles.settle(self.journal.file.last_seq, SETTLE)
        # Its reader closed before the journal is: the daemon's connection, the last,
        # checkpoints the write-ahead log and removes it.
        self.shuffles.stop()
        while (item := self.inbox.get(0)) is not None:
            if isinstance(item, Note):
                self.journal.record(item.entry)

    def _stop(self, reason: str) -> int:
        log.info("daemon_stopping", reason=reason, rounds=self.journal.counts["round_end"])
        self.notifier.stopping()
        self.status.show(f"stopping ({reason})")
        if self.console is not None:
            self.console.finish()
        for driver in self.drivers.values():
            driver.stop()
        self._last_notes()
        self.journal.file.close()
        self.api.close()
        return EXIT_OK
