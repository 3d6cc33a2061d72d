"""The daemon's console API: JSON lines over Unix stream sockets (docs/api.md).

Three sockets in the runtime directory, each checked against its peer's credentials
(``SO_PEERCRED``, and ``SO_PEERGROUPS`` for supplementary groups):

* ``dealer.sock``: the dealer's commands, and the event stream;
* ``floor.sock``: the floorperson's commands, and the event stream;
* ``events.sock``: the event stream only (displays, monitors).

Which socket takes a command is decided in one place, ``ROLES``; the commands
themselves are discovered from ``controller.table.events`` at import, so a command
added there without a role stops the import (and its test) instead of being silently
unreachable or reachable by the wrong person.

Threads: one I/O thread owns every socket. The table's thread only calls ``publish``
(and ``handling``), which encode the entry and append it to a deque, then wake the I/O
thread: they never touch a socket, so a client that does not read cannot delay the
table. Each client has a bounded queue; a client whose queue overflows is sent one
``overflow`` notice and dropped. Commands go the other way through ``submit``, which
the I/O thread calls and which must not block.

The hole card never leaves through this API before the reveal (551.8(e)): the table
records it ``"card": null, "sealed": true``, and an entry that nevertheless carries a
card value under ``sealed`` is withheld here as well, as a ``withheld`` notice.
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import errno
import grp
import json
import os
import pwd
import re
import selectors
import socket
import stat
import struct
import threading
import time
import types
import typing
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import NamedTuple

import structlog

from controller.errors import TablectlError
from controller.table import events
from controller.table.events import Command

log = structlog.get_logger("controller.api")

VERSION = 1
MAX_LINE = 64 * 1024  # bytes in one request line, its newline not counted
QUEUE_LIMIT = 1024  # messages waiting for one client before it is dropped
DROP_GRACE = 2.0  # seconds a dropped client has to read its last notice
SOCKET_MODE = 0o660

# Linux's SO_PEERGROUPS (asm-generic; Python does not name it): the peer's
# supplementary groups, which SO_PEERCRED leaves out.
_SO_PEERGROUPS = getattr(socket, "SO_PEERGROUPS", 59)
_GROUPS_BUFFER = 1024  # the most Python's getsockopt takes: 256 groups


class Role(enum.Enum):
    """Who issues a console command, and so which socket takes it."""

    DEALER = "dealer"
    FLOOR = "floor"


# Every console command's role: the one place a command is given its socket.
ROLES: dict[str, Role] = {
    "wager": Role.DEALER,
    "player_leaves": Role.DEALER,
    "no_more_bets": Role.DEALER,
    "disclosed_card": Role.DEALER,
    "manual_shuffle": Role.DEALER,
    "decision": Role.DEALER,
    "exposed_card": Role.DEALER,
    "refuse_card": Role.DEALER,
    "dealer_overdraw": Role.DEALER,
    "missed_card": Role.DEALER,
    "card_not_dealt": Role.DEALER,
    "dealers_card": Role.DEALER,
    "new_dealer": Role.DEALER,
    "cards_spread": Role.DEALER,  # 551.5(h)
    "relinquish": Role.DEALER,
    "offer_answer": Role.DEALER,
    "floor_clear": Role.FLOOR,
    "permit_wagering": Role.FLOOR,  # 551.6(k)(1)
    "reshuffle": Role.FLOOR,  # 551.5(a), (g)
    "recut": Role.FLOOR,  # 551.5(f)
    "inspect_reader": Role.FLOOR,  # 551.2(e)
}

# The sockets, by name, and the role whose commands each takes (None: the stream only).
SOCKETS: dict[str, Role | None] = {"dealer": Role.DEALER, "floor": Role.FLOOR, "events": None}


class ApiError(TablectlError):
    """The API cannot start; the message is one line naming the path or the name."""


class RegistryError(TablectlError):
    """A console command the API cannot serve: no role, or a field it cannot build."""


# ---------------------------------------------------------------------- the registry


class _Kind(enum.Enum):
    INT = "int"
    STR = "str"
    BOOL = "bool"
    AMOUNT = "amount"  # Decimal | int: a JSON number, or a decimal string


_KINDS: dict[frozenset[object], _Kind] = {
    frozenset({int}): _Kind.INT,
    frozenset({str}): _Kind.STR,
    frozenset({bool}): _Kind.BOOL,
    frozenset({Decimal, int}): _Kind.AMOUNT,
}
_AMOUNT_TEXT = re.compile(r"-?[0-9]+(\.[0-9]+)?")


@dataclass(frozen=True, slots=True)
class FieldSpec:
    name: str
    kind: _Kind
    nullable: bool  # the type admits None: JSON null is accepted
    required: bool  # no default: the request must give it

    def describe(self) -> dict[str, object]:
        return {"type": self.kind.value, "null": self.nullable, "required": self.required}


@dataclass(frozen=True, slots=True)
class CommandSpec:
    cls: type[Command]
    role: Role
    fields: tuple[FieldSpec, ...]

    def build(self, args: Mapping[str, object]) -> Command:
        """The command from a request's ``args``; ``_Refused`` names the first bad field."""
        known = {f.name for f in self.fields}
        for key in args:
            if key not in known:
                raise _Refused("unknown_field", f"{self.cls.name} has no field {key!r}", field=key)
        values: dict[str, object] = {}
        for f in self.fields:
            if f.name in args:
                values[f.name] = _convert(self.cls.name, f, args[f.name])
            elif f.required:
                raise _Refused(
                    "missing_field", f"{self.cls.name} needs field {f.name!r}", field=f.name
                )
        return self.cls(**values)


