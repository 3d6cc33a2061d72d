"""The technician's commands, for installing a table (docs/cli.md, "Installing a
table"): ``keygen`` makes a device's link key, ``device info`` asks a device who it
is and which firmware it runs (what ``approved_firmware`` lists), ``config check``
lists every problem of a table's configuration. Each command's module is imported
when it runs: ``device info`` alone loads the drivers."""

from __future__ import annotations

import argparse
from typing import Any

KINDS = ("shoe", "reader", "shuffler")  # drivers.messages.DeviceKind's labels
DEFAULT_TIMEOUT = 2.0  # seconds for the device's HELLO_REPLY (the daemon waits 1.0)


def _timeout(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0.1 <= value <= 60:
        raise argparse.ArgumentTypeError(f"must be 0.1 to 60 seconds, not {text}")
    return value


def add_parsers(sub: argparse._SubParsersAction[Any]) -> None:
    _keygen_parser(sub)
    _device_parser(sub)
    _config_parser(sub)


def _keygen_parser(sub: argparse._SubParsersAction[Any]) -> None:
    keygen = sub.add_parser(
        "keygen",
        help="write a new device link key to PATH (mode 0400; never overwrites)",
        description="Write a new random 32-byte link key, as 64 hexadecimal digits, to "
        "PATH with mode 0400. An existing PATH is never overwritten.",
    )
    keygen.add_argument("path", metavar="PATH", help="the key file to create")


def _device_parser(sub: argparse._SubParsersAction[Any]) -> None:
    device = sub.add_parser("device", help="ask a device who it is")
    device_sub = device.add_subparsers(dest="device_command", required=True)
    info = device_sub.add_parser(
        "info",
        help="kind, model, serial, firmware version and hash, protocol version",
        description="Handshake with the device on a serial port (--port) or on USB "
        "(--usb, the card reader), its link key in --key-file, and print what it "
        "reports: kind, model, serial, firmware version, the firmware's full SHA-256 "
        "(what approved_firmware lists) and protocol version. The daemon must not be "
        "using the device.",
    )
    where = info.add_mutually_exclusive_group(required=True)
    where.add_argument("--port", metavar="PATH", help="the serial port (shoe, shuffler)")
    where.add_argument("--usb", metavar="SPEC", help="usb:VID:PID[:SERIAL] (the card reader)")
    info.add_argument("--key-file", required=True, metavar="FILE", help="the device's link key")
    info.add_argument(
        "--kind",
        choices=KINDS,
        help="the kind HELLO says it expects (default: shoe on --port, reader on --usb; "
        "a v1 device answers whatever it is)",
    )
    info.add_argument(
        "--timeout",
        type=_timeout,
        default=DEFAULT_TIMEOUT,
        metavar="S",
        help=f"seconds to wait for the answer (default {DEFAULT_TIMEOUT})",
    )


def _config_parser(sub: argparse._SubParsersAction[Any]) -> None:
    config = sub.add_parser("config", help="check a table's configuration file")
    config_sub = config.add_subparsers(dest="config_command", required=True)
    check = config_sub.add_parser(
        "check",
        help="list every problem of FILE, one line each naming its key",
        description="Check FILE as the daemon does at start, and list every problem "
        "found, one line each naming its key; OK when there is none.",
    )
    check.add_argument("file", metavar="FILE", help="the table's TOML configuration")
    check.add_argument(
        "--file-only",
        action="store_true",
        help="check the file alone, not the key files, directories and groups it names "
        "on this machine (for a file written for another box)",
    )


def run(args: argparse.Namespace) -> int:
    if args.command == "keygen":
        from controller.technician.keygen import keygen

        return keygen(args.path)
    if args.command == "device":
        from controller.technician.device_info import device_info

        kind = args.kind or ("shoe" if args.port is not None else "reader")
        return device_info(args.port, args.usb, args.key_file, kind, args.timeout)
    from controller.technician.config_check import config_check

    return config_check(args.file, check_files=not args.file_only)
