"""The hole-card reader's USB path: UsbTransport over pyusb's real code (usb.core.find,
Device.read/write, timeouts) with the simulator's backend on real pseudo-terminals."""

from __future__ import annotations

import errno
import os
import queue
import select
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import usb.core
import usb.util
from pytest_mock import MockerFixture

from drivers import messages as m
from drivers.device import DriverConfig, ReaderDriver
from drivers.errors import (
    DeviceGone,
    PortBusy,
    PortNotFound,
    TransportError,
    TransportIOError,
    TransportTimeout,
)
from drivers.identity import PRODUCT_ID, VENDOR_ID
from drivers.usb import UsbAddress, UsbTransport, parse_usb_spec, usb_transport_factory
from firmware_sim.endpoint import DeviceEndpoint, Identity
from firmware_sim.harness import SimProcess
from firmware_sim.usb_backend import SimUsbBackend
from tests.support.devices import KEY, Drivers, host_frame, next_event

SERIAL = "SIMRD0001"
READER = Identity(m.DeviceKind.READER, "SIM-READER", "RD-1", "1.0.0")


def soon(seconds: float = 5.0) -> float:
    return time.monotonic() + seconds


class Pty:
    """A pseudo-terminal whose slave is symlinked at ``path``, as `firmware-sim` makes one,
    but left in its default cooked, echoing mode: raw mode is the backend's job too."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.master, self.slave = os.openpty()
        os.symlink(os.ttyname(self.slave), path)

    def recv(self, n: int, timeout: float = 2.0) -> bytes:
        out = b""
        end = time.monotonic() + timeout
        while len(out) < n and select.select([self.master], [], [], end - time.monotonic())[0]:
            out += os.read(self.master, n - len(out))
        return out

    def close(self) -> None:
        if self.path.is_symlink():
            self.path.unlink()
        for fd in (self.master, self.slave):
            if fd >= 0:
                os.close(fd)
        self.master = self.slave = -1


class PtyReader:
    """A reader's DeviceEndpoint served by a thread on the master side of a Pty."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lock = threading.Lock()
        self.commands: queue.Queue[tuple[int, bytes]] = queue.Queue()
        self.received = bytearray()  # every byte the device read, for byte-exact checks
        self.endpoint = DeviceEndpoint(
            READER, KEY, self._write, lambda t, p: self.commands.put((t, p))
        )
        self.pty: Pty | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.plug()

    def plug(self) -> None:
        with self.lock:
            self.pty = Pty(self.path)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, args=(self.pty, self._stop), daemon=True)
        self._thread.start()

    def unplug(self) -> None:
        """Cable out: the path goes and the device side of the pty closes."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(2)
        with self.lock:
            if self.pty is not None:
                self.pty.close()
            self.pty = None
            self.endpoint.drop_session()

    def emit(self, mtype: m.MsgType, body: bytes = b"") -> int:
        with self.lock:
            return self.endpoint.emit(mtype, body)

    def _write(self, data: bytes) -> None:
        if self.pty is not None:  # unplugged: the frame is lost, the event stays in the backlog
            os.write(self.pty.master, data)

    def _loop(self, pty: Pty, stop: threading.Event) -> None:
        while not stop.is_set():
            with self.lock:
                wait = self.endpoint.link.next_deadline() - time.monotonic()
            ready, _, _ = select.select([pty.master], [], [], min(max(wait, 0.0), 0.05))
            data = os.read(pty.master, 4096) if ready else b""
            with self.lock:
                if data:
                    self.received += data
                    self.endpoint.receive(data)
                self.endpoint.poll()


@pytest.fixture
def link_path(tmp_path: Path) -> Path:
    return tmp_path / "reader"


@pytest.fixture
def pty(link_path: Path) -> Iterator[Pty]:
    p = Pty(link_path)
    yield p
    p.close()


@pytest.fixture
def transports() -> Iterator[list[UsbTransport]]:
    made: list[UsbTransport] = []
    yield made
    for t in made:
        t.close()


@pytest.fixture
def open_usb(link_path: Path, transports: list[UsbTransport]) -> Callable[..., UsbTransport]:
    def make(serial: str | None = SERIAL, backend: SimUsbBackend | None = None) -> UsbTransport:
        t = UsbTransport(
            VENDOR_ID, PRODUCT_ID, serial, backend=backend or SimUsbBackend(str(link_path))
        )
        transports.append(t)
        t.open()
        return t

    return make


# --------------------------------------------------------------------------- transport


def test_bytes_cross_unchanged_both_ways(pty: Pty, open_usb: Callable[..., UsbTransport]) -> None:
    t = open_usb()
    everything = bytes(range(256)) * 3  # CR, LF, ^C, ^D...: a cooked pty would mangle them
    t.write(everything)
    assert pty.recv(len(everything)) == everything
    os.write(pty.master, everything)
    got = b""
    while len(got) < len(everything):
        chunk = t.read(100, soon(2))
        assert chunk, "the device's bytes did not arrive"
        assert len(chunk) <= 100
        got += chunk
    assert got == everything
    assert pty.recv(1, timeout=0.05) == b""  # nothing echoed back to the device


def test_read_returns_empty_at_its_deadline(
    pty: Pty, open_usb: Callable[..., UsbTransport]
) -> None:
    t = open_usb()
    start = time.monotonic()
    assert t.read(64, start + 0.2) == b""
    assert 0.19 <= time.monotonic() - start < 0.3
    start = time.monotonic()
    assert t.read(64, start - 1) == b""  # a deadline already past does not block
    assert time.monotonic() - start < 0.04


def test_wake_from_another_thread_ends_a_read_within_a_slice(
    pty: Pty, open_usb: Callable[..., UsbTransport]
) -> None:
    t = open_usb()
    threading.Timer(0.1, t.wake).start()
    start = time.monotonic()
    assert t.read(64, start + 5) == b""
    assert 0.09 <= time.monotonic() - start < 0.25


def test_a_wake_before_the_read_is_not_lost_and_is_used_once(
    pty: Pty, open_usb: Callable[..., UsbTransport]
) -> None:
    t = open_usb()
    t.wake()
    start = time.monotonic()
    assert t.read(64, start + 5) == b""
    assert time.monotonic() - start < 0.04
    start = time.monotonic()
    assert t.read(64, start + 0.1) == b""
    assert time.monotonic() - start >= 0.09


@pytest.mark.parametrize("how", ["path removed", "device side closed"])
def test_unplug_is_device_gone(pty: Pty, open_usb: Callable[..., UsbTransport], how: str) -> None:
    t = open_usb()
    if how == "path removed":
        pty.path.unlink()
    else:
        os.close(pty.master)
        pty.master = -1
    with pytest.raises(DeviceGone, match="No such device"):
        t.read(64, soon(1))
    with pytest.raises(DeviceGone):
        t.write(b"x")


def test_path_leading_to_another_pty_is_another_device(
    pty: Pty, link_path: Path, open_usb: Callable[..., UsbTransport]
) -> None:
    t = open_usb()
    link_path.unlink()
    other = Pty(link_path)  # replugged: same path, a new device
    try:
        with pytest.raises(DeviceGone):
            t.read(64, soon(1))
        fresh = open_usb()
        fresh.write(b"ok")
        assert other.recv(2) == b"ok"
    finally:
        other.close()


def test_missing_path_wrong_ids_or_serial_is_port_not_found(
    link_path: Path, pty: Pty, transports: list[UsbTransport]
) -> None:
    backend = SimUsbBackend(str(link_path), serial=SERIAL)
    for vid, pid, serial in [
        (VENDOR_ID, PRODUCT_ID + 1, None),
        (VENDOR_ID + 1, PRODUCT_ID, None),
        (VENDOR_ID, PRODUCT_ID, "SOMEONE-ELSE"),
    ]:
        with pytest.raises(PortNotFound, match="no such USB device"):
            UsbTransport(vid, pid, serial, backend=backend).open()
    for serial in (None, SERIAL):  # the right device is found, with or without its serial
        t = UsbTransport(VENDOR_ID, PRODUCT_ID, serial, backend=backend)
        transports.append(t)
        t.open()
        t.close()
    pty.path.unlink()
    with pytest.raises(PortNotFound):
        UsbTransport(VENDOR_ID, PRODUCT_ID, backend=backend).open()


def test_second_claim_is_busy_until_the_first_closes(
    pty: Pty, open_usb: Callable[..., UsbTransport]
) -> None:
    first = open_usb()
    with pytest.raises(PortBusy, match="in use by another process"):
        open_usb()
    first.close()
    second = open_usb()
    second.write(b"mine")
    assert pty.recv(4) == b"mine"


def test_an_interface_released_by_its_holder_can_be_claimed(
    pty: Pty, link_path: Path, open_usb: Callable[..., UsbTransport]
) -> None:
    holder = usb.core.find(
        idVendor=VENDOR_ID, idProduct=PRODUCT_ID, backend=SimUsbBackend(str(link_path))
    )
    holder.set_configuration()
    usb.util.claim_interface(holder, 0)
    with pytest.raises(PortBusy):
        open_usb()
    usb.util.release_interface(holder, 0)  # its device handle stays open
    open_usb().write(b"ok")
    assert pty.recv(2) == b"ok"
    usb.util.dispose_resources(holder)


def test_closed_transport_is_gone_and_close_is_idempotent(
    pty: Pty, open_usb: Callable[..., UsbTransport]
) -> None:
    t = open_usb()
    t.close()
    t.close()
    with pytest.raises(DeviceGone, match="not open"):
        t.read(64, soon(0.1))
    with pytest.raises(DeviceGone, match="not open"):
        t.write(b"x")


def test_close_releases_the_interface_and_closes_the_device(
    pty: Pty, link_path: Path, open_usb: Callable[..., UsbTransport], mocker: MockerFixture
) -> None:
    backend = SimUsbBackend(str(link_path))
    release = mocker.spy(backend, "release_interface")
    close = mocker.spy(backend, "close_device")
    t = open_usb(backend=backend)
    t.close()
    assert release.call_count == 1
    assert close.call_count == 1


# --------------------------------------------------------------------------- error translation


def usb_error(text: str, code: int | None, number: int | None) -> usb.core.USBError:
    return usb.core.USBError(text, code, number)


NO_DEVICE = usb_error("No such device (it may have been disconnected)", -4, errno.ENODEV)
BUSY = usb_error("Resource busy", -6, errno.EBUSY)
ACCESS = usb_error("Access denied (insufficient permissions)", -3, errno.EACCES)
PIPE = usb_error("Pipe error", -9, errno.EPIPE)
OTHER = usb_error("Unknown error", -99, None)
TIMEOUT = usb.core.USBTimeoutError("Operation timed out", -7, errno.ETIMEDOUT)
# libusb0 reports the negated errno as the code and leaves errno unset.
LIBUSB0_GONE = usb_error("No such device", -errno.ENODEV, None)
LIBUSB0_BUSY = usb_error("could not claim interface 0: Device or resource busy", -16, None)


@pytest.mark.parametrize(
    ("method", "error", "expected"),
    [
        ("claim_interface", BUSY, PortBusy),
        ("claim_interface", LIBUSB0_BUSY, PortBusy),
        ("claim_interface", usb_error("could not claim interface 0: busy", None, None), PortBusy),
        ("claim_interface", ACCESS, TransportIOError),
        ("claim_interface", NO_DEVICE, DeviceGone),
        ("set_configuration", BUSY, PortBusy),
        ("set_configuration", NotImplementedError("Operation not supported"), TransportIOError),
        ("open_device", OTHER, TransportIOError),
    ],
)
def test_open_errors_are_translated_and_the_device_is_released(
    pty: Pty,
    link_path: Path,
    mocker: MockerFixture,
    method: str,
    error: Exception,
    expected: type[TransportError],
) -> None:
    backend = SimUsbBackend(str(link_path))
    mocker.patch.object(backend, method, side_effect=error)
    close = mocker.spy(backend, "close_device")
    with pytest.raises(expected) as info:
        UsbTransport(VENDOR_ID, PRODUCT_ID, backend=backend).open()
    assert not isinstance(info.value, usb.core.USBError)
    if method != "open_device":
        assert close.call_count == 1  # the handle opened for the attempt is not leaked


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (NO_DEVICE, DeviceGone),
        (LIBUSB0_GONE, DeviceGone),
        (usb_error("No such device or address", -1, errno.ENXIO), DeviceGone),
        (
            usb_error("Cannot send after transport endpoint shutdown", -errno.ESHUTDOWN, None),
            DeviceGone,
        ),
        (PIPE, TransportIOError),
        (OTHER, TransportIOError),
        (usb_error("Overflow", -8, errno.EOVERFLOW), TransportIOError),
    ],
)
def test_read_errors_are_translated(
    pty: Pty,
    link_path: Path,
    open_usb: Callable[..., UsbTransport],
    mocker: MockerFixture,
    error: Exception,
    expected: type[TransportError],
) -> None:
    backend = SimUsbBackend(str(link_path))
    t = open_usb(backend=backend)
    mocker.patch.object(backend, "bulk_read", side_effect=error)
    with pytest.raises(expected):
        t.read(64, soon(1))


def test_read_timeouts_are_not_errors(
    pty: Pty, link_path: Path, open_usb: Callable[..., UsbTransport], mocker: MockerFixture
) -> None:
    backend = SimUsbBackend(str(link_path))
    t = open_usb(backend=backend)
    read = mocker.patch.object(backend, "bulk_read", side_effect=TIMEOUT)
    start = time.monotonic()
    assert t.read(64, start + 0.01) == b""
    assert read.call_count >= 1
    for call in read.call_args_list:
        assert len(call.args[3]) == 64  # one packet: libusb drops a part-read transfer on timeout
        assert 0 < call.args[4] <= 50  # a slice, and never libusb's 0 (no timeout)


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (TIMEOUT, TransportTimeout),
        (NO_DEVICE, DeviceGone),
        (usb_error("Input/output error", -1, errno.EIO), TransportIOError),
    ],
)
def test_write_errors_are_translated(
    pty: Pty,
    link_path: Path,
    open_usb: Callable[..., UsbTransport],
    mocker: MockerFixture,
    error: Exception,
    expected: type[TransportError],
) -> None:
    backend = SimUsbBackend(str(link_path))
    t = open_usb(backend=backend)
    mocker.patch.object(backend, "bulk_write", side_effect=error)
    with pytest.raises(expected):
        t.write(b"frame")


def test_a_write_the_device_does_not_take_times_out(
    pty: Pty, link_path: Path, transports: list[UsbTransport]
) -> None:
    t = UsbTransport(
        VENDOR_ID, PRODUCT_ID, backend=SimUsbBackend(str(link_path)), write_timeout=0.1
    )
    transports.append(t)
    t.open()
    start = time.monotonic()
    with pytest.raises(TransportTimeout):
        for _ in range(10_000):  # nobody reads the device side: the pty fills up
            t.write(b"x" * 64)
    assert time.monotonic() - start < 2


def test_a_write_larger_than_the_pty_buffer_completes_as_the_device_reads(
    pty: Pty, open_usb: Callable[..., UsbTransport]
) -> None:
    t = open_usb()
    block = os.urandom(256 * 1024)
    got = bytearray()
    reader = threading.Thread(target=lambda: got.extend(pty.recv(len(block))))
    reader.start()
    t.write(block)
    reader.join(5)
    assert bytes(got) == block


def test_a_short_write_is_an_io_error(
    pty: Pty, link_path: Path, open_usb: Callable[..., UsbTransport], mocker: MockerFixture
) -> None:
    backend = SimUsbBackend(str(link_path))
    t = open_usb(backend=backend)
    mocker.patch.object(backend, "bulk_write", return_value=3)
    with pytest.raises(TransportIOError, match="took 3 of 5 bytes"):
        t.write(b"frame")


def test_the_device_is_configured_only_when_it_is_not_yet(
    pty: Pty, link_path: Path, open_usb: Callable[..., UsbTransport], mocker: MockerFixture
) -> None:
    backend = SimUsbBackend(str(link_path))  # a fresh device is unconfigured
    configure = mocker.spy(backend, "set_configuration")
    open_usb(backend=backend).close()
    assert [call.args[1] for call in configure.call_args_list] == [1]
    # Configured now: setting it again would reset the device (libusb).
    open_usb(backend=backend)
    assert configure.call_count == 1


def test_no_usb_backend_is_an_io_error(mocker: MockerFixture) -> None:
    mocker.patch("usb.core.find", side_effect=usb.core.NoBackendError("none"))
    with pytest.raises(TransportIOError, match="no USB backend"):
        UsbTransport(VENDOR_ID, PRODUCT_ID).open()


def test_an_unreadable_serial_number_is_named(
    pty: Pty, link_path: Path, mocker: MockerFixture
) -> None:
    backend = SimUsbBackend(str(link_path))
    mocker.patch.object(backend, "open_device", side_effect=ACCESS)
    with pytest.raises(PortNotFound, match=r"serial number unreadable: .*permission"):
        UsbTransport(VENDOR_ID, PRODUCT_ID, SERIAL, backend=backend).open()


# --------------------------------------------------------------------------- config form


@pytest.mark.parametrize(
    ("spec", "address"),
    [
        ("usb:1209:0001", UsbAddress(0x1209, 0x0001)),
        ("usb:1209:0001:RD0001", UsbAddress(0x1209, 0x0001, "RD0001")),
        ("USB:0x1209:0xbeef:a:b", UsbAddress(0x1209, 0xBEEF, "a:b")),
        (" usb:1:2 ", UsbAddress(1, 2)),
    ],
)
def test_usb_spec_is_parsed(spec: str, address: UsbAddress) -> None:
    assert parse_usb_spec(spec) == address


@pytest.mark.parametrize(
    "spec",
    [
        "",
        "usb:",
        "usb:1209",
        "usb:1209:",
        "usb:1209:0001:",
        "usb:12g9:0001",
        "usb:12345:0001",
        "serial:/dev/ttyUSB0",
        "/dev/ttyUSB0",
        "usb:1209:0001:a\nb",
    ],
)
def test_bad_usb_spec_is_one_line(spec: str) -> None:
    with pytest.raises(ValueError, match=r"expected usb:VID:PID\[:serial\]") as info:
        usb_transport_factory(spec)
    assert "\n" not in str(info.value)


def test_spec_factory_makes_fresh_transports_for_that_device(
    pty: Pty, link_path: Path, transports: list[UsbTransport]
) -> None:
    factory = usb_transport_factory(
        f"usb:{VENDOR_ID:04x}:{PRODUCT_ID:04x}:{SERIAL}", backend=SimUsbBackend(str(link_path))
    )
    t = factory()
    transports.append(t)
    assert factory() is not t
    assert t.name == "usb:1209:0001:SIMRD0001"
    t.open()
    t.write(b"hi")
    assert pty.recv(2) == b"hi"


# --------------------------------------------------------------------------- reader driver


@pytest.fixture
def reader(link_path: Path) -> Iterator[PtyReader]:
    dev = PtyReader(link_path)
    yield dev
    dev.unplug()


@pytest.fixture
def start_driver(
    link_path: Path, drivers: Drivers
) -> Callable[[], tuple[ReaderDriver, queue.Queue[m.Event]]]:
    def start() -> tuple[ReaderDriver, queue.Queue[m.Event]]:
        q: queue.Queue[m.Event] = queue.Queue()
        drv = ReaderDriver(
            "reader",
            lambda: UsbTransport(
                VENDOR_ID, PRODUCT_ID, SERIAL, backend=SimUsbBackend(str(link_path))
            ),
            KEY,
            q,
            [READER.firmware_hash],
            config=DriverConfig(reconnect_max=0.1),
        )
        return drivers.start(drv), q

    return start


def test_reader_driver_over_usb_arms_byte_exactly_and_gets_events(
    reader: PtyReader,
    start_driver: Callable[[], tuple[ReaderDriver, queue.Queue[m.Event]]],
    fixed_nonces: None,
) -> None:
    drv, q = start_driver()
    connected = next_event(q, m.DeviceConnected)
    assert isinstance(connected, m.DeviceConnected)
    assert (connected.kind, connected.serial) == ("reader", "RD-1")

    drv.arm(m.PeekTarget.ACE)
    assert reader.commands.get(timeout=2) == (m.MsgType.ARM, b"\x02")
    with reader.lock:
        assert host_frame(0, 0, m.MsgType.ARM, b"\x02") in reader.received

    reader.emit(m.MsgType.CARD_INSERTED, m.bool_body(True))
    reader.emit(m.MsgType.PEEK_RESULT, m.bool_body(False))
    assert next_event(q, m.CardInserted) == m.CardInserted("reader", 1, True)
    assert next_event(q, m.PeekResult) == m.PeekResult("reader", 2, False)


def test_unplugged_reader_is_lost_then_reconnects_and_replays(
    reader: PtyReader,
    start_driver: Callable[[], tuple[ReaderDriver, queue.Queue[m.Event]]],
) -> None:
    drv, q = start_driver()
    next_event(q, m.DeviceConnected)
    reader.emit(m.MsgType.CARD_INSERTED, m.bool_body(False))
    assert next_event(q, m.CardInserted) == m.CardInserted("reader", 1, False)

    reader.unplug()
    lost = next_event(q, m.DeviceLost, timeout=0.5)  # noticed at once, not by link timeout
    assert isinstance(lost, m.DeviceLost)
    assert "No such device" in lost.reason
    unavailable = next_event(q, m.DeviceUnavailable)
    assert isinstance(unavailable, m.DeviceUnavailable)
    assert "no such USB device" in unavailable.reason
    reader.emit(m.MsgType.TAMPER)  # happens while unplugged: kept in the device's backlog

    reader.plug()
    next_event(q, m.DeviceConnected)
    assert next_event(q, m.ReaderTamper) == m.ReaderTamper("reader", 2)
    drv.commit(2)


def test_real_reader_simulator_through_the_usb_backend(tmp_path: Path, drivers: Drivers) -> None:
    q: queue.Queue[m.Event] = queue.Queue()
    with SimProcess("reader", tmp_path, KEY) as sim:
        drv = ReaderDriver(
            "reader",
            lambda: UsbTransport(
                VENDOR_ID, PRODUCT_ID, SERIAL, backend=SimUsbBackend(str(sim.link_path))
            ),
            KEY,
            q,
            [sim.firmware_hash],
            config=DriverConfig(reconnect_max=0.1),
        )
        drivers.start(drv)
        try:
            next_event(q, m.DeviceConnected)
            drv.arm(m.PeekTarget.ACE)
            end = time.monotonic() + 2
            while not sim.control("status")["armed"]:
                assert time.monotonic() < end, "ARM did not reach the simulator"
                time.sleep(0.01)
            sim.control("insert", card="AS")
            assert next_event(q, m.CardInserted) == m.CardInserted("reader", 1, True)
            assert next_event(q, m.PeekResult) == m.PeekResult("reader", 2, True)
            drv.commit(2)

            sim.control("unplug", duration_ms=100)
            lost = next_event(q, m.DeviceLost, timeout=0.5)
            assert isinstance(lost, m.DeviceLost)
            assert "No such device" in lost.reason
            next_event(q, m.DeviceConnected)
        finally:
            drivers.stop()  # before the simulator
