"""The table's configuration: one TOML file per table (``tablectl run --config FILE``),
validated completely before any device, journal or socket is opened.

Every mistake ends in one ``ConfigError`` line naming the file and the key by its
dotted path, e.g. ``table.toml: devices.reader.usb: expected usb:VID:PID[:SERIAL], got
'usb:zz'``. The ``[rules]`` table is the game's Rules Submission, checked by the game's
own ``from_dict``, so a value the chapter forbids is refused with its section there and
nowhere else. The keys, their types and defaults are listed in docs/config.md.
"""

from __future__ import annotations

import dataclasses
import datetime
import grp
import os
import pwd
import re
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal, NoReturn, cast, get_args
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from controller.errors import TablectlError
from controller.rules.baccarat import BaccaratRules
from controller.rules.options import RulesError
from controller.rules.spanish21 import Spanish21Rules
from drivers import messages as m
from drivers.device import DriverConfig
from drivers.identity import PRODUCT_ID, VENDOR_ID, default_firmware_hash
from drivers.keys import KeyFileError, load_key
from drivers.link import LinkConfig
from drivers.usb import UsbAddress, parse_usb_spec

Game = Literal["baccarat", "midibaccarat", "spanish21"]
GAMES: Final[tuple[Game, ...]] = get_args(Game)

DEFAULT_GAMING_DAY_STARTS: Final = datetime.time(6, 0)
DEFAULT_LINK_TIMEOUT_MS: Final = 1000  # LinkConfig's default (docs/protocol.md 7.7)
LINK_TIMEOUT_MS: Final = range(40, 60_001)  # what HELLO can carry (docs/protocol.md 6.1)
DEFAULT_JOURNAL: Final = "/var/lib/tablectl/journal.db"  # the unit's StateDirectory
DEFAULT_RUNTIME_DIR: Final = "/run/tablectl"  # the unit's RuntimeDirectory
# The group of each API socket (controller/api.py SOCKETS) unless the file says otherwise.
DEFAULT_SOCKET_GROUPS: Final[Mapping[str, str]] = {
    "dealer": "tablectl-dealer",
    "floor": "tablectl-floor",
    "events": "tablectl-events",
}
MAX_ID: Final = 0xFFFF_FFFE  # (uid_t)-1 means "no user" to the kernel
SIMULATION: Final = "<simulation>"  # the source named in errors about simulation_config

_SECTIONS: Final = ("table", "rules", "devices", "journal", "api")
_TABLE_KEYS: Final = ("id", "game", "gaming_day_starts", "timezone")
_DEVICES_KEYS: Final = ("link_timeout_ms", "shoe", "shuffler", "reader")
_SERIAL_KEYS: Final = ("path", "key_file", "approved_firmware")
_READER_KEYS: Final = ("usb", "key_file", "approved_firmware", "reveals_hole_card")
_JOURNAL_KEYS: Final = ("path",)
_API_KEYS: Final = ("runtime_dir", *DEFAULT_SOCKET_GROUPS)
_SOCKET_KEYS: Final = ("group", "users", "groups")

_TABLE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,31}")
_ACCOUNT = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]{0,31}")  # a user or group name
_CLOCK = re.compile(r"([01][0-9]|2[0-3]):([0-5][0-9])")
_SHA256 = re.compile(r"[0-9a-fA-F]{64}")
# Kernel tty names follow plug order: a reboot or a replug can swap the shoe and the
# shuffler (docs/udev.md).
_NUMBERED_TTY = re.compile(r"/dev/tty(USB|ACM)[0-9]+")
_TOML_AT = re.compile(r"(?P<msg>.*) \(at line (?P<line>\d+), column (?P<col>\d+)\)")
_TOML_AT_END = re.compile(r"(?P<msg>.*) \(at end of document\)")


class ConfigError(TablectlError):
    """The configuration cannot be used; the message is one line naming file and key."""


# --------------------------------------------------------------------------- the result


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
    reader: UsbDevice | None  # Spanish 21 only, and always there (551.2(e))
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
        return DriverConfig(link=LinkConfig(link_timeout=self.link_timeout_ms / 1000))


@dataclass(frozen=True)
class JournalSettings:
    path: str


