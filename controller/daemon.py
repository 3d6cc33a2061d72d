"""``tablectl run``: one table, its devices, its journal and its console API.

Start-up, in this order, each failure one line and a non-zero exit before anything
later is opened: the systemd notifier (``NotifyEnvError``, exit 1); the configuration,
validated whole (``ConfigError``, exit 2); the journal (``JournalError``, exit 1: a
damaged journal is never replaced by a fresh one); the API sockets (``ApiError``,
exit 1); for a simulated table the firmware simulators; the drivers. ``READY=1`` goes
to systemd once the table has journaled every device's connection.

Then the main thread is the table's one thread: it takes device events (from the
drivers) and console commands (from the API's ``submit``) from one queue, in order,
and hands each to the table. Every journal entry is published to the API right after
it is durable. STATUS= follows the table's state and the devices' health (never a
card); WATCHDOG=1 is sent from this loop, and only after its health check. SIGTERM
or SIGINT: STOPPING=1, the drivers stopped, the journal closed, the API closed, exit
0. Devices reconnect by themselves (the drivers); a device's loss or fault reaches the
table as an event and stops play for a floorperson.

``tablectl run --simulate`` (or ``run`` without ``--config``) runs the same daemon on
``simulation_config``: the firmware simulators on pseudo-terminals, and the bench's
dealer, players and floorperson as the console (seeded wagers, basic strategy, the
floorperson clearing what a device's return allows).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import queue
import secrets
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final, TextIO

import structlog

from controller.api import Access, ApiServer, Ticket
from controller.bench.dealer import POLL_INTERVAL, DealerConsole
from controller.bench.runner import dealer_console, simulators
from controller.bench.scenario import BenchError, Scenario
from controller.bench.simulated import autoplay_scenario
from controller.config import (
    Config,
    ConfigError,
    Game,
    SerialDevice,
    SocketAccess,
    load_config,
    simulation_config,
)
from controller.devices_adapter import TableDevices
from controller.errors import EXPECTED
from controller.games import NAMES
from controller.journal import JournalError, Row, SqliteJournal
from controller.observed_journal import ObservedJournal
from controller.recovery import RecoveryError, driver_positions, resume
from controller.rules.spanish21 import Spanish21Rules
from controller.sdnotify import Notifier, NotifyEnvError
from controller.table.baccarat import BaccaratTable
from controller.table.events import Command, Journal, ReaderDevices
from controller.table.seal import KEY_BYTES, Sealer
from controller.table.spanish21 import Spanish21Table
from controller.view import LiveView
from drivers import messages as m
from drivers.device import DRIVERS, DeviceDriver, ReaderDriver, ShoeDriver
from drivers.keys import load_key
from drivers.transport import SerialTransport, Transport
from drivers.usb import usb_transport_factory
from firmware_sim.harness import SimError, SimProcess
from firmware_sim.usb_backend import SimUsbBackend

EXIT_OK: Final = 0
EXIT_FAILURE: Final = 1
EXIT_USAGE: Final = 2

COMMAND_LIMIT: Final = 64  # console commands waiting for the table; more: "busy"
WAKE: Final = 0.2  # the loop looks at its clocks at least this often
STALLED_AFTER: Final = 10.0  # the queue not emptied for this long: no watchdog ping
DEFAULT_PACE_MS: Final = 250  # the simulated dealer's pace, so a person can follow

log = structlog.get_logger("controller.daemon")

Table = BaccaratTable | Spanish21Table


class _Stop:
    """The signal handler's request to stop, queued behind what came before it."""

    def __init__(self, signum: int) -> None:
        self.signum = signum


Item = m.Event | tuple[Command, Ticket] | _Stop


