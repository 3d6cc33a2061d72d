"""The technician's commands (controller/technician/), each a real ``tablectl``
process: ``keygen``, ``device info`` against a simulated device on a real pty,
``config check``; and the key files every command and the daemon's start refuse in
one line without reading them (drivers/keys.py): a FIFO (it would block for ever:
each test has a timeout), a character device, a directory, a file too big to be a key."""

from __future__ import annotations

import functools
import os
import re
import secrets
import stat
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from controller.journal.sealkey import load_key as load_sealing_key
from controller.technician.device_info import ask, describe
from drivers import messages as m
from drivers.device.admission import refusal
from drivers.identity import DEFAULT_MODEL, PRODUCT_ID, VENDOR_ID
from drivers.keys import MAX_KEY_FILE, load_key, write_key
from drivers.usb import UsbTransport
from firmware_sim.harness import SimProcess
from firmware_sim.usb_backend import SimUsbBackend
from tests.support.cli import tablectl as _tablectl
from tests.support.daemon import configured_table

# The technician's commands answer within seconds; a hang (a FIFO read) fails sooner.
tablectl = functools.partial(_tablectl, timeout=20)


HEX64 = re.compile(r"[0-9a-f]{64}")


def one_error(result: subprocess.CompletedProcess[str], code: int, *words: str) -> str:
    """The command's one ``tablectl: error:`` line, holding each of ``words``."""
    assert result.returncode == code, (result.stdout, result.stderr)
    (line,) = result.stderr.splitlines()
    assert line.startswith("tablectl: error: "), line
    assert all(word in line for word in words), line
    assert "Traceback" not in result.stderr
    return line


# ------------------------------------------------------------------ keygen


def test_keygen_writes_a_key_with_mode_0400(tmp_path: Path) -> None:
    path = tmp_path / "shoe.key"
    result = tablectl("keygen", str(path))
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"{path}: new link key written (mode 0400)\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o400
    text = path.read_text()
    assert HEX64.fullmatch(text.strip()) and text.endswith("\n")
    assert text.strip() not in result.stdout + result.stderr  # never printed
    assert load_key(str(path)) == bytes.fromhex(text.strip())
    other = tmp_path / "reader.key"
    assert tablectl("keygen", str(other)).returncode == 0
    assert other.read_text() != text  # a fresh key each time


@pytest.mark.parametrize("made", ["file", "directory", "dangling symlink"])
def test_keygen_refuses_to_overwrite(tmp_path: Path, made: str) -> None:
    path = tmp_path / "shoe.key"
    if made == "file":
        path.write_text("ab" * 32 + "\n")
    elif made == "directory":
        path.mkdir()
    else:
        path.symlink_to(tmp_path / "elsewhere.key")
    one_error(tablectl("keygen", str(path)), 2, str(path), "never overwrites")
    if made == "file":
        assert path.read_text() == "ab" * 32 + "\n"
    assert not (tmp_path / "elsewhere.key").exists()


def test_keygen_bad_input_is_one_line(tmp_path: Path) -> None:
    one_error(tablectl("keygen", str(tmp_path / "no" / "such" / "k.key")), 2, "cannot write")
    usage = tablectl("keygen")
    assert usage.returncode == 2 and len(usage.stderr.splitlines()) == 1


# ------------------------------------------------------------------ device info


SIM_ARGS = ["--serial", "SH-0042", "--model", "ACME-SHUF-9", "--firmware-version", "2.4.1"]


def test_device_info_prints_what_the_device_reports(tmp_path: Path) -> None:
    with SimProcess("shuffler", tmp_path, secrets.token_bytes(32), SIM_ARGS) as sim:
        before = sim.control("status")
        result = tablectl(
            "device", "info", "--port", str(sim.link_path), "--key-file", str(sim.key_path)
        )
        after = sim.control("status")
    assert result.returncode == 0, result.stderr
    lines = dict(line.split(": ", 1) for line in result.stdout.splitlines())
    assert lines == {
        "kind": "shuffler",
        "model": "ACME-SHUF-9",
        "serial": "SH-0042",
        "firmware_version": "2.4.1",
        "firmware_hash": before["firmware_hash"],
        "protocol_version": str(m.PROTOCOL_VERSION),
    }
    assert (
        HEX64.fullmatch(lines["firmware_hash"])
        and lines["firmware_hash"] == sim.firmware_hash.hex()
    )
    # Asking acknowledged nothing: the device keeps its events for the daemon.
    assert (
        after["backlog"] == before["backlog"] and after["next_event_id"] == before["next_event_id"]
    )