def discover(module: types.ModuleType, roles: Mapping[str, Role]) -> dict[str, CommandSpec]:
    """Every ``Command`` subclass defined in ``module``, by name, with its role."""
    specs: dict[str, CommandSpec] = {}
    for obj in vars(module).values():
        if not (isinstance(obj, type) and issubclass(obj, Command)) or obj is Command:
            continue
        if obj.__module__ != module.__name__:
            continue  # imported from elsewhere
        name = getattr(obj, "name", None)
        if not isinstance(name, str):
            raise RegistryError(f"{obj.__name__}: a command needs a ClassVar name")
        if name not in roles:
            raise RegistryError(f"command {name!r} ({obj.__name__}) has no role in api.ROLES")
        if name in specs:
            raise RegistryError(f"command {name!r} is defined twice")
        if not dataclasses.is_dataclass(obj):
            raise RegistryError(f"command {name!r} ({obj.__name__}) is not a dataclass")
        specs[name] = CommandSpec(obj, roles[name], _field_specs(obj))
    return specs


def _field_specs(cls: type[Command]) -> tuple[FieldSpec, ...]:
    hints = typing.get_type_hints(cls)
    out = []
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        hint = hints[f.name]
        if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
            members = typing.get_args(hint)
        else:
            members = (hint,)
        nullable = type(None) in members
        kind = _KINDS.get(frozenset(m for m in members if m is not type(None)))
        if kind is None:
            raise RegistryError(
                f"command {cls.name!r} field {f.name!r}: the API cannot build a {hint}"
            )
        required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        out.append(FieldSpec(f.name, kind, nullable, required))
    return tuple(out)


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _as_amount(value: object) -> object:
    if _whole(value) or (isinstance(value, Decimal) and value.is_finite()):
        return value
    if isinstance(value, str) and _AMOUNT_TEXT.fullmatch(value):
        return Decimal(value)
    return None


