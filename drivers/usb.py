"""USB bulk transport (pyusb) for the hole-card reader, and the "usb:VID:PID[:serial]" port form.

Every pyusb or backend error is translated into drivers.errors exceptions here, so
nothing above this module ever sees a usb.core exception.
"""

from __future__ import annotations

import contextlib
import errno
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from drivers.errors import (
    DeviceGone,
    PortBusy,
    PortNotFound,
    TransportError,
    TransportIOError,
    TransportTimeout,
)

# A USB transfer cannot be interrupted from another thread, so reads wait in slices
# this long and check for wake() between them: a wake is honoured within one slice.
# Nothing is lost between slices: the device holds its data until the host asks.
READ_SLICE_MS = 50

# What pyusb and its backends raise: USBError (an OSError) for transfer and device
# errors, NoBackendError (a ValueError) when no libusb is installed, ValueError for
# descriptors pyusb cannot resolve, NotImplementedError for LIBUSB_ERROR_NOT_SUPPORTED.
_BACKEND_ERRORS = (OSError, ValueError, NotImplementedError)

# pyusb is imported by the functions that use it: a configuration names a reader's
# "usb:" address (UsbAddress) without loading pyusb and its backends.

# ESHUTDOWN is what Linux usbfs reports for a device that has been unplugged.
_GONE_ERRNOS = frozenset({errno.ENODEV, errno.ENXIO, errno.ESHUTDOWN})

_SPEC = re.compile(
    r"usb:(?:0x)?(?P<vid>[0-9a-f]{1,4}):(?:0x)?(?P<pid>[0-9a-f]{1,4})(?::(?P<serial>.+))?",
    re.IGNORECASE,
)


def _errno_of(exc: BaseException) -> int | None:
    # libusb1 and openusb set errno (LIBUSB_ERROR_NO_DEVICE is ENODEV, LIBUSB_ERROR_BUSY
    # is EBUSY); libusb0 leaves it None and reports the negated errno as the error code.
    number = getattr(exc, "errno", None)
    if isinstance(number, int):
        return number
    code = getattr(exc, "backend_error_code", None)
    if isinstance(code, int) and code < 0:
        return -code
    return None


def _translate(exc: BaseException, where: str) -> TransportError:
    """The project exception for a pyusb/backend error raised while doing ``where``."""
    import usb.core

    if isinstance(exc, usb.core.NoBackendError):
        return TransportIOError(f"{where}: no USB backend (is libusb-1.0 installed?)")
    if isinstance(exc, usb.core.USBTimeoutError):
        return TransportTimeout(f"{where}: timed out")
    text = str(getattr(exc, "strerror", None) or exc)
    number = _errno_of(exc)
    lowered = text.lower()
    if number in _GONE_ERRNOS or "no such device" in lowered:
        return DeviceGone(f"{where}: {text}")
    if number == errno.EBUSY or "busy" in lowered:
        return PortBusy(f"{where}: in use by another process ({text})")
    return TransportIOError(f"{where}: {text}")


@dataclass(frozen=True, slots=True)
class UsbAddress:
    vendor_id: int
    product_id: int
    serial: str | None = None

    def __str__(self) -> str:
        base = f"usb:{self.vendor_id:04x}:{self.product_id:04x}"
        return base if self.serial is None else f"{base}:{self.serial}"


def parse_usb_spec(spec: str) -> UsbAddress:
    """``usb:VID:PID[:serial]`` with hexadecimal VID and PID; ValueError with one line otherwise."""
    match = _SPEC.fullmatch(spec.strip())
    if match is None:
        raise ValueError(
            f"bad USB device {spec!r}: expected usb:VID:PID[:serial] "
            "with hexadecimal VID and PID, e.g. usb:1209:0001:RD0001"
        )
    return UsbAddress(int(match["vid"], 16), int(match["pid"], 16), match["serial"])


def usb_transport_factory(
    spec: str, *, backend: Any = None, write_timeout: float = 1.0
) -> Callable[[], UsbTransport]:
    """A factory of UsbTransports for a ``usb:VID:PID[:serial]`` spec (checked now)."""
    address = parse_usb_spec(spec)

    def make() -> UsbTransport:
        return UsbTransport(
            address.vendor_id,
            address.product_id,
            address.serial,
            backend=backend,
            write_timeout=write_timeout,
        )

    return make