class Inbox:
    """The table thread's one input queue. Device events are always taken (a driver
    must never block; the device keeps each event until it is committed anyway);
    console commands only while fewer than ``limit`` wait (``submit`` answers False,
    and the API tells the client "busy"). ``queue.SimpleQueue.put`` is reentrant, so
    the signal handler queues its stop here too."""

    def __init__(self, limit: int = COMMAND_LIMIT) -> None:
        self._queue: queue.SimpleQueue[Item] = queue.SimpleQueue()
        self._limit = limit
        self._commands = 0
        self._lock = threading.Lock()
        self.emptied_at = time.monotonic()  # when the table last caught up

    def put(self, item: m.Event, block: bool = True, timeout: float | None = None) -> None:
        self._queue.put(item)

    def submit(self, command: Command, ticket: Ticket) -> bool:
        with self._lock:
            if self._commands >= self._limit:
                return False
            self._commands += 1
        self._queue.put((command, ticket))
        return True

    def stop(self, signum: int) -> None:
        self._queue.put(_Stop(signum))

    def get(self, timeout: float) -> Item | None:
        try:
            item = self._queue.get(timeout=timeout) if timeout > 0 else self._queue.get_nowait()
        except queue.Empty:
            self.emptied_at = time.monotonic()
            return None
        if isinstance(item, tuple):
            with self._lock:
                self._commands -= 1
        return item


class PublishingJournal(ObservedJournal):
    """What the table writes to: each entry durable in the SQLite journal first, then
    streamed to the API's subscribers with its sequence number, then shown to the
    watchers (the simulated console, the live view)."""

    def __init__(self, journal: SqliteJournal, api: ApiServer) -> None:
        super().__init__()
        self.file = journal
        self._api = api

    def _write(self, entry: Mapping[str, object]) -> None:
        self.file.record(entry)
        self._api.publish(self.file.last_seq, entry)

    def writable(self) -> bool:
        return os.access(self.file.path, os.W_OK)


@dataclass(frozen=True)
class Options:
    config: str | None  # None: the simulated table
    game: Game
    rounds: int | None  # stop after this many rounds (None: until a signal)
    pace_ms: int
    seed: int | None
    workdir: str | None  # the simulated table's files; None: a temporary directory


def sealing_key(journal_path: str) -> bytes:
    """The key that seals the hole card in the journal (controller/table/seal.py), kept
    beside the journal and readable by the daemon alone: with it a restarted daemon
    checks the hole card a floorperson enters against the sealed record. Created on
    first use."""
    path = Path(journal_path).with_suffix(".sealkey")
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        try:
            key = bytes.fromhex(path.read_text(encoding="ascii").strip())
        except (ValueError, UnicodeDecodeError):
            key = b""
        if len(key) < KEY_BYTES:
            raise JournalError(f"{path}: not a sealing key") from None
        return key
    key = secrets.token_bytes(KEY_BYTES)
    with os.fdopen(fd, "w", encoding="ascii") as out:
        out.write(key.hex() + "\n")
        out.flush()
        os.fsync(out.fileno())
    return key


def run(options: Options, out: TextIO) -> int:
    """Run the table until a signal or ``options.rounds``; the process's exit status."""
    try:
        notifier = Notifier.from_env()
    except NotifyEnvError as exc:
        return _error(str(exc), EXIT_FAILURE)
    inbox = Inbox()
    previous = {
        signum: signal.signal(signum, lambda n, _f: inbox.stop(n))
        for signum in (signal.SIGTERM, signal.SIGINT)
    }
    try:
        with contextlib.ExitStack() as cleanup:
            if options.config is None:
                cleanup.enter_context(_terminal_foreground())
            try:
                config, workdir = _configure(options, cleanup)
            except ConfigError as exc:
                return _error(str(exc), EXIT_USAGE)
            try:
                return _Daemon(config, options, notifier, inbox, out, workdir, cleanup).run()
            except ConfigError as exc:  # the key files, read again when the devices start
                return _error(str(exc), EXIT_USAGE)
            except (
                *EXPECTED,
                JournalError,
                RecoveryError,
                SimError,
                BenchError,
                OSError,
            ) as exc:
                return _error(str(exc), EXIT_FAILURE)
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


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


def _configure(options: Options, cleanup: contextlib.ExitStack) -> tuple[Config, Path | None]:
    """The validated configuration, and for a simulated table the directory its
    simulators, journal and sockets live in; nothing is opened yet."""
    if options.config is not None:
        return load_config(options.config), None
    if options.workdir is not None:
        workdir = Path(options.workdir).resolve()
    else:
        workdir = Path(cleanup.enter_context(tempfile.TemporaryDirectory(prefix="tablectl-")))
    return simulation_config(workdir, options.game), workdir