# Each kind's reading of a JSON value: the field's value, or None when it does not fit.
_READERS: dict[_Kind, Callable[[object], object]] = {
    _Kind.INT: lambda value: value if _whole(value) else None,
    _Kind.STR: lambda value: value if isinstance(value, str) else None,
    _Kind.BOOL: lambda value: value if isinstance(value, bool) else None,
    _Kind.AMOUNT: _as_amount,
}
_EXPECTED = {
    _Kind.INT: "a whole number",
    _Kind.STR: "a string",
    _Kind.BOOL: "true or false",
    _Kind.AMOUNT: 'an amount (a JSON number or a decimal string such as "12.50")',
}


def _convert(command: str, spec: FieldSpec, value: object) -> object:
    if value is None and spec.nullable:
        return None
    converted = None if value is None else _READERS[spec.kind](value)
    if converted is not None:
        return converted
    expected = _EXPECTED[spec.kind] + (" or null" if spec.nullable else "")
    # The value itself is never echoed: it may be a card (551.8(e)).
    raise _Refused(
        "bad_type", f"{command}: field {spec.name!r} must be {expected}", field=spec.name
    )


COMMANDS: dict[str, CommandSpec] = discover(events, ROLES)


# ---------------------------------------------------------------------- access


@dataclass(frozen=True, slots=True)
class Peer:
    """A connected client's credentials, as the kernel gives them."""

    pid: int
    uid: int
    gid: int
    groups: tuple[int, ...]  # supplementary groups

    def describe(self) -> dict[str, object]:
        return {"pid": self.pid, "uid": self.uid, "gid": self.gid, "groups": list(self.groups)}


def peer_of(sock: socket.socket) -> Peer:
    creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    pid, uid, gid = struct.unpack("3i", creds)
    try:
        raw = sock.getsockopt(socket.SOL_SOCKET, _SO_PEERGROUPS, _GROUPS_BUFFER)
    except OSError as exc:
        if exc.errno != errno.ERANGE:
            raise
        raw = b""  # more groups than the buffer holds: uid and primary group only
    groups = struct.unpack(f"{len(raw) // 4}I", raw)
    return Peer(pid, uid, gid, tuple(sorted(groups)))


@dataclass(frozen=True, slots=True)
class Access:
    """Who may connect to one socket (a user in ``uids``, or a member of a group in
    ``gids``, primary or supplementary; nobody when both are empty), and the group the
    socket file is given (mode 0660). Users and groups by number or by name."""

    uids: tuple[int | str, ...] = ()
    gids: tuple[int | str, ...] = ()
    group: int | str | None = None


@dataclass(frozen=True, slots=True)
class _Policy:
    uids: frozenset[int]
    gids: frozenset[int]
    group: int | None

    @classmethod
    def of(cls, socket_name: str, access: Access) -> _Policy:
        return cls(
            frozenset(_uid(socket_name, u) for u in access.uids),
            frozenset(_gid(socket_name, g) for g in access.gids),
            None if access.group is None else _gid(socket_name, access.group),
        )

    def allows(self, peer: Peer) -> bool:
        return peer.uid in self.uids or not self.gids.isdisjoint({peer.gid, *peer.groups})


def _uid(socket_name: str, user: int | str) -> int:
    if isinstance(user, int):
        return user
    try:
        return pwd.getpwnam(user).pw_uid
    except KeyError:
        raise ApiError(f"{socket_name} socket: no such user {user!r}") from None


def _gid(socket_name: str, group: int | str) -> int:
    if isinstance(group, int):
        return group
    try:
        return grp.getgrnam(group).gr_gid
    except KeyError:
        raise ApiError(f"{socket_name} socket: no such group {group!r}") from None


# ---------------------------------------------------------------------- messages


class _Refused(Exception):
    """A request answered with an error; ``extra`` goes into the reply."""

    def __init__(self, code: str, message: str, **extra: object) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.extra = extra


def _json_default(value: object) -> object:
    if isinstance(value, Decimal):
        return str(value)  # exact, as the journal writes it
    raise TypeError(f"{type(value).__name__} is not JSON")


