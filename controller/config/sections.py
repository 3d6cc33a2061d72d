"""The file's sections, each read and checked on its own: ``[table]``, ``[rules]``,
``[devices]``, ``[journal]`` and ``[api]``. Which games there are, their rules and
whether a table has a card reader come from the game registry (controller/games.py)."""

from __future__ import annotations

import datetime
import functools
import os
import re
from collections.abc import Mapping
from typing import Any, Final
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from controller.config.settings import (
    Account,
    ApiSettings,
    ConfigError,
    DeviceSettings,
    JournalSettings,
    SerialDevice,
    ShuffleSettings,
    SocketAccess,
    TableSettings,
    UsbDevice,
)
from controller.config.values import Schema, Section, shown
from controller.games import NAMES, Game, Rules
from controller.rules.options import RulesError
from drivers.usb import UsbAddress, parse_usb_spec

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

_SERIAL_KEYS: Final = ("path", "key_file", "approved_firmware")
_SOCKET_KEYS: Final = ("group", "users", "groups")
SCHEMA: Final[Schema] = {
    "": ("table", "rules", "devices", "journal", "shuffle", "api"),
    "table": ("id", "game", "gaming_day_starts", "timezone"),
    "devices": ("link_timeout_ms", "shoe", "shuffler", "reader"),
    "devices.shoe": _SERIAL_KEYS,
    "devices.shuffler": _SERIAL_KEYS,
    "devices.reader": ("usb", "key_file", "approved_firmware", "reveals_hole_card"),
    "journal": ("path",),
    "shuffle": ("monitor", "confidence", "window"),
    "api": ("runtime_dir", *DEFAULT_SOCKET_GROUPS),
    "api.dealer": _SOCKET_KEYS,
    "api.floor": _SOCKET_KEYS,
    "api.events": _SOCKET_KEYS,
}

_TABLE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,31}")
_CLOCK = re.compile(r"([01][0-9]|2[0-3]):([0-5][0-9])")
_SHA256 = re.compile(r"[0-9a-fA-F]{64}")
# Kernel tty names follow plug order: a reboot or a replug can swap the shoe and the
# shuffler (docs/udev.md).
_NUMBERED_TTY = re.compile(r"/dev/tty(USB|ACM)[0-9]+")
_NO_TIME: Final = datetime.time()  # a placeholder (values.Problems)
_NO_SERIAL: Final = SerialDevice("", "", ())
_NO_SOCKET: Final = SocketAccess(0, (), ())
_NO_READER: Final[tuple[UsbDevice | None, bool]] = (None, True)
_NO_HASHES: Final[tuple[bytes, ...]] = ()
_NO_ACCOUNT: Final[Account] = 0
_NO_ACCOUNTS: Final[tuple[Account, ...]] = ()
_GAME_NAMES: Final = ", ".join(repr(name) for name in NAMES[:-1]) + f" or {NAMES[-1]!r}"


def table(section: Section) -> TableSettings:
    with section.together():
        table_id = section.check(lambda: _table_id(section), "")
        game = section.check(lambda: game_name(section), "")
        timezone = section.check(lambda: _timezone(section), None)
        starts = section.check(lambda: _time_of_day(section, "gaming_day_starts"), _NO_TIME)
    return TableSettings(table_id, game, starts, timezone)


def game_name(section: Section) -> str:
    """``[table]``'s ``game``: a name the game registry knows."""
    game = section.text("game")
    if game not in NAMES:
        section.fail("game", f"expected {_GAME_NAMES}, got {game!r}")
    return game


def _table_id(section: Section) -> str:
    table_id = section.text("id")
    if not _TABLE_ID.fullmatch(table_id):
        section.fail(
            "id",
            "expected 1 to 32 letters, digits, '.', '_' or '-', starting with a letter or "
            f"digit, got {table_id!r}",
        )
    return table_id


def _timezone(section: Section) -> str | None:
    timezone = section.optional_text("timezone")
    if timezone is not None:
        try:
            ZoneInfo(timezone)
        except (ZoneInfoNotFoundError, ValueError):
            section.fail(
                "timezone",
                f"unknown time zone {timezone!r}; expected an IANA name such as 'America/New_York'",
            )
    return timezone


def _time_of_day(section: Section, key: str) -> datetime.time:
    """``"HH:MM"`` on the 24-hour clock, or a TOML local time (``06:00:00``)."""
    value = section.get(key, DEFAULT_GAMING_DAY_STARTS)
    if isinstance(value, datetime.time) and value.tzinfo is None:
        return value
    clock = _CLOCK.fullmatch(value) if isinstance(value, str) else None
    if clock is None:
        section.fail(key, f"expected a time of day as 'HH:MM' (24-hour clock), got {shown(value)}")
    return datetime.time(int(clock[1]), int(clock[2]))


def rules(game: Game, data: Any, source: str) -> Rules:
    if game.reader and isinstance(data, Mapping) and "reader_reveals_hole_card" in data:
        # One place for it: it describes the reader in use, configured with the reader.
        raise ConfigError(
            f"{source}: rules.reader_reveals_hole_card: set devices.reader.reveals_hole_card "
            "instead (551.16(l))"
        )
    try:
        return game.rules(data)
    except RulesError as exc:
        raise ConfigError(f"{source}: {exc}") from None


def devices(section: Section, game: Game) -> tuple[DeviceSettings, bool]:
    """The devices, and whether the reader lets a player learn the hole card (551.16(l);
    true without a reader, the rules' default)."""
    with section.together():
        link_timeout_ms = section.check(lambda: _link_timeout(section), 0)
        shoe = section.check(lambda: _serial_device(section.table("shoe")), _NO_SERIAL)
        shuffler = section.check(lambda: _shuffler(section), None)
        reader, reveals = section.check(lambda: _reader_of(section, game), _NO_READER)
    settings = DeviceSettings(shoe, shuffler, reader, link_timeout_ms)
    _distinct(section, settings)
    return settings, reveals


