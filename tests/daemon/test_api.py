"""The console API over real Unix sockets in a temporary directory: the command registry
and its roles, request validation, peer credentials, the event stream (the hole card
withheld, 551.8(e)), slow subscribers, and the socket files' lifecycle."""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import json
import os
import queue
import re
import socket
import stat
import subprocess
import sys
import time
import types
from collections import deque
from collections.abc import Callable, Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from controller import api
from controller.api import COMMANDS, ROLES, Access, ApiError, ApiServer, RegistryError, Role
from controller.rules.baccarat import BaccaratRules
from controller.table import events
from controller.table.baccarat import BaccaratTable
from controller.table.events import (
    CardNotDealt,
    Command,
    Decision,
    FloorClear,
    MissedCard,
    NoMoreBets,
    Relinquish,
    Wager,
)
from drivers import messages as m
from tests.support.flood import ask_hello, close_all, flood, told
from tests.support.paths import ROOT
from tests.support.tables import Devices

ME = Access(uids=(os.getuid(),))
NOT_MY_GROUP = max([os.getgid(), *os.getgroups()]) + 1
TIMEOUT = 5.0


class Client:
    """One connection to an API socket, speaking JSON lines; keeps every byte read."""

    def __init__(self, path: Path) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(TIMEOUT)
        self.sock.connect(str(path))
        self.partial = b""
        self.lines: deque[bytes] = deque()
        self.received = bytearray()

    def send(self, message: dict[str, Any]) -> None:
        self.raw(json.dumps(message).encode() + b"\n")

    def raw(self, data: bytes) -> None:
        self.sock.sendall(data)

    def recv(self) -> dict[str, Any]:
        while not self.lines:
            data = self.sock.recv(65536)
            if not data:
                raise EOFError("the server closed the connection")
            self.received += data
            *complete, self.partial = (self.partial + data).split(b"\n")
            self.lines.extend(complete)
        message: dict[str, Any] = json.loads(self.lines.popleft(), parse_float=Decimal)
        return message

    def request(self, message: dict[str, Any]) -> dict[str, Any]:
        self.send(message)
        return self.recv()

    def command(self, name: str, **args: Any) -> dict[str, Any]:
        return self.request({"v": 1, "op": "command", "name": name, "args": args})

    def rest(self) -> list[dict[str, Any]]:
        """Every message until the server closes the connection (the kernel reports a
        reset instead of the end when the server closed with input of ours unread)."""
        out = []
        while True:
            try:
                out.append(self.recv())
            except (EOFError, ConnectionResetError):
                return out

    def close(self) -> None:
        self.sock.close()


class Rig:
    """An API server in a temporary directory with a recording ``submit``."""

    def __init__(self, runtime_dir: Path, accept: bool = True, **options: Any) -> None:
        self.submitted: list[tuple[Command, api.Ticket]] = []
        self.accept = accept
        access = {"dealer": ME, "floor": ME, "events": ME}
        access.update({k: options.pop(k) for k in list(options) if k in access})
        self.server = ApiServer(
            runtime_dir,
            self._submit,
            dealer=access["dealer"],
            floor=access["floor"],
            events=access["events"],
            **options,
        )
        self.clients: list[Client] = []

    def _submit(self, command: Command, ticket: api.Ticket) -> bool:
        if self.accept:
            self.submitted.append((command, ticket))
        return self.accept

    def client(self, name: str) -> Client:
        client = Client(self.server.path(name))
        self.clients.append(client)
        return client

    def close(self) -> None:
        for client in self.clients:
            client.close()
        self.server.close()


@pytest.fixture
def make_rig(tmp_path: Path) -> Iterator[Callable[..., Rig]]:
    rigs: list[Rig] = []

    def make(**options: Any) -> Rig:
        rig = Rig(tmp_path, **options)
        rig.server.start()
        rigs.append(rig)
        return rig

    yield make
    for rig in rigs:
        rig.close()


@pytest.fixture
def rig(make_rig: Callable[..., Rig]) -> Rig:
    return make_rig()


def hello(client: Client) -> dict[str, Any]:
    return client.request({"v": 1, "op": "hello"})


def wait_for(condition: Callable[[], bool], what: str) -> None:
    end = time.monotonic() + TIMEOUT
    while not condition():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.005)


# ---------------------------------------------------------------------- the registry


def test_every_command_in_events_has_a_role() -> None:
    defined = {
        obj.name
        for obj in vars(events).values()
        if inspect.isclass(obj) and issubclass(obj, Command) and obj is not Command
    }
    assert defined == set(ROLES)
    assert set(COMMANDS) == defined
    assert all(COMMANDS[name].role is ROLES[name] for name in defined)


