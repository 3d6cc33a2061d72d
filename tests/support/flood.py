"""Many clients connecting to one Unix socket at once, as a flood of consoles would:
non-blocking connects, then what each was told before anyone asked."""

from __future__ import annotations

import json
import selectors
import socket
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class Flooded:
    sock: socket.socket
    data: bytes = b""
    closed: bool = False  # the server closed it (end of file, or a reset)
    lines: list[dict[str, Any]] = field(default_factory=list)


def flood(path: Path, count: int) -> list[Flooded]:
    """``count`` non-blocking connects to ``path``, all at once; each must get through
    (a full listen queue fails one with BlockingIOError, which ends the test)."""
    clients = []
    for _ in range(count):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.setblocking(False)
        sock.connect(str(path))
        clients.append(Flooded(sock))
    return clients


def told(clients: list[Flooded], closed: int, timeout: float = 20.0) -> None:
    """Read what the server sends unasked until ``closed`` of ``clients`` are closed by
    it, then a moment more; each one's lines parsed."""
    with selectors.DefaultSelector() as sel:
        for client in clients:
            sel.register(client.sock, selectors.EVENT_READ, client)
        deadline = time.monotonic() + timeout
        settle: float | None = None
        while settle is None or time.monotonic() < settle:
            assert time.monotonic() < deadline, f"{sum(c.closed for c in clients)} closed"
            for key, _ in sel.select(0.05):
                client = key.data
                try:
                    chunk = client.sock.recv(65536)
                except ConnectionResetError:
                    chunk = b""
                if chunk:
                    client.data += chunk
                    continue
                client.closed = True
                sel.unregister(client.sock)
            if settle is None and sum(c.closed for c in clients) >= closed:
                settle = time.monotonic() + 0.3
    for client in clients:
        client.lines = [json.loads(line) for line in client.data.splitlines()]


def close_all(clients: list[Flooded]) -> None:
    for client in clients:
        client.sock.close()


def ask_hello(client: Flooded, timeout: float = 10.0) -> dict[str, Any]:
    """``hello`` on a flooded client the server kept; its answer."""
    client.sock.setblocking(True)
    client.sock.settimeout(timeout)
    client.sock.sendall(b'{"v":1,"op":"hello"}\n')
    data = b""
    while b"\n" not in data:
        chunk = client.sock.recv(65536)
        assert chunk, "a client the server should serve was closed"
        data += chunk
    reply: dict[str, Any] = json.loads(data.partition(b"\n")[0])
    return reply