def _link_timeout(section: Section) -> int:
    link_timeout_ms = section.whole("link_timeout_ms", DEFAULT_LINK_TIMEOUT_MS)
    if link_timeout_ms not in LINK_TIMEOUT_MS:
        section.fail(
            "link_timeout_ms",
            f"{link_timeout_ms} is outside {LINK_TIMEOUT_MS.start} to "
            f"{LINK_TIMEOUT_MS.stop - 1} ms (docs/protocol.md 6.1)",
        )
    return link_timeout_ms


def _shuffler(section: Section) -> SerialDevice | None:
    shuffler_section = section.optional_table("shuffler")
    return None if shuffler_section is None else _serial_device(shuffler_section)


def _reader_of(section: Section, game: Game) -> tuple[UsbDevice | None, bool]:
    """The card reader device: required for a game that has one (551.2(e)), refused
    for any other; and whether it reveals the hole card."""
    reader_section = section.optional_table("reader")
    if game.reader:
        if reader_section is None:
            section.fail(
                "reader",
                "missing; a Spanish 21 table must have a card reader device attached (551.2(e))",
            )
        return _reader(reader_section), reader_section.flag("reveals_hole_card", True)
    if reader_section is not None:
        section.fail(
            "reader",
            f"a card reader device belongs to a Spanish 21 table (551.2(e)); a {game.name} "
            "table has no hole card to read",
        )
    return None, True


def _serial_device(section: Section) -> SerialDevice:
    with section.together():
        path = section.check(lambda: _port(section), "")
        key_file = section.check(lambda: section.absolute_path("key_file"), "")
        approved = section.check(lambda: _approved(section), _NO_HASHES)
    return SerialDevice(path, key_file, approved)


def _port(section: Section) -> str:
    path = section.absolute_path("path")
    if _NUMBERED_TTY.fullmatch(path):
        section.fail(
            "path",
            f"{path} follows the order devices were plugged in; use a stable name such as "
            f"/dev/tablectl/{section.name.rsplit('.', 1)[-1]} (docs/udev.md)",
        )
    return path


def _reader(section: Section) -> UsbDevice:
    with section.together():
        address = section.check(lambda: _usb(section), None)
        key_file = section.check(lambda: section.absolute_path("key_file"), "")
        approved = section.check(lambda: _approved(section), _NO_HASHES)
    assert address is not None  # together() let no placeholder out
    return UsbDevice(address, key_file, approved)


def _usb(section: Section) -> UsbAddress:
    spec = section.text("usb")
    try:
        return parse_usb_spec(spec)
    except ValueError:
        section.fail("usb", f"expected usb:VID:PID[:SERIAL], got {spec!r}")


def _approved(section: Section) -> tuple[bytes, ...]:
    hashes = section.array("approved_firmware")
    if not hashes:
        section.fail(
            "approved_firmware",
            "empty; list the SHA-256 of each firmware image approved for this device, or "
            "every one is refused (docs/protocol.md 6.5)",
        )
    with section.together():
        return tuple(
            section.check(functools.partial(_sha256, section, i, v), b"")
            for i, v in enumerate(hashes)
        )


def _sha256(section: Section, i: int, value: object) -> bytes:
    if not isinstance(value, str) or not _SHA256.fullmatch(value):
        section.fail(
            f"approved_firmware[{i}]",
            f"expected a SHA-256 as 64 hexadecimal digits, got {shown(value)}",
        )
    return bytes.fromhex(value)


def _distinct(section: Section, devices: DeviceSettings) -> None:
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


def journal(section: Section) -> JournalSettings:
    return JournalSettings(section.absolute_path("path", DEFAULT_JOURNAL))


def shuffle(section: Section) -> ShuffleSettings:
    """The shuffle-quality monitor (docs/shuffle-monitor.md, "Alerts"): on, at GLI-29's
    99 % or COMAR 36.05.02.17(F)'s 95 %, over a window of 1-100 shoes."""
    with section.together():
        monitor = section.check(lambda: section.flag("monitor", True), True)
        confidence = section.check(lambda: _confidence(section), 0.99)
        window = section.check(lambda: section.whole("window", 10), 10)
    if not 1 <= window <= 100:
        section.fail("window", f"expected 1 to 100 shoes, got {window}")
    return ShuffleSettings(monitor, confidence, window)


def _confidence(section: Section) -> float:
    value = section.get("confidence", 0.99)
    if isinstance(value, bool) or value not in (0.99, 0.95):
        section.fail("confidence", f"expected 0.99 or 0.95, got {shown(value)}")
    return float(value)


def api(section: Section) -> ApiSettings:
    with section.together():
        runtime_dir = section.check(
            lambda: section.absolute_path("runtime_dir", DEFAULT_RUNTIME_DIR), ""
        )
        access = {
            name: section.check(functools.partial(_socket, section, name), _NO_SOCKET)
            for name in DEFAULT_SOCKET_GROUPS
        }
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


def _socket(api: Section, name: str) -> SocketAccess:
    section = api.table(name, {})
    default_group = DEFAULT_SOCKET_GROUPS[name]
    with section.together():
        group = section.check(lambda: section.account("group", default_group), _NO_ACCOUNT)
        users = section.check(lambda: section.accounts("users", []), _NO_ACCOUNTS)
        groups = section.check(lambda: section.accounts("groups", [group]), _NO_ACCOUNTS)
    if not users and not groups and name != "events":
        # Nobody could give the table the dealer's or the floorperson's commands.
        api.fail(name, f"users and groups are both empty: nobody could use {name}.sock")
    return SocketAccess(group, users, groups)