def test_device_info_reaches_the_card_reader_on_usb(tmp_path: Path) -> None:
    """The reader simulator on pyusb's path (its backend, firmware_sim/usb_backend.py),
    asked as ``device info --usb`` asks it."""
    args = ["--serial", "RD-7", "--firmware-version", "3.0.2"]
    with SimProcess("reader", tmp_path, secrets.token_bytes(32), args) as sim:
        reported = sim.control("status")
        transport = UsbTransport(VENDOR_ID, PRODUCT_ID, backend=SimUsbBackend(str(sim.link_path)))
        info = ask(transport, sim.key, m.DeviceKind.READER, 2.0)
    assert describe(info) == [
        "kind: reader",
        f"model: {DEFAULT_MODEL[m.DeviceKind.READER]}",
        "serial: RD-7",
        "firmware_version: 3.0.2",
        f"firmware_hash: {reported['firmware_hash']}",
        f"protocol_version: {m.PROTOCOL_VERSION}",
    ]
    assert reported["firmware_hash"] == sim.firmware_hash.hex()


def test_device_info_on_usb_without_the_device_is_one_line(tmp_path: Path) -> None:
    key = tmp_path / "reader.key"
    write_key(str(key))
    # This machine has no card reader (and maybe no libusb): either way, one line.
    one_error(
        tablectl("device", "info", "--usb", "usb:1209:0001", "--key-file", str(key)),
        1,
        "usb:1209:0001",
    )
    one_error(
        tablectl("device", "info", "--usb", "usb:zz", "--key-file", str(key)), 2, "--usb", "usb:zz"
    )
    both = tablectl(
        "device", "info", "--usb", "usb:1209:0001", "--port", "/dev/null", "--key-file", str(key)
    )
    assert (
        both.returncode == 2 and len(both.stderr.splitlines()) == 1 and "not allowed" in both.stderr
    )


def test_the_hash_device_info_prints_is_what_approved_firmware_takes(tmp_path: Path) -> None:
    config, shoe, _ = configured_table(tmp_path)
    with shoe:
        result = tablectl(
            "device", "info", "--port", str(shoe.link_path), "--key-file", str(shoe.key_path)
        )
    assert result.returncode == 0, result.stderr
    assert f"firmware_hash: {shoe.firmware_hash.hex()}\n" in result.stdout
    assert f'approved_firmware = ["{shoe.firmware_hash.hex()}"]' in config.read_text()


def test_an_unapproved_firmware_is_refused_with_its_whole_hash() -> None:
    digest = bytes(range(32))
    info = m.DeviceInfo(1, m.DeviceKind.SHOE, "M", "S1", "9.9", digest, bytes(16), 1, 1)
    refused = refusal(m.DeviceKind.SHOE, "shoe", [bytes(32)], info)
    assert refused is not None and refused[0] == m.RefusalReason.FIRMWARE_NOT_APPROVED
    assert digest.hex() in refused[1]


def test_device_info_with_another_key_is_one_line_and_prompt(tmp_path: Path) -> None:
    wrong = tmp_path / "wrong.key"
    write_key(str(wrong))
    with SimProcess("shoe", tmp_path, secrets.token_bytes(32)) as sim:
        began = time.monotonic()
        result = tablectl(
            "device",
            "info",
            "--port",
            str(sim.link_path),
            "--key-file",
            str(wrong),
            "--timeout",
            "0.5",
        )
    one_error(result, 1, str(sim.link_path), "no answer to HELLO", "--key-file")
    assert time.monotonic() - began < 10


def test_device_info_bad_input_is_one_line(tmp_path: Path) -> None:
    key = tmp_path / "k.key"
    write_key(str(key))
    missing = str(tmp_path / "no-such-tty")
    one_error(
        tablectl("device", "info", "--port", missing, "--key-file", str(key)),
        1,
        missing,
        "does not exist",
    )
    one_error(
        tablectl("device", "info", "--port", missing, "--key-file", missing),
        2,
        "key file",
        "does not exist",
    )
    usage = tablectl(
        "device", "info", "--port", missing, "--key-file", str(key), "--timeout", "soon"
    )
    assert (
        usage.returncode == 2
        and len(usage.stderr.splitlines()) == 1
        and "--timeout" in usage.stderr
    )
    usage = tablectl("device", "info", "--key-file", str(key))
    assert (
        usage.returncode == 2 and len(usage.stderr.splitlines()) == 1 and "--port" in usage.stderr
    )


# ------------------------------------------------------------------ config check


MANY_PROBLEMS = """\
[table]
id = "no spaces allowed"
game = "baccarat"
seats = 14

[rules]
tie_odds = 5

[devices]
link_timeout_ms = 5

[devices.shoe]
path = "/dev/ttyUSB0"
key_file = "shoe.key"
approved_firmware = ["{short}", 12]

[api]
runtime_dir = "run/tablectl"
"""


def test_config_check_lists_every_problem_one_line_each_naming_its_key(tmp_path: Path) -> None:
    path = tmp_path / "table.toml"
    path.write_text(MANY_PROBLEMS.format(short="ab" * 8))
    result = tablectl("config", "check", "--file-only", str(path))
    assert result.returncode == 1 and result.stderr == ""
    keys = [line.split(": ")[1] for line in result.stdout.splitlines()]
    assert keys == [
        "table.seats",
        "table.id",
        "rules.tie_odds",
        "devices.link_timeout_ms",
        "devices.shoe.path",
        "devices.shoe.key_file",
        "devices.shoe.approved_firmware[0]",
        "devices.shoe.approved_firmware[1]",
        "api.runtime_dir",
    ]
    assert all(line.startswith(f"{path}: ") for line in result.stdout.splitlines())
    assert "545.13(b)" in result.stdout  # the tie payout's section
    # The daemon says the first, and how many more.
    start = tablectl("run", "--config", str(path))
    one_error(start, 2, "table.seats", f"(and 8 more: tablectl config check {path} lists them)")


