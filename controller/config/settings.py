"""What a validated configuration holds: one frozen dataclass per section."""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeAlias
from zoneinfo import ZoneInfo

from controller.errors import TablectlError
from controller.games import Rules
from drivers.keys import KeyFileError, load_key
from drivers.usb import UsbAddress

# The drivers' stack is imported when the drivers are configured (``driver_config``):
# a configuration is read and checked, and a simulated table's devices spawned, first.
if TYPE_CHECKING:
    from drivers.device import DriverConfig

Game: TypeAlias = str  # a game's name, as the game registry knows it (controller/games.py)
Account: TypeAlias = int | str  # a user or group, by number or by name


class ConfigError(TablectlError):
    """The configuration cannot be used; the message is one line naming file and key.
    ``problems``: every problem found in the file, one line each (the message alone
    when it was not checked whole)."""

    def __init__(self, message: str, problems: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.problems = problems or (message,)


class ConfigUnreadable(ConfigError):
    """The file itself cannot be read: there is nothing to check."""


@dataclass(frozen=True)
class TableSettings:
    id: str
    game: Game
    gaming_day_starts: datetime.time
    timezone: str | None  # an IANA name; None: the system's local time

    def gaming_day(self, now: datetime.datetime | None = None) -> str:
        """The gaming day ``now`` (default: this instant) falls in, as an ISO date: the
        calendar date on which it started. The floorperson inspects the card reader
        once in each (551.2(e)); a naive ``now`` is taken as system local time."""
        zone = None if self.timezone is None else ZoneInfo(self.timezone)
        moment = (now or datetime.datetime.now(datetime.UTC)).astimezone(zone)
        day = moment.date()
        if moment.time() < self.gaming_day_starts:
            day -= datetime.timedelta(days=1)
        return day.isoformat()


@dataclass(frozen=True)
class SerialDevice:
    """A USB-serial device (the shoe, the shuffler) by its stable path."""

    path: str
    key_file: str
    approved_firmware: tuple[bytes, ...]


@dataclass(frozen=True)
class UsbDevice:
    """The card reader device on USB bulk. Whether it lets a player learn the hole card
    (551.16(l)) is in the rules, ``Spanish21Rules.reader_reveals_hole_card``."""

    usb: UsbAddress
    key_file: str
    approved_firmware: tuple[bytes, ...]


@dataclass(frozen=True)
class DeviceSettings:
    shoe: SerialDevice
    shuffler: SerialDevice | None  # None: the cards are shuffled by hand
    reader: UsbDevice | None  # only for a game with a reader, and always there (551.2(e))
    link_timeout_ms: int

    def named(self) -> dict[str, SerialDevice | UsbDevice]:
        """The configured devices by name: the drivers' names, and the names the table
        classes take for the shoe and the reader."""
        devices: dict[str, SerialDevice | UsbDevice | None] = {
            "shoe": self.shoe,
            "shuffler": self.shuffler,
            "reader": self.reader,
        }
        return {name: device for name, device in devices.items() if device is not None}

    def driver_config(self) -> DriverConfig:
        from drivers.device import DriverConfig
        from drivers.link import LinkConfig

        return DriverConfig(link=LinkConfig(link_timeout=self.link_timeout_ms / 1000))


@dataclass(frozen=True)
class JournalSettings:
    path: str


@dataclass(frozen=True)
class ShuffleSettings:
    """The shuffle-quality monitor: whether the daemon runs it, its confidence (0.99 or
    0.95) and its window of shoes (controller/shuffle/sequential.py)."""

    monitor: bool = True
    confidence: float = 0.99
    window: int = 10


@dataclass(frozen=True)
class SocketAccess:
    """Who may use one API socket, as ``controller.api.Access(uids=users, gids=groups,
    group=group)``: the socket file belongs to ``group`` (mode 0660), so only its
    members reach it, and of those the ``users`` listed and the members of the
    ``groups`` listed are served."""

    group: Account
    users: tuple[Account, ...]
    groups: tuple[Account, ...]


@dataclass(frozen=True)
class ApiSettings:
    """The console API's sockets in ``runtime_dir``: the dealer's commands, the
    floorperson's, and the event stream alone."""

    runtime_dir: str
    dealer: SocketAccess
    floor: SocketAccess
    events: SocketAccess

    def sockets(self) -> dict[str, SocketAccess]:
        return {"dealer": self.dealer, "floor": self.floor, "events": self.events}


@dataclass(frozen=True)
class Config:
    """One table's validated configuration; ``source`` is the file it came from."""

    source: str
    table: TableSettings
    rules: Rules
    devices: DeviceSettings
    journal: JournalSettings
    api: ApiSettings
    shuffle: ShuffleSettings = ShuffleSettings()

    def load_keys(self) -> dict[str, bytes]:
        """Each configured device's link key by device name; ConfigError naming the
        device's ``key_file`` when a file is missing, unreadable, open to other users
        or not 64 hexadecimal digits, or not a small regular file (a FIFO, a device:
        refused unread, drivers/keys.py; docs/protocol.md 5.6)."""
        return {name: self.load_key(name) for name in self.devices.named()}

    def load_key(self, name: str) -> bytes:
        """The link key of the device ``name``, as ``load_keys``."""
        path = self.devices.named()[name].key_file
        try:
            return load_key(path)
        except KeyFileError as exc:
            raise ConfigError(f"{self.source}: devices.{name}.key_file: {exc}") from None
