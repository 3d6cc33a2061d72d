"""The fan-out: the connected clients, each with a bounded queue of lines to send.

The API's I/O thread owns the clients and their selector. The table's thread, holding
the server's lock while the I/O thread is not at work, may deliver lines itself
(``deliver_all(..., direct=True)``): it only appends and sends without blocking, and
what a socket does not take at once, a selector change or a close, is left to the
I/O thread (``waiting``, ``finish``), so a client that does not read cannot delay the
table. A client whose queue overflows is sent one ``overflow`` notice and dropped:
what is queued goes out, then the connection is closed, at once or after a grace
period.

The hole card never leaves through this API before the reveal (551.8(e)): an entry
that carries a card value under ``sealed`` is streamed as a ``withheld`` notice.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import selectors
import socket
import time
from collections import deque
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Final, NamedTuple

import structlog

from controller.api.access import Peer
from controller.api.listeners import Listener
from controller.api.sealed import carries_sealed_card
from controller.api.wire import VERSION, encode, event, event_text

log = structlog.get_logger("controller.api")

QUEUE_LIMIT = 1024  # messages waiting for one client before it is dropped
DROP_GRACE = 2.0  # seconds a dropped client has to read its last notice
COALESCE: Final = 64  # lines sent to one client in one write at most


class Out(NamedTuple):
    target: int | None  # a connection, or None: every subscriber
    seq: int | None
    data: bytes


def event_line(seq: int, entry: Mapping[str, object], body: str | None = None) -> bytes:
    """The line streaming journal entry ``seq``: the entry (``body``, its journal row's
    text, when given), or a ``withheld`` notice when it carries a sealed card's value or
    is not JSON."""
    kind = entry.get("type")
    withheld: str | None = None
    data = b""
    if carries_sealed_card(entry):
        withheld = "a card marked sealed carries a value (551.8(e))"
    elif body is not None:
        data = event_text(seq, body)
    else:
        try:
            data = event(seq, entry)
        except (TypeError, ValueError):
            withheld = "the entry is not JSON"
    if withheld is None:
        return data
    log.error("api_entry_withheld", seq=seq, entry_type=str(kind), reason=withheld)
    return encode(
        {
            "v": VERSION,
            "type": "withheld",
            "seq": seq,
            "entry_type": kind if isinstance(kind, str) else None,
            "reason": withheld,
        }
    )


@dataclass(slots=True, eq=False)
class Conn:
    number: int
    sock: socket.socket
    listener: Listener
    peer: Peer
    inbuf: bytearray = dataclasses.field(default_factory=bytearray)
    discarding: bool = False  # inside an over-long line: skip to its end
    out: deque[bytes] = dataclasses.field(default_factory=deque)
    offset: int = 0  # bytes of out[0] already sent
    interest: int = selectors.EVENT_READ
    subscribed: bool = False
    drop_at: float | None = None  # being dropped: closed once its notice is out, or then

    def lines(self, max_line: int) -> Iterator[bytes | None]:
        """The complete lines received, each taken from ``inbuf`` before it is yielded;
        None for a line longer than ``max_line``, once, however long it goes on."""
        while True:
            end = self.inbuf.find(b"\n")
            if end < 0:
                if len(self.inbuf) > max_line:
                    report = not self.discarding
                    self.discarding = True
                    self.inbuf.clear()
                    if report:
                        yield None
                return
            line = bytes(self.inbuf[:end])
            del self.inbuf[: end + 1]
            if self.discarding:
                self.discarding = False  # the end of the over-long line
            elif len(line) > max_line:
                yield None
            elif line.strip():
                yield line


def _unsent(conn: Conn) -> bytes | memoryview:
    """What ``conn`` is yet to be sent, from its first line's unsent part: several
    lines in one write (up to ``COALESCE`` of them)."""
    head = memoryview(conn.out[0])[conn.offset :]
    if len(conn.out) == 1:
        return head
    return b"".join([head, *itertools.islice(conn.out, 1, COALESCE)])


def _sent(conn: Conn, sent: int) -> int:
    """``sent`` bytes of what ``_unsent`` gave went out: the lines they finish leave
    ``conn``'s queue; what they sent of the next one (0: none of it)."""
    sent += conn.offset  # from the start of the first line
    while conn.out and sent >= len(conn.out[0]):
        sent -= len(conn.out.popleft())
    conn.offset = sent
    return sent


