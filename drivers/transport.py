"""Transports: one small interface over serial ports, USB (drivers.usb) and memory.

``read`` never blocks past its monotonic deadline and returns early when ``wake`` is
called from another thread. Backend errors become drivers.errors exceptions.
"""

from __future__ import annotations

import contextlib
import errno
import os
import select
import threading
import time
from collections import deque
from typing import Protocol

import serial

from drivers.errors import (
    DeviceGone,
    PortBusy,
    PortNotFound,
    TransportError,
    TransportIOError,
    TransportTimeout,
)


class Transport(Protocol):
    name: str

    def open(self) -> None: ...

    def read(self, max_bytes: int, deadline: float) -> bytes:
        """Bytes available now, or waits until ``deadline``/``wake``; b"" when none came."""
        ...

    def write(self, data: bytes) -> None: ...

    def wake(self) -> None:
        """Make a ``read`` blocked in another thread return now."""
        ...

    def close(self) -> None: ...


_GONE_ERRNOS = frozenset({errno.EIO, errno.ENXIO, errno.ENODEV, errno.EBADF, errno.EPIPE})


class SerialTransport:
    """A serial port by stable path (udev symlink, /dev/serial/by-id/...), opened exclusively."""

    def __init__(self, path: str, baudrate: int = 115200, write_timeout: float = 1.0) -> None:
        self.name = path
        self._path = path
        self._baudrate = baudrate
        self._write_timeout = write_timeout
        self._port: serial.Serial | None = None
        self._fd = -1
        self._poller = select.poll()
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)

    def open(self) -> None:
        if not os.path.exists(self._path):
            raise PortNotFound(f"{self._path} does not exist")
        try:
            port = serial.serial_for_url(
                self._path,
                baudrate=self._baudrate,
                timeout=0,
                write_timeout=self._write_timeout,
                exclusive=True,
                do_not_open=True,
            )
            port.open()
        except serial.SerialException as exc:
            text = str(exc)
            if "exclusively lock" in text or "Resource temporarily unavailable" in text:
                raise PortBusy(f"{self._path} is in use by another process") from None
            if getattr(exc, "errno", None) == errno.ENOENT:
                raise PortNotFound(f"{self._path} does not exist") from None
            raise TransportIOError(f"{self._path}: {text}") from None
        except OSError as exc:
            raise TransportIOError(f"{self._path}: {exc.strerror or exc}") from None
        self._port = port
        self._fd = port.fileno()
        self._poller = select.poll()  # the port and the wake pipe, registered once
        for fd in (self._fd, self._wake_r):
            self._poller.register(fd, select.POLLIN)

    def read(self, max_bytes: int, deadline: float) -> bytes:
        if self._port is None:
            raise DeviceGone(f"{self._path} is not open")
        timeout_ms = max(0.0, deadline - time.monotonic()) * 1000  # poll rounds it up
        try:
            events = self._poller.poll(timeout_ms)
        except OSError as exc:
            raise DeviceGone(f"{self._path}: {exc}") from None
        readable = False
        for fd, _ in events:
            if fd == self._wake_r:
                self.drain_wake()
            else:
                readable = True  # data, or a hang-up that the read below reports
        return self.read_ready(max_bytes) if readable else b""

    def read_ready(self, max_bytes: int) -> bytes:
        """What the port holds now, without waiting (a poll found it readable); b""
        when nothing is there after all."""
        if self._port is None:
            raise DeviceGone(f"{self._path} is not open")
        try:
            data = os.read(self._fd, max_bytes)
        except BlockingIOError:
            return b""
        except OSError as exc:
            raise self._failed(exc) from None
        if not data:
            raise DeviceGone(f"{self._path}: end of file")
        return data

    def fds(self) -> tuple[int, int]:
        """The open port's descriptor and the wake-up pipe's reading end, for a poller
        that serves several ports (drivers/device/sessions.py)."""
        return self._fd, self._wake_r

    def write(self, data: bytes) -> None:
        """One os.write on the non-blocking port in the usual case (pyserial's write
        adds a select after every write); what does not fit waits for room, up to
        ``write_timeout``."""
        if self._port is None:
            raise DeviceGone(f"{self._path} is not open")
        try:
            sent = os.write(self._fd, data)
        except BlockingIOError:
            sent = 0
        except OSError as exc:
            raise self._failed(exc) from None
        if sent < len(data):
            self._write_rest(memoryview(data)[sent:])

    def _write_rest(self, rest: memoryview) -> None:
        deadline = time.monotonic() + self._write_timeout
        while rest:
            timeout = deadline - time.monotonic()
            try:
                _, ready, _ = select.select([], [self._fd], [], max(0.0, timeout))
                if not ready:
                    raise TransportTimeout(f"{self._path}: write timed out")
                rest = rest[os.write(self._fd, rest) :]
            except BlockingIOError:
                continue
            except (OSError, ValueError) as exc:
                raise self._failed(exc) from None

    def _failed(self, exc: OSError | ValueError) -> TransportError:
        """The exception for a failed read or write: the device gone, or an I/O error."""
        if isinstance(exc, ValueError) or exc.errno in _GONE_ERRNOS:
            return DeviceGone(f"{self._path}: {getattr(exc, 'strerror', None) or exc}")
        return TransportIOError(f"{self._path}: {exc.strerror or exc}")

    def wake(self) -> None:
        with contextlib.suppress(BlockingIOError):  # a wake is already pending
            os.write(self._wake_w, b"\x00")

    def drain_wake(self) -> None:
        try:
            while os.read(self._wake_r, 64):
                pass
        except BlockingIOError:
            pass

    def close(self) -> None:
        port, self._port = self._port, None
        self._fd = -1
        if port is not None:
            # The device may be gone already; there is nothing left to release then.
            with contextlib.suppress(serial.SerialException, OSError):
                port.close()

    def __del__(self) -> None:
        for fd in (self._wake_r, self._wake_w):
            with contextlib.suppress(OSError):
                os.close(fd)


