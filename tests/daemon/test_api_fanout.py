"""The API's fan-out on a real socket pair: the lines a wake brings are delivered
together and sent in as few writes as the socket takes, byte for byte and in order,
however the kernel splits them (a socket that takes part of a line at a time)."""

from __future__ import annotations

import selectors
import socket
from types import SimpleNamespace
from typing import Any

from controller.api.access import Peer
from controller.api.fanout import Clients, Out


def _client(clients: Clients, sock: socket.socket) -> Any:
    listener: Any = SimpleNamespace(name="events")  # all a subscriber's delivery reads
    return clients.add(sock, listener, Peer(pid=1, uid=0, gid=0, groups=()))


def _read(sock: socket.socket, size: int) -> bytes:
    got = b""
    while len(got) < size:
        got += sock.recv(size - len(got))
    return got


def test_a_wakes_lines_reach_each_subscriber_whole_and_in_order() -> None:
    ours, theirs = socket.socketpair()
    clients = Clients(queue_limit=1024, drop_grace=1.0)
    with selectors.DefaultSelector() as sel:
        clients.open(sel)
        conn = _client(clients, ours)
        clients.subscribe(conn)
        lines = [f'{{"seq":{n},"pad":"{"x" * n}"}}\n'.encode() for n in range(1, 40)]
        clients.deliver_all(Out(None, n, line) for n, line in enumerate(lines, 1))
        assert not conn.out  # all of it taken by the socket
        assert clients.last_seq == len(lines)
        assert _read(theirs, sum(map(len, lines))) == b"".join(lines)
        clients.close()
    theirs.close()


def test_a_socket_that_takes_part_of_a_line_gets_the_rest_later_byte_for_byte() -> None:
    ours, theirs = socket.socketpair()
    ours.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    clients = Clients(queue_limit=1024, drop_grace=1.0)
    with selectors.DefaultSelector() as sel:
        clients.open(sel)
        conn = _client(clients, ours)
        clients.subscribe(conn)
        lines = [(str(n) * 997)[: 500 + 37 * n].encode() + b"\n" for n in range(200)]
        clients.deliver_all(Out(None, n, line) for n, line in enumerate(lines))
        assert conn.out  # the socket is full: the rest waits, the first line's part kept
        expected = b"".join(lines)
        got = b""
        while len(got) < len(expected):
            got += theirs.recv(65536)
            clients.flush(conn)  # as the I/O thread does once the socket is writable
        assert got == expected and not conn.out and conn.offset == 0
        clients.close()
    theirs.close()
