"""A pyusb backend presenting the simulated hole-card reader as a USB device.

The reader simulator exposes its end of the link as a pseudo-terminal behind a
stable path. This backend shows one "card reader device" (pid.codes test ID
1209:0001, one configuration, one vendor-class interface with bulk OUT 0x01 and
bulk IN 0x81) whose bulk transfers are reads and writes on that pty, so
``usb.core.find``, ``Device.read``/``write`` and their timeouts run unchanged.
The device is plugged in while the path exists and points at the pty it was
opened on; errors are raised as pyusb's libusb1 backend raises them.
"""

from __future__ import annotations

import array
import errno
import fcntl
import os
import select
import termios
import time
import tty
from collections.abc import Iterator
from dataclasses import dataclass, field

import usb.backend
import usb.core

from drivers.identity import PRODUCT_ID, VENDOR_ID

EP_OUT = 0x01
EP_IN = 0x81
MAX_PACKET = 64
CONFIGURATION_VALUE = 1
INTERFACE_NUMBER = 0

_LIBUSB_ERROR_IO = -1
_LIBUSB_ERROR_NO_DEVICE = -4
_LIBUSB_ERROR_BUSY = -6
_LIBUSB_ERROR_TIMEOUT = -7
_LIBUSB_ERROR_PIPE = -9

_GET_DESCRIPTOR = 0x06
_STRING_DESCRIPTOR = 0x03
_LANGID_EN_US = 0x0409
# A transfer waiting for the pty looks this often whether the device was unplugged.
_PRESENCE_POLL = 0.05
_GONE_ERRNOS = frozenset({errno.EIO, errno.ENXIO, errno.ENODEV, errno.EBADF, errno.ENOENT})


def _gone() -> usb.core.USBError:
    return usb.core.USBError(
        "No such device (it may have been disconnected)", _LIBUSB_ERROR_NO_DEVICE, errno.ENODEV
    )


def _timed_out() -> usb.core.USBTimeoutError:
    return usb.core.USBTimeoutError("Operation timed out", _LIBUSB_ERROR_TIMEOUT, errno.ETIMEDOUT)


def _os_error(exc: OSError) -> usb.core.USBError:
    if exc.errno in _GONE_ERRNOS:
        return _gone()
    return usb.core.USBError(exc.strerror or str(exc), _LIBUSB_ERROR_IO, errno.EIO)


# Descriptor objects: pyusb reads their fields by the names the USB specification uses.


@dataclass(frozen=True, slots=True)
class _DeviceDescriptor:
    idVendor: int  # pyusb reads the USB field names
    idProduct: int
    bLength: int = 18
    bDescriptorType: int = 0x01
    bcdUSB: int = 0x0200
    bDeviceClass: int = 0x00  # class given per interface
    bDeviceSubClass: int = 0x00
    bDeviceProtocol: int = 0x00
    bMaxPacketSize0: int = 64
    bcdDevice: int = 0x0100
    iManufacturer: int = 1
    iProduct: int = 2
    iSerialNumber: int = 3
    bNumConfigurations: int = 1
    bus: int = 1
    address: int = 1
    port_number: int = 1
    port_numbers: tuple[int, ...] = (1,)
    speed: int = 2  # full speed: 64-byte bulk packets


@dataclass(frozen=True, slots=True)
class _ConfigurationDescriptor:
    bLength: int = 9
    bDescriptorType: int = 0x02
    wTotalLength: int = 9 + 9 + 7 + 7
    bNumInterfaces: int = 1
    bConfigurationValue: int = CONFIGURATION_VALUE
    iConfiguration: int = 0
    bmAttributes: int = 0x80  # bus powered
    bMaxPower: int = 50  # 100 mA
    extra_descriptors: list[int] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class _InterfaceDescriptor:
    bLength: int = 9
    bDescriptorType: int = 0x04
    bInterfaceNumber: int = INTERFACE_NUMBER
    bAlternateSetting: int = 0
    bNumEndpoints: int = 2
    bInterfaceClass: int = 0xFF  # vendor specific
    bInterfaceSubClass: int = 0x00
    bInterfaceProtocol: int = 0x00
    iInterface: int = 0
    extra_descriptors: list[int] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class _EndpointDescriptor:
    bEndpointAddress: int
    bLength: int = 7
    bDescriptorType: int = 0x05
    bmAttributes: int = 0x02  # bulk
    wMaxPacketSize: int = MAX_PACKET
    bInterval: int = 0
    bRefresh: int = 0
    bSynchAddress: int = 0
    extra_descriptors: list[int] = field(default_factory=list)


_ENDPOINTS = (_EndpointDescriptor(EP_OUT), _EndpointDescriptor(EP_IN))


@dataclass(frozen=True, slots=True)
class SimDevice:
    """What ``enumerate_devices`` yields: the pty path the device lives behind."""

    path: str


@dataclass(slots=True)
class SimHandle:
    """An open device: the pty's fd and which pty it is (to notice an unplug)."""

    path: str
    fd: int
    node: tuple[int, int]