def _module_with(cls_name: str, command: str, fields: list[tuple[str, Any]]) -> types.ModuleType:
    module = types.ModuleType("fake_events")
    cls = dataclasses.make_dataclass(
        cls_name, fields, bases=(Command,), frozen=True, namespace={"name": command}
    )
    cls.__module__ = module.__name__
    module.Command = Command  # type: ignore[attr-defined]
    setattr(module, cls_name, cls)
    return module


def test_a_command_without_a_role_stops_discovery() -> None:
    module = _module_with("VoidRound", "void_round", [("round", int)])
    with pytest.raises(RegistryError, match=r"'void_round' \(VoidRound\) has no role"):
        api.discover(module, ROLES)
    assert set(api.discover(module, {**ROLES, "void_round": Role.FLOOR})) == {"void_round"}


def test_a_field_type_the_api_cannot_build_stops_discovery() -> None:
    module = _module_with("Seats", "seats", [("seats", list[int])])
    with pytest.raises(RegistryError, match="'seats' field 'seats'"):
        api.discover(module, {"seats": Role.DEALER})


def test_docs_list_every_command_on_its_socket() -> None:
    text = (ROOT / "docs" / "api.md").read_text()
    rows = re.findall(r"^\| `([a-z_]+)` \| (dealer|floor) \|", text, re.MULTILINE)
    assert dict(rows) == {name: role.value for name, role in ROLES.items()}
    assert len(rows) == len(ROLES)


def test_the_floorpersons_commands_are_only_on_the_floor_socket() -> None:
    floor = {name for name, spec in COMMANDS.items() if spec.role is Role.FLOOR}
    # 551.2(e), 551.5(a)/(f)/(g), 551.6(k)(1), 551.16(m): the floorperson's own acts; and
    # the floorperson's acknowledgement of a shuffle alert (GLI-29: the floor decides).
    floorperson = {"floor_clear", "inspect_reader", "reshuffle", "recut", "permit_wagering"}
    assert floor == floorperson | {"acknowledge_shuffle_alert"}
    assert COMMANDS["wager"].role is Role.DEALER
    assert COMMANDS["dealers_card"].role is Role.DEALER


# ---------------------------------------------------------------------- commands


@pytest.mark.parametrize(
    ("sock", "name", "args", "expected"),
    [
        ("dealer", "wager", {"seat": 3, "bet": "banker", "amount": 100}, Wager(3, "banker", 100)),
        (
            "dealer",
            "wager",
            {"seat": 3, "bet": "tie", "amount": "12.50", "player": "Ann"},
            Wager(3, "tie", Decimal("12.50"), "Ann"),
        ),
        (
            "dealer",
            "wager",
            {"seat": 1, "bet": "tie", "amount": 12.5},
            Wager(1, "tie", Decimal("12.5")),
        ),
        (
            "dealer",
            "decision",
            {"box": 2, "decision": "double", "amount": "5"},
            Decision(2, "double", Decimal("5")),
        ),
        ("dealer", "decision", {"box": 2, "decision": "hit"}, Decision(2, "hit")),
        ("dealer", "missed_card", {"box": None, "card": 1}, MissedCard(None, 1, True)),
        ("dealer", "card_not_dealt", {"box": 4, "late": False}, CardNotDealt(4, False)),
        ("dealer", "relinquish", {"what": "shoe"}, Relinquish("shoe", False)),
        ("dealer", "no_more_bets", {}, NoMoreBets()),
        ("floor", "floor_clear", {"card": "7H", "repair": None}, FloorClear("7H", None)),
        ("floor", "floor_clear", {"repair": "repaired"}, FloorClear(None, "repaired")),
    ],
)
def test_a_command_is_built_from_its_json_fields(
    rig: Rig, sock: str, name: str, args: dict[str, Any], expected: Command
) -> None:
    client = rig.client(sock)
    reply = client.request({"v": 1, "id": "r1", "op": "command", "name": name, "args": args})
    assert reply == {"v": 1, "id": "r1", "type": "accepted", "ticket": 1, "command": name}
    [(command, ticket)] = rig.submitted
    assert command == expected
    for field in dataclasses.fields(expected):  # type: ignore[arg-type]
        assert type(getattr(command, field.name)) is type(getattr(expected, field.name))
    assert (ticket.number, ticket.command, ticket.socket, ticket.request_id) == (
        1,
        name,
        sock,
        "r1",
    )
    assert (ticket.peer.pid, ticket.peer.uid) == (os.getpid(), os.getuid())


