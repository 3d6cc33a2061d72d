"""The console API's server: its lifecycle, the table's side, and the I/O thread.

Threads: one I/O thread owns the listening sockets, the connections' reading and the
selector. The table's thread calls ``publish`` (and ``handling``), which encode the
entry and queue it; at a wake (once for a transaction's entries) it sends the queued
lines itself when the I/O thread is not at work and few clients subscribe (``_send``):
without blocking, neither on a socket nor on the lock, so a client that does not read
cannot delay the table. Otherwise, and for what a socket did not take at once, the
I/O thread is woken. Lines go out in the order queued either way: both threads take
them from the ``Inbox`` under the server's lock. A card's line so costs no wake-up of
the I/O thread and no hand-over of the GIL to it (docs/benchmarks.md, issue 10).
"""

from __future__ import annotations

import contextlib
import os
import selectors
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path

import structlog

from controller.api.access import Access, peer_of
from controller.api.fanout import DROP_GRACE, QUEUE_LIMIT, Clients, Conn, Out, event_line
from controller.api.inbox import Inbox
from controller.api.listeners import Listener, close_listeners, open_listeners, socket_path
from controller.api.requests import MAX_LINE, Requests, Submit, Ticket, Window
from controller.api.wire import Refused, encode

log = structlog.get_logger("controller.api")

MAX_CLIENTS = 64  # connections served at once on each socket; the next is told so
DIRECT_LIMIT = 8  # subscribers the table's thread sends to itself; past it, the I/O thread