Account = int | str  # a user or group, by number or by name


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
    rules: BaccaratRules | Spanish21Rules
    devices: DeviceSettings
    journal: JournalSettings
    api: ApiSettings

    def load_keys(self) -> dict[str, bytes]:
        """Each configured device's link key by device name; ConfigError naming the
        device's ``key_file`` when a file is missing, unreadable, open to other users
        or not 64 hexadecimal digits (docs/protocol.md 5.6)."""
        keys: dict[str, bytes] = {}
        for name, device in self.devices.named().items():
            try:
                keys[name] = load_key(device.key_file)
            except KeyFileError as exc:
                raise ConfigError(f"{self.source}: devices.{name}.key_file: {exc}") from None
        return keys


# --------------------------------------------------------------------------- loading


def load_config(path: str | os.PathLike[str], *, check_files: bool = True) -> Config:
    """The validated configuration in ``path``; ConfigError with one line otherwise.

    ``check_files`` also checks what the file names on this machine: the key files
    (``load_keys``), the journal's directory, the runtime directory and the groups.
    Without it only the file itself is checked (for examples written for another box).
    """
    source = str(path)
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise ConfigError(
            f"{source}: cannot read the configuration: {exc.strerror or exc}"
        ) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise ConfigError(f"{source}:{line}: not UTF-8 text (TOML files are UTF-8)") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(_toml_error(source, text, str(exc))) from None
    return parse_config(data, source, check_files=check_files)


def _toml_error(source: str, text: str, message: str) -> str:
    """``FILE:LINE:COLUMN: invalid TOML: REASON`` from tomllib's message."""
    at = _TOML_AT.fullmatch(message)
    if at is not None:
        return f"{source}:{at['line']}:{at['col']}: invalid TOML: {at['msg']}"
    end = _TOML_AT_END.fullmatch(message)
    if end is not None:
        last = text.count("\n") + (0 if text.endswith("\n") else 1)
        return f"{source}:{max(last, 1)}: invalid TOML: {end['msg']} at the end of the file"
    return f"{source}: invalid TOML: {message}"


def parse_config(data: Mapping[str, Any], source: str, *, check_files: bool = True) -> Config:
    """Validate a parsed configuration (a TOML document as ``tomllib`` returns it).

    ``source`` names it in errors; ``check_files`` as in ``load_config``.
    """
    top = _Section(data, "", source, _SECTIONS)
    table = _table(top.table("table"))
    rules = _rules(table.game, data.get("rules", {}), source)
    devices, reveals = _devices(top.table("devices"), table.game)
    if isinstance(rules, Spanish21Rules):
        rules = dataclasses.replace(rules, reader_reveals_hole_card=reveals)
    journal = _journal(top.table("journal", {}))
    api = _api(top.table("api", {}))
    config = Config(source, table, rules, devices, journal, api)
    if check_files:
        _check_machine(config)
    return config


def simulation_config(workdir: Path, game: Game = "baccarat") -> Config:
    """The configuration ``tablectl run --simulate`` uses without ``--config``.

    Every device is a simulator started as ``SimProcess(name, workdir, key)`` with its
    default model and firmware: the shoe and the shuffler on ``workdir/NAME.tty``, for
    Spanish 21 the reader on the simulator's USB ids; key files ``workdir/NAME.key``
    (which ``SimProcess`` writes), the journal and the sockets in ``workdir``. The rules
    are the game's defaults. The key files are not checked here: they are written when
    the simulators are set up, so call ``load_keys`` after that.
    """

    def approved(kind: m.DeviceKind) -> list[str]:
        return [default_firmware_hash(kind).hex()]

    def serial(kind: m.DeviceKind) -> dict[str, Any]:
        return {
            "path": str(workdir / f"{kind.label}.tty"),
            "key_file": str(workdir / f"{kind.label}.key"),
            "approved_firmware": approved(kind),
        }

    devices: dict[str, Any] = {
        "shoe": serial(m.DeviceKind.SHOE),
        "shuffler": serial(m.DeviceKind.SHUFFLER),
    }
    if game == "spanish21":
        devices["reader"] = {
            "usb": str(UsbAddress(VENDOR_ID, PRODUCT_ID)),
            "key_file": str(workdir / "reader.key"),
            "approved_firmware": approved(m.DeviceKind.READER),
        }
    data = {
        "table": {"id": "simulated", "game": game},
        "devices": devices,
        "journal": {"path": str(workdir / "journal.db")},
        "api": {"runtime_dir": str(workdir)},
    }
    return parse_config(data, SIMULATION, check_files=False)


