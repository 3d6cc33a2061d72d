"""The table's TOML configuration: every mistake one exact line naming file and key,
the examples valid, defaults filled, files checked on this machine."""

from __future__ import annotations

import datetime
import grp
import os
import pwd
import tomllib
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from controller.bench.simulated import SIMULATION, simulation_config
from controller.config import (
    DEFAULT_JOURNAL,
    DEFAULT_RUNTIME_DIR,
    Config,
    ConfigError,
    Game,
    SerialDevice,
    ShuffleSettings,
    SocketAccess,
    TableSettings,
    load_config,
    parse_config,
)
from controller.errors import TablectlError
from controller.rules.baccarat import BaccaratRules
from controller.rules.spanish21 import Spanish21Rules
from drivers.identity import PRODUCT_ID, VENDOR_ID
from drivers.keys import write_key
from drivers.usb import UsbAddress
from firmware_sim.harness import SimProcess
from tests.support.paths import ROOT

EXAMPLES = ROOT / "examples"
SHOE_HASH = "ab" * 32
READER_HASH = "cd" * 32

BACCARAT = f"""\
[table]
id = "bac-01"
game = "baccarat"

[devices.shoe]
path = "/dev/tablectl/shoe"
key_file = "/etc/tablectl/keys/shoe.key"
approved_firmware = ["{SHOE_HASH}"]
"""

SPANISH21 = f"""\
[table]
id = "s21-01"
game = "spanish21"

[rules]
decks = 6

[devices.shoe]
path = "/dev/tablectl/shoe"
key_file = "/etc/tablectl/keys/shoe.key"
approved_firmware = ["{SHOE_HASH}"]

[devices.reader]
usb = "usb:1209:0001:RD0001"
key_file = "/etc/tablectl/keys/reader.key"
approved_firmware = ["{READER_HASH}"]
"""