@pytest.mark.parametrize(
    ("name", "args", "code", "field"),
    [
        (
            "wager",
            {"seat": 1, "bet": "tie", "amount": 5, "colour": "red"},
            "unknown_field",
            "colour",
        ),
        ("wager", {"seat": 1, "bet": "tie"}, "missing_field", "amount"),
        ("decision", {"decision": "hit"}, "missing_field", "box"),
        ("wager", {"seat": "1", "bet": "tie", "amount": 5}, "bad_type", "seat"),
        ("wager", {"seat": True, "bet": "tie", "amount": 5}, "bad_type", "seat"),
        ("wager", {"seat": 1.5, "bet": "tie", "amount": 5}, "bad_type", "seat"),
        ("wager", {"seat": 1, "bet": 7, "amount": 5}, "bad_type", "bet"),
        ("wager", {"seat": 1, "bet": "tie", "amount": "12,50"}, "bad_type", "amount"),
        ("wager", {"seat": 1, "bet": "tie", "amount": "NaN"}, "bad_type", "amount"),
        ("wager", {"seat": 1, "bet": "tie", "amount": False}, "bad_type", "amount"),
        ("wager", {"seat": 1, "bet": "tie", "amount": None}, "bad_type", "amount"),
        ("decision", {"box": None, "decision": "hit"}, "bad_type", "box"),
        ("card_not_dealt", {"box": 1, "late": "yes"}, "bad_type", "late"),
    ],
)
def test_a_bad_field_is_named_and_nothing_is_submitted(
    rig: Rig, name: str, args: dict[str, Any], code: str, field: str
) -> None:
    client = rig.client("dealer")
    reply = client.request({"v": 1, "id": 9, "op": "command", "name": name, "args": args})
    assert (reply["type"], reply["code"], reply["field"], reply["id"]) == ("error", code, field, 9)
    assert rig.submitted == []
    assert hello(client)["type"] == "hello"  # the connection stays up


def test_a_bad_type_error_never_echoes_the_value(rig: Rig) -> None:
    client = rig.client("floor")
    reply = client.command("floor_clear", card=["QS"])
    assert (reply["code"], reply["field"]) == ("bad_type", "card")
    assert b"QS" not in client.received  # a floorperson's card may be the hole card


# Ruling R16: an amount is written plainly; each of these is no amount at all.
UNPLAIN_AMOUNTS = [
    b"1e30",
    b"1E+30",
    b"1.5E+999999999",
    b"1e-400",
    b"1e400",
    b"12e0",
    b"-0.5e1",
    b'"1e30"',
    b'"1.5E+999999999"',
    b'"Infinity"',
    b'"-Infinity"',
    b'"sNaN"',
    b'"0x10"',
    b'" 5"',
    b'"5."',
    b'".5"',
    b'""',
    b"[5]",
    b'{"amount": 5}',
    b"true",
]


@pytest.mark.parametrize("amount", UNPLAIN_AMOUNTS)
def test_an_amount_not_written_plainly_is_a_bad_type_error(rig: Rig, amount: bytes) -> None:
    # Ruling R16: never a crash, never submitted, and the connection stays up.
    client = rig.client("dealer")
    head = b'{"v": 1, "id": 4, "op": "command", "name": "wager", "args": {"seat": 1, "bet": '
    for args in (b'"tie", "amount": ' + amount + b"}}", b'"tie", "amount": 5}}'):
        client.raw(head + args + b"\n")
    bad, good = client.recv(), client.recv()
    assert (bad["type"], bad["code"], bad["field"], bad["id"]) == ("error", "bad_type", "amount", 4)
    assert "written plainly" in bad["message"]
    assert good["type"] == "accepted"
    [(command, _)] = rig.submitted
    assert command == Wager(1, "tie", 5)


def test_a_double_downs_amount_not_written_plainly_is_a_bad_type_error(rig: Rig) -> None:
    client = rig.client("dealer")
    reply = client.command("decision", box=1, decision="double", amount="2e1")
    assert (reply["code"], reply["field"]) == ("bad_type", "amount")
    client.raw(b'{"v": 1, "op": "command", "name": "decision", "args": {"box": 1, '
               b'"decision": "double", "amount": 2e1}}\n')  # fmt: skip
    reply = client.recv()
    assert (reply["code"], reply["field"]) == ("bad_type", "amount")
    assert rig.submitted == []


@pytest.mark.parametrize(
    ("sock", "name", "args", "belongs"),
    [
        ("dealer", "floor_clear", {}, "floor"),
        ("dealer", "inspect_reader", {}, "floor"),
        ("floor", "wager", {"seat": 1, "bet": "tie", "amount": 5}, "dealer"),
        ("events", "no_more_bets", {}, "dealer"),
        ("events", "reshuffle", {}, "floor"),
    ],
)
def test_a_command_on_the_wrong_socket_is_refused_and_not_submitted(
    rig: Rig, sock: str, name: str, args: dict[str, Any], belongs: str
) -> None:
    client = rig.client(sock)
    reply = client.command(name, **args)
    assert (reply["type"], reply["code"], reply["socket"]) == ("error", "wrong_socket", belongs)
    assert rig.submitted == []
    assert hello(client)["socket"] == sock


