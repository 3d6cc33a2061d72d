"""``tablectl run``: one table, its devices, its journal and its console API.

Start-up, in this order, each failure one line and a non-zero exit before anything
later is opened: the systemd notifier (``NotifyEnvError``, exit 1); the configuration,
validated whole (``ConfigError``, exit 2); the journal (``JournalError``, exit 1: a
damaged, broken or lost journal is never replaced by a fresh one, controller/journal/);
the API sockets (``ApiError``, exit 1); the watchdog's check of the journal
(controller/daemon/health.py: its filesystem writable, 8 MiB free; exit 1); for a
simulated table its simulated devices; the drivers. ``READY=1`` goes to systemd once
the table has journaled every device's connection. A failure while the journal's
filesystem is full or read-only names that first, then what broke. The whole journal
is checked in the background from when the table is built
(controller/daemon/integrity.py).

Then the main thread is the table's one thread (controller/daemon/loop.py). Every
journal entry is published to the API right after it is durable. SIGTERM or SIGINT:
STOPPING=1, the drivers stopped, the journal closed, the API closed, exit 0. Devices
reconnect by themselves (the drivers); a device's loss or fault reaches the table as
an event and stops play for a floorperson.

``tablectl run --simulate`` (or ``run`` without ``--config``) runs the same daemon on
the simulated hardware and console it is handed (controller/daemon/console.py).
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TextIO

import structlog

from controller.api import ApiServer
from controller.config import Config, ConfigError, load_config
from controller.daemon import wiring
from controller.daemon.arguments import Options
from controller.daemon.console import SimulatedHardware
from controller.daemon.health import no_space, unwritable
from controller.daemon.inbox import Inbox
from controller.daemon.integrity import JournalGuard, LostTail
from controller.daemon.logaside import LogAside, log_path, stderr_is_terminal, view_failure
from controller.daemon.loop import StatusLine, TableLoop
from controller.daemon.sdnotify import Notifier, NotifyEnvError
from controller.daemon.shuffles import ShuffleWatch
from controller.daemon.view import LiveView
from controller.errors import EXIT_FAILURE, EXIT_USAGE, EXPECTED, fail
from controller.journal import JournalError
from controller.logformat import stderr_is_journal
from controller.recovery import RecoveryError, Snapshots, from_last_snapshot
from controller.table.core import Table
from drivers.device import DeviceDriver

log = structlog.get_logger("controller.daemon")

LEGACY = (
    "a journal without a header row, written by an earlier tablectl: "
    "see Upgrading in docs/recovery.md"
)


def run(options: Options, out: TextIO, hardware: SimulatedHardware | None = None) -> int:
    """Run the table until a signal or ``options.rounds``; the process's exit status.
    ``hardware``: the simulated table's devices and console; without it, the devices
    of the configuration file ``options.config``."""
    try:
        notifier = Notifier.from_env()
    except NotifyEnvError as exc:
        return _failed(str(exc), EXIT_FAILURE)
    inbox = Inbox()
    previous = {
        signum: signal.signal(signum, lambda n, _f: inbox.stop(n))
        for signum in (signal.SIGTERM, signal.SIGINT)
    }
    try:
        with contextlib.ExitStack() as cleanup:
            if hardware is not None:
                cleanup.enter_context(_terminal_foreground())
            try:
                config = _configure(options, hardware, cleanup)
            except ConfigError as exc:
                return _failed(str(exc), EXIT_USAGE)
            failures: tuple[type[Exception], ...] = (
                *EXPECTED,
                JournalError,
                RecoveryError,
                OSError,
            )
            if hardware is not None:
                failures += hardware.errors
            try:
                return _start(config, options, notifier, inbox, out, hardware, cleanup)
            except ConfigError as exc:  # the key files, read again when the devices start
                return _failed(str(exc), EXIT_USAGE)
            except failures as exc:
                return _failed(_cause(config, exc), EXIT_FAILURE)
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _failed(message: str, status: int) -> int:
    """The daemon's last word, one line: ``tablectl: error: ...`` for a person or a
    script; when stderr is journald's stream, a log line like every other there (an
    error, priority 3), so that stream stays JSON (docs/operations.md, "Logs")."""
    if stderr_is_journal():
        log.error("daemon_failed", reason=" ".join(message.split()), status=status)
        return status
    return fail(message, status)


def _cause(config: Config, exc: Exception) -> str:
    """The failure's line, led by its cause when the journal's filesystem (a simulated
    table's work directory too) is full or read-only: what broke then (a simulator that
    could not write its log, SQLite's "disk I/O error") does not say so itself. A
    journal write that found the disk full says so even when a page is free again by
    now (what the failed write held, or another process's file, was released)."""
    folder = Path(config.journal.path).parent
    problem = unwritable(folder)
    if problem is None and isinstance(exc, JournalError) and exc.disk_full:
        problem = no_space(folder)
    return str(exc) if problem is None else f"{problem} ({exc})"


def _configure(
    options: Options, hardware: SimulatedHardware | None, cleanup: contextlib.ExitStack
) -> Config:
    """The validated configuration; nothing is opened yet."""
    if hardware is not None:
        return hardware.configure(cleanup)
    assert options.config is not None  # the command line hands a simulated table otherwise
    return load_config(options.config)


def _start(
    config: Config,
    options: Options,
    notifier: Notifier,
    inbox: Inbox,
    out: TextIO,
    hardware: SimulatedHardware | None,
    cleanup: contextlib.ExitStack,
) -> int:
    """Open the journal, the API and the devices, build the table, run its thread."""
    status = StatusLine(notifier)
    journal, api, guard, shuffles = _open(config, inbox, hardware, status, cleanup)
    aside = _log_aside(config, options, hardware, out, cleanup)
    health: dict[str, str] = {}  # each device's, filled once the drivers exist
    view = _view(config, options, health, out, aside)
    with view_failure(view.finish, aside):  # its line on the terminal, not in the log
        if hardware is not None:
            hardware.start(cleanup)  # spawned: they come up while the table is built
        drivers, table, snapshots = _rebuilt(config, inbox, hardware, journal)
        health.update(dict.fromkeys(drivers, "connecting"))
        guard.start()  # the whole chain, checked beside the table from now on
        console = None if hardware is None else hardware.console(table, journal, drivers)
        if hardware is not None:
            hardware.ready()
        journal.watchers.append(view.observe)
        log.info("daemon_starting", table=config.table.id, game=config.table.game)
        for driver in drivers.values():
            driver.start()
            cleanup.callback(driver.stop)
        _show(view, cleanup)
        status.view = view
        loop = TableLoop(
            settings=config.table,
            options=options,
            notifier=notifier,
            status=status,
            inbox=inbox,
            api=api,
            journal=journal,
            drivers=drivers,
            table=table,
            health=health,
            view=view,
            console=console,
            snapshots=snapshots,
            shuffles=shuffles,
        )
        status.show(loop.connecting())
        return loop.run()


def _show(view: LiveView, cleanup: contextlib.ExitStack) -> None:
    view.start()
    cleanup.callback(view.finish)
    cleanup.callback(lambda: log.info("daemon_stopped", rounds=view.rounds))


def _view(
    config: Config,
    options: Options,
    health: Mapping[str, str],
    out: TextIO,
    aside: LogAside | None,
) -> LiveView:
    title = f"tablectl · {config.table.game} table {config.table.id}"
    view = LiveView(out, title, health, game=config.table.game, plain=options.plain)
    view.log_path = None if aside is None else str(aside.path)
    return view


def _log_aside(
    config: Config,
    options: Options,
    hardware: SimulatedHardware | None,
    out: TextIO,
    cleanup: contextlib.ExitStack,
) -> LogAside | None:
    """While the live view draws on the terminal stderr is on too, the log goes to a
    file instead (controller/daemon/logaside.py), until the view is gone."""
    if options.plain or not out.isatty() or not stderr_is_terminal() or stderr_is_journal():
        return None
    temporary = hardware is not None and options.workdir is None
    aside = LogAside(log_path(config.journal.path, temporary))
    cleanup.callback(aside.restore)  # after the view's finish, registered later
    return aside


def _open(
    config: Config,
    inbox: Inbox,
    hardware: SimulatedHardware | None,
    status: StatusLine,
    cleanup: contextlib.ExitStack,
) -> tuple[wiring.PublishingJournal, ApiServer, JournalGuard, ShuffleWatch]:
    """The journal, checked (``wiring.open_journal``), then the API's sockets serving
    it, both closed by ``cleanup``; the guard that checks the whole journal once the
    table is built, and the shuffle monitor, both between the API and the table's
    inbox."""
    if hardware is not None:
        hardware.prepare()
    status.show("opening the journal")
    journal_file = wiring.open_journal(config)
    cleanup.callback(journal_file.close)
    log.info(
        "journal_opened",
        rows=journal_file.last_seq,
        checked=journal_file.inspection.checked,
        created=journal_file.created,
    )
    guard = JournalGuard(journal_file, inbox)
    shuffles = ShuffleWatch(journal_file.path, config.shuffle, guard.submit, inbox.note)
    # A simulated table's sockets are its user's alone.
    dealer, floor, events = wiring.access(config, private=hardware is not None)
    api = ApiServer(
        config.api.runtime_dir, shuffles.submit, dealer=dealer, floor=floor, events=events
    )
    api.start()
    cleanup.callback(api.close)
    journal = wiring.PublishingJournal(journal_file, api)
    journal.watchers.append(LostTail())
    journal.watchers.append(shuffles.observe)
    _check_journal(journal)
    shuffles.start()  # it reads the journal from row 1, beside the table
    cleanup.callback(shuffles.stop)
    return journal, api, guard, shuffles


def _check_journal(journal: wiring.PublishingJournal) -> None:
    """The watchdog's check, once before anything is dealt: a table that could not keep
    its next commits would only be stopped by the watchdog in the middle of a round."""
    problem = journal.problem()
    if problem is not None:
        raise JournalError(f"{journal.file.path}: cannot start: {problem}")


def _rebuilt(
    config: Config,
    inbox: Inbox,
    hardware: SimulatedHardware | None,
    journal: wiring.PublishingJournal,
) -> tuple[dict[str, DeviceDriver], Table, Snapshots]:
    """The drivers and the table, rebuilt from what the journal holds from its last
    snapshot on (read backwards, never the whole journal): each driver picks up after
    the last event journaled for its device, and the snapshots follow every row written
    from here on, the restart's own included (controller/recovery)."""
    rows = from_last_snapshot(journal.file)
    snapshots = Snapshots(rows)
    journal.watchers.append(snapshots.observe)
    drivers = _drivers(config, inbox, hardware, snapshots.follower.positions)
    try:
        return drivers, wiring.table(config, drivers, rows, journal), snapshots
    except RecoveryError as exc:
        if journal.file.header is not None:
            raise
        # Rulings R10 and R11 changed what a void and a deferred vigorish write: an
        # earlier tablectl's journal of such a round no longer replays.
        raise RecoveryError(f"{exc} ({LEGACY})") from None


def _drivers(
    config: Config,
    inbox: Inbox,
    hardware: SimulatedHardware | None,
    positions: Mapping[str, tuple[str, int]],
) -> dict[str, DeviceDriver]:
    if hardware is None:
        return wiring.drivers(config, inbox, positions)
    # Simulated devices are started afresh, their event ids from 1: only real devices,
    # which keep their unacknowledged events, are picked up where they were.
    return wiring.drivers(config, inbox, {}, hardware.usb_backend())


@contextlib.contextmanager
def _terminal_foreground() -> Iterator[None]:
    """Take the terminal's Ctrl-C for this process alone, as a shell gives it to the job
    it runs: under ``make run`` make would otherwise get the same SIGINT and exit
    "Interrupted" over the simulated table's clean stop. Nothing to do without a
    terminal, or when this process leads the foreground group already."""
    try:
        fd = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY)
    except OSError:
        yield
        return
    try:
        before = os.tcgetpgrp(fd)
        if before != os.getpgrp() or os.getpgrp() == os.getpid():
            yield
            return
        os.setpgid(0, 0)
        _set_foreground(fd, os.getpgrp())
        try:
            yield
        finally:
            _set_foreground(fd, before)
    finally:
        os.close(fd)


def _set_foreground(fd: int, group: int) -> None:
    # A process outside the foreground group that sets it gets SIGTTOU: ignored here.
    previous = signal.signal(signal.SIGTTOU, signal.SIG_IGN)
    try:
        with contextlib.suppress(OSError):  # the group is gone: the shell takes over
            os.tcsetpgrp(fd, group)
    finally:
        signal.signal(signal.SIGTTOU, previous)
