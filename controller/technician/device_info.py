"""``tablectl device info``: the handshake alone (drivers/device/handshake.py), on a
serial port or on USB, to print what the device's HELLO_REPLY says of it
(docs/protocol.md 6.2): what a technician copies into ``approved_firmware``.

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
from drivers.transport import SerialTransport, Transport
from drivers.usb import usb_transport_factory


def ask(transport: Transport, key: bytes, kind: m.DeviceKind, timeout: float) -> m.DeviceInfo:
    """The HELLO_REPLY of the device behind ``transport`` (opened here, closed before
    the return); DriverError with one line otherwise."""
    where = transport.name
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
            f"{where}: {exc}{hint}: is it a tablectl device, powered, and is its key the one "
            "in --key-file?"
        ) from None
    finally:
        transport.close()
    try:
        return m.DeviceInfo.decode(payload)
    except MalformedMessage as exc:
        raise LinkLost(f"{where}: unreadable HELLO_REPLY: {exc}") from None


def transport_for(port: str | None, usb: str | None) -> Transport:
    """The serial port ``port``, or else the USB device ``usb:VID:PID[:SERIAL]``
    (ValueError for a spec that is not one)."""
    if port is not None:
        return SerialTransport(port)
    assert usb is not None  # the command line asks for one of them
    return usb_transport_factory(usb)()


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


def device_info(port: str | None, usb: str | None, key_file: str, kind: str, timeout: float) -> int:
    """Print what the device on the serial ``port`` or at the ``usb`` spec says of
    itself; 2 for a bad key file or spec, 1 when the device cannot be asked (one line
    each)."""
    try:
        key = load_key(key_file)
        transport = transport_for(port, usb)
    except KeyFileError as exc:
        return fail(str(exc), EXIT_USAGE)
    except ValueError:
        return fail(f"--usb: expected usb:VID:PID[:SERIAL], got {usb!r}", EXIT_USAGE)
    try:
        info = ask(transport, key, m.DeviceKind[kind.upper()], timeout)
    except DriverError as exc:
        return fail(str(exc), EXIT_FAILURE)
    for line in describe(info):
        print(line)
    return EXIT_OK