def test_an_unknown_command_is_refused(rig: Rig) -> None:
    client = rig.client("floor")
    reply = client.command("void_everything")
    assert (reply["type"], reply["code"]) == ("error", "unknown_command")
    assert rig.submitted == []
    assert hello(client)["type"] == "hello"


@pytest.mark.parametrize(
    "line",
    [
        b"{not json",
        b"\xff\xfe{}",
        b'{"v": 1, "op": "hello", "x": NaN}',
        b'{"v": 1, "op": ',
        b'{"v": 1, "op": "hello", "x": ' + b"[" * 60_000,  # deeper than the parser goes
    ],
)
def test_malformed_json_gets_an_error_and_the_connection_stays_up(rig: Rig, line: bytes) -> None:
    client = rig.client("dealer")
    client.raw(line + b"\n")
    reply = client.recv()
    assert (reply["v"], reply["type"], reply["code"]) == (1, "error", "bad_json")
    assert hello(client)["type"] == "hello"


@pytest.mark.parametrize(
    ("request_", "field"),
    [
        (["hello"], None),
        ({"v": 1}, "op"),
        ({"v": 1, "op": "dance"}, "op"),
        ({"v": 1, "op": "hello", "extra": 1}, "extra"),
        ({"v": 1, "op": "command", "name": "no_more_bets", "args": [], "id": 3}, "args"),
        ({"v": 1, "op": "command", "args": {}}, "name"),
        ({"v": 1, "op": "hello", "id": [1]}, "id"),
        ({"v": 1, "op": "hello", "id": True}, "id"),
    ],
)
def test_a_bad_request_names_what_is_wrong(rig: Rig, request_: Any, field: str | None) -> None:
    client = rig.client("dealer")
    client.raw(json.dumps(request_).encode() + b"\n")
    reply = client.recv()
    assert (reply["type"], reply["code"], reply.get("field")) == ("error", "bad_request", field)
    assert rig.submitted == []
    assert hello(client)["type"] == "hello"


@pytest.mark.parametrize("version", [None, 2, "1", True, 1.0])
def test_a_request_without_version_1_is_refused(rig: Rig, version: Any) -> None:
    client = rig.client("dealer")
    request: dict[str, Any] = {"op": "command", "name": "no_more_bets"}
    if version is not None:
        request["v"] = version
    reply = client.request(request)
    assert (reply["code"], reply["supported"]) == ("bad_version", [1])
    assert rig.submitted == []


def test_an_over_long_line_is_refused_once_and_the_connection_stays_up(rig: Rig) -> None:
    client = rig.client("dealer")
    client.raw(b'{"v": 1, "op": "command", "name": "no_more_bets", "pad": "' + b"x" * 70_000)
    client.raw(b'"}\n')
    reply = client.recv()
    assert (reply["type"], reply["code"]) == ("error", "line_too_long")
    assert rig.submitted == []
    assert client.command("no_more_bets")["type"] == "accepted"  # the next line is read
    assert [c for c, _ in rig.submitted] == [NoMoreBets()]


def test_the_line_cap_counts_the_line_without_its_newline(make_rig: Callable[..., Rig]) -> None:
    rig = make_rig(max_line=60)
    client = rig.client("dealer")
    request = b'{"v":1,"op":"hello","id":"'
    fits = request + b"x" * (58 - len(request)) + b'"}'
    assert len(fits) == 60
    client.raw(fits + b"\n" + fits + b"x\n")
    assert client.recv()["type"] == "hello"
    assert client.recv()["code"] == "line_too_long"
    assert hello(client)["type"] == "hello"


def test_a_command_the_daemon_cannot_take_now_is_busy(make_rig: Callable[..., Rig]) -> None:
    rig = make_rig(accept=False)
    client = rig.client("dealer")
    reply = client.command("no_more_bets")
    assert (reply["type"], reply["code"]) == ("error", "busy")
    rig.accept = True
    assert client.command("no_more_bets") == {
        "v": 1,
        "id": None,
        "type": "accepted",
        "ticket": 1,
        "command": "no_more_bets",
    }


def test_hello_lists_the_commands_of_its_socket(rig: Rig) -> None:
    dealer, floor, stream = (hello(rig.client(n)) for n in ("dealer", "floor", "events"))
    assert dealer["versions"] == [1]
    assert dealer["commands"]["wager"]["amount"] == {
        "type": "amount",
        "null": False,
        "required": True,
    }
    assert dealer["commands"]["wager"]["player"]["required"] is False
    assert "floor_clear" not in dealer["commands"]
    assert set(floor["commands"]) == {n for n, r in ROLES.items() if r is Role.FLOOR}
    assert stream["commands"] == {}


