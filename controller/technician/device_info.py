"""``tablectl device info``: the handshake alone (drivers/device/handshake.py), on a
serial port, to print what the device's HELLO_REPLY says of it (docs/protocol.md
6.2): what a technician copies into ``approved_firmware``.

No session is kept: the port is closed once the reply is read. The device's events
stay in its backlog, unacknowledged, for the daemon's next session (docs/protocol.md
8.2), so asking loses nothing.
"""

from __future__ import annotations

import threading
import time

from controller.errors import EXIT_FAILURE, EXIT_OK, EXIT_USAGE, fail
from drivers import messages as m
from drivers.device import DriverConfig
from drivers.device.handshake import hello
from drivers.errors import DriverError, LinkLost, MalformedMessage
from drivers.keys import KeyFileError, load_key
from drivers.link import Link, LinkConfig
from drivers.transport import SerialTransport


def ask(port: str, key: bytes, kind: m.DeviceKind, timeout: float) -> m.DeviceInfo:
    """The device's HELLO_REPLY on ``port``; DriverError with one line otherwise."""
    transport = SerialTransport(port)
    transport.open()
    tampered: list[int] = []
    try:
        link = Link(is_device=False, device_key=key, write=transport.write, config=LinkConfig())
        config = DriverConfig(handshake_timeout=timeout)
        clock = time.monotonic
        stop = threading.Event()
        _, payload = hello(
            link, threading.Lock(), transport, kind, config, clock, stop, tampered.append
        )
    except LinkLost as exc:
        hint = " (frames failed authentication: another key?)" if tampered else ""
        raise LinkLost(
            f"{port}: {exc}{hint}: is it a tablectl device, powered, and is its key the one "
            "in --key-file?"
        ) from None
    finally:
        transport.close()
    try:
        return m.DeviceInfo.decode(payload)
    except MalformedMessage as exc:
        raise LinkLost(f"{port}: unreadable HELLO_REPLY: {exc}") from None


def describe(info: m.DeviceInfo) -> list[str]:
    """What the reply says, one ``name: value`` line each."""
    try:
        kind = m.DeviceKind(info.kind).label
    except ValueError:
        kind = f"unknown ({info.kind})"
    return [
        f"kind: {kind}",
        f"model: {info.model}",
        f"serial: {info.serial}",
        f"firmware_version: {info.firmware_version}",
        f"firmware_hash: {info.firmware_hash.hex()}",
        f"protocol_version: {info.protocol_version}",
    ]


def device_info(port: str, key_file: str, kind: str, timeout: float) -> int:
    """Print what the device on ``port`` says of itself; 2 for a bad key file, 1 when
    the device cannot be asked (one line each)."""
    try:
        key = load_key(key_file)
    except KeyFileError as exc:
        return fail(str(exc), EXIT_USAGE)
    try:
        info = ask(port, key, m.DeviceKind[kind.upper()], timeout)
    except DriverError as exc:
        return fail(str(exc), EXIT_FAILURE)
    for line in describe(info):
        print(line)
    return EXIT_OK
