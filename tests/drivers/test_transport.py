"""SerialTransport on a pseudo-terminal: whole writes, writes that wait for room, and the
errors a write can end in."""

from __future__ import annotations

import contextlib
import os
import threading
import time
import tty
from collections.abc import Iterator

import pytest

from drivers.errors import DeviceGone, TransportTimeout
from drivers.transport import SerialTransport


@pytest.fixture
def pty() -> Iterator[tuple[int, str]]:
    master, slave = os.openpty()
    tty.setraw(slave)
    path = os.ttyname(slave)
    yield master, path
    for fd in (master, slave):
        with contextlib.suppress(OSError):
            os.close(fd)


def drain(master: int, size: int, into: bytearray) -> None:
    while len(into) < size:
        into += os.read(master, 65536)


def test_a_write_larger_than_the_port_buffer_arrives_whole(pty: tuple[int, str]) -> None:
    master, path = pty
    port = SerialTransport(path)
    port.open()
    data = bytes(range(256)) * 4096  # 1 MiB: far more than a pty holds
    got = bytearray()
    reader = threading.Thread(target=drain, args=(master, len(data), got))
    reader.start()
    port.write(data)
    reader.join(10)
    port.close()
    assert bytes(got) == data


def test_a_write_nobody_reads_times_out(pty: tuple[int, str]) -> None:
    _, path = pty
    port = SerialTransport(path, write_timeout=0.05)
    port.open()
    with pytest.raises(TransportTimeout):
        port.write(bytes(1 << 20))
    port.close()


def test_a_frame_is_read_back_and_a_closed_port_is_gone(pty: tuple[int, str]) -> None:
    master, path = pty
    port = SerialTransport(path)
    port.open()
    port.write(b"\xa5frame")
    assert os.read(master, 64) == b"\xa5frame"
    os.write(master, b"reply")
    assert port.read(64, time.monotonic() + 5) == b"reply"
    port.close()
    with pytest.raises(DeviceGone):
        port.write(b"late")