class _Daemon:
    def __init__(
        self,
        config: Config,
        options: Options,
        notifier: Notifier,
        inbox: Inbox,
        out: TextIO,
        workdir: Path | None,
        cleanup: contextlib.ExitStack,
    ) -> None:
        self.config = config
        self.options = options
        self.notifier = notifier
        self.inbox = inbox
        self.out = out
        self.workdir = workdir
        self.cleanup = cleanup
        self.health: dict[str, str] = {}
        self.ready = False
        self.console: DealerConsole | None = None
        self.next_step = 0.0
        self.status_text = ""
        self.unhealthy = False
        self.view: LiveView | None = None
        self.scenario: Scenario | None = None

    # ------------------------------------------------------------------ start-up

    def run(self) -> int:
        config = self.config
        if self.workdir is not None:
            self.workdir.mkdir(parents=True, exist_ok=True)
        self._status("opening the journal")
        journal_file = SqliteJournal(config.journal.path)
        self.cleanup.callback(journal_file.close)
        dealer, floor, events = self._access()
        api = ApiServer(
            config.api.runtime_dir, self.inbox.submit, dealer=dealer, floor=floor, events=events
        )
        api.start()
        self.cleanup.callback(api.close)
        self.api = api
        self.journal = journal = PublishingJournal(journal_file, api)
        sims = self._simulators()
        # What the journal already holds: the table is rebuilt from it and each driver
        # picks up after the last event journaled for its device (controller/recovery).
        rows = list(journal_file.rows())
        # Simulators are started afresh, their event ids from 1: only real devices,
        # which keep their unacknowledged events, are picked up where they were.
        drivers = self._drivers(sims, {} if sims else driver_positions(rows))
        self.drivers = drivers
        self.health.update({name: "connecting" for name in drivers})
        self.table = table = self._table(drivers, rows)
        if sims:
            assert self.scenario is not None  # built with the simulators
            self.console = dealer_console(self.scenario, table, journal, sims, drivers)
        title = f"tablectl · {config.table.game} table {config.table.id}"
        self.view = view = LiveView(self.out, title, self.health)
        journal.watchers.append(view.observe)
        log.info("daemon_starting", table=config.table.id, game=config.table.game)
        for driver in drivers.values():
            driver.start()
            self.cleanup.callback(driver.stop)
        view.start()
        self.cleanup.callback(view.finish)
        self._status(self._connecting())
        return self._loop(view)

    def _access(self) -> tuple[Access, Access, Access]:
        """Who may use the dealer's, the floorperson's and the events socket."""
        if self.workdir is not None:
            # A simulated table's sockets are its user's alone.
            mine = Access(uids=(os.getuid(),))
            return mine, mine, mine

        def access(socket: SocketAccess) -> Access:
            return Access(uids=socket.users, gids=socket.groups, group=socket.group)

        api = self.config.api
        return access(api.dealer), access(api.floor), access(api.events)

    def _simulators(self) -> dict[str, SimProcess]:
        if self.workdir is None:
            return {}
        seed = self.options.seed if self.options.seed is not None else secrets.randbits(32)
        self.scenario = autoplay_scenario(self.config.rules, seed)
        key_file = self.workdir / "shoe.key"
        # A work directory used before keeps its keys: the simulators refuse another.
        key = load_key(str(key_file)) if key_file.exists() else secrets.token_bytes(32)
        sims = simulators(self.scenario, self.workdir, key)
        # The simulators are the table's hardware: the terminal's Ctrl-C is for the
        # daemon, which stops them after its drivers. Blocked while they are spawned,
        # SIGINT stays blocked in them (a child inherits the mask), and one that comes
        # meanwhile reaches the daemon once it is unblocked.
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            for sim in sims.values():
                self.cleanup.callback(sim.stop)
                sim.spawn()  # all at once: each takes a Python start-up
            for sim in sims.values():
                sim.wait_ready()
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        log.info("simulators_started", seed=seed, devices=sorted(sims))
        return sims

    def _drivers(
        self, sims: Mapping[str, SimProcess], positions: Mapping[str, tuple[str, int]]
    ) -> dict[str, DeviceDriver]:
        keys = self.config.load_keys()
        devices = self.config.devices
        # The simulated reader is reached through pyusb, on the simulator's backend.
        backend = SimUsbBackend(str(sims["reader"].link_path)) if "reader" in sims else None
        drivers: dict[str, DeviceDriver] = {}
        for name, device in devices.named().items():
            factory: Callable[[], Transport]
            if isinstance(device, SerialDevice):
                factory = functools.partial(SerialTransport, device.path)
            else:
                factory = usb_transport_factory(str(device.usb), backend=backend)
            drivers[name] = DRIVERS[m.DeviceKind[name.upper()]](
                name,
                factory,
                keys[name],
                self.inbox,
                device.approved_firmware,
                config=devices.driver_config(),
                resume=positions.get(name),
            )
        return drivers

    def _table(self, drivers: Mapping[str, DeviceDriver], rows: Sequence[Row]) -> Table:
        """The table, rebuilt from the journal's ``rows`` when it has any: then it comes
        back stopped for a floorperson if a round was in play (controller/recovery)."""
        shoe = drivers["shoe"]
        assert isinstance(shoe, ShoeDriver)  # DRIVERS picks it by kind
        rules = self.config.rules
        make: Callable[[Journal, ReaderDevices], Table]
        if isinstance(rules, Spanish21Rules):
            reader = drivers["reader"]
            assert isinstance(reader, ReaderDriver)
            devices = TableDevices(drivers, shoe, reader)
            sealer = Sealer(sealing_key(self.config.journal.path))
            spanish = rules

            def make(journal: Journal, devs: ReaderDevices) -> Table:
                day = self.config.table.gaming_day
                return Spanish21Table(spanish, journal, devs, gaming_day=day, sealer=sealer)

        else:
            devices = TableDevices(drivers, shoe)
            baccarat = rules

            def make(journal: Journal, devs: ReaderDevices) -> Table:
                return BaccaratTable(baccarat, journal, devs)

        if not rows:
            return make(self.journal, devices)
        table, interrupted = resume(rows, make, journal=self.journal, devices=devices)
        log.info("daemon_resumed", rows=len(rows), interrupted=interrupted is not None)
        return table

    # ------------------------------------------------------------------ the table's thread

    def _loop(self, view: LiveView) -> int:
        watchdog = self.notifier.watchdog_interval()
        next_ping = time.monotonic()
        while True:
            item = self.inbox.get(self._timeout(next_ping if watchdog else None))
            while item is not None:
                if isinstance(item, _Stop):
                    return self._stop(f"signal {signal.Signals(item.signum).name}")
                self._handle(item)
                if self._done():
                    return self._stop("rounds played")
                item = self.inbox.get(0)
            self._play()
            if self._done():
                return self._stop("rounds played")
            self._status(self._state())
            self.api.set_status(self._snapshot())
            view.refresh()
            due = watchdog is not None and time.monotonic() >= next_ping
            if due and self._healthy():
                assert watchdog is not None
                self.notifier.watchdog()
                next_ping = time.monotonic() + watchdog

    def _timeout(self, next_ping: float | None) -> float:
        now = time.monotonic()
        wait = WAKE
        if next_ping is not None:
            wait = min(wait, max(0.0, next_ping - now))
        if self.console is not None and self.ready:
            if self.console.polling:
                wait = min(wait, POLL_INTERVAL)
            if self.options.pace_ms:
                wait = min(wait, max(0.0, self.next_step - now))
            # At pace 0 the console has just done all it could (``_play``): the next
            # thing it needs is an event, so the loop sleeps on the queue, not spins.
        return wait

    def _handle(self, item: m.Event | tuple[Command, Ticket]) -> None:
        if isinstance(item, tuple):
            command, ticket = item
            log.info("command", command=command.name, socket=ticket.socket, uid=ticket.peer.uid)
            with self.api.handling(ticket):
                self.table.handle(command)
            return
        self.table.handle(item)
        if self.console is not None:
            self.console.saw(item)
        health = _health(item)
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
        if console is None or not self.ready:
            return
        pace = self.options.pace_ms / 1000
        while time.monotonic() >= self.next_step:
            acted = console.step()
            if pace:
                self.next_step = time.monotonic() + pace
            if not acted or self._done():
                return

    def _done(self) -> bool:
        rounds = self.options.rounds
        return rounds is not None and self.journal.counts["round_end"] >= rounds

    def _healthy(self) -> bool:
        """The watchdog's check: the queue is being drained and the journal can be
        written. A device that is down is not unhealthy: the table is halted for it."""
        stalled = time.monotonic() - self.inbox.emptied_at > STALLED_AFTER
        healthy = not stalled and self.journal.writable()
        if healthy == self.unhealthy:
            self.unhealthy = not healthy
            (log.error if self.unhealthy else log.info)(
                "health_check", stalled=stalled, journal_writable=self.journal.writable()
            )
        return healthy

    def _state(self) -> str:
        table = self.table
        if not self.ready:
            return self._connecting()
        devices = ", ".join(f"{name} {health}" for name, health in self.health.items())
        return (
            f"{table.state}, shoe {table.shoe_number} round {table.round}, "
            f"{self.journal.counts['round_end']} rounds played; {devices}"
        )

    def _snapshot(self) -> dict[str, object]:
        """What ``tablectl status`` shows (the API's ``status`` reply): never a card."""
        table = self.table
        return {
            "id": self.config.table.id,
            "game": self.config.table.game,
            "ready": self.ready,
            "state": str(table.state),
            "shoe": table.shoe_number,
            "round": table.round,
            "rounds_played": self.journal.counts["round_end"],
            "devices": dict(self.health),
        }

    def _connecting(self) -> str:
        waiting = [name for name, health in self.health.items() if health != "connected"]
        return f"connecting: {', '.join(waiting)}"

    def _status(self, text: str) -> None:
        if text != self.status_text:
            self.status_text = text
            self.notifier.status(text)
            if self.view is not None:
                self.view.state(text)

    def _stop(self, reason: str) -> int:
        log.info("daemon_stopping", reason=reason, rounds=self.journal.counts["round_end"])
        self.notifier.stopping()
        self._status(f"stopping ({reason})")
        if self.console is not None:
            self.console.finish()
        for driver in self.drivers.values():
            driver.stop()
        self.journal.file.close()
        self.api.close()
        return EXIT_OK