class MemoryPipe:
    """One direction of an in-memory link."""

    def __init__(self) -> None:
        self.chunks: deque[bytes] = deque()
        self.cond = threading.Condition()
        self.closed = False


class MemoryTransport:
    """In-memory transport; ``pair()`` makes two connected ends (for unit tests)."""

    def __init__(self, name: str, rx: MemoryPipe, tx: MemoryPipe) -> None:
        self.name = name
        self._rx = rx
        self._tx = tx
        self._woken = False
        self.written: list[bytes] = []  # every write, in order, for byte-exact tests

    @classmethod
    def pair(cls, name: str = "memory") -> tuple[MemoryTransport, MemoryTransport]:
        a_to_b, b_to_a = MemoryPipe(), MemoryPipe()
        return cls(f"{name}:host", b_to_a, a_to_b), cls(f"{name}:device", a_to_b, b_to_a)

    def open(self) -> None:
        if self._rx.closed or self._tx.closed:
            raise DeviceGone(f"{self.name} is closed")

    def read(self, max_bytes: int, deadline: float) -> bytes:
        rx = self._rx
        with rx.cond:
            while not rx.chunks and not rx.closed and not self._woken:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return b""
                rx.cond.wait(remaining)
            self._woken = False
            if not rx.chunks:
                if rx.closed:
                    raise DeviceGone(f"{self.name}: peer closed")
                return b""
            out = bytearray()
            while rx.chunks and len(out) < max_bytes:
                chunk = rx.chunks.popleft()
                take = max_bytes - len(out)
                out += chunk[:take]
                if len(chunk) > take:
                    rx.chunks.appendleft(chunk[take:])
            return bytes(out)

    def write(self, data: bytes) -> None:
        tx = self._tx
        with tx.cond:
            if tx.closed:
                raise DeviceGone(f"{self.name}: peer closed")
            self.written.append(bytes(data))
            tx.chunks.append(bytes(data))
            tx.cond.notify_all()

    def wake(self) -> None:
        with self._rx.cond:
            self._woken = True
            self._rx.cond.notify_all()

    def close(self) -> None:
        for pipe in (self._rx, self._tx):
            with pipe.cond:
                pipe.closed = True
                pipe.cond.notify_all()


__all__ = ["MemoryTransport", "SerialTransport", "Transport", "TransportError"]