# ---------------------------------------------------------------------- peer credentials


def test_the_peers_real_credentials_are_read(rig: Rig) -> None:
    peer = hello(rig.client("floor"))["peer"]
    assert peer == {
        "pid": os.getpid(),
        "uid": os.getuid(),
        "gid": os.getgid(),
        "groups": sorted(os.getgroups()),
    }


@pytest.mark.parametrize(
    "access",
    [Access(uids=(os.getuid(),)), Access(gids=(os.getgid(), NOT_MY_GROUP))],
    ids=["uid", "gid"],
)
def test_a_peer_allowed_by_configuration_is_served(
    make_rig: Callable[..., Rig], access: Access
) -> None:
    rig = make_rig(floor=access)
    client = rig.client("floor")
    assert client.command("reshuffle")["type"] == "accepted"
    assert [c.name for c, _ in rig.submitted] == ["reshuffle"]


@pytest.mark.parametrize(
    "access",
    [Access(), Access(uids=(os.getuid() + 1,), gids=(NOT_MY_GROUP,))],
    ids=["nobody", "someone-else"],
)
def test_a_peer_not_allowed_gets_an_error_and_is_closed(
    make_rig: Callable[..., Rig], access: Access
) -> None:
    rig = make_rig(floor=access)
    client = rig.client("floor")
    # The server may close before the command is even sent; when it gets there, it is
    # thrown away unread.
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        client.send({"v": 1, "op": "command", "name": "reshuffle"})
    messages = client.rest()
    assert [(m["type"], m["code"]) for m in messages] == [("error", "not_allowed")]
    assert f"uid {os.getuid()}" in messages[0]["message"]
    assert rig.submitted == []
    assert hello(rig.client("dealer"))["type"] == "hello"  # the other sockets are not affected


# ---------------------------------------------------------------------- the event stream


def subscribe(client: Client) -> dict[str, Any]:
    reply = client.request({"v": 1, "op": "subscribe"})
    assert reply["type"] == "subscribed"
    return reply


def test_status_answers_the_tables_last_snapshot_on_every_socket(rig: Rig) -> None:
    """``status`` is read-only: it answers what the table's thread last set, and the
    last entry streamed, and submits nothing."""
    client = rig.client("events")
    reply = client.request({"v": 1, "id": 7, "op": "status"})
    assert reply == {"v": 1, "id": 7, "type": "status", "last_seq": None, "table": None}
    rig.server.set_status({"state": "wagering", "devices": {"shoe": "connected"}})
    rig.server.publish(1, {"type": "prompt"})
    wait_for(lambda: client.request({"v": 1, "op": "status"})["last_seq"] == 1, "the entry")
    for name in ("dealer", "floor", "events"):
        reply = rig.client(name).request({"v": 1, "op": "status"})
        assert reply["table"] == {"state": "wagering", "devices": {"shoe": "connected"}}
    assert rig.submitted == []
    error = client.request({"v": 1, "op": "status", "name": "x"})
    assert (error["code"], error["field"]) == ("bad_request", "name")


def test_subscribers_get_every_entry_in_journal_order(rig: Rig) -> None:
    first, second = rig.client("events"), rig.client("dealer")
    assert subscribe(first)["last_seq"] is None
    subscribe(second)
    entries = [
        {"type": "wager", "round": i, "seat": 1, "bet": "tie", "amount": Decimal("12.5")}
        for i in range(1, 301)
    ]
    for seq, entry in enumerate(entries, 1):
        rig.server.publish(seq, entry)
    for client in (first, second):
        got = [client.recv() for _ in entries]
        assert [m["seq"] for m in got] == list(range(1, 301))
        assert {m["type"] for m in got} == {"event"}
        assert got[0]["entry"] == {
            "type": "wager",
            "round": 1,
            "seat": 1,
            "bet": "tie",
            "amount": "12.5",  # exact, as the journal writes a Decimal
        }
        assert [m["entry"]["round"] for m in got] == list(range(1, 301))
    late = rig.client("floor")
    assert subscribe(late)["last_seq"] == 300  # it starts after what it missed
    rig.server.publish(301, {"type": "no_more_bets", "round": 301})
    assert late.recv()["seq"] == 301
    assert first.recv()["seq"] == 301