def test_config_check_on_a_good_file_says_ok(tmp_path: Path) -> None:
    config, _, _ = configured_table(tmp_path)  # its key files written, its groups real
    result = tablectl("config", "check", str(config))
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == f"{config}: OK (baccarat table bac-07; devices shoe, shuffler)\n"


def test_config_check_names_what_is_missing_on_this_machine(tmp_path: Path) -> None:
    config, shoe, shuffler = configured_table(tmp_path)
    shoe.key_path.unlink()
    shuffler.key_path.chmod(0o644)
    result = tablectl("config", "check", str(config))
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        f"{config}: devices.shoe.key_file: key file {shoe.key_path} does not exist",
        f"{config}: devices.shuffler.key_file: key file {shuffler.key_path} is open to other "
        "users (chmod 0400 or 0440)",
    ]
    assert tablectl("config", "check", "--file-only", str(config)).returncode == 0


def test_config_check_bad_input_is_one_line(tmp_path: Path) -> None:
    missing = str(tmp_path / "none.toml")
    one_error(tablectl("config", "check", missing), 2, missing, "No such file")
    os.mkfifo(tmp_path / "fifo.toml")
    one_error(tablectl("config", "check", str(tmp_path / "fifo.toml")), 2, "is a FIFO")
    one_error(tablectl("config", "check", "/dev/zero"), 2, "is a character device")
    usage = tablectl("config", "check")
    assert usage.returncode == 2 and len(usage.stderr.splitlines()) == 1


# ------------------------------------------------------------------ key files refused unread


def _fifo(path: Path) -> None:
    os.mkfifo(path, 0o600)


def _zero(path: Path) -> None:
    path.symlink_to("/dev/zero")


def _directory(path: Path) -> None:
    path.mkdir(mode=0o700)


def _huge(path: Path) -> None:
    path.write_bytes(b"a" * (MAX_KEY_FILE + 1))
    path.chmod(0o400)


NOT_KEYS: dict[str, tuple[Callable[[Path], None], str]] = {
    "fifo": (_fifo, "is a FIFO, not a regular file"),
    "dev_zero": (_zero, "is a character device, not a regular file"),
    "directory": (_directory, "is a directory, not a regular file"),
    "oversized": (_huge, f"is {MAX_KEY_FILE + 1} bytes, over the {MAX_KEY_FILE} it may hold"),
}


def _not_a_key(path: Path, kind: str) -> str:
    """``path`` made into ``kind``; the reason it is refused for."""
    if path.exists() or path.is_symlink():
        path.unlink()
    make, reason = NOT_KEYS[kind]
    make(path)
    return reason


@pytest.mark.parametrize("kind", NOT_KEYS)
def test_a_key_file_that_is_not_one_is_refused_unread_at_the_daemons_start(
    tmp_path: Path, kind: str
) -> None:
    config, shoe, _ = configured_table(tmp_path)
    reason = _not_a_key(shoe.key_path, kind)
    began = time.monotonic()
    result = tablectl("run", "--config", str(config))
    line = one_error(
        result, 2, "devices.shoe.key_file", str(shoe.key_path), reason, "refused unread"
    )
    assert time.monotonic() - began < 15, line
    assert not (tmp_path / "journal.db").exists()  # nothing opened
    checked = tablectl("config", "check", str(config))
    assert checked.returncode == 1 and reason in checked.stdout


@pytest.mark.parametrize("kind", NOT_KEYS)
def test_a_key_file_that_is_not_one_is_refused_unread_by_device_info(
    tmp_path: Path, kind: str
) -> None:
    key = tmp_path / "shoe.key"
    reason = _not_a_key(key, kind)
    result = tablectl("device", "info", "--port", "/dev/null", "--key-file", str(key))
    one_error(result, 2, f"key file {key} {reason}: refused unread")


@pytest.mark.parametrize("kind", NOT_KEYS)
def test_a_sealing_key_that_is_not_one_is_refused_unread_at_the_daemons_start(
    tmp_path: Path, kind: str
) -> None:
    work = tmp_path / "table"
    args = ("run", "--simulate", "--game", "spanish21", "--rounds", "1", "--pace-ms", "0")
    first = tablectl(*args, "--workdir", str(work), timeout=60)
    assert first.returncode == 0, first.stderr
    sealkey = work / "journal.sealkey"
    assert load_sealing_key(sealkey) is not None
    reason = _not_a_key(sealkey, kind)
    began = time.monotonic()
    again = tablectl(*args, "--workdir", str(work), timeout=60)
    one_error(again, 1, f"sealing key {sealkey} {reason}: refused unread")
    assert time.monotonic() - began < 30