SHUFFLER = """
[devices.shuffler]
path = "/dev/tablectl/shuffler"
key_file = "/etc/tablectl/keys/shuffler.key"
approved_firmware = ["ef00000000000000000000000000000000000000000000000000000000000000"]
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "table.toml"
    path.write_text(text, encoding="utf-8")
    return path


def refused(path: Path, *, check_files: bool = False) -> str:
    """The one line ``load_config`` refuses ``path`` with."""
    with pytest.raises(ConfigError) as info:
        load_config(path, check_files=check_files)
    message = str(info.value)
    assert "\n" not in message
    return message


def edited(base: str, old: str, new: str) -> str:
    assert old in base, f"{old!r} is not in the base config"
    return base.replace(old, new, 1)


# --------------------------------------------------------------------------- the file


def test_config_error_is_a_tablectl_error_so_the_cli_prints_one_line() -> None:
    assert issubclass(ConfigError, TablectlError)


def test_a_missing_file_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "nowhere.toml"
    assert refused(path) == f"{path}: cannot read the configuration: No such file or directory"


def test_a_directory_is_not_a_configuration(tmp_path: Path) -> None:
    assert refused(tmp_path) == (
        f"{tmp_path}: cannot read the configuration: is a directory, not a regular file"
    )


def test_a_toml_syntax_error_names_the_line_and_column(tmp_path: Path) -> None:
    path = write(tmp_path, edited(BACCARAT, 'game = "baccarat"', "game baccarat"))
    assert refused(path) == (
        f"{path}:3:6: invalid TOML: Expected '=' after a key in a key/value pair"
    )


def test_a_toml_error_at_the_end_names_the_last_line(tmp_path: Path) -> None:
    path = write(tmp_path, BACCARAT + "[journal]\npath = ")
    assert refused(path) == f"{path}:10: invalid TOML: Invalid value at the end of the file"


def test_a_table_declared_twice_is_a_toml_error(tmp_path: Path) -> None:
    path = write(tmp_path, BACCARAT + '\n[table]\nid = "x"\n')
    assert refused(path) == f"{path}:10:7: invalid TOML: Cannot declare ('table',) twice"


def test_a_file_that_is_not_utf8_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "table.toml"
    path.write_bytes(BACCARAT.encode() + b"# caf\xe9\n")
    assert refused(path) == f"{path}:9: not UTF-8 text (TOML files are UTF-8)"


# --------------------------------------------------------------------------- bad input

TABLE_KEYS = "id, game, gaming_day_starts, timezone"
SERIAL_KEYS = "path, key_file, approved_firmware"
READER_KEYS = "usb, key_file, approved_firmware, reveals_hole_card"

# Ruling R16: the one line for a chip unit or maximum wager that is not a sane amount.
NOT_CHIPS = (
    "is not an amount of chips: more than 0, in whole cents, at most 1,000,000,000 by ruling R16"
)

CASES: list[tuple[str, str, str, str, str]] = [
    # (case, base, old text, new text, the error after "FILE: ")
    # Unknown keys, at every level.
    (
        "unknown section",
        BACCARAT,
        "[table]",
        "[tables]\n[table]",
        "tables: unknown key; expected one of table, rules, devices, journal, shuffle, api",
    ),
    (
        "unknown table key",
        BACCARAT,
        'id = "bac-01"',
        'id = "bac-01"\nseats = 14',
        f"table.seats: unknown key; expected one of {TABLE_KEYS}",
    ),
    (
        "unknown device",
        BACCARAT,
        "[devices.shoe]",
        '[devices.printer]\npath = "/dev/lp0"\n[devices.shoe]',
        "devices.printer: unknown key; expected one of link_timeout_ms, shoe, shuffler, reader",
    ),
    (
        "unknown shoe key",
        BACCARAT,
        'path = "/dev/tablectl/shoe"',
        'path = "/dev/tablectl/shoe"\nbaudrate = 9600',
        f"devices.shoe.baudrate: unknown key; expected one of {SERIAL_KEYS}",
    ),
    (
        "unknown reader key",
        SPANISH21,
        'usb = "usb:1209:0001:RD0001"',
        'usb = "usb:1209:0001:RD0001"\ninterface = 1',
        f"devices.reader.interface: unknown key; expected one of {READER_KEYS}",
    ),
    (
        "unknown journal key",
        BACCARAT,
        "[table]",
        '[journal]\nfile = "/var/lib/tablectl/j.db"\n[table]',
        "journal.file: unknown key; expected one of path",
    ),
    (
        "unknown api key",
        BACCARAT,
        "[table]",
        '[api]\nsocket = "/run/tablectl/api.sock"\n[table]',
        "api.socket: unknown key; expected one of runtime_dir, dealer, floor, events",
    ),
    (
        "unknown socket key",
        BACCARAT,
        "[table]",
        '[api.floor]\nmode = "0660"\n[table]',
        "api.floor.mode: unknown key; expected one of group, users, groups",
    ),
    (
        "unknown rules option",
        BACCARAT,
        "[table]",
        "[rules]\ntie_odd = 9\n[table]",
        "rules.tie_odd: unknown option; expected one of decks, commission, tie_odds, dealing, "
        "vigorish_collection, vigorish, vigorish_rounding, chip_unit, max_wager (Rules "
        "Submission, 521.2)",
    ),
    # Missing keys.
    (
        "missing table",
        BACCARAT,
        '[table]\nid = "bac-01"\ngame = "baccarat"\n',
        "",
        "table: missing (required)",
    ),
    ("missing table.id", BACCARAT, 'id = "bac-01"\n', "", "table.id: missing (required)"),
    ("missing table.game", BACCARAT, 'game = "baccarat"\n', "", "table.game: missing (required)"),
    (
        "missing devices",
        BACCARAT,
        BACCARAT[BACCARAT.index("[devices.shoe]") :],
        "",
        "devices: missing (required)",
    ),
    (
        "missing shoe",
        BACCARAT,
        "[devices.shoe]",
        "[devices]\nlink_timeout_ms = 500\n[devices.shuffler]",
        "devices.shoe: missing (required)",
    ),
    (
        "missing shoe path",
        BACCARAT,
        'path = "/dev/tablectl/shoe"\n',
        "",
        "devices.shoe.path: missing (required)",
    ),
    (
        "missing key file",
        BACCARAT,
        'key_file = "/etc/tablectl/keys/shoe.key"\n',
        "",
        "devices.shoe.key_file: missing (required)",
    ),
    (
        "missing approved firmware",
        BACCARAT,
        f'approved_firmware = ["{SHOE_HASH}"]\n',
        "",
        "devices.shoe.approved_firmware: missing (required)",
    ),
    (
        "missing usb",
        SPANISH21,
        'usb = "usb:1209:0001:RD0001"\n',
        "",
        "devices.reader.usb: missing (required)",
    ),
    # Wrong types.
    (
        "table id not a string",
        BACCARAT,
        'id = "bac-01"',
        "id = 1",
        "table.id: expected a string, got 1",
    ),
    (
        "devices not a table",
        BACCARAT[: BACCARAT.index("[devices.shoe]")],
        "[table]",
        "devices = 3\n[table]",
        "devices: expected a table, got 3",
    ),
    (
        "shoe an array of tables",
        BACCARAT,
        "[devices.shoe]",
        "[[devices.shoe]]",
        "devices.shoe: expected a table, got an array",
    ),
    (
        "rules not a table",
        BACCARAT,
        "[table]",
        'rules = "default"\n[table]',
        "rules: expected a table of options, got str",
    ),
    (
        "link timeout a string",
        BACCARAT,
        "[devices.shoe]",
        '[devices]\nlink_timeout_ms = "1000"\n[devices.shoe]',
        "devices.link_timeout_ms: expected a whole number, got '1000'",
    ),
    (
        "link timeout a float",
        BACCARAT,
        "[devices.shoe]",
        "[devices]\nlink_timeout_ms = 1.5\n[devices.shoe]",
        "devices.link_timeout_ms: expected a whole number, got 1.5",
    ),
    (
        "approved firmware a string",
        BACCARAT,
        f'approved_firmware = ["{SHOE_HASH}"]',
        f'approved_firmware = "{SHOE_HASH}"',
        f"devices.shoe.approved_firmware: expected an array, got '{SHOE_HASH}'",
    ),
    (
        "approved firmware not a hash",
        BACCARAT,
        f'approved_firmware = ["{SHOE_HASH}"]',
        f'approved_firmware = ["{SHOE_HASH}", "3.2.0"]',
        "devices.shoe.approved_firmware[1]: expected a SHA-256 as 64 hexadecimal digits, "
        "got '3.2.0'",
    ),
    (
        "approved firmware a number",
        BACCARAT,
        f'approved_firmware = ["{SHOE_HASH}"]',
        "approved_firmware = [32]",
        "devices.shoe.approved_firmware[0]: expected a SHA-256 as 64 hexadecimal digits, got 32",
    ),
    (
        "reveals hole card a string",
        SPANISH21,
        'usb = "usb:1209:0001:RD0001"',
        'usb = "usb:1209:0001:RD0001"\nreveals_hole_card = "yes"',
        "devices.reader.reveals_hole_card: expected true or false, got 'yes'",
    ),
    (
        "relative path",
        BACCARAT,
        'path = "/dev/tablectl/shoe"',
        'path = "tablectl/shoe"',
        "devices.shoe.path: expected an absolute path, got 'tablectl/shoe'",
    ),
    (
        "relative key file",
        BACCARAT,
        'key_file = "/etc/tablectl/keys/shoe.key"',
        'key_file = "shoe.key"',
        "devices.shoe.key_file: expected an absolute path, got 'shoe.key'",
    ),
    (
        "journal path relative",
        BACCARAT,
        "[table]",
        '[journal]\npath = "journal.db"\n[table]',
        "journal.path: expected an absolute path, got 'journal.db'",
    ),
    (
        "gaming day start not a time",
        BACCARAT,
        'game = "baccarat"',
        'game = "baccarat"\ngaming_day_starts = "6am"',
        "table.gaming_day_starts: expected a time of day as 'HH:MM' (24-hour clock), got '6am'",
    ),
    (
        "gaming day start a date",
        BACCARAT,
        'game = "baccarat"',
        'game = "baccarat"\ngaming_day_starts = 2024-06-01',
        "table.gaming_day_starts: expected a time of day as 'HH:MM' (24-hour clock), "
        "got 2024-06-01",
    ),
    (
        "floor user a boolean",
        BACCARAT,
        "[table]",
        "[api.floor]\nusers = [1201, true]\n[table]",
        "api.floor.users[1]: expected a name or a number 0 to 4294967294, got true",
    ),
    (
        "floor group id negative",
        BACCARAT,
        "[table]",
        "[api.floor]\ngroups = [-1]\n[table]",
        "api.floor.groups[0]: expected a name or a number 0 to 4294967294, got -1",
    ),
    (
        "socket users not an array",
        BACCARAT,
        "[table]",
        '[api.dealer]\nusers = "ann"\n[table]',
        "api.dealer.users: expected an array, got 'ann'",
    ),
    # Values the file's own rules forbid.
    (
        "table id with a space",
        BACCARAT,
        'id = "bac-01"',
        'id = "bac 01"',
        "table.id: expected 1 to 32 letters, digits, '.', '_' or '-', starting with a letter "
        "or digit, got 'bac 01'",
    ),
    (
        "unknown game",
        BACCARAT,
        'game = "baccarat"',
        'game = "blackjack"',
        "table.game: expected 'baccarat', 'midibaccarat' or 'spanish21', got 'blackjack'",
    ),
    (
        "unknown time zone",
        BACCARAT,
        'game = "baccarat"',
        'game = "baccarat"\ntimezone = "Mars/Olympus_Mons"',
        "table.timezone: unknown time zone 'Mars/Olympus_Mons'; expected an IANA name such as "
        "'America/New_York'",
    ),
    (
        "link timeout too short",
        BACCARAT,
        "[devices.shoe]",
        "[devices]\nlink_timeout_ms = 30\n[devices.shoe]",
        "devices.link_timeout_ms: 30 is outside 40 to 60000 ms (docs/protocol.md 6.1)",
    ),
    (
        "no approved firmware",
        BACCARAT,
        f'approved_firmware = ["{SHOE_HASH}"]',
        "approved_firmware = []",
        "devices.shoe.approved_firmware: empty; list the SHA-256 of each firmware image "
        "approved for this device, or every one is refused (docs/protocol.md 6.5)",
    ),
    (
        "kernel tty name",
        BACCARAT,
        'path = "/dev/tablectl/shoe"',
        'path = "/dev/ttyUSB0"',
        "devices.shoe.path: /dev/ttyUSB0 follows the order devices were plugged in; use a "
        "stable name such as /dev/tablectl/shoe (docs/udev.md)",
    ),
    (
        "bad usb spec",
        SPANISH21,
        'usb = "usb:1209:0001:RD0001"',
        'usb = "usb:zz"',
        "devices.reader.usb: expected usb:VID:PID[:SERIAL], got 'usb:zz'",
    ),
    (
        "usb id too long",
        SPANISH21,
        'usb = "usb:1209:0001:RD0001"',
        'usb = "usb:12090:0001"',
        "devices.reader.usb: expected usb:VID:PID[:SERIAL], got 'usb:12090:0001'",
    ),
    (
        "shoe and shuffler on one port",
        BACCARAT + SHUFFLER,
        'path = "/dev/tablectl/shuffler"',
        'path = "/dev/tablectl/../tablectl/shoe"',
        "devices.shuffler.path: the same port as devices.shoe.path",
    ),
    (
        "one key for two devices",
        SPANISH21,
        'key_file = "/etc/tablectl/keys/reader.key"',
        'key_file = "/etc/tablectl/keys/shoe.key"',
        "devices.reader.key_file: the same file as devices.shoe.key_file; each device has a "
        "key of its own (docs/protocol.md 5.6)",
    ),
    (
        "bad group name",
        BACCARAT,
        "[table]",
        '[api.dealer]\ngroup = "dealers!"\n[table]',
        "api.dealer.group: expected a name or a number 0 to 4294967294, got 'dealers!'",
    ),
    (
        "dealer and floor one group",
        BACCARAT,
        "[table]",
        '[api.dealer]\ngroup = "pit"\n[api.floor]\ngroup = "pit"\n[table]',
        "api.floor.group: 'pit' is served on the dealer's socket too (api.dealer.groups)",
    ),
    (
        "dealer group among the floor groups",
        BACCARAT,
        "[table]",
        '[api.floor]\ngroups = ["tablectl-floor", "tablectl-dealer"]\n[table]',
        "api.floor.groups[1]: 'tablectl-dealer' is served on the dealer's socket too "
        "(api.dealer.groups)",
    ),
    (
        "nobody on the floor socket",
        BACCARAT,
        "[table]",
        "[api.floor]\ngroups = []\n[table]",
        "api.floor: users and groups are both empty: nobody could use floor.sock",
    ),
    # Values the chapters forbid: the game's from_dict refuses them, with the section.
    (
        "tie odds under 8 to 1",
        BACCARAT,
        "[table]",
        "[rules]\ntie_odds = 7\n[table]",
        "rules.tie_odds: 7 is under the 8 to 1 minimum (545.13(b))",
    ),
    (
        "midibaccarat tie odds under 8 to 1",
        BACCARAT.replace('"baccarat"', '"midibaccarat"'),
        "[table]",
        "[rules]\ntie_odds = 6\n[table]",
        "rules.tie_odds: 6 is under the 8 to 1 minimum (543.13(b))",
    ),
    (
        "tie vigorish at a baccarat table",
        BACCARAT,
        "[table]",
        '[rules]\nvigorish = "tie_25"\n[table]',
        "rules.vigorish: 'tie_25' is a Midibaccarat option (543.13(f)); a Baccarat Banker "
        "wager on a tie is returned (545.8(a)(1)(iii))",
    ),
    (
        "match the dealer under the eight-deck minimum",
        SPANISH21,
        "decks = 6",
        "decks = 8\nmatch_the_dealer_same_suit = 11",
        "rules.match_the_dealer_same_suit: 11 to 1 is under the 12 to 1 minimum with eight "
        "decks (551.7(e))",
    ),
    (
        "spanish 21 with seven decks",
        SPANISH21,
        "decks = 6",
        "decks = 7",
        "rules.decks: 7 is not allowed; Spanish 21 is played with six or eight decks (551.3(a))",
    ),
    # Amounts are chips (ruling R16): the table's smallest chip and its maximum wager.
    (
        "maximum wager of 0",
        SPANISH21,
        "decks = 6",
        "decks = 6\nmax_wager = 0",
        f"rules.max_wager: 0 {NOT_CHIPS} (551.6(e))",
    ),
    (
        "negative maximum wager",
        SPANISH21,
        "decks = 6",
        "decks = 6\nmax_wager = -500",
        f"rules.max_wager: -500 {NOT_CHIPS} (551.6(e))",
    ),
    (
        "maximum wager in tenths of a cent",
        SPANISH21,
        "decks = 6",
        "decks = 6\nmax_wager = 12.345",
        f"rules.max_wager: 12.345 {NOT_CHIPS} (551.6(e))",
    ),
    (
        "maximum wager too large",
        SPANISH21,
        "decks = 6",
        "decks = 6\nmax_wager = 1e30",
        f"rules.max_wager: 1E+30 {NOT_CHIPS} (551.6(e))",
    ),
    (
        "maximum wager of infinity",
        SPANISH21,
        "decks = 6",
        "decks = 6\nmax_wager = inf",
        'rules.max_wager: expected an amount such as 100 or "2.50", got inf (551.6(e))',
    ),
    (
        "maximum wager of nan",
        SPANISH21,
        "decks = 6",
        "decks = 6\nmax_wager = nan",
        'rules.max_wager: expected an amount such as 100 or "2.50", got nan (551.6(e))',
    ),
    (
        "maximum wager as an exponent string",
        SPANISH21,
        "decks = 6",
        'decks = 6\nmax_wager = "1e3"',
        "rules.max_wager: expected an amount such as 100 or \"2.50\", got '1e3' (551.6(e))",
    ),
    (
        "maximum wager true",
        SPANISH21,
        "decks = 6",
        "decks = 6\nmax_wager = true",
        'rules.max_wager: expected an amount such as 100 or "2.50", got True (551.6(e))',
    ),
    (
        "chip unit underflowing to 0",
        SPANISH21,
        "decks = 6",
        "decks = 6\nchip_unit = 1e-400",
        f"rules.chip_unit: 0.0 {NOT_CHIPS} (551.10(b))",
    ),
    (
        "chip unit of a tenth of a cent",
        SPANISH21,
        "decks = 6",
        'decks = 6\nchip_unit = "0.001"',
        f"rules.chip_unit: 0.001 {NOT_CHIPS} (551.10(b))",
    ),
    (
        "chip unit over the maximum wager",
        SPANISH21,
        "decks = 6",
        "decks = 6\nchip_unit = 25\nmax_wager = 10",
        "rules.chip_unit: 25 is more than the maximum wager 10 by ruling R16 (551.10(b))",
    ),
    (
        "maximum wager not in chips",
        SPANISH21,
        "decks = 6",
        "decks = 6\nchip_unit = 5\nmax_wager = 12",
        "rules.max_wager: 12 is not a whole number of 5 chips by ruling R16 (551.6(e))",
    ),
    (
        "baccarat chip unit of 0",
        BACCARAT,
        "[table]",
        '[rules]\nchip_unit = "0"\n[table]',
        f"rules.chip_unit: 0 {NOT_CHIPS} (545.8(b))",
    ),
    (
        "midibaccarat maximum wager as text",
        BACCARAT.replace('"baccarat"', '"midibaccarat"'),
        "[table]",
        '[rules]\nmax_wager = "10,000"\n[table]',
        "rules.max_wager: expected an amount such as 100 or \"2.50\", got '10,000' (543.8(b))",
    ),
    # The devices against the game.
    (
        "reader at a baccarat table",
        BACCARAT,
        "[devices.shoe]",
        '[devices.reader]\nusb = "usb:1209:0001"\n[devices.shoe]',
        "devices.reader: a card reader device belongs to a Spanish 21 table (551.2(e)); a "
        "baccarat table has no hole card to read",
    ),
    (
        "spanish 21 without a reader",
        SPANISH21,
        SPANISH21[SPANISH21.index("[devices.reader]") :],
        "",
        "devices.reader: missing; a Spanish 21 table must have a card reader device attached "
        "(551.2(e))",
    ),
    (
        "reader option among the rules",
        SPANISH21,
        "decks = 6",
        "decks = 6\nreader_reveals_hole_card = false",
        "rules.reader_reveals_hole_card: set devices.reader.reveals_hole_card instead (551.16(l))",
    ),
    # The shuffle monitor: GLI-29's 99 % or COMAR's 95 %, a window of 1-100 shoes.
    (
        "shuffle confidence not offered",
        BACCARAT,
        "[table]",
        "[shuffle]\nconfidence = 0.9\n[table]",
        "shuffle.confidence: expected 0.99 or 0.95, got 0.9",
    ),
    (
        "shuffle confidence as text",
        BACCARAT,
        "[table]",
        '[shuffle]\nconfidence = "99%"\n[table]',
        "shuffle.confidence: expected 0.99 or 0.95, got '99%'",
    ),
    (
        "shuffle window out of range",
        BACCARAT,
        "[table]",
        "[shuffle]\nwindow = 0\n[table]",
        "shuffle.window: expected 1 to 100 shoes, got 0",
    ),
    (
        "shuffle monitor not a flag",
        BACCARAT,
        "[table]",
        '[shuffle]\nmonitor = "off"\n[table]',
        "shuffle.monitor: expected true or false, got 'off'",
    ),
    (
        "unknown shuffle key",
        BACCARAT,
        "[table]",
        "[shuffle]\nalpha = 0.01\n[table]",
        "shuffle.alpha: unknown key; expected one of monitor, confidence, window",
    ),
]


@pytest.mark.parametrize(
    ("base", "old", "new", "expected"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_bad_input_is_one_line_naming_the_key(
    tmp_path: Path, base: str, old: str, new: str, expected: str
) -> None:
    path = write(tmp_path, edited(base, old, new))
    assert refused(path) == f"{path}: {expected}"


def test_the_bases_of_the_bad_input_cases_are_valid(tmp_path: Path) -> None:
    # Otherwise a case could be refused for something other than its edit.
    for text in (BACCARAT, SPANISH21, BACCARAT + SHUFFLER):
        assert isinstance(load_config(write(tmp_path, text), check_files=False), Config)


# --------------------------------------------------------------------------- what loads


def test_defaults_fill_what_a_minimal_baccarat_file_leaves_out(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, BACCARAT), check_files=False)
    assert config.source == str(tmp_path / "table.toml")
    assert config.table == TableSettings("bac-01", "baccarat", datetime.time(6, 0), None)
    assert config.rules == BaccaratRules()  # the chapter's minimums (ruling R8)
    assert config.devices.shoe == SerialDevice(
        "/dev/tablectl/shoe", "/etc/tablectl/keys/shoe.key", (bytes.fromhex(SHOE_HASH),)
    )
    assert config.devices.shuffler is None  # shuffled by hand
    assert config.devices.reader is None
    assert config.devices.link_timeout_ms == 1000
    assert config.devices.driver_config().link.link_timeout == 1.0
    assert config.journal.path == DEFAULT_JOURNAL == "/var/lib/tablectl/journal.db"
    assert config.api.runtime_dir == DEFAULT_RUNTIME_DIR == "/run/tablectl"
    assert config.api.sockets() == {
        name: SocketAccess(f"tablectl-{name}", (), (f"tablectl-{name}",))
        for name in ("dealer", "floor", "events")
    }
    assert list(config.devices.named()) == ["shoe"]
    assert config.shuffle == ShuffleSettings(monitor=True, confidence=0.99, window=10)


def test_the_shuffle_monitor_at_95_percent_or_off(tmp_path: Path) -> None:
    text = BACCARAT.replace("[table]", "[shuffle]\nconfidence = 0.95\nwindow = 20\n[table]")
    config = load_config(write(tmp_path, text), check_files=False)
    assert config.shuffle == ShuffleSettings(monitor=True, confidence=0.95, window=20)
    text = BACCARAT.replace("[table]", "[shuffle]\nmonitor = false\n[table]")
    assert not load_config(write(tmp_path, text), check_files=False).shuffle.monitor


def test_spanish21_defaults_and_the_reader(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, SPANISH21), check_files=False)
    assert config.rules == Spanish21Rules()
    assert isinstance(config.rules, Spanish21Rules)
    assert config.rules.reader_reveals_hole_card  # 551.16(l): void unless told otherwise
    reader = config.devices.reader
    assert reader is not None
    assert reader.usb == UsbAddress(0x1209, 0x0001, "RD0001")
    assert reader.approved_firmware == (bytes.fromhex(READER_HASH),)
    assert list(config.devices.named()) == ["shoe", "reader"]


@pytest.mark.reg("551.16(l)")
def test_a_reader_that_keeps_the_hole_card_hidden_reaches_the_rules(tmp_path: Path) -> None:
    text = edited(SPANISH21, "[devices.reader]", "[devices.reader]\nreveals_hole_card = false")
    config = load_config(write(tmp_path, text), check_files=False)
    assert isinstance(config.rules, Spanish21Rules)
    assert config.rules.reader_reveals_hole_card is False


def test_a_toml_local_time_and_a_time_zone(tmp_path: Path) -> None:
    text = edited(
        BACCARAT,
        'game = "baccarat"',
        'game = "baccarat"\ngaming_day_starts = 04:30:00\ntimezone = "America/Chicago"',
    )
    config = load_config(write(tmp_path, text), check_files=False)
    assert config.table.gaming_day_starts == datetime.time(4, 30)
    assert config.table.timezone == "America/Chicago"


def test_link_timeout_reaches_the_drivers(tmp_path: Path) -> None:
    text = edited(BACCARAT, "[devices.shoe]", "[devices]\nlink_timeout_ms = 400\n[devices.shoe]")
    config = load_config(write(tmp_path, text), check_files=False)
    link = config.devices.driver_config().link
    assert link.link_timeout == 0.4
    assert link.heartbeat_interval == pytest.approx(0.4 / 3)


@pytest.mark.reg("551.2(e)")
def test_the_gaming_day_starts_at_the_configured_local_time() -> None:
    table = TableSettings("s21-01", "spanish21", datetime.time(6, 0), "America/New_York")
    new_york = datetime.timezone(datetime.timedelta(hours=-4))  # EDT on these dates
    before = datetime.datetime(2024, 6, 2, 5, 59, tzinfo=new_york)
    at = datetime.datetime(2024, 6, 2, 6, 0, tzinfo=new_york)
    assert table.gaming_day(before) == "2024-06-01"
    assert table.gaming_day(at) == "2024-06-02"
    # The same instant in UTC is still the casino's day before.
    assert table.gaming_day(before.astimezone(datetime.UTC)) == "2024-06-01"


# --------------------------------------------------------------------------- the examples


def example(game: str) -> dict[str, Any]:
    with open(EXAMPLES / f"{game}.toml", "rb") as fh:
        return tomllib.load(fh)


def test_the_baccarat_example_loads() -> None:
    config = load_config(EXAMPLES / "baccarat.toml", check_files=False)
    assert config.table.id == "bac-01"
    assert config.rules == BaccaratRules(
        game="baccarat", decks=8, commission=5, tie_odds=8, vigorish_rounding=True
    )
    assert config.devices.shuffler is not None
    assert len(config.devices.shoe.approved_firmware) == 2
    assert config.devices.shoe.key_file == "/etc/tablectl/keys/shoe.key"


def test_the_midibaccarat_example_loads() -> None:
    config = load_config(EXAMPLES / "midibaccarat.toml", check_files=False)
    assert config.rules == BaccaratRules(
        game="midibaccarat",
        decks=6,
        commission=0,
        tie_odds=9,
        dealing="banker_under_shoe",
        vigorish="tie_25",
        vigorish_rounding=True,
        max_wager=Decimal(5000),
    )
    assert config.devices.shuffler is None
    assert config.api.floor == SocketAccess("tablectl-floor", ("floor-ann", "floor-raj", 1207), ())
    assert config.api.events == SocketAccess("tablectl-events", (), ("tablectl-events",))


def test_the_spanish21_example_loads() -> None:
    config = load_config(EXAMPLES / "spanish21.toml", check_files=False)
    assert config.rules == Spanish21Rules(
        decks=6, match_the_dealer_max=Decimal(100), boxes_per_player=2, max_wager=Decimal(1000)
    )
    assert config.devices.reader is not None
    assert config.devices.reader.usb == UsbAddress(0x1209, 0x0001, "RD000417")
    assert list(config.devices.named()) == ["shoe", "shuffler", "reader"]


# --------------------------------------------------------------------------- this machine


def installed(tmp_path: Path, game: str) -> dict[str, Any]:
    """The example as installed on a box whose /etc, /var/lib and /run are in tmp_path,
    with groups that exist here and a key file per device (mode 0400)."""
    data = example(game)
    keys = tmp_path / "keys"
    keys.mkdir()
    for name, device in data["devices"].items():
        if isinstance(device, dict):
            device["key_file"] = str(keys / f"{name}.key")
            write_key(device["key_file"])
    (tmp_path / "state").mkdir()
    (tmp_path / "run").mkdir()
    data["journal"]["path"] = str(tmp_path / "state" / "journal.db")
    api = data["api"]
    api["runtime_dir"] = str(tmp_path / "run")
    dealer, floor, events = (g.gr_name for g in grp.getgrall()[:3])
    api["dealer"]["group"], api["floor"]["group"], api["events"]["group"] = dealer, floor, events
    if "users" in api["floor"]:
        api["floor"]["users"] = [pwd.getpwuid(os.getuid()).pw_name, 1207]
    return data


@pytest.mark.parametrize("game", ["baccarat", "midibaccarat", "spanish21"])
def test_each_example_passes_the_checks_on_a_machine_set_up_for_it(
    tmp_path: Path, game: str
) -> None:
    config = parse_config(installed(tmp_path, game), f"{game}.toml")
    keys = config.load_keys()
    assert set(keys) == set(config.devices.named())
    assert all(len(key) == 32 for key in keys.values())
    assert len(set(keys.values())) == len(keys)


def check_refusal(data: dict[str, Any]) -> str:
    with pytest.raises(ConfigError) as info:
        parse_config(data, "table.toml")
    return str(info.value)


def test_a_missing_key_file_is_refused(tmp_path: Path) -> None:
    data = installed(tmp_path, "spanish21")
    os.remove(data["devices"]["reader"]["key_file"])
    assert check_refusal(data) == (
        f"table.toml: devices.reader.key_file: key file {tmp_path}/keys/reader.key does not exist"
    )


def test_an_unreadable_key_file_is_refused(tmp_path: Path) -> None:
    data = installed(tmp_path, "baccarat")
    path = tmp_path / "keys" / "shuffler.key"
    os.remove(path)
    path.mkdir()  # unreadable as a file, whoever runs the test (root included)
    assert check_refusal(data) == (
        f"table.toml: devices.shuffler.key_file: key file {path} is a directory, not a "
        "regular file: refused unread"
    )


def test_a_key_file_open_to_other_users_is_refused(tmp_path: Path) -> None:
    data = installed(tmp_path, "baccarat")
    path = tmp_path / "keys" / "shoe.key"
    path.chmod(0o644)
    assert check_refusal(data) == (
        f"table.toml: devices.shoe.key_file: key file {path} is open to other users "
        "(chmod 0400 or 0440)"
    )


def test_a_key_file_that_is_not_a_key_is_refused(tmp_path: Path) -> None:
    data = installed(tmp_path, "baccarat")
    path = tmp_path / "keys" / "shoe.key"
    path.chmod(0o600)
    path.write_text("0x1234\n", encoding="ascii")
    assert check_refusal(data) == (
        f"table.toml: devices.shoe.key_file: key file {path} must hold exactly 64 "
        "hexadecimal digits"
    )


def test_a_journal_directory_that_does_not_exist_is_refused(tmp_path: Path) -> None:
    data = installed(tmp_path, "baccarat")
    data["journal"]["path"] = str(tmp_path / "gone" / "journal.db")
    assert check_refusal(data) == (
        f"table.toml: journal.path: the directory {tmp_path}/gone does not exist"
    )


def test_a_journal_path_that_is_a_directory_is_refused(tmp_path: Path) -> None:
    data = installed(tmp_path, "baccarat")
    data["journal"]["path"] = str(tmp_path / "state")
    assert check_refusal(data) == f"table.toml: journal.path: {tmp_path}/state is a directory"


def test_a_missing_runtime_directory_is_refused(tmp_path: Path) -> None:
    data = installed(tmp_path, "baccarat")
    data["api"]["runtime_dir"] = str(tmp_path / "no-run")
    assert check_refusal(data) == (
        f"table.toml: api.runtime_dir: {tmp_path}/no-run is not a directory"
    )


def test_a_group_that_does_not_exist_is_refused(tmp_path: Path) -> None:
    data = installed(tmp_path, "spanish21")
    data["api"]["events"]["group"] = "tablectl-no-such-group"
    assert check_refusal(data) == (
        "table.toml: api.events.group: no group 'tablectl-no-such-group' on this machine"
    )


def test_a_listed_group_that_does_not_exist_is_refused(tmp_path: Path) -> None:
    data = installed(tmp_path, "baccarat")
    data["api"]["dealer"]["groups"] = [data["api"]["dealer"]["group"], "tablectl-no-such-group"]
    assert check_refusal(data) == (
        "table.toml: api.dealer.groups[1]: no group 'tablectl-no-such-group' on this machine"
    )


def test_a_user_that_does_not_exist_is_refused_but_a_uid_is_taken_as_it_is(
    tmp_path: Path,
) -> None:
    data = installed(tmp_path, "midibaccarat")
    assert 1207 in data["api"]["floor"]["users"]  # a number is not looked up
    data["api"]["floor"]["users"].append("floor-nobody-here")
    assert check_refusal(data) == (
        "table.toml: api.floor.users[2]: no user 'floor-nobody-here' on this machine"
    )


def test_check_files_is_what_load_config_does_by_default(tmp_path: Path) -> None:
    path = write(tmp_path, edited(BACCARAT, "/etc/tablectl/keys", str(tmp_path / "keys")))
    expected = f"{path}: devices.shoe.key_file: key file {tmp_path}/keys/shoe.key does not exist"
    # The first problem, and how many more (the machine may lack the groups, the
    # journal's directory, /run/tablectl: each its own line for ``config check``).
    message = refused(path, check_files=True)
    assert message.split(" (and ")[0] == expected
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(info.value) == message and info.value.problems[0] == expected


# --------------------------------------------------------------------------- --simulate


@pytest.mark.parametrize("game", ["baccarat", "midibaccarat", "spanish21"])
def test_the_simulation_config_matches_the_simulators(tmp_path: Path, game: Game) -> None:
    config = simulation_config(tmp_path, game)
    assert config.source == SIMULATION
    assert config.table.game == game
    assert config.rules == (Spanish21Rules() if game == "spanish21" else BaccaratRules(game))
    names = ["shoe", "shuffler", "reader"] if game == "spanish21" else ["shoe", "shuffler"]
    assert list(config.devices.named()) == names
    key = bytes(range(32))
    for name, device in config.devices.named().items():
        sim = SimProcess(name, tmp_path, key)  # writes its key file, starts nothing
        assert device.key_file == str(sim.key_path)
        assert device.approved_firmware == (sim.firmware_hash,)
        if isinstance(device, SerialDevice):
            assert device.path == str(sim.link_path)
        else:
            assert device.usb == UsbAddress(VENDOR_ID, PRODUCT_ID)
    assert config.load_keys() == dict.fromkeys(names, key)
    assert config.journal.path == str(tmp_path / "journal.db")
    assert config.api.runtime_dir == str(tmp_path)


def test_the_simulation_config_is_refused_like_a_file_when_a_simulator_key_is_bad(
    tmp_path: Path,
) -> None:
    config = simulation_config(tmp_path)
    with pytest.raises(ConfigError) as info:
        config.load_keys()
    assert str(info.value) == (
        f"{SIMULATION}: devices.shoe.key_file: key file {tmp_path}/shoe.key does not exist"
    )
