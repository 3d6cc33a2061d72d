"""A device's firmware (``DeviceEndpoint``) on the master side of a real
pseudo-terminal, served by a thread of its own, and the host's serial transport with
its writes noted: for driver tests that go through a real pty."""

from __future__ import annotations

import contextlib
import os
import queue
import select
import threading
import time
import tty

from drivers import messages as m
from drivers.transport import SerialTransport
from firmware_sim.endpoint import DeviceEndpoint, Identity
from tests.support.devices import KEY

SHOE = Identity(m.DeviceKind.SHOE, "SIM-SHOE", "SHOE-1", "1.0.0")


class SpiedPort(SerialTransport):
    """The host's real serial transport, each of its writes noted."""

    def __init__(self, path: str, writes: list[bytes]) -> None:
        super().__init__(path)
        self._writes = writes

    def write(self, data: bytes) -> None:
        self._writes.append(bytes(data))
        super().write(data)


class PtyShoe:
    """A device's firmware (a shoe's unless ``identity`` says otherwise) on the master
    side of a pseudo-terminal, each read it makes of what the host wrote noted."""

    def __init__(self, identity: Identity = SHOE) -> None:
        self.master, self._slave = os.openpty()
        tty.setraw(self._slave)
        self.path = os.ttyname(self._slave)
        self.reads: list[bytes] = []
        self.commands: queue.Queue[tuple[int, bytes]] = queue.Queue()
        self.lock = threading.Lock()
        self.endpoint = DeviceEndpoint(
            identity, KEY, self._write, lambda t, p: self.commands.put((t, p))
        )
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    def _write(self, data: bytes) -> None:
        os.write(self.master, data)

    def _loop(self) -> None:
        while not self._stop.is_set():
            with self.lock:
                wait = max(0.0, min(self.endpoint.link.next_deadline() - time.monotonic(), 0.05))
            ready, _, _ = select.select([self.master], [], [], wait)
            with self.lock:
                if ready:
                    data = os.read(self.master, 65536)
                    self.reads.append(data)
                    self.endpoint.receive(data)
                self.endpoint.poll()

    def emit(self, mtype: m.MsgType, body: bytes = b"") -> int:
        with self.lock:
            return self.endpoint.emit(mtype, body)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2)
        for fd in (self.master, self._slave):
            with contextlib.suppress(OSError):
                os.close(fd)