def _health(event: m.Event) -> str | None:
    if isinstance(event, m.DeviceConnected):
        return "connected"
    if isinstance(event, m.DeviceLost):
        return "lost"
    if isinstance(event, m.DeviceUnavailable):
        return "unavailable"
    if isinstance(event, m.DeviceRefused):
        return "refused"
    if isinstance(event, m.DeviceFault):
        return "fault"
    return None


def _error(message: str, status: int) -> int:
    print(f"tablectl: error: {' '.join(message.split())}", file=sys.stderr)
    return status


# --------------------------------------------------------------------------- CLI


def add_arguments(parser: argparse.ArgumentParser, positive: Callable[[str], int]) -> None:
    parser.add_argument(
        "--config", metavar="FILE", help="the table's configuration (docs/config.md)"
    )
    parser.add_argument(
        "--simulate",
        action="store_true",
        help="run on simulated devices with an autoplay dealer (the default without --config)",
    )
    parser.add_argument(
        "--game", choices=NAMES, default="baccarat", help="the simulated table's game"
    )
    parser.add_argument("--rounds", type=positive, help="stop after this many rounds")
    parser.add_argument(
        "--pace-ms",
        type=int,
        default=DEFAULT_PACE_MS,
        help=f"the simulated dealer's time per action (default {DEFAULT_PACE_MS}; 0: at once)",
    )
    parser.add_argument("--seed", type=int, help="the simulated shoe's seed (default: random)")
    parser.add_argument(
        "--workdir",
        metavar="DIR",
        help="keep the simulated table's journal, sockets and devices in DIR "
        "(default: a temporary directory, removed at exit)",
    )


class UsageError(ValueError):
    """Options that do not go together; the message is one line."""


def options(args: argparse.Namespace) -> Options:
    """The run's options; UsageError for options that do not go together."""
    simulated_only = [
        flag
        for flag, given in (
            ("--simulate", args.simulate),
            ("--game", args.game != "baccarat"),
            ("--seed", args.seed is not None),
            ("--workdir", args.workdir is not None),
            ("--pace-ms", args.pace_ms != DEFAULT_PACE_MS),
            ("--rounds", args.rounds is not None),
        )
        if given
    ]
    if args.config is not None and simulated_only:
        raise UsageError(f"{simulated_only[0]} is for a simulated table, not with --config")
    if args.pace_ms < 0:
        raise UsageError(f"--pace-ms must be 0 or more, not {args.pace_ms}")
    return Options(args.config, args.game, args.rounds, args.pace_ms, args.seed, args.workdir)