class UsbTransport:
    """The first bulk IN and bulk OUT endpoints of one interface of a USB device.

    ``backend`` is a pyusb backend object; None lets pyusb pick libusb as usual.
    """

    def __init__(
        self,
        vendor_id: int,
        product_id: int,
        serial: str | None = None,
        *,
        interface: int = 0,
        backend: Any = None,
        write_timeout: float = 1.0,
    ) -> None:
        self.name = str(UsbAddress(vendor_id, product_id, serial))
        self._vendor_id = vendor_id
        self._product_id = product_id
        self._serial = serial
        self._interface = interface
        self._backend = backend
        self._write_timeout = write_timeout
        self._dev: Any = None
        self._ep_in = 0
        self._ep_out = 0
        self._packet = 64
        self._pending = b""
        self._woken = threading.Event()

    def open(self) -> None:
        dev = self._find()
        try:
            self._claim(dev)
        except _BACKEND_ERRORS as exc:
            self._dispose(dev)
            raise _translate(exc, f"{self.name}: opening") from None
        except TransportError:
            self._dispose(dev)
            raise
        self._dev = dev

    def _find(self) -> Any:
        import usb.core
        import usb.util

        unreadable: list[str] = []

        def serial_matches(dev: Any) -> bool:
            try:
                found = dev.serial_number
            except _BACKEND_ERRORS as exc:
                unreadable.append(str(exc))
                found = None
            if found != self._serial:
                # Reading the serial opened the device; close it again now.
                with contextlib.suppress(*_BACKEND_ERRORS):
                    usb.util.dispose_resources(dev)
                return False
            return True

        try:
            dev = usb.core.find(
                idVendor=self._vendor_id,
                idProduct=self._product_id,
                custom_match=None if self._serial is None else serial_matches,
                backend=self._backend,
            )
        except _BACKEND_ERRORS as exc:
            raise _translate(exc, f"{self.name}: looking for the device") from None
        if dev is None:
            detail = f" (serial number unreadable: {unreadable[0]})" if unreadable else ""
            raise PortNotFound(f"{self.name}: no such USB device{detail}")
        return dev

    def _claim(self, dev: Any) -> None:
        import usb.core
        import usb.util

        try:
            config = dev.get_active_configuration()
        except usb.core.USBError:
            config = None  # unconfigured
        # Setting the configuration that is already active resets the device (libusb),
        # so it is set only when the device is not configured yet.
        if config is None:
            dev.set_configuration()
            config = dev.get_active_configuration()
        intf = usb.util.find_descriptor(config, bInterfaceNumber=self._interface)
        if intf is None:
            raise TransportIOError(f"{self.name}: no interface {self._interface}")
        ep_in = _bulk_endpoint(intf, usb.util.ENDPOINT_IN)
        ep_out = _bulk_endpoint(intf, usb.util.ENDPOINT_OUT)
        if ep_in is None or ep_out is None:
            raise TransportIOError(
                f"{self.name}: interface {self._interface} lacks a bulk IN and a bulk OUT endpoint"
            )
        usb.util.claim_interface(dev, self._interface)
        self._ep_in = int(ep_in.bEndpointAddress)
        self._ep_out = int(ep_out.bEndpointAddress)
        self._packet = int(ep_in.wMaxPacketSize) & 0x7FF  # bits 11-12: not size

    def read(self, max_bytes: int, deadline: float) -> bytes:
        import usb.core

        dev = self._require_open()
        while not self._pending:
            if self._woken.is_set():
                self._woken.clear()
                return b""
            remaining_ms = int((deadline - time.monotonic()) * 1000)
            if remaining_ms < 1:  # a timeout of 0 would mean "wait for ever" to libusb
                return b""
            try:
                # One packet at a time: libusb drops the bytes of a transfer that times out
                # part-way, and a full-packet buffer completes with every packet.
                data = dev.read(self._ep_in, self._packet, min(remaining_ms, READ_SLICE_MS))
            except usb.core.USBTimeoutError:
                continue
            except _BACKEND_ERRORS as exc:
                raise _translate(exc, f"{self.name}: reading") from None
            self._pending = bytes(data)
        out, self._pending = self._pending[:max_bytes], self._pending[max_bytes:]
        return out

    def write(self, data: bytes) -> None:
        dev = self._require_open()
        try:
            written = int(dev.write(self._ep_out, data, max(1, int(self._write_timeout * 1000))))
        except _BACKEND_ERRORS as exc:
            raise _translate(exc, f"{self.name}: writing") from None
        # libusb completes a bulk OUT transfer or fails it; a short one is a device fault.
        if written != len(data):
            raise TransportIOError(f"{self.name}: the device took {written} of {len(data)} bytes")

    def wake(self) -> None:
        self._woken.set()

    def close(self) -> None:
        dev, self._dev = self._dev, None
        self._pending = b""
        if dev is not None:
            self._dispose(dev)

    @staticmethod
    def _dispose(dev: Any) -> None:
        import usb.util

        # Releases every claimed interface, then closes the device handle. The device
        # may be gone already: nothing is left to release then.
        with contextlib.suppress(*_BACKEND_ERRORS):
            usb.util.dispose_resources(dev)

    def _require_open(self) -> Any:
        if self._dev is None:
            raise DeviceGone(f"{self.name} is not open")
        return self._dev


def _bulk_endpoint(intf: Any, direction: int) -> Any:
    import usb.util

    return usb.util.find_descriptor(
        intf,
        custom_match=lambda ep: (
            usb.util.endpoint_direction(ep.bEndpointAddress) == direction
            and usb.util.endpoint_type(ep.bmAttributes) == usb.util.ENDPOINT_TYPE_BULK
        ),
    )