class Clients:
    """The open connections, the subscribers among them, and what each is yet to be
    sent. ``open`` gives it the I/O thread's selector, ``close`` closes them all."""

    def __init__(self, queue_limit: int, drop_grace: float) -> None:
        self._queue_limit = queue_limit
        self._drop_grace = drop_grace
        self._conns: dict[int, Conn] = {}
        self._subscribers: dict[int, Conn] = {}
        self._next_conn = 1
        self._sel: selectors.BaseSelector | None = None
        self.last_seq: int | None = None  # the last entry handed to subscribers
        self._direct = False  # delivering on the table's thread: no selector, no close
        self.waiting: dict[int, Conn] = {}  # left by the table's thread for the I/O thread

    def open(self, sel: selectors.BaseSelector) -> None:
        self._sel = sel

    def close(self) -> None:
        for conn in list(self._conns.values()):
            conn.sock.close()
        self._conns.clear()
        self._subscribers.clear()
        self._sel = None

    def add(self, sock: socket.socket, listener: Listener, peer: Peer) -> Conn:
        sock.setblocking(False)
        conn = Conn(self._next_conn, sock, listener, peer)
        self._next_conn += 1
        self._conns[conn.number] = conn
        assert self._sel is not None
        self._sel.register(sock, selectors.EVENT_READ, conn)
        return conn

    def alive(self, conn: Conn) -> bool:
        return conn.number in self._conns

    def count(self, listener: Listener) -> int:
        """The connections served on ``listener``'s socket (not those being dropped)."""
        return sum(1 for c in self._conns.values() if c.listener is listener and c.drop_at is None)

    def subscribe(self, conn: Conn) -> None:
        if not conn.subscribed:
            conn.subscribed = True
            self._subscribers[conn.number] = conn

    def timeout(self) -> float | None:
        """Until the next dropped client's grace period ends; None: no deadline."""
        deadlines = [c.drop_at for c in self._conns.values() if c.drop_at is not None]
        return max(0.0, min(deadlines) - time.monotonic()) if deadlines else None

    @property
    def subscribers(self) -> int:
        return len(self._subscribers)

    def deliver_all(self, outs: Iterable[Out], direct: bool = False) -> bool:
        """What the table's thread queued, each line to its connection or to every
        subscriber; each connection sent what it got in as few writes as it takes.
        ``direct``: on the table's thread; whether it left work for the I/O thread."""
        self._direct = direct
        try:
            self._deliver(outs)
        finally:
            self._direct = False
        return bool(self.waiting)

    def finish(self) -> None:
        """On the I/O thread: what the table's thread left (the rest of a line, write
        interest, a close)."""
        waiting, self.waiting = self.waiting, {}
        for conn in waiting.values():
            if self.alive(conn):
                self.flush(conn)

    def _deliver(self, outs: Iterable[Out]) -> None:
        touched: dict[int, Conn] = {}
        for out in outs:
            if out.target is None:
                self.last_seq = out.seq
                for conn in list(self._subscribers.values()):
                    self.enqueue(conn, out.data, out.seq, flush=False)
                    touched[conn.number] = conn
            elif out.target in self._conns:
                conn = self._conns[out.target]
                self.enqueue(conn, out.data, flush=False)
                touched[conn.number] = conn
        for conn in touched.values():
            if conn.out and self.alive(conn):
                self.flush(conn)

    def enqueue(self, conn: Conn, data: bytes, seq: int | None = None, flush: bool = True) -> None:
        """Queue ``data`` for ``conn``, sent at once unless ``flush`` is False (the
        caller flushes it)."""
        if conn.drop_at is not None or conn.number not in self._conns:
            return
        if len(conn.out) >= self._queue_limit:
            self.flush(conn)
            if len(conn.out) >= self._queue_limit:
                self._overflow(conn, seq)
                return
        conn.out.append(data)
        if flush:
            self.flush(conn)

    def _overflow(self, conn: Conn, seq: int | None) -> None:
        # The line being sent is finished first, so the notice stays a line of its own.
        keep = conn.out[0] if conn.offset else None
        conn.out.clear()
        if keep is not None:
            conn.out.append(keep)
        notice = {
            "v": VERSION,
            "type": "overflow",
            "missed_from": seq,
            "limit": self._queue_limit,
            "message": "this client did not read fast enough and is disconnected",
        }
        conn.out.append(encode(notice))
        log.warning("api_client_dropped", socket=conn.listener.name, pid=conn.peer.pid, seq=seq)
        self.drop(conn)

    def drop(self, conn: Conn) -> None:
        """Send what is queued (the last notice), then close: at once if it goes out,
        else after the grace period. Nothing more is queued for it or taken from it."""
        conn.drop_at = time.monotonic() + self._drop_grace
        conn.inbuf.clear()
        self._subscribers.pop(conn.number, None)
        conn.subscribed = False
        self.flush(conn)

    def flush(self, conn: Conn) -> None:
        while conn.out:
            data = _unsent(conn)
            try:
                sent = conn.sock.send(data)
            except BlockingIOError:
                break
            except OSError:
                self._close_soon(conn)
                return
            if _sent(conn, sent):
                break  # the socket took part of a line: the rest when it is writable
        if conn.drop_at is not None and not conn.out:
            self._close_soon(conn)
            return
        interest = selectors.EVENT_READ | (selectors.EVENT_WRITE if conn.out else 0)
        if interest != conn.interest:
            if self._direct:
                self.waiting[conn.number] = conn  # the selector is the I/O thread's
                return
            assert self._sel is not None
            self._sel.modify(conn.sock, interest, conn)
            conn.interest = interest

    def _close_soon(self, conn: Conn) -> None:
        """Closed now on the I/O thread; on the table's thread, by the I/O thread next
        (its flush sees the same error or end)."""
        if self._direct:
            self.waiting[conn.number] = conn
        else:
            self.close_one(conn)

    def expire_drops(self) -> None:
        now = time.monotonic()
        for conn in [c for c in self._conns.values() if c.drop_at is not None]:
            if conn.drop_at is not None and conn.drop_at <= now:
                self.close_one(conn)

    def close_one(self, conn: Conn) -> None:
        if self._conns.pop(conn.number, None) is None:
            return
        self._subscribers.pop(conn.number, None)
        assert self._sel is not None
        with contextlib.suppress(KeyError, ValueError):
            self._sel.unregister(conn.sock)
        # Input left unread would make the kernel reset the connection, and the peer
        # could lose the last lines sent to it (a refusal, an overflow notice).
        with contextlib.suppress(OSError):
            for _ in range(16):
                if not conn.sock.recv(65536):
                    break
        conn.sock.close()