# --------------------------------------------------------------------------- sections


def _table(section: _Section) -> TableSettings:
    table_id = section.text("id")
    if not _TABLE_ID.fullmatch(table_id):
        section.fail(
            "id",
            "expected 1 to 32 letters, digits, '.', '_' or '-', starting with a letter or "
            f"digit, got {table_id!r}",
        )
    game = section.text("game")
    if game not in GAMES:
        section.fail("game", f"expected 'baccarat', 'midibaccarat' or 'spanish21', got {game!r}")
    timezone = section.optional_text("timezone")
    if timezone is not None:
        try:
            ZoneInfo(timezone)
        except (ZoneInfoNotFoundError, ValueError):
            section.fail(
                "timezone",
                f"unknown time zone {timezone!r}; expected an IANA name such as 'America/New_York'",
            )
    return TableSettings(table_id, game, _time_of_day(section, "gaming_day_starts"), timezone)


def _time_of_day(section: _Section, key: str) -> datetime.time:
    """``"HH:MM"`` on the 24-hour clock, or a TOML local time (``06:00:00``)."""
    value = section.get(key, DEFAULT_GAMING_DAY_STARTS)
    if isinstance(value, datetime.time) and value.tzinfo is None:
        return value
    clock = _CLOCK.fullmatch(value) if isinstance(value, str) else None
    if clock is None:
        section.fail(key, f"expected a time of day as 'HH:MM' (24-hour clock), got {_shown(value)}")
    return datetime.time(int(clock[1]), int(clock[2]))


def _rules(game: Game, data: Any, source: str) -> BaccaratRules | Spanish21Rules:
    if game == "spanish21" and isinstance(data, Mapping) and "reader_reveals_hole_card" in data:
        # One place for it: it describes the reader in use, configured with the reader.
        raise ConfigError(
            f"{source}: rules.reader_reveals_hole_card: set devices.reader.reveals_hole_card "
            "instead (551.16(l))"
        )
    try:
        if game == "spanish21":
            return Spanish21Rules.from_dict(data)
        return BaccaratRules.from_dict(game, data)
    except RulesError as exc:
        raise ConfigError(f"{source}: {exc}") from None


def _devices(section: _Section, game: Game) -> tuple[DeviceSettings, bool]:
    """The devices, and whether the reader lets a player learn the hole card (551.16(l);
    true without a reader, the rules' default)."""
    link_timeout_ms = section.whole("link_timeout_ms", DEFAULT_LINK_TIMEOUT_MS)
    if link_timeout_ms not in LINK_TIMEOUT_MS:
        section.fail(
            "link_timeout_ms",
            f"{link_timeout_ms} is outside {LINK_TIMEOUT_MS.start} to "
            f"{LINK_TIMEOUT_MS.stop - 1} ms (docs/protocol.md 6.1)",
        )
    shoe = _serial_device(section.table("shoe"))
    shuffler_section = section.optional_table("shuffler")
    shuffler = None if shuffler_section is None else _serial_device(shuffler_section)
    reader_section = section.optional_table("reader")
    reader: UsbDevice | None = None
    reveals = True
    if game == "spanish21":
        if reader_section is None:
            section.fail(
                "reader",
                "missing; a Spanish 21 table must have a card reader device attached (551.2(e))",
            )
        reader = _reader(reader_section)
        reveals = reader_section.flag("reveals_hole_card", True)
    elif reader_section is not None:
        section.fail(
            "reader",
            f"a card reader device belongs to a Spanish 21 table (551.2(e)); a {game} "
            "table has no hole card to read",
        )
    devices = DeviceSettings(shoe, shuffler, reader, link_timeout_ms)
    _distinct(section, devices)
    return devices, reveals


def _serial_device(section: _Section) -> SerialDevice:
    path = section.absolute_path("path")
    if _NUMBERED_TTY.fullmatch(path):
        section.fail(
            "path",
            f"{path} follows the order devices were plugged in; use a stable name such as "
            f"/dev/tablectl/{section.name.rsplit('.', 1)[-1]} (docs/udev.md)",
        )
    return SerialDevice(path, section.absolute_path("key_file"), _approved(section))