class SimUsbBackend(usb.backend.IBackend):  # type: ignore[misc]  # pyusb has no type stubs
    """The simulated reader behind ``path`` (the symlink to the simulator's pty)."""

    def __init__(
        self,
        path: str,
        *,
        serial: str = "SIMRD0001",
        manufacturer: str = "tablectl",
        product: str = "Card reader device (simulated)",
    ) -> None:
        self.path = path
        self.descriptor = _DeviceDescriptor(VENDOR_ID, PRODUCT_ID)
        self._strings = {1: manufacturer, 2: product, 3: serial}
        self._configuration = 0  # unconfigured until the host sets one, as after a reset

    # ------------------------------------------------------------------ descriptors

    def enumerate_devices(self) -> Iterator[SimDevice]:
        if os.path.exists(self.path):
            yield SimDevice(self.path)

    def get_device_descriptor(self, dev: SimDevice) -> _DeviceDescriptor:
        return self.descriptor

    def get_configuration_descriptor(self, dev: SimDevice, config: int) -> _ConfigurationDescriptor:
        return _ConfigurationDescriptor()

    def get_interface_descriptor(
        self, dev: SimDevice, intf: int, alt: int, config: int
    ) -> _InterfaceDescriptor:
        # pyusb lists alternate settings until this raises IndexError.
        if (config, intf, alt) != (0, 0, 0):
            raise IndexError("interface index out of range")
        return _InterfaceDescriptor()

    def get_endpoint_descriptor(
        self, dev: SimDevice, ep: int, intf: int, alt: int, config: int
    ) -> _EndpointDescriptor:
        return _ENDPOINTS[ep]

    # ------------------------------------------------------------------ device handle

    def open_device(self, dev: SimDevice) -> SimHandle:
        try:
            fd = os.open(dev.path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        except OSError as exc:
            raise _os_error(exc) from None
        try:
            # Raw: no echo, and no newline translation of the binary frames.
            tty.setraw(fd, termios.TCSANOW)
            st = os.fstat(fd)
        except (OSError, termios.error) as exc:
            os.close(fd)
            raise usb.core.USBError(
                f"{dev.path} is not a pseudo-terminal: {exc}", _LIBUSB_ERROR_IO, errno.EIO
            ) from None
        return SimHandle(dev.path, fd, (st.st_dev, st.st_ino))

    def close_device(self, dev_handle: SimHandle) -> None:
        os.close(dev_handle.fd)

    def set_configuration(self, dev_handle: SimHandle, config_value: int) -> None:
        self._configuration = config_value

    def get_configuration(self, dev_handle: SimHandle) -> int:
        return self._configuration

    def claim_interface(self, dev_handle: SimHandle, intf: int) -> None:
        # The same lock pyserial's exclusive=True takes, so one process owns the device.
        try:
            fcntl.flock(dev_handle.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise usb.core.USBError("Resource busy", _LIBUSB_ERROR_BUSY, errno.EBUSY) from None
        except OSError as exc:
            raise _os_error(exc) from None

    def release_interface(self, dev_handle: SimHandle, intf: int) -> None:
        try:
            fcntl.flock(dev_handle.fd, fcntl.LOCK_UN)
        except OSError as exc:
            raise _os_error(exc) from None

    def ctrl_transfer(
        self,
        dev_handle: SimHandle,
        bmRequestType: int,  # pyusb passes these by position, named as in the spec
        bRequest: int,
        wValue: int,
        wIndex: int,
        data: array.array[int],
        timeout: int,
    ) -> int:
        """Answers GET_DESCRIPTOR for strings (how pyusb reads the serial number); any
        other request stalls, as on a device that does not support it."""
        index = wValue & 0xFF
        if (bmRequestType, bRequest, wValue >> 8) != (0x80, _GET_DESCRIPTOR, _STRING_DESCRIPTOR):
            raise usb.core.USBError("Pipe error", _LIBUSB_ERROR_PIPE, errno.EPIPE)
        if index == 0:
            body = _LANGID_EN_US.to_bytes(2, "little")
        elif index in self._strings:
            body = self._strings[index].encode("utf-16-le")
        else:
            raise usb.core.USBError("Pipe error", _LIBUSB_ERROR_PIPE, errno.EPIPE)
        descriptor = bytes((2 + len(body), _STRING_DESCRIPTOR)) + body
        n = min(len(data), len(descriptor))
        data[:n] = array.array("B", descriptor[:n])
        return n

    # ------------------------------------------------------------------ bulk transfers

    def bulk_write(
        self, dev_handle: SimHandle, ep: int, intf: int, data: array.array[int], timeout: int
    ) -> int:
        deadline = _deadline(timeout)
        view = memoryview(data.tobytes())
        written = 0
        while written < len(view):
            self._check_present(dev_handle)
            try:
                written += os.write(dev_handle.fd, view[written:])
            except BlockingIOError:  # the simulator is not reading: wait, as a NAKed OUT does
                self._wait(dev_handle, True, deadline)
            except OSError as exc:
                raise _os_error(exc) from None
        return written

    def bulk_read(
        self, dev_handle: SimHandle, ep: int, intf: int, buff: array.array[int], timeout: int
    ) -> int:
        deadline = _deadline(timeout)
        while True:
            self._check_present(dev_handle)
            try:
                data = os.read(dev_handle.fd, len(buff))
            except BlockingIOError:
                self._wait(dev_handle, False, deadline)
                continue
            except OSError as exc:
                raise _os_error(exc) from None
            buff[: len(data)] = array.array("B", data)
            return len(data)

    def _check_present(self, handle: SimHandle) -> None:
        # Unplugged: the path is gone, or now leads to another pty (a new device).
        try:
            st = os.stat(handle.path)
        except OSError:
            raise _gone() from None
        if (st.st_dev, st.st_ino) != handle.node:
            raise _gone()

    def _wait(self, handle: SimHandle, for_write: bool, deadline: float | None) -> None:
        timeout = _PRESENCE_POLL
        if deadline is not None:
            timeout = min(timeout, deadline - time.monotonic())
        if timeout <= 0:
            raise _timed_out()
        fds = [handle.fd]
        try:
            select.select([] if for_write else fds, fds if for_write else [], [], timeout)
        except (OSError, ValueError):
            raise _gone() from None


def _deadline(timeout_ms: int) -> float | None:
    """libusb's convention: a timeout of 0 means no timeout."""
    return None if timeout_ms == 0 else time.monotonic() + timeout_ms / 1000