def _encode(message: Mapping[str, object]) -> bytes:
    return (json.dumps(message, separators=(",", ":"), default=_json_default) + "\n").encode()


def _request_id(request: Mapping[str, object]) -> str | int | None:
    """The request's ``id``, echoed in every reply to it: a string or a whole number."""
    value = request.get("id")
    if value is None or (isinstance(value, str | int) and not isinstance(value, bool)):
        return value
    raise _Refused("bad_request", "id must be a string or a whole number", field="id")


def _reject_constant(name: str) -> object:
    raise ValueError(f"{name} is not a JSON number")


def _carries_sealed_card(value: object) -> bool:
    """Whether anywhere in ``value`` a mapping marked sealed still holds a card."""
    if isinstance(value, Mapping):
        if value.get("sealed") and value.get("card") is not None:
            return True
        return any(_carries_sealed_card(v) for v in value.values())
    if isinstance(value, list | tuple):
        return any(_carries_sealed_card(v) for v in value)
    return False


@dataclass(frozen=True, slots=True)
class Ticket:
    """A command the API accepted: who sent it, and where its result goes."""

    number: int
    command: str
    socket: str
    peer: Peer
    request_id: str | int | None
    connection: int


# The daemon's side: queue ``command`` for the table's thread and return True, or
# return False when it cannot take it now. Called on the API's thread: never block.
Submit = Callable[[Command, Ticket], bool]


class _Out(NamedTuple):
    target: int | None  # a connection, or None: every subscriber
    seq: int | None
    data: bytes


@dataclass(slots=True)
class _Window:
    """What one command led to, while the table's thread handles it."""

    ticket: Ticket
    first: int | None = None
    last: int | None = None
    refused: tuple[int, object, object] | None = None  # seq, section, reason

    def saw(self, seq: int, entry: Mapping[str, object]) -> None:
        if self.first is None:
            self.first = seq
        self.last = seq
        if (
            self.refused is None
            and entry.get("type") == "refused"
            and entry.get("command") == self.ticket.command
        ):
            self.refused = (seq, entry.get("section"), entry.get("reason"))

    def result(self) -> dict[str, object]:
        msg: dict[str, object] = {
            "v": VERSION,
            "type": "result",
            "id": self.ticket.request_id,
            "ticket": self.ticket.number,
            "command": self.ticket.command,
            "outcome": "done" if self.refused is None else "refused",
            "first_seq": self.first,
            "last_seq": self.last,
        }
        if self.refused is not None:
            msg["refused_seq"], msg["section"], msg["reason"] = self.refused
        return msg


# ---------------------------------------------------------------------- the server


@dataclass(slots=True)
class _Listener:
    name: str
    role: Role | None
    policy: _Policy
    path: Path
    sock: socket.socket
    inode: int