class ApiServer:
    """The console API of one table. ``start`` listens, ``close`` stops and unlinks.

    ``publish`` and ``handling`` are for the table's thread; everything else about the
    sockets happens on the API's own thread."""

    def __init__(
        self,
        runtime_dir: str | os.PathLike[str],
        submit: Submit,
        *,
        dealer: Access,
        floor: Access,
        events: Access,
        max_line: int = MAX_LINE,
        queue_limit: int = QUEUE_LIMIT,
        drop_grace: float = DROP_GRACE,
        max_clients: int = MAX_CLIENTS,
    ) -> None:
        self.runtime_dir = Path(runtime_dir)
        self._access = {"dealer": dealer, "floor": floor, "events": events}
        self._listeners: list[Listener] = []
        self._clients = Clients(queue_limit, drop_grace)
        self._requests = Requests(self._clients, submit, max_line)
        self._inbox = Inbox()
        self._window: Window | None = None
        self._max_clients = max_clients
        self._crowding: dict[str, bool] = {}  # a socket's flood, logged once
        self._stopping = False
        self._thread: threading.Thread | None = None
        self._sel: selectors.BaseSelector | None = None
        # The clients' state, held by the I/O thread while it works and by the table's
        # thread while it sends (``_send``, which never waits for it).
        self._lock = threading.Lock()

    def path(self, name: str) -> Path:
        """Where socket ``name`` (``dealer``, ``floor``, ``events``) listens."""
        return socket_path(self.runtime_dir, name)

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> None:
        """Listen on the three sockets and start the API's thread. ``ApiError`` (one
        line) when the directory is missing, a name does not resolve, a path is taken
        by something that is not a socket, or a live process serves it already."""
        self._listeners = open_listeners(self.runtime_dir, self._access)
        self._sel = selectors.DefaultSelector()
        self._clients.open(self._sel)
        self._sel.register(self._inbox.open(), selectors.EVENT_READ, None)
        for lst in self._listeners:
            self._sel.register(lst.sock, selectors.EVENT_READ, lst)
        self._stopping = False
        self._thread = threading.Thread(target=self._run, name="tablectl-api", daemon=True)
        self._thread.start()
        log.info("api_listening", dir=str(self.runtime_dir))

    def close(self) -> None:
        """Stop the API's thread, close every connection and unlink the sockets."""
        if self._thread is not None:
            self._stopping = True
            self._inbox.stop()
            self._thread.join()
            self._thread = None
        with self._lock:
            self._clients.close()
        close_listeners(self._listeners)
        if self._sel is not None:
            self._sel.close()
        self._sel = None
        self._inbox.close()

    def __enter__(self) -> ApiServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ the table's side

    def publish(
        self, seq: int, entry: Mapping[str, object], wake: bool = True, body: str | None = None
    ) -> None:
        """Stream one journal entry, ``seq`` its journal sequence number. Called by the
        table's thread right after the entry is journaled; never blocks, never raises.
        ``wake`` False: the lines wait for the next ``wake`` (a transaction's entries,
        sent together). ``body``: the row's canonical JSON, streamed as it is (the
        entry is encoded once)."""
        if self._window is not None:
            self._window.saw(seq, entry)
        if self._thread is None:
            return
        self._inbox.put(Out(None, seq, event_line(seq, entry, body)))
        if wake:
            self._send()

    def wake(self) -> None:
        """Send what ``publish`` queued with ``wake`` False."""
        self._send()

    def _send(self) -> None:
        """The queued lines, sent on this (the table's) thread when the I/O thread is
        not at work and at most ``DIRECT_LIMIT`` clients subscribe; otherwise, or for
        what a client did not take at once, the I/O thread woken for them."""
        if self._thread is None:
            return
        if self._clients.subscribers <= DIRECT_LIMIT and self._lock.acquire(blocking=False):
            try:
                left = self._clients.deliver_all(self._inbox.take(), direct=True)
            finally:
                self._lock.release()
            if not left:
                return
        self._inbox.wake()

    def set_status(self, status: Mapping[str, object]) -> None:
        """The table's state as a ``status`` request answers it (JSON values, never a
        card). Called by the table's thread; the API's thread only reads the snapshot."""
        self._requests.status = dict(status)

    @contextlib.contextmanager
    def handling(self, ticket: Ticket) -> Iterator[None]:
        """Around the table's handling of ``ticket``'s command: the entries published
        meanwhile are its outcome, sent to its sender as one ``result``."""
        window = Window(ticket)
        self._window = window
        try:
            yield
        finally:
            self._window = None
            if self._thread is not None:
                self._inbox.put(Out(ticket.connection, None, encode(window.result())))
                self._send()

    # ------------------------------------------------------------------ the I/O thread

    def _run(self) -> None:
        assert self._sel is not None
        timeout: float | None = None
        while not self._stopping:
            ready = self._sel.select(timeout)
            with self._lock:
                for key, mask in ready:
                    obj = key.data
                    if obj is None:
                        self._inbox.drain_wake()
                    elif isinstance(obj, Listener):
                        self._accept(obj)
                    elif self._clients.alive(obj):
                        self._guarded(obj, mask)
                self._clients.deliver_all(self._inbox.take())
                self._clients.finish()
                self._clients.expire_drops()
                timeout = self._clients.timeout()

    def _accept(self, lst: Listener) -> None:
        while True:
            try:
                sock, _ = lst.sock.accept()
            except BlockingIOError:
                return
            except OSError as exc:
                log.warning("api_accept_failed", socket=lst.name, errno=exc.errno)
                return
            try:
                peer = peer_of(sock)
            except OSError as exc:
                log.warning("api_peer_unknown", socket=lst.name, errno=exc.errno)
                sock.close()
                continue
            served = self._clients.count(lst)
            conn = self._clients.add(sock, lst, peer)
            if not lst.policy.allows(conn.peer):
                log.warning("api_peer_refused", socket=lst.name, **conn.peer.describe())
                message = f"uid {conn.peer.uid} gid {conn.peer.gid} may not use {lst.name}.sock"
                self._requests.refuse(conn, Refused("not_allowed", message))
                self._clients.drop(conn)
            elif served >= self._max_clients:
                self._crowded(conn, lst)
            else:
                self._crowding[lst.name] = False

    def _crowded(self, conn: Conn, lst: Listener) -> None:
        """One client past ``max_clients`` on a socket: told so in one line, closed."""
        if not self._crowding.get(lst.name):
            # Once until a client is served again, not once per client of a flood.
            self._crowding[lst.name] = True
            log.warning("api_too_many_clients", socket=lst.name, limit=self._max_clients)
        message = f"{self._max_clients} clients use {lst.name}.sock already: try again later"
        self._requests.refuse(conn, Refused("too_many_clients", message))
        self._clients.drop(conn)

    def _guarded(self, conn: Conn, mask: int) -> None:
        # A bug in one connection's handling closes that connection, not the API. The
        # exception's text is not logged: it may hold a request's values.
        try:
            if mask & selectors.EVENT_READ:
                self._requests.read(conn)
            if mask & selectors.EVENT_WRITE and self._clients.alive(conn):
                self._clients.flush(conn)
        except Exception as exc:
            log.error("api_connection_failed", connection=conn.number, error=type(exc).__name__)
            self._clients.close_one(conn)
