"""What the daemon's start-up puts together: the journal the table writes to, who may
use the API's sockets, the drivers of the configured devices, and the table of the game
in force (from the game registry), rebuilt from its journal after a restart, with the
key that seals its hole cards."""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TypeAlias, cast

import structlog

from controller.api import Access, ApiServer
from controller.config import Config, SerialDevice, SocketAccess
from controller.daemon.health import journal_problem
from controller.games import game
from controller.journal import JournalError, JournalFiles, Row, SqliteJournal
from controller.journal.header import Identity, open_table_journal
from controller.journal.observed import ObservedJournal
from controller.journal.sealkey import load_key
from controller.recovery import JOURNAL, resume
from controller.table.core import Table
from controller.table.devices import TableDevices
from controller.table.seal import Sealer
from drivers import messages as m
from drivers.device import DRIVERS, DeviceDriver, EventSink, ReaderDriver, ShoeDriver
from drivers.device.sessions import SessionPoller
from drivers.transport import SerialTransport, Transport
from drivers.usb import usb_transport_factory

log = structlog.get_logger("controller.daemon")


_Written: TypeAlias = tuple[int, str]  # a row's place and body (PublishingJournal._write)


class PublishingJournal(ObservedJournal):
    """What the table writes to: each entry durable in the SQLite journal first (one
    transaction for each input, ``batch``), then streamed to the API's subscribers with
    its sequence number, then shown to the watchers (the simulated console, the live
    view)."""

    def __init__(self, journal: SqliteJournal, api: ApiServer) -> None:
        super().__init__()
        self.file = journal
        self._api = api
        self._failure: str | None = None  # the last write's error, until one succeeds

    # Each write and each transaction notes its failure, or that it succeeded, for
    # ``problem``: in line, without a context manager of its own (every row, every input).

    def _write(self, entry: Mapping[str, object]) -> tuple[int, str]:
        """The row's place and its body, which the API streams as they are."""
        try:
            body = self.file.record(entry)
        except JournalError as exc:
            self._failure = str(exc)
            raise
        self._failure = None
        return self.file.last_seq, body

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        try:
            with self.file.transaction():
                yield
        except JournalError as exc:
            self._failure = str(exc)
            raise
        self._failure = None

    def _durable(self, written: object, entry: Mapping[str, object]) -> None:
        seq, body = cast("_Written", written)
        self._api.publish(seq, entry, body=body)
        super()._durable(written, entry)

    def _all_durable(self, held: list[tuple[object, Mapping[str, object]]]) -> None:
        """A transaction's entries: streamed first, sent (or the API's thread woken)
        once for them all, then shown to the watchers."""
        for written, entry in held:
            seq, body = cast("_Written", written)
            self._api.publish(seq, entry, wake=False, body=body)
        self._api.wake()
        for written, entry in held:
            super()._durable(written, entry)

    def problem(self) -> str | None:
        """Why the next commits could not be made or kept, for the watchdog's check
        (controller/daemon/health.py); None: they can."""
        return journal_problem(self.file.path, self._failure)


class DurableAcks(TableDevices):
    """The table's devices, each event acknowledged to its device only once the rows
    of the input it is part of are durable (``ObservedJournal.when_durable``)."""

    def __init__(
        self,
        journal: ObservedJournal,
        drivers: Mapping[str, DeviceDriver],
        shoe: ShoeDriver,
        reader: ReaderDriver | None = None,
    ) -> None:
        super().__init__(drivers, shoe, reader)
        self._journal = journal

    def commit(self, device: str, event_id: int) -> None:
        self._journal.when_durable(functools.partial(super().commit, device, event_id))


def open_journal(config: Config) -> SqliteJournal:
    """The table's journal (controller/journal/header.py): checked from its checkpoint
    to its end, its header checked against the configuration's table and game, and its
    sealing key against the header's fingerprint; created with its header and key where
    there is none and nothing shows a journal was used. ``JournalError`` (one line)
    otherwise."""
    in_force = game(config.table.game)
    identity = Identity(config.table.id, config.table.game, in_force.seals_cards)
    journal, _key = open_table_journal(config.journal.path, identity)
    return journal


def sealing_key(journal_path: str) -> bytes:
    """The key that seals the hole card in the journal (controller/table/seal.py), kept
    beside the journal and readable by the daemon alone: with it a restarted daemon
    checks the hole card a floorperson enters against the sealed record. Made with the
    journal, and checked against its header when the journal is opened
    (``open_journal``)."""
    path = JournalFiles.of(journal_path).sealkey
    key = load_key(path)
    if key is None:
        raise JournalError(f"{path}: no sealing key beside the journal")
    return key


def access(config: Config, private: bool) -> tuple[Access, Access, Access]:
    """Who may use the dealer's, the floorperson's and the events socket: as the
    configuration says, or (``private``) the daemon's own user alone."""
    if private:
        mine = Access(uids=(os.getuid(),))
        return mine, mine, mine

    def of(socket: SocketAccess) -> Access:
        return Access(uids=socket.users, gids=socket.groups, group=socket.group)

    api = config.api
    return of(api.dealer), of(api.floor), of(api.events)


def drivers(
    config: Config,
    events: EventSink,
    positions: Mapping[str, tuple[str, int]],
    usb_backend: object | None = None,
) -> dict[str, DeviceDriver]:
    """A driver for each configured device, not started, each sending its events to
    ``events`` and picking up after its device's position in ``positions``; the reader
    through pyusb, on ``usb_backend`` when one is given."""
    keys = config.load_keys()
    devices = config.devices
    sessions = SessionPoller()  # one I/O thread for the sessions on serial ports
    made: dict[str, DeviceDriver] = {}
    for name, device in devices.named().items():
        factory: Callable[[], Transport]
        if isinstance(device, SerialDevice):
            factory = functools.partial(SerialTransport, device.path)
        else:
            factory = usb_transport_factory(str(device.usb), backend=usb_backend)
        made[name] = DRIVERS[m.DeviceKind[name.upper()]](
            name,
            factory,
            keys[name],
            events,
            device.approved_firmware,
            config=devices.driver_config(),
            resume=positions.get(name),
            sessions=sessions,
        )
    return made


def table(
    config: Config,
    drivers: Mapping[str, DeviceDriver],
    rows: Sequence[Row],
    journal: ObservedJournal,
) -> Table:
    """The table of the game in force, writing to ``journal``, rebuilt from the
    journal's ``rows`` (from its last snapshot on) when the table has written any: then
    it comes back stopped for a floorperson if a round was in play
    (controller/recovery)."""
    in_force = game(config.table.game)
    shoe = drivers["shoe"]
    assert isinstance(shoe, ShoeDriver)  # DRIVERS picks it by kind
    reader = drivers["reader"] if in_force.reader else None
    assert reader is None or isinstance(reader, ReaderDriver)
    devices = DurableAcks(journal, drivers, shoe, reader)
    # A game that seals no card has no key to keep: no key file beside its journal.
    sealer = Sealer(sealing_key(config.journal.path)) if in_force.seals_cards else Sealer()
    day = config.table.gaming_day
    make = functools.partial(in_force.table, config.rules)
    if all(row.entry.get("type") == JOURNAL for row in rows):
        return make(journal, devices, gaming_day=day, sealer=sealer)  # nothing played yet
    rebuilt, interrupted = resume(
        rows, make, journal=journal, devices=devices, sealer=sealer, gaming_day=day
    )
    log.info("daemon_resumed", rows=len(rows), interrupted=interrupted is not None)
    return rebuilt
