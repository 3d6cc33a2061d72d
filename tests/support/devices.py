"""An in-process device on an in-memory link, frames built by hand, and the owner of
the drivers a test starts."""

from __future__ import annotations

import binascii
import contextlib
import hmac
import queue
import threading
import time
from typing import TypeVar

from drivers import messages as m
from drivers.device import DeviceDriver
from drivers.errors import TransportError
from drivers.transport import MemoryTransport
from firmware_sim.endpoint import DeviceEndpoint, Identity

KEY = bytes(range(32))  # the device key the test devices and drivers share
HOST_NONCE = b"H" * 16
DEV_NONCE = b"D" * 16


def host_frame(seq: int, ack: int, mtype: int, payload: bytes) -> bytes:
    """A host->device sequenced frame built by hand from docs/protocol.md, for the
    session that the ``fixed_nonces`` fixture sets up."""
    session = hmac.digest(KEY, b"tablectl-session-v1" + HOST_NONCE + DEV_NONCE, "sha256")
    length = 17 + len(payload)
    signed = bytes((length, length ^ 0xFF, 0x01, seq, ack, mtype)) + payload
    tag = hmac.digest(session, b"H" + seq.to_bytes(8, "big") + signed, "sha256")[:8]
    body = signed + tag
    return b"\xa5" + body + binascii.crc_hqx(body, 0xFFFF).to_bytes(2, "big")


class InProcessDevice:
    """A DeviceEndpoint served by a thread on one end of a MemoryTransport pair."""

    def __init__(self, identity: Identity, key: bytes = KEY) -> None:
        self.host_end, self.dev_end = MemoryTransport.pair(identity.kind.label)
        self.commands: queue.Queue[tuple[int, bytes]] = queue.Queue()
        self.endpoint = DeviceEndpoint(
            identity, key, self._write, lambda t, p: self.commands.put((t, p))
        )
        self.plugged = threading.Event()
        self.plugged.set()
        self.lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    def _write(self, data: bytes) -> None:
        # Unplugged: the frame is lost on the wire; the event stays in the backlog.
        with contextlib.suppress(TransportError):
            self.dev_end.write(data)

    def factory(self) -> MemoryTransport:
        """Transport factory for a driver: the host end of the current connection."""
        return self.host_end

    def unplug(self) -> None:
        with self.lock:
            self.plugged.clear()
            self.dev_end.close()
            self.endpoint.drop_session()

    def replug(self) -> None:
        with self.lock:
            self.host_end, self.dev_end = MemoryTransport.pair(self.endpoint.identity.kind.label)
            self.plugged.set()

    def _loop(self) -> None:
        while not self._stop.is_set():
            if not self.plugged.wait(0.05):
                continue
            with self.lock:
                deadline = min(self.endpoint.link.next_deadline(), time.monotonic() + 0.05)
                dev_end = self.dev_end
            try:
                data = dev_end.read(4096, deadline)
            except TransportError:
                continue
            with self.lock:
                if data:
                    self.endpoint.receive(data)
                self.endpoint.poll()

    def emit(self, mtype: m.MsgType, body: bytes = b"") -> int:
        with self.lock:
            event_id = self.endpoint.emit(mtype, body)
        self.dev_end.wake()
        return event_id

    def close(self) -> None:
        self._stop.set()
        self.plugged.set()
        self.dev_end.close()
        self._thread.join(2)


D = TypeVar("D", bound=DeviceDriver)


class Drivers:
    """The drivers a test starts, each stopped when the test ends however it ends: a
    driver left running goes on reconnecting (and logging) after the test."""

    def __init__(self) -> None:
        self._running: list[DeviceDriver] = []

    def start(self, driver: D) -> D:
        self._running.append(driver)
        driver.start()
        return driver

    def stop(self) -> None:
        """Stop them all now, before what they are connected to goes away."""
        running, self._running = self._running, []
        for driver in running:
            driver.stop()


def next_event(q: queue.Queue[m.Event], kind: type[m.Event], timeout: float = 3.0) -> m.Event:
    """The next event of ``kind`` (others before it are skipped)."""
    end = time.monotonic() + timeout
    while True:
        remaining = end - time.monotonic()
        if remaining <= 0:
            raise AssertionError(f"no {kind.__name__} within {timeout} s")
        try:
            event = q.get(timeout=remaining)
        except queue.Empty:
            continue
        if isinstance(event, kind):
            return event