def test_a_card_marked_sealed_is_never_forwarded(rig: Rig) -> None:
    """551.8(e): the table records the hole card sealed and without its value; an entry
    that is sealed yet carries a value is withheld by the API as well."""
    client = rig.client("events")
    subscribe(client)
    published: list[dict[str, Any]] = [
        {"type": "dealt", "round": 1, "to": "dealer", "card": None, "sealed": True},
        {"type": "dealt", "round": 1, "to": "dealer", "card": "QS", "sealed": True},
        {"type": "held", "events": [{"event": "card_drawn", "card": "QS", "sealed": True}]},
        {"type": "command", "command": "floor_clear", "card": "QS", "sealed": 1},
        {"type": "odd", "what": object()},
        {"type": "reveal", "round": 1, "card": "QS", "section": "551.8(h)"},
    ]
    for seq, entry in enumerate(published, 1):
        rig.server.publish(seq, entry)
    got = [client.recv() for _ in published]
    assert got[0] == {"v": 1, "type": "event", "seq": 1, "entry": published[0]}
    for seq, kind in ((2, "dealt"), (3, "held"), (4, "command")):
        assert got[seq - 1]["type"] == "withheld"
        assert (got[seq - 1]["seq"], got[seq - 1]["entry_type"]) == (seq, kind)
    assert (got[4]["type"], got[4]["reason"]) == ("withheld", "the entry is not JSON")
    assert got[5]["entry"]["card"] == "QS"
    before_reveal = client.received[: client.received.index(b'"reveal"')]
    assert b"QS" not in before_reveal


# A subscriber in a process of its own, as a console is: it reads ``count`` events and
# prints their sequence numbers.
READER = """
import json, socket, sys
sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
sock.connect(sys.argv[1])
sock.sendall(b'{"v": 1, "op": "subscribe"}\\n')
stream = sock.makefile("rb")
print(json.loads(stream.readline())["type"], flush=True)
seqs = []
while len(seqs) < int(sys.argv[2]):
    line = stream.readline()
    if not line:
        break
    message = json.loads(line)
    seqs.append(message["seq"] if message["type"] == "event" else message["type"])
print(json.dumps(seqs), flush=True)
"""