@dataclass(slots=True, eq=False)
class _Conn:
    number: int
    sock: socket.socket
    listener: _Listener
    peer: Peer
    inbuf: bytearray = dataclasses.field(default_factory=bytearray)
    discarding: bool = False  # inside an over-long line: skip to its end
    out: deque[bytes] = dataclasses.field(default_factory=deque)
    offset: int = 0  # bytes of out[0] already sent
    interest: int = selectors.EVENT_READ
    subscribed: bool = False
    drop_at: float | None = None  # being dropped: closed once its notice is out, or then


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
    ) -> None:
        self.runtime_dir = Path(runtime_dir)
        self._submit = submit
        self._access = {"dealer": dealer, "floor": floor, "events": events}
        self._max_line = max_line
        self._queue_limit = queue_limit
        self._drop_grace = drop_grace
        self._listeners: list[_Listener] = []
        self._conns: dict[int, _Conn] = {}
        self._subscribers: dict[int, _Conn] = {}
        self._next_conn = 1
        self._next_ticket = 1
        self._last_seq: int | None = None  # the last entry handed to subscribers
        self._status: dict[str, object] | None = None  # the table's, as last set
        self._inbound: deque[_Out] = deque()
        self._wake_pending = False
        self._window: _Window | None = None
        self._stopping = False
        self._thread: threading.Thread | None = None
        self._sel: selectors.BaseSelector | None = None
        self._wake_r: socket.socket | None = None
        self._wake_w: socket.socket | None = None

    def path(self, name: str) -> Path:
        """Where socket ``name`` (``dealer``, ``floor``, ``events``) listens."""
        return self.runtime_dir / f"{name}.sock"

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> None:
        """Listen on the three sockets and start the API's thread. ``ApiError`` (one
        line) when the directory is missing, a name does not resolve, a path is taken
        by something that is not a socket, or a live process serves it already."""
        if not self.runtime_dir.is_dir():
            raise ApiError(f"{self.runtime_dir}: no such directory")
        policies = {name: _Policy.of(name, self._access[name]) for name in SOCKETS}
        try:
            for name, role in SOCKETS.items():
                self._listeners.append(self._listen(name, role, policies[name]))
        except ApiError:
            self._close_listeners()
            raise
        self._sel = selectors.DefaultSelector()
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._wake_w.setblocking(False)
        self._sel.register(self._wake_r, selectors.EVENT_READ, None)
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
            assert self._wake_w is not None
            with contextlib.suppress(OSError):
                self._wake_w.send(b"\0")
            self._thread.join()
            self._thread = None
        for conn in list(self._conns.values()):
            conn.sock.close()
        self._conns.clear()
        self._subscribers.clear()
        self._close_listeners()
        for closable in (self._sel, self._wake_r, self._wake_w):
            if closable is not None:
                closable.close()
        self._sel = self._wake_r = self._wake_w = None

    def __enter__(self) -> ApiServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _listen(self, name: str, role: Role | None, policy: _Policy) -> _Listener:
        path = self.path(name)
        _clear_stale(path)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.bind(str(path))
            # Mode and group are set before listen(): until then nobody can connect.
            os.chmod(path, SOCKET_MODE)
            if policy.group is not None:
                try:
                    os.chown(path, -1, policy.group)
                except PermissionError:
                    log.warning("api_socket_group_not_set", socket=name, gid=policy.group)
            sock.listen(16)
            sock.setblocking(False)
            inode = os.stat(path).st_ino
        except OSError as exc:
            sock.close()
            with contextlib.suppress(FileNotFoundError):
                if stat.S_ISSOCK(os.lstat(path).st_mode):
                    os.unlink(path)
            raise ApiError(f"{path}: cannot listen: {exc.strerror or exc}") from None
        return _Listener(name, role, policy, path, sock, inode)

    def _close_listeners(self) -> None:
        for lst in self._listeners:
            lst.sock.close()
            with contextlib.suppress(FileNotFoundError):
                if os.lstat(lst.path).st_ino == lst.inode:  # still ours, not a successor's
                    os.unlink(lst.path)
        self._listeners.clear()

    # ------------------------------------------------------------------ the table's side

    def publish(self, seq: int, entry: Mapping[str, object]) -> None:
        """Stream one journal entry, ``seq`` its journal sequence number. Called by the
        table's thread right after the entry is journaled; never blocks, never raises."""
        if self._window is not None:
            self._window.saw(seq, entry)
        if self._thread is None:
            return
        kind = entry.get("type")
        withheld: str | None = None
        data = b""
        if _carries_sealed_card(entry):
            withheld = "a card marked sealed carries a value (551.8(e))"
        else:
            try:
                data = _encode({"v": VERSION, "type": "event", "seq": seq, "entry": entry})
            except (TypeError, ValueError):
                withheld = "the entry is not JSON"
        if withheld is not None:
            log.error("api_entry_withheld", seq=seq, entry_type=str(kind), reason=withheld)
            data = _encode(
                {
                    "v": VERSION,
                    "type": "withheld",
                    "seq": seq,
                    "entry_type": kind if isinstance(kind, str) else None,
                    "reason": withheld,
                }
            )
        self._inbound.append(_Out(None, seq, data))
        self._wake()

    def set_status(self, status: Mapping[str, object]) -> None:
        """The table's state as a ``status`` request answers it (JSON values, never a
        card). Called by the table's thread; the API's thread only reads the snapshot."""
        self._status = dict(status)

    @contextlib.contextmanager
    def handling(self, ticket: Ticket) -> Iterator[None]:
        """Around the table's handling of ``ticket``'s command: the entries published
        meanwhile are its outcome, sent to its sender as one ``result``."""
        window = _Window(ticket)
        self._window = window
        try:
            yield
        finally:
            self._window = None
            if self._thread is not None:
                self._inbound.append(_Out(ticket.connection, None, _encode(window.result())))
                self._wake()

    def _wake(self) -> None:
        # One byte in flight is enough: the I/O thread drains the whole deque each time.
        if self._wake_pending or self._wake_w is None:
            return
        self._wake_pending = True
        with contextlib.suppress(OSError):
            self._wake_w.send(b"\0")

    # ------------------------------------------------------------------ the I/O thread

    def _run(self) -> None:
        assert self._sel is not None
        while not self._stopping:
            for key, mask in self._sel.select(self._timeout()):
                obj = key.data
                if obj is None:
                    self._drain_wake()
                elif isinstance(obj, _Listener):
                    self._accept(obj)
                elif obj.number in self._conns:
                    self._guarded(obj, mask)
            self._fan_out()
            self._expire_drops()

    def _timeout(self) -> float | None:
        deadlines = [c.drop_at for c in self._conns.values() if c.drop_at is not None]
        return max(0.0, min(deadlines) - time.monotonic()) if deadlines else None

    def _drain_wake(self) -> None:
        assert self._wake_r is not None
        with contextlib.suppress(BlockingIOError):
            while self._wake_r.recv(4096):
                pass
        # Cleared only once the bytes are gone, and before the deque is drained: a
        # publish that finds it set has appended before that drain.
        self._wake_pending = False

    def _accept(self, lst: _Listener) -> None:
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
            sock.setblocking(False)
            conn = _Conn(self._next_conn, sock, lst, peer)
            self._next_conn += 1
            self._conns[conn.number] = conn
            assert self._sel is not None
            self._sel.register(sock, selectors.EVENT_READ, conn)
            if not lst.policy.allows(conn.peer):
                log.warning("api_peer_refused", socket=lst.name, **conn.peer.describe())
                message = f"uid {conn.peer.uid} gid {conn.peer.gid} may not use {lst.name}.sock"
                self._enqueue(conn, self._error(_Refused("not_allowed", message), None))
                self._drop(conn)

    def _guarded(self, conn: _Conn, mask: int) -> None:
        # A bug in one connection's handling closes that connection, not the API. The
        # exception's text is not logged: it may hold a request's values.
        try:
            if mask & selectors.EVENT_READ:
                self._read(conn)
            if mask & selectors.EVENT_WRITE and conn.number in self._conns:
                self._flush(conn)
        except Exception as exc:
            log.error("api_connection_failed", connection=conn.number, error=type(exc).__name__)
            self._close(conn)

    def _read(self, conn: _Conn) -> None:
        try:
            data = conn.sock.recv(65536)
        except BlockingIOError:
            return
        except OSError:
            self._close(conn)
            return
        if not data:
            self._close(conn)
            return
        if conn.drop_at is not None:
            return  # being dropped: read only so that closing does not reset the connection
        conn.inbuf += data
        while conn.number in self._conns and conn.drop_at is None:
            end = conn.inbuf.find(b"\n")
            if end < 0:
                if len(conn.inbuf) > self._max_line:
                    if not conn.discarding:
                        self._too_long(conn)
                    conn.discarding = True
                    conn.inbuf.clear()
                return
            line = bytes(conn.inbuf[:end])
            del conn.inbuf[: end + 1]
            if conn.discarding:
                conn.discarding = False  # the end of the over-long line
            elif len(line) > self._max_line:
                self._too_long(conn)
            elif line.strip():
                self._enqueue(conn, self._answer(conn, line))

    def _too_long(self, conn: _Conn) -> None:
        message = f"a request line is at most {self._max_line} bytes"
        self._enqueue(conn, self._error(_Refused("line_too_long", message), None))

    def _answer(self, conn: _Conn, line: bytes) -> bytes:
        request_id: str | int | None = None
        try:
            try:
                request = json.loads(
                    line.decode("utf-8"), parse_float=Decimal, parse_constant=_reject_constant
                )
            except (UnicodeDecodeError, ValueError, RecursionError):  # too deep: not served
                raise _Refused("bad_json", "a request is one JSON object on one line") from None
            if not isinstance(request, dict):
                raise _Refused("bad_request", "a request is a JSON object")
            request_id = _request_id(request)
            version = request.get("v")
            if type(version) is not int or version != VERSION:
                raise _Refused(
                    "bad_version", f'every request carries "v": {VERSION}', supported=[VERSION]
                )
            reply = self._dispatch(conn, request)
        except _Refused as refused:
            log.info(
                "api_request_refused",
                socket=conn.listener.name,
                code=refused.code,
                uid=conn.peer.uid,
                pid=conn.peer.pid,
            )
            return self._error(refused, request_id)
        return _encode({"v": VERSION, "id": request_id, **reply})

    def _error(self, refused: _Refused, request_id: str | int | None) -> bytes:
        return _encode(
            {
                "v": VERSION,
                "type": "error",
                "id": request_id,
                "code": refused.code,
                "message": refused.message,
                **refused.extra,
            }
        )

    def _dispatch(self, conn: _Conn, request: dict[str, object]) -> dict[str, object]:
        op = request.get("op")
        if op not in ("hello", "subscribe", "status", "command"):
            raise _Refused(
                "bad_request",
                'op must be "hello", "subscribe", "status" or "command"',
                field="op",
            )
        allowed = {"v", "id", "op", "name", "args"} if op == "command" else {"v", "id", "op"}
        for key in request:
            if key not in allowed:
                raise _Refused("bad_request", f"unknown key {key!r}", field=key)
        if op == "hello":
            return self._hello(conn)
        if op == "subscribe":
            if not conn.subscribed:
                conn.subscribed = True
                self._subscribers[conn.number] = conn
            return {"type": "subscribed", "last_seq": self._last_seq}
        if op == "status":
            return {"type": "status", "last_seq": self._last_seq, "table": self._status}
        return self._command(conn, request)

    def _hello(self, conn: _Conn) -> dict[str, object]:
        role = conn.listener.role
        return {
            "type": "hello",
            "versions": [VERSION],
            "socket": conn.listener.name,
            "peer": conn.peer.describe(),
            "max_line": self._max_line,
            "commands": {
                name: {f.name: f.describe() for f in spec.fields}
                for name, spec in sorted(COMMANDS.items())
                if spec.role is role
            },
        }

    def _command(self, conn: _Conn, request: dict[str, object]) -> dict[str, object]:
        name = request.get("name")
        if not isinstance(name, str):
            raise _Refused("bad_request", "a command request names its command", field="name")
        spec = COMMANDS.get(name)
        if spec is None:
            raise _Refused("unknown_command", f"no command {name!r}")
        if spec.role is not conn.listener.role:
            raise _Refused(
                "wrong_socket",
                f"{name} is a {spec.role.value} command: send it on {spec.role.value}.sock",
                socket=spec.role.value,
            )
        args = request.get("args", {})
        if not isinstance(args, dict):
            raise _Refused("bad_request", "args must be a JSON object", field="args")
        command = spec.build(args)
        ticket = Ticket(
            self._next_ticket,
            name,
            conn.listener.name,
            conn.peer,
            _request_id(request),
            conn.number,
        )
        if not self._submit(command, ticket):
            raise _Refused("busy", "the table cannot take a command now: send it again")
        self._next_ticket += 1
        # The command's fields are not logged: a floorperson's card may be the hole card.
        log.info(
            "api_command_accepted",
            socket=conn.listener.name,
            command=name,
            ticket=ticket.number,
            uid=conn.peer.uid,
            pid=conn.peer.pid,
        )
        return {"type": "accepted", "ticket": ticket.number, "command": name}

    # ------------------------------------------------------------------ output

    def _fan_out(self) -> None:
        while self._inbound:
            out = self._inbound.popleft()
            if out.target is None:
                self._last_seq = out.seq
                for conn in list(self._subscribers.values()):
                    self._enqueue(conn, out.data, out.seq)
            elif out.target in self._conns:
                self._enqueue(self._conns[out.target], out.data)

    def _enqueue(self, conn: _Conn, data: bytes, seq: int | None = None) -> None:
        if conn.drop_at is not None or conn.number not in self._conns:
            return
        if len(conn.out) >= self._queue_limit:
            self._flush(conn)
            if len(conn.out) >= self._queue_limit:
                self._overflow(conn, seq)
                return
        conn.out.append(data)
        self._flush(conn)

    def _overflow(self, conn: _Conn, seq: int | None) -> None:
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
        conn.out.append(_encode(notice))
        log.warning("api_client_dropped", socket=conn.listener.name, pid=conn.peer.pid, seq=seq)
        self._drop(conn)

    def _drop(self, conn: _Conn) -> None:
        """Send what is queued (the last notice), then close: at once if it goes out,
        else after the grace period. Nothing more is queued for it or taken from it."""
        conn.drop_at = time.monotonic() + self._drop_grace
        conn.inbuf.clear()
        self._subscribers.pop(conn.number, None)
        conn.subscribed = False
        self._flush(conn)

    def _flush(self, conn: _Conn) -> None:
        while conn.out:
            head = conn.out[0]
            try:
                sent = conn.sock.send(memoryview(head)[conn.offset :])
            except BlockingIOError:
                break
            except OSError:
                self._close(conn)
                return
            conn.offset += sent
            if conn.offset < len(head):
                break
            conn.out.popleft()
            conn.offset = 0
        if conn.drop_at is not None and not conn.out:
            self._close(conn)
            return
        interest = selectors.EVENT_READ | (selectors.EVENT_WRITE if conn.out else 0)
        if interest != conn.interest:
            assert self._sel is not None
            self._sel.modify(conn.sock, interest, conn)
            conn.interest = interest

    def _expire_drops(self) -> None:
        now = time.monotonic()
        for conn in [c for c in self._conns.values() if c.drop_at is not None]:
            if conn.drop_at is not None and conn.drop_at <= now:
                self._close(conn)

    def _close(self, conn: _Conn) -> None:
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


def _clear_stale(path: Path) -> None:
    """Remove a socket file a crashed daemon left; refuse one a live process serves, and
    anything that is not a socket."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISSOCK(mode):
        raise ApiError(f"{path}: exists and is not a socket")
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(1.0)
    try:
        probe.connect(str(path))
    except ConnectionRefusedError:
        os.unlink(path)  # nobody listens: a crashed daemon's
        log.info("api_stale_socket_removed", path=str(path))
        return
    except (BlockingIOError, TimeoutError):
        raise ApiError(f"{path}: already served by a live process (not accepting)") from None
    except OSError as exc:
        raise ApiError(f"{path}: cannot check the socket: {exc.strerror or exc}") from None
    else:
        pid = peer_of(probe).pid
        raise ApiError(f"{path}: already served by a live process (pid {pid})")
    finally:
        probe.close()
