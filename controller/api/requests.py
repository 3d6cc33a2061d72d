"""Requests: each connection's lines read, answered and, for a command, submitted to
the table; and the ``result`` that command's entries make (docs/api.md).

Commands go to the table through ``Submit``, which the I/O thread calls and which must
not block. Nothing a request holds is logged or echoed: a floorperson's card may be the
hole card (551.8(e)).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import structlog

from controller.api import wire
from controller.api.access import Peer
from controller.api.commands import COMMANDS
from controller.api.fanout import Clients, Conn
from controller.api.wire import VERSION, Refused
from controller.table.events import Command

log = structlog.get_logger("controller.api")

MAX_LINE = 64 * 1024  # bytes in one request line, its newline not counted
MAX_LOGIN = 64  # characters in a command's ``login``
_OPS = ("hello", "subscribe", "status", "command")
_KEYS = frozenset({"v", "id", "op"})
_COMMAND_KEYS = _KEYS | {"name", "args", "login"}


@dataclass(frozen=True, slots=True)
class Ticket:
    """A command the API accepted: who sent it, and where its result goes."""

    number: int
    command: str
    socket: str
    peer: Peer
    request_id: str | int | None
    connection: int
    login: str | None = None  # who at the console sent it, as the request names them


# The daemon's side: queue ``command`` for the table's thread and return True, or
# return False when it cannot take it now. Called on the API's thread: never block.
Submit = Callable[[Command, Ticket], bool]


@dataclass(slots=True)
class Window:
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


class Requests:
    """Reads the clients' requests and answers each on its connection. ``status`` is
    the table's snapshot, as the table's thread last set it."""

    def __init__(self, clients: Clients, submit: Submit, max_line: int) -> None:
        self._clients = clients
        self._submit = submit
        self.max_line = max_line
        self._next_ticket = 1
        self.status: dict[str, object] | None = None

    def read(self, conn: Conn) -> None:
        try:
            data = conn.sock.recv(65536)
        except BlockingIOError:
            return
        except OSError:
            data = b""  # reset: closed as well
        if not data:
            self._clients.close_one(conn)
            return
        if conn.drop_at is not None:
            return  # being dropped: read only so that closing does not reset the connection
        conn.inbuf += data
        for line in conn.lines(self.max_line):
            if line is None:
                self._too_long(conn)
            else:
                self._clients.enqueue(conn, self._answer(conn, line))
            if not self._clients.alive(conn) or conn.drop_at is not None:
                return

    def refuse(self, conn: Conn, refused: Refused) -> None:
        """Answer ``conn`` with an error outside any request of its own."""
        self._clients.enqueue(conn, wire.error(refused, None))

    def _too_long(self, conn: Conn) -> None:
        self.refuse(
            conn, Refused("line_too_long", f"a request line is at most {self.max_line} bytes")
        )

    def _answer(self, conn: Conn, line: bytes) -> bytes:
        request_id: str | int | None = None
        try:
            request = wire.parse(line)
            request_id = wire.request_id(request)
            wire.check_version(request)
            reply = self._dispatch(conn, request)
        except Refused as refused:
            log.info(
                "api_request_refused",
                socket=conn.listener.name,
                code=refused.code,
                uid=conn.peer.uid,
                pid=conn.peer.pid,
            )
            return wire.error(refused, request_id)
        return wire.encode({"v": VERSION, "id": request_id, **reply})

    def _dispatch(self, conn: Conn, request: dict[str, object]) -> dict[str, object]:
        op = request.get("op")
        if op not in _OPS:
            raise Refused(
                "bad_request",
                'op must be "hello", "subscribe", "status" or "command"',
                field="op",
            )
        allowed = _COMMAND_KEYS if op == "command" else _KEYS
        for key in request:
            if key not in allowed:
                raise Refused("bad_request", f"unknown key {key!r}", field=key)
        if op == "hello":
            return self._hello(conn)
        if op == "subscribe":
            self._clients.subscribe(conn)
            return {"type": "subscribed", "last_seq": self._clients.last_seq}
        if op == "status":
            return {"type": "status", "last_seq": self._clients.last_seq, "table": self.status}
        return self._command(conn, request)

    def _hello(self, conn: Conn) -> dict[str, object]:
        role = conn.listener.role
        return {
            "type": "hello",
            "versions": [VERSION],
            "socket": conn.listener.name,
            "peer": conn.peer.describe(),
            "max_line": self.max_line,
            "commands": {
                name: {f.name: f.describe() for f in spec.fields}
                for name, spec in sorted(COMMANDS.items())
                if spec.role is role
            },
        }

    def _command(self, conn: Conn, request: dict[str, object]) -> dict[str, object]:
        name = request.get("name")
        if not isinstance(name, str):
            raise Refused("bad_request", "a command request names its command", field="name")
        spec = COMMANDS.get(name)
        if spec is None:
            raise Refused("unknown_command", f"no command {name!r}")
        if spec.role is not conn.listener.role:
            raise Refused(
                "wrong_socket",
                f"{name} is a {spec.role.value} command: send it on {spec.role.value}.sock",
                socket=spec.role.value,
            )
        args = request.get("args", {})
        if not isinstance(args, dict):
            raise Refused("bad_request", "args must be a JSON object", field="args")
        login = _login(request)
        command = spec.build(args)
        ticket = Ticket(
            self._next_ticket,
            name,
            conn.listener.name,
            conn.peer,
            wire.request_id(request),
            conn.number,
            login,
        )
        if not self._submit(command, ticket):
            raise Refused("busy", "the table cannot take a command now: send it again")
        self._next_ticket += 1
        # The command's fields are not logged: a floorperson's card may be the hole card.
        log.info(
            "api_command_accepted",
            socket=conn.listener.name,
            command=name,
            ticket=ticket.number,
            login=login,
            uid=conn.peer.uid,
            pid=conn.peer.pid,
        )
        return {"type": "accepted", "ticket": ticket.number, "command": name}


def _login(request: Mapping[str, object]) -> str | None:
    """The command's ``login``: who at the console sends it, 1 to 64 printable
    characters; None when the request names nobody."""
    if "login" not in request:
        return None
    login = request["login"]
    if not (isinstance(login, str) and 0 < len(login) <= MAX_LOGIN and login.isprintable()):
        raise Refused(
            "bad_request",
            f"login must be a string of 1 to {MAX_LOGIN} printable characters",
            field="login",
        )
    return login