def test_a_slow_subscriber_is_dropped_without_delaying_publish(
    make_rig: Callable[..., Rig],
) -> None:
    rig = make_rig(drop_grace=TIMEOUT)
    count, pad = 3000, "x" * 600  # 2 MB: more than a socket buffer and a client's queue
    seq = 0

    def run(slow: Client | None) -> tuple[float, list[list[object]]]:
        """Publish ``count`` entries to two fast readers (and ``slow``, which does not read
        meanwhile): the time spent inside ``publish``, and what each reader got."""
        nonlocal seq
        readers = [
            subprocess.Popen(
                [sys.executable, "-c", READER, str(rig.server.path(name)), str(count)],
                stdout=subprocess.PIPE,
                text=True,
            )
            for name in ("events", "dealer")
        ]
        for reader in readers:
            assert reader.stdout is not None
            assert reader.stdout.readline().strip() == "subscribed"
        spent = 0.0
        for _ in range(count // 100):
            for _ in range(100):
                seq += 1
                entry = {"type": "prompt", "text": "PLACE YOUR BETS", "pad": pad}
                start = time.perf_counter()
                rig.server.publish(seq, entry)
                spent += time.perf_counter() - start
            time.sleep(0.01)  # a burst, then the table waits for something
        return spent, [json.loads(r.communicate(timeout=TIMEOUT)[0]) for r in readers]

    fast, got = run(None)
    assert got == [list(range(1, count + 1))] * 2
    slow = rig.client("floor")
    subscribe(slow)  # and it reads nothing while the second run is published
    with_slow, got = run(slow)
    assert got == [list(range(count + 1, 2 * count + 1))] * 2  # the others lost nothing
    assert with_slow < 20 * fast, (fast, with_slow)

    *streamed, notice = slow.rest()  # what was in flight, the notice, then the end
    assert notice["type"] == "overflow"
    assert notice["limit"] == api.QUEUE_LIMIT
    seqs = [m["seq"] for m in streamed]
    assert seqs == list(range(count + 1, count + 1 + len(seqs)))
    assert len(seqs) < count
    assert notice["missed_from"] > seqs[-1]


class DaemonShaped:
    """Commands go through a queue to the thread that owns a real Baccarat table (the
    test's own, one command at a time), whose journal publishes each entry with its
    sequence number, as the daemon wires them."""

    def __init__(self, runtime_dir: Path) -> None:
        self.commands: queue.Queue[tuple[Command, api.Ticket]] = queue.Queue()
        self.journal: list[dict[str, object]] = []
        self.server = ApiServer(runtime_dir, self._submit, dealer=ME, floor=ME, events=ME)
        self.table = BaccaratTable(BaccaratRules.from_dict("baccarat", {}), self, Devices())

    def _submit(self, command: Command, ticket: api.Ticket) -> bool:
        self.commands.put_nowait((command, ticket))
        return True

    def record(self, entry: Any) -> None:  # the table's journal
        self.journal.append(dict(entry))
        self.server.publish(len(self.journal), entry)

    def serve_one(self) -> None:
        command, ticket = self.commands.get(timeout=TIMEOUT)
        with self.server.handling(ticket):
            self.table.handle(command)


def test_the_tables_refusal_is_echoed_to_the_sender(tmp_path: Path) -> None:
    """Daemon-shaped (``DaemonShaped``)."""
    shaped = DaemonShaped(tmp_path)
    server, table, journal, serve_one = (
        shaped.server,
        shaped.table,
        shaped.journal,
        shaped.serve_one,
    )
    with server:
        dealer = Client(server.path("dealer"))
        subscribe(dealer)
        wager = {"seat": 1, "bet": "banker", "amount": 100}
        reply = dealer.request({"v": 1, "id": "w", "op": "command", "name": "wager", "args": wager})
        assert reply["type"] == "accepted"
        state = table.state
        serve_one()  # no shuffled cards yet: the table refuses the wager
        stream = [dealer.recv() for _ in range(3)]
        assert [m["type"] for m in stream] == ["event", "event", "result"]
        assert [m["entry"]["type"] for m in stream[:2]] == ["command", "refused"]
        result = stream[2]
        assert (result["outcome"], result["id"], result["ticket"]) == ("refused", "w", 1)
        assert (result["first_seq"], result["last_seq"], result["refused_seq"]) == (1, 2, 2)
        assert (result["section"], result["reason"]) == (
            journal[1]["section"],
            journal[1]["reason"],
        )
        assert table.state == state

        assert dealer.command("manual_shuffle")["type"] == "accepted"
        serve_one()
        messages = [dealer.recv()]
        while messages[-1]["type"] != "result":
            messages.append(dealer.recv())
        *entries, result = messages
        assert (result["outcome"], result["command"], result["ticket"]) == (
            "done",
            "manual_shuffle",
            2,
        )
        assert (result["first_seq"], result["last_seq"]) == (3, len(journal))
        assert [m["seq"] for m in entries] == list(range(3, len(journal) + 1))
        assert [m["entry"] for m in entries] == journal[2:]
        assert "shuffled" in [e["type"] for e in journal[2:]]
        dealer.close()


# Ruling R16: amounts written plainly that the table's chips and limits refuse.
PLAIN_BUT_NOT_CHIPS = [
    ("0", "holds no tie wager to withdraw"),
    ("12.345", "whole number of the table's 1 chips"),
    ("0.0000001", "whole number"),
    ("0." + "0" * 399 + "1", "whole number"),
    ("10001", "maximum wager of 10000"),
    ("1" + "0" * 30, "maximum wager"),
    ("1" + "0" * 5000, "maximum wager"),
    ("-10", "is not an amount"),
]


@pytest.mark.reg("545.8(b)")
def test_a_plain_amount_the_table_cannot_take_is_its_refusal(tmp_path: Path) -> None:
    """Daemon-shaped, as above: each amount, written plainly as a JSON number and as a
    string, reaches the real Baccarat table, which refuses it with the section and
    ruling R16 and stays as it was; the 1.5E+999999999 that once crashed settlement
    never gets that far."""
    shaped = DaemonShaped(tmp_path)
    server, table = shaped.server, shaped.table
    table.handle(events.ManualShuffle())
    for n, token in enumerate(("AS", "2S"), 1):  # the burn: wagering is open
        table.handle(m.CardDrawn("shoe", n, token[0], token[1], False))
    with server:
        dealer = Client(server.path("dealer"))
        subscribe(dealer)
        for amount, why in PLAIN_BUT_NOT_CHIPS:
            for written in (amount.encode(), b'"' + amount.encode() + b'"'):
                args = b'{"seat": 1, "bet": "tie", "amount": ' + written + b"}"
                dealer.raw(b'{"v": 1, "op": "command", "name": "wager", "args": ' + args + b"}\n")
                assert dealer.recv()["type"] == "accepted"
                shaped.serve_one()
                result = dealer.recv()
                while result["type"] != "result":
                    result = dealer.recv()
                assert (result["outcome"], result["section"]) == ("refused", "545.8(b)")
                assert why in result["reason"] and "ruling R16" in result["reason"]
                assert table.state == "wagering" and table.need is events.Need.WAGERS
        dealer.close()


# ---------------------------------------------------------------------- socket files


def _chownable_group() -> int:
    """A group this process may give a file: any group as root, else its own."""
    return 65534 if os.geteuid() == 0 else os.getgid()


def test_socket_files_are_0660_with_the_configured_group(make_rig: Callable[..., Rig]) -> None:
    group = _chownable_group()
    rig = make_rig(floor=Access(uids=(os.getuid(),), group=group))
    for name in ("dealer", "floor", "events"):
        st = os.stat(rig.server.path(name))
        assert stat.S_ISSOCK(st.st_mode)
        assert stat.S_IMODE(st.st_mode) == 0o660
    assert os.stat(rig.server.path("floor")).st_gid == group


def test_an_unknown_group_name_is_one_line_and_nothing_listens(tmp_path: Path) -> None:
    server = ApiServer(
        tmp_path, lambda c, t: True, dealer=ME, floor=Access(group="no-such-group-x"), events=ME
    )
    with pytest.raises(ApiError, match="floor socket: no such group 'no-such-group-x'"):
        server.start()
    assert list(tmp_path.iterdir()) == []


def test_a_stale_socket_file_is_replaced(tmp_path: Path, make_rig: Callable[..., Rig]) -> None:
    crashed = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    crashed.bind(str(tmp_path / "dealer.sock"))
    crashed.close()  # as a crash leaves it: the file, nobody listening
    rig = make_rig()
    assert rig.client("dealer").command("no_more_bets")["type"] == "accepted"


def test_a_socket_served_by_a_live_process_is_an_error(tmp_path: Path) -> None:
    live = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    live.bind(str(tmp_path / "events.sock"))
    live.listen(1)
    try:
        server = ApiServer(tmp_path, lambda c, t: True, dealer=ME, floor=ME, events=ME)
        with pytest.raises(ApiError) as caught:
            server.start()
        message = str(caught.value)
        assert "\n" not in message
        assert (
            message
            == f"{tmp_path / 'events.sock'}: already served by a live process (pid {os.getpid()})"
        )
        # The sockets it had opened are gone again; the live one is untouched.
        assert sorted(p.name for p in tmp_path.iterdir()) == ["events.sock"]
    finally:
        live.close()


def test_a_path_that_is_not_a_socket_is_an_error_and_left_alone(tmp_path: Path) -> None:
    (tmp_path / "floor.sock").write_text("keep me")
    server = ApiServer(tmp_path, lambda c, t: True, dealer=ME, floor=ME, events=ME)
    with pytest.raises(ApiError, match=r"floor\.sock: exists and is not a socket"):
        server.start()
    assert (tmp_path / "floor.sock").read_text() == "keep me"


def test_a_missing_runtime_directory_is_an_error(tmp_path: Path) -> None:
    server = ApiServer(tmp_path / "gone", lambda c, t: True, dealer=ME, floor=ME, events=ME)
    with pytest.raises(ApiError, match="gone: no such directory"):
        server.start()


def test_close_disconnects_everyone_and_unlinks_the_sockets(make_rig: Callable[..., Rig]) -> None:
    rig = make_rig()
    subscriber = rig.client("events")
    subscribe(subscriber)
    idle = rig.client("dealer")
    hello(idle)  # accepted: a connection still in the backlog would be reset instead
    rig.server.close()
    assert subscriber.rest() == []
    assert idle.rest() == []
    assert list(rig.server.runtime_dir.iterdir()) == []
    with pytest.raises(FileNotFoundError):
        Client(rig.server.path("dealer"))
    rig.server.publish(1, {"type": "prompt"})  # after close: nothing, and no error


# ---------------------------------------------------------------------- many clients at once


def test_a_thousand_simultaneous_connects_are_each_served_or_told_so_in_one_line(
    rig: Rig,
) -> None:
    # The listen queue itself, with the daemon stopped while a flood arrives:
    # tests/daemon/test_daemon.py. Here, the bound on the clients served.
    clients = flood(rig.server.path("events"), 1000)
    try:
        told(clients, closed=1000 - api.MAX_CLIENTS)
        crowded = [c for c in clients if c.closed]
        served = [c for c in clients if not c.closed]
        assert len(served) == api.MAX_CLIENTS
        assert all(c.data == b"" for c in served)  # nothing unasked
        message = f"{api.MAX_CLIENTS} clients use events.sock already: try again later"
        assert all(
            c.lines
            == [
                {
                    "v": 1,
                    "type": "error",
                    "id": None,
                    "code": "too_many_clients",
                    "message": message,
                }
            ]
            for c in crowded
        )
        assert all(ask_hello(c)["type"] == "hello" for c in served)
        # Each socket has its own bound: the dealer's console is still served.
        assert hello(rig.client("dealer"))["type"] == "hello"
        # A client that leaves makes room for the next.
        served[0].sock.close()
        wait_for(lambda: _serves(rig.server.path("events")), "room on events.sock")
    finally:
        close_all(clients)


def _serves(path: Path) -> bool:
    client = Client(path)
    try:
        return hello(client)["type"] == "hello"
    finally:
        client.close()
