"""Simulated firmware of the shoe, the hole-card reader and the shuffler, sans I/O: what
every device does and the control-command table (``base``), and one module per kind."""

from firmware_sim.devices.base import U16_MAX, Command, Firmware, dispatch, no_fields
from firmware_sim.devices.reader import ReaderFirmware
from firmware_sim.devices.shoe import Pace, ShoeFirmware
from firmware_sim.devices.shuffler import ShufflerFirmware

__all__ = [
    "U16_MAX",
    "Command",
    "Firmware",
    "Pace",
    "ReaderFirmware",
    "ShoeFirmware",
    "ShufflerFirmware",
    "dispatch",
    "no_fields",
]