def _reader(section: _Section) -> UsbDevice:
    spec = section.text("usb")
    try:
        address = parse_usb_spec(spec)
    except ValueError:
        section.fail("usb", f"expected usb:VID:PID[:SERIAL], got {spec!r}")
    return UsbDevice(address, section.absolute_path("key_file"), _approved(section))


def _approved(section: _Section) -> tuple[bytes, ...]:
    hashes = section.array("approved_firmware")
    if not hashes:
        section.fail(
            "approved_firmware",
            "empty; list the SHA-256 of each firmware image approved for this device, or "
            "every one is refused (docs/protocol.md 6.5)",
        )
    approved: list[bytes] = []
    for i, value in enumerate(hashes):
        if not isinstance(value, str) or not _SHA256.fullmatch(value):
            section.fail(
                f"approved_firmware[{i}]",
                f"expected a SHA-256 as 64 hexadecimal digits, got {_shown(value)}",
            )
        approved.append(bytes.fromhex(value))
    return tuple(approved)


def _distinct(section: _Section, devices: DeviceSettings) -> None:
    """No two devices share a port or a key file."""
    seen_paths: dict[str, str] = {}
    seen_keys: dict[str, str] = {}
    for name, device in devices.named().items():
        if isinstance(device, SerialDevice):
            path = os.path.normpath(device.path)
            if path in seen_paths:
                section.fail(f"{name}.path", f"the same port as devices.{seen_paths[path]}.path")
            seen_paths[path] = name
        key_file = os.path.normpath(device.key_file)
        if key_file in seen_keys:
            section.fail(
                f"{name}.key_file",
                f"the same file as devices.{seen_keys[key_file]}.key_file; each device has "
                "a key of its own (docs/protocol.md 5.6)",
            )
        seen_keys[key_file] = name


def _journal(section: _Section) -> JournalSettings:
    return JournalSettings(section.absolute_path("path", DEFAULT_JOURNAL))


def _api(section: _Section) -> ApiSettings:
    runtime_dir = section.absolute_path("runtime_dir", DEFAULT_RUNTIME_DIR)
    access = {name: _socket(section, name) for name in DEFAULT_SOCKET_GROUPS}
    dealer, floor = access["dealer"], access["floor"]
    listed = "groups" in section.data.get("floor", {})  # else floor.group stands in
    for i, group in enumerate(floor.groups):
        if group in dealer.groups:
            # The floorperson clears what the dealer may not (a halted table, a repaired
            # device): no group is served on both sockets.
            section.fail(
                f"floor.groups[{i}]" if listed else "floor.group",
                f"{group!r} is served on the dealer's socket too (api.dealer.groups)",
            )
    return ApiSettings(runtime_dir, dealer, floor, access["events"])


def _socket(api: _Section, name: str) -> SocketAccess:
    section = api.table(name, {})
    default_group = DEFAULT_SOCKET_GROUPS[name]
    group = section.account("group", default_group)
    users = section.accounts("users", [])
    groups = section.accounts("groups", [group])
    if not users and not groups and name != "events":
        # Nobody could give the table the dealer's or the floorperson's commands.
        api.fail(name, f"users and groups are both empty: nobody could use {name}.sock")
    return SocketAccess(group, users, groups)


def _check_machine(config: Config) -> None:
    """What the configuration names on this machine, as the daemon would meet it."""
    config.load_keys()
    source = config.source
    journal = config.journal.path
    directory = os.path.dirname(journal)
    if not os.path.isdir(directory):
        raise ConfigError(f"{source}: journal.path: the directory {directory} does not exist")
    if os.path.isdir(journal):
        raise ConfigError(f"{source}: journal.path: {journal} is a directory")
    runtime_dir = config.api.runtime_dir
    if not os.path.isdir(runtime_dir):
        raise ConfigError(f"{source}: api.runtime_dir: {runtime_dir} is not a directory")
    for name, access in config.api.sockets().items():
        where = f"{source}: api.{name}"
        _resolve(f"{where}.group", access.group, grp.getgrnam, "group")
        for i, user in enumerate(access.users):
            _resolve(f"{where}.users[{i}]", user, pwd.getpwnam, "user")
        for i, group in enumerate(access.groups):
            _resolve(f"{where}.groups[{i}]", group, grp.getgrnam, "group")


