"""The API's fan-out on a real socket pair: the lines a wake brings are delivered
together and sent in as few writes as the socket takes, byte for byte and in order,
however the kernel splits them (a socket that takes part of a line at a time). On the
table's thread (``direct``), what a socket does not take at once and a peer that is
gone are left to the I/O thread, which alone touches the selector and closes."""

from __future__ import annotations

import contextlib
import selectors
import socket
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

from controller.api.access import Peer
from controller.api.fanout import Clients, Out


def _client(clients: Clients, sock: socket.socket) -> Any:
    listener: Any = SimpleNamespace(name="events")  # all a subscriber's delivery reads
    return clients.add(sock, listener, Peer(pid=1, uid=0, gid=0, groups=()))


@contextlib.contextmanager
def _subscriber(
    sndbuf: int | None = None,
) -> Iterator[tuple[Clients, selectors.BaseSelector, Any, socket.socket]]:
    """Clients with one subscriber on a socket pair (its send buffer ``sndbuf``): the
    clients, their selector, the connection and the peer's end."""
    ours, theirs = socket.socketpair()
    if sndbuf is not None:
        ours.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, sndbuf)
    clients = Clients(queue_limit=1024, drop_grace=1.0)
    with selectors.DefaultSelector() as sel:
        clients.open(sel)
        conn = _client(clients, ours)
        clients.subscribe(conn)
        yield clients, sel, conn, theirs
        clients.close()
    theirs.close()


def _long_lines() -> list[bytes]:
    """Lines that fill a 4 KB send buffer many times over."""
    return [(str(n) * 997)[: 500 + 37 * n].encode() + b"\n" for n in range(200)]


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
    with _subscriber(sndbuf=4096) as (clients, _, conn, theirs):
        lines = _long_lines()
        clients.deliver_all(Out(None, n, line) for n, line in enumerate(lines))
        assert conn.out  # the socket is full: the rest waits, the first line's part kept
        expected = b"".join(lines)
        got = b""
        while len(got) < len(expected):
            got += theirs.recv(65536)
            clients.flush(conn)  # as the I/O thread does once the socket is writable
        assert got == expected and not conn.out and conn.offset == 0


def test_what_a_socket_does_not_take_at_once_from_the_tables_thread_is_the_io_threads() -> None:
    with _subscriber(sndbuf=4096) as (clients, sel, conn, theirs):
        ours = conn.sock
        lines = _long_lines()
        left = clients.deliver_all((Out(None, n, line) for n, line in enumerate(lines)), True)
        assert left and conn.out and clients.waiting == {conn.number: conn}
        assert sel.get_key(ours).events == selectors.EVENT_READ  # the selector untouched
        clients.finish()  # the I/O thread, woken
        assert sel.get_key(ours).events == selectors.EVENT_READ | selectors.EVENT_WRITE
        assert not clients.waiting
        expected, got = b"".join(lines), b""
        while len(got) < len(expected):
            got += theirs.recv(65536)
            clients.flush(conn)  # as the I/O thread does once the socket is writable
        assert got == expected and not conn.out
        assert sel.get_key(ours).events == selectors.EVENT_READ


def test_a_peer_gone_is_closed_by_the_io_thread_not_by_the_tables() -> None:
    with _subscriber() as (clients, sel, conn, theirs):
        ours = conn.sock
        theirs.close()
        assert clients.deliver_all([Out(None, 1, b'{"seq":1}\n')], direct=True)
        assert clients.alive(conn) and ours.fileno() >= 0  # still open, still registered
        assert sel.get_key(ours).data is conn
        clients.finish()
        assert not clients.alive(conn) and ours.fileno() == -1
        assert not sel.get_map()  # unregistered
