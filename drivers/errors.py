"""The drivers' own exceptions: upper layers never see pyserial or pyusb errors.

The drivers know nothing of the controller above them, so their errors have their own
base; the controller reports both its own and these in one line
(``controller.errors.EXPECTED``)."""

from __future__ import annotations


class DriverError(Exception):
    """Base of every error the drivers raise on purpose."""


class TransportError(DriverError):
    """A transport failed; the device may come back."""


class PortNotFound(TransportError):
    """The configured port does not exist (device unplugged or wrong path)."""


class PortBusy(TransportError):
    """Another process holds the port (ports are opened exclusively)."""


class DeviceGone(TransportError):
    """The device went away while open (unplugged, powered off, pty closed)."""


class TransportTimeout(TransportError):
    """A write could not complete before its deadline."""


class TransportIOError(TransportError):
    """Any other I/O error reported by the backend."""


class LinkError(DriverError):
    """The link to a device is no longer usable."""


class LinkLost(LinkError):
    """No valid frame arrived within the lost-link time."""


class LinkBusy(LinkError):
    """The send window and its pending queue are full."""


class HandshakeRefused(LinkError):
    """The device on the port is not one the controller may use."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


class NotConnected(DriverError):
    """A command was sent to a device that is not connected."""


class MalformedMessage(DriverError):
    """A message's payload does not match its type's layout."""