def _resolve(where: str, account: Account, lookup: Callable[[str], object], what: str) -> None:
    """A name must exist here; a number is taken as it is (it may have no name)."""
    if isinstance(account, str):
        try:
            lookup(account)
        except KeyError:
            raise ConfigError(f"{where}: no {what} {account!r} on this machine") from None


# --------------------------------------------------------------------------- reading values


_REQUIRED: Final = object()


class _Section:
    """One TOML table, read key by key; every error names ``name.key``."""

    def __init__(
        self, data: Mapping[str, Any], name: str, source: str, keys: Sequence[str]
    ) -> None:
        self.data = data
        self.name = name
        self.source = source
        for key in data:
            if key not in keys:
                self.fail(key, f"unknown key; expected one of {', '.join(keys)}")

    def fail(self, key: str, detail: str) -> NoReturn:
        dotted = f"{self.name}.{key}" if self.name else key
        raise ConfigError(f"{self.source}: {dotted}: {detail}")

    def get(self, key: str, default: object = _REQUIRED) -> object:
        if key in self.data:
            return self.data[key]
        if default is _REQUIRED:
            self.fail(key, "missing (required)")
        return default

    def table(self, key: str, default: object = _REQUIRED) -> _Section:
        """A sub-table; ``default`` (an empty table) stands in for one left out."""
        value = self.get(key, default)
        if not isinstance(value, Mapping):
            self.fail(key, f"expected a table, got {_shown(value)}")
        dotted = f"{self.name}.{key}" if self.name else key
        return _Section(cast(Mapping[str, Any], value), dotted, self.source, _KEYS[dotted])

    def optional_table(self, key: str) -> _Section | None:
        return None if key not in self.data else self.table(key)

    def text(self, key: str, default: object = _REQUIRED) -> str:
        value = self.get(key, default)
        if not isinstance(value, str):
            self.fail(key, f"expected a string, got {_shown(value)}")
        return value

    def optional_text(self, key: str) -> str | None:
        return None if key not in self.data else self.text(key)

    def whole(self, key: str, default: object = _REQUIRED) -> int:
        value = self.get(key, default)
        if not isinstance(value, int) or isinstance(value, bool):
            self.fail(key, f"expected a whole number, got {_shown(value)}")
        return value

    def flag(self, key: str, default: object = _REQUIRED) -> bool:
        value = self.get(key, default)
        if not isinstance(value, bool):
            self.fail(key, f"expected true or false, got {_shown(value)}")
        return value

    def array(self, key: str, default: object = _REQUIRED) -> list[object]:
        value = self.get(key, default)
        if not isinstance(value, list):
            self.fail(key, f"expected an array, got {_shown(value)}")
        return cast(list[object], value)

    def absolute_path(self, key: str, default: object = _REQUIRED) -> str:
        value = self.get(key, default)
        if not isinstance(value, str) or not os.path.isabs(value):
            self.fail(key, f"expected an absolute path, got {_shown(value)}")
        return value

    def account(self, key: str, default: object = _REQUIRED) -> Account:
        return self._account(key, self.get(key, default))

    def accounts(self, key: str, default: list[Account]) -> tuple[Account, ...]:
        values = self.array(key, default)
        return tuple(self._account(f"{key}[{i}]", v) for i, v in enumerate(values))

    def _account(self, key: str, value: object) -> Account:
        """A user or group: a name, or a number 0 to MAX_ID."""
        if isinstance(value, str) and _ACCOUNT.fullmatch(value):
            return value
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_ID:
            return value
        self.fail(key, f"expected a name or a number 0 to {MAX_ID}, got {_shown(value)}")


_KEYS: Final[Mapping[str, Sequence[str]]] = {
    "table": _TABLE_KEYS,
    "devices": _DEVICES_KEYS,
    "devices.shoe": _SERIAL_KEYS,
    "devices.shuffler": _SERIAL_KEYS,
    "devices.reader": _READER_KEYS,
    "journal": _JOURNAL_KEYS,
    "api": _API_KEYS,
    "api.dealer": _SOCKET_KEYS,
    "api.floor": _SOCKET_KEYS,
    "api.events": _SOCKET_KEYS,
}


def _shown(value: object) -> str:
    """A value as the error shows it, in TOML's words where Python's would mislead."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, Mapping):
        return "a table"
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    return repr(value)
