"""What identifies a device of each kind, shared by the drivers, the controller's
configuration and the firmware simulator: the card reader's USB ids, each kind's
default model name and firmware version, and how a firmware image is named by hash
(docs/protocol.md 6.5: the controller approves firmware by its SHA-256)."""

from __future__ import annotations

import hashlib
from typing import Final

from drivers import messages as m

VENDOR_ID: Final = 0x1209  # pid.codes
PRODUCT_ID: Final = 0x0001  # pid.codes test PID: the card reader device

DEFAULT_MODEL: Final = {
    m.DeviceKind.SHOE: "SIM-SHOE",
    m.DeviceKind.READER: "SIM-READER",
    m.DeviceKind.SHUFFLER: "SIM-SHUFFLER",
}
DEFAULT_FIRMWARE_VERSION: Final = "1.0.0"


def firmware_hash(kind: m.DeviceKind, model: str, version: str) -> bytes:
    """SHA-256 standing in for the hash of a simulated firmware image."""
    return hashlib.sha256(f"tablectl-sim|{kind.label}|{model}|{version}".encode()).digest()


def default_firmware_hash(kind: m.DeviceKind) -> bytes:
    """The hash of a simulated device of ``kind`` with its default model and version."""
    return firmware_hash(kind, DEFAULT_MODEL[kind], DEFAULT_FIRMWARE_VERSION)
