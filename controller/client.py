"""``tablectl status``, ``events`` and ``send``: the console API's client side.

Each command opens one connection to a socket of the daemon's runtime directory
(``--runtime-dir``, else ``$TABLECTL_RUNTIME_DIR``, else ``/run/tablectl``) and speaks
the JSON lines of docs/api.md. Exit codes (docs/cli.md): 0 done, 1 the daemon cannot
be reached or cannot serve the request, 2 bad input (ours or as the API judged it),
3 a command the table refused. Every failure is one line on stderr.

Nothing here prints a value the user typed back: a floorperson's card may be the hole
card (551.8(e)); errors name the field or the argument's position instead.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Final, TextIO

from controller.api.sealed import carries_sealed_card
from controller.api.wire import VERSION
from controller.export import read_rows
from controller.journal import JournalError

EXIT_OK: Final = 0
EXIT_FAILURE: Final = 1  # the daemon is not reachable, or cannot serve the request
EXIT_USAGE: Final = 2  # bad input: the command line, or a request the API refused
EXIT_REFUSED: Final = 3  # the table refused the command (its section and reason shown)

DEFAULT_RUNTIME_DIR: Final = "/run/tablectl"
RUNTIME_DIR_ENV: Final = "TABLECTL_RUNTIME_DIR"
REPLY_TIMEOUT: Final = 5.0  # seconds for the daemon to answer a request
DEFAULT_RESULT_TIMEOUT: Final = 10.0  # seconds for the table to handle a sent command
DEFAULT_LISTEN: Final = 5.0  # seconds ``events`` listens without --follow or --journal

# The API's error codes that say the daemon cannot serve us now, not that we asked wrong.
_DAEMON_SIDE: Final = frozenset({"busy", "not_allowed"})
_WHOLE: Final = re.compile(r"-?[0-9]+")


class ClientError(Exception):
    """The command ends here: ``message`` is its one line, ``status`` its exit code."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


class NoAnswer(ClientError):
    """The daemon said nothing for the time given."""


# --------------------------------------------------------------------------- the wire


class Connection:
    """One connection to a daemon socket, reading JSON lines."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock.settimeout(REPLY_TIMEOUT)
        self._buffer = b""
        try:
            self._sock.connect(str(path))
        except FileNotFoundError:
            self._fail("no such socket: is the daemon running?")
        except ConnectionRefusedError:
            self._fail("nobody listens: is the daemon running?")
        except PermissionError:
            self._fail("permission denied")
        except (TimeoutError, BlockingIOError):
            self._fail("the daemon does not accept connections")
        except OSError as exc:
            self._fail(f"cannot connect: {exc.strerror or exc}")

    def _fail(self, reason: str) -> None:
        self._sock.close()
        raise ClientError(f"{self.path}: {reason}", EXIT_FAILURE)

    def __enter__(self) -> Connection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._sock.close()

    def send(self, line: str) -> None:
        try:
            self._sock.sendall(line.encode("utf-8") + b"\n")
        except OSError as exc:
            raise ClientError(
                f"{self.path}: the daemon closed the connection ({exc.strerror or exc})",
                EXIT_FAILURE,
            ) from None

    def request(self, message: Mapping[str, object]) -> dict[str, Any]:
        self.send(json.dumps({"v": VERSION, **message}))
        return self.receive(REPLY_TIMEOUT)

    def receive(self, timeout: float | None) -> dict[str, Any]:
        """The next message; ``timeout`` None waits for ever. ClientError when the daemon
        closes the connection or stays silent for ``timeout`` seconds."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while b"\n" not in self._buffer:
            if deadline is None:
                self._sock.settimeout(None)
            else:
                self._sock.settimeout(max(0.001, deadline - time.monotonic()))
            try:
                data = self._sock.recv(65536)
            except TimeoutError:
                raise NoAnswer(
                    f"{self.path}: no answer within {timeout:g} s", EXIT_FAILURE
                ) from None
            except OSError:
                data = b""  # reset: closed as well
            if not data:
                raise ClientError(f"{self.path}: the daemon closed the connection", EXIT_FAILURE)
            self._buffer += data
        line, _, self._buffer = self._buffer.partition(b"\n")
        try:
            message = json.loads(line)
        except ValueError:
            raise ClientError(
                f"{self.path}: the daemon sent a line that is not JSON", EXIT_FAILURE
            ) from None
        if not isinstance(message, dict):
            raise ClientError(
                f"{self.path}: the daemon sent a line that is not an object", EXIT_FAILURE
            )
        return message


def _api_error(path: Path, reply: Mapping[str, Any], status: int) -> ClientError:
    code = reply.get("code")
    if code in _DAEMON_SIDE:
        status = EXIT_FAILURE
    return ClientError(f"{path}: {reply.get('message')} ({code})", status)


def runtime_dir(args: argparse.Namespace) -> Path:
    given = args.runtime_dir or os.environ.get(RUNTIME_DIR_ENV) or DEFAULT_RUNTIME_DIR
    return Path(given)


# --------------------------------------------------------------------------- status


def status(args: argparse.Namespace, out: TextIO) -> int:
    path = runtime_dir(args) / "events.sock"
    with Connection(path) as conn:
        reply = conn.request({"op": "status"})
    if reply.get("type") != "status":
        raise _api_error(path, reply, EXIT_FAILURE)
    if args.json:
        out.write(json.dumps({"last_seq": reply.get("last_seq"), "table": reply.get("table")}))
        out.write("\n")
    else:
        out.write(_status_text(reply.get("table"), reply.get("last_seq")))
    return EXIT_OK


def _status_text(table: Any, last_seq: Any) -> str:
    journal = (
        "journal: none streamed yet"
        if last_seq is None
        else f"journal: last entry streamed {last_seq}"
    )
    if not isinstance(table, dict):
        return f"table: starting (no status yet)\n{journal}\n"
    devices = table.get("devices") or {}
    health = ", ".join(f"{name} {state}" for name, state in devices.items()) or "(none)"
    state = table.get("state") if table.get("ready") else "connecting the devices"
    return (
        f"table {table.get('id')} ({table.get('game')}): {state}\n"
        f"shoe {table.get('shoe')}, round {table.get('round')}, "
        f"{table.get('rounds_played')} rounds played\n"
        f"devices: {health}\n"
        f"{journal}\n"
    )


# --------------------------------------------------------------------------- events


def events(args: argparse.Namespace, out: TextIO) -> int:
    """The journal's entries (``--journal``), then the live stream: for ever with
    ``--follow``, for ``--seconds`` otherwise (none after a journal, unless given)."""
    if args.follow:
        listen: float | None = None
    elif args.seconds is not None:
        listen = args.seconds
    else:
        listen = 0.0 if args.journal else DEFAULT_LISTEN
    show = _show_json if args.json else _show_text
    conn: Connection | None = None
    if listen is None or listen > 0:
        path = runtime_dir(args) / "events.sock"
        conn = Connection(path)
    try:
        if conn is not None:
            # Subscribed before the journal is read: nothing falls between the two.
            reply = conn.request({"op": "subscribe"})
            if reply.get("type") != "subscribed":
                raise _api_error(conn.path, reply, EXIT_FAILURE)
        shown = 0
        if args.journal:
            for seq, entry in _journal_rows(args.journal):
                show(out, {"v": VERSION, "type": "event", "seq": seq, "entry": entry})
                shown = seq
        if conn is not None:
            for message in _stream(conn, listen):
                streamed = message.get("seq")
                if isinstance(streamed, int) and streamed <= shown:
                    continue  # printed from the journal already
                if message.get("type") == "overflow":
                    raise ClientError(
                        f"{conn.path}: the daemon dropped this client for reading too "
                        f"slowly (missed from entry {message.get('missed_from')})",
                        EXIT_FAILURE,
                    )
                if message.get("type") in ("event", "withheld"):
                    show(out, message)
    except KeyboardInterrupt:
        return EXIT_OK  # Ctrl-C is how a follower stops
    finally:
        if conn is not None:
            conn.close()
    return EXIT_OK


def _journal_rows(path: str) -> Iterator[tuple[int, dict[str, Any]]]:
    # Read-only: the daemon may be writing it.
    try:
        rows = read_rows(path)
    except JournalError as exc:
        raise ClientError(str(exc), EXIT_USAGE) from None
    for row in rows:
        yield row.seq, row.entry


def _stream(conn: Connection, seconds: float | None) -> Iterator[dict[str, Any]]:
    deadline = None if seconds is None else time.monotonic() + seconds
    while True:
        if deadline is None:
            yield conn.receive(None)
            continue
        left = deadline - time.monotonic()
        if left <= 0:
            return
        try:
            yield conn.receive(left)
        except NoAnswer:
            return  # the time is up


def _show_json(out: TextIO, message: Mapping[str, Any]) -> None:
    out.write(json.dumps(message, separators=(",", ":")) + "\n")
    out.flush()


def _show_text(out: TextIO, message: Mapping[str, Any]) -> None:
    seq = message.get("seq")
    if message.get("type") == "withheld":
        line = f"{seq} withheld {message.get('entry_type')}: {message.get('reason')}"
    else:
        entry = dict(message.get("entry") or {})
        if carries_sealed_card(entry):  # 551.8(e): as the API would
            line = f"{seq} withheld {entry.get('type')}: a card marked sealed carries a value"
        else:
            kind = entry.pop("type", "?")
            rest = json.dumps(entry, separators=(",", ":"), sort_keys=True) if entry else ""
            line = f"{seq} {kind} {rest}".rstrip()
    out.write(line + "\n")
    out.flush()


# --------------------------------------------------------------------------- send


def send(args: argparse.Namespace, out: TextIO) -> int:
    if args.json is not None and args.fields:
        raise ClientError("give the fields as key=value or as --json, not both", EXIT_USAGE)
    pairs = _pairs(args.fields)
    args_text = _args_json(args.json) if args.json is not None else None
    socket_name = "floor" if args.floor else "dealer"
    path = runtime_dir(args) / f"{socket_name}.sock"
    with Connection(path) as conn:
        if args_text is None:
            hello = conn.request({"op": "hello"})
            if hello.get("type") != "hello":
                raise _api_error(path, hello, EXIT_FAILURE)
            schema = hello.get("commands", {}).get(args.name, {})
            args_text = json.dumps({k: _typed(v, schema.get(k)) for k, v in pairs.items()})
        # The args are written as given: a JSON amount keeps its exact digits.
        head = json.dumps({"v": VERSION, "id": "tablectl-send", "op": "command", "name": args.name})
        conn.send(f'{head[:-1]},"args":{args_text}}}')
        reply = conn.receive(REPLY_TIMEOUT)
        if reply.get("type") != "accepted":
            raise _api_error(path, reply, EXIT_USAGE)
        ticket = reply.get("ticket")
        deadline = time.monotonic() + args.timeout
        while True:
            left = deadline - time.monotonic()
            try:
                result = conn.receive(max(left, 0.001))
            except NoAnswer:
                raise ClientError(
                    f"{path}: {args.name} accepted (ticket {ticket}) but no result "
                    f"within {args.timeout:g} s",
                    EXIT_FAILURE,
                ) from None
            if result.get("type") == "result" and result.get("ticket") == ticket:
                break
    if args.json_out:
        out.write(json.dumps(result, separators=(",", ":")) + "\n")
    else:
        out.write(_result_text(result) + "\n")
    return EXIT_OK if result.get("outcome") == "done" else EXIT_REFUSED


def _result_text(result: Mapping[str, Any]) -> str:
    name, ticket = result.get("command"), result.get("ticket")
    if result.get("outcome") == "done":
        first, last = result.get("first_seq"), result.get("last_seq")
        entries = f", journal {first}-{last}" if first is not None else ""
        return f"done: {name} (ticket {ticket}{entries})"
    return (
        f"refused: {name}: {result.get('reason')} ({result.get('section')}; "
        f"ticket {ticket}, journal {result.get('refused_seq')})"
    )


def _pairs(fields: Sequence[str]) -> dict[str, str]:
    pairs: dict[str, str] = {}
    for n, item in enumerate(fields, 1):
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise ClientError(f"field {n} is not key=value", EXIT_USAGE)
        if key in pairs:
            raise ClientError(f"field {key!r} is given twice", EXIT_USAGE)
        pairs[key] = value
    return pairs


def _args_json(text: str) -> str:
    try:
        value = json.loads(text)
    except ValueError:
        raise ClientError("--json is not valid JSON", EXIT_USAGE) from None
    if not isinstance(value, dict):
        raise ClientError("--json must be a JSON object of the command's fields", EXIT_USAGE)
    # Strict JSON has no raw line breaks inside strings: any is whitespace between tokens.
    return text.replace("\r", " ").replace("\n", " ")


def _typed(value: str, field: Any) -> object:
    """A key=value's value as the field's type (from ``hello``); left a string when it
    does not fit, so that the API names the field and the type it wants."""
    if not isinstance(field, dict):
        return value  # a field the command lacks: the API names it
    if value == "null" and field.get("null"):
        return None
    kind = field.get("type")
    if kind in ("int", "amount") and _WHOLE.fullmatch(value):
        return int(value)
    if kind == "bool" and value in ("true", "false"):
        return value == "true"
    return value  # a str, a decimal amount ("12.50"), or a value the API refuses


# --------------------------------------------------------------------------- CLI


def _add_runtime_dir(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--runtime-dir",
        metavar="DIR",
        help=f"the daemon's sockets (default: ${RUNTIME_DIR_ENV}, else {DEFAULT_RUNTIME_DIR}; "
        "a simulated table's --workdir)",
    )


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be more than 0 seconds, not {text}")
    return value


def add_parsers(subparsers: argparse._SubParsersAction[Any]) -> None:
    st = subparsers.add_parser(
        "status",
        help="the running table's state, shoe and round, and its devices' health",
        description="Ask the daemon (events.sock) for the table's state, shoe and round, "
        "and each device's health.",
    )
    _add_runtime_dir(st)
    st.add_argument("--json", action="store_true", help="one JSON object")

    ev = subparsers.add_parser(
        "events",
        help="the table's journal entries, one line each",
        description="Print the table's events, one line each, from events.sock. The API "
        "does not replay history: --journal FILE prints the journal's entries first "
        "(read-only). Without --follow, the live stream is read for --seconds "
        f"(default {DEFAULT_LISTEN:g}, or none after --journal).",
    )
    _add_runtime_dir(ev)
    ev.add_argument("--json", action="store_true", help="each line as the API's JSON message")
    ev.add_argument("--journal", metavar="FILE", help="print this journal's entries first")
    how_long = ev.add_mutually_exclusive_group()
    how_long.add_argument("--follow", "-f", action="store_true", help="stream until Ctrl-C")
    how_long.add_argument("--seconds", type=_seconds, metavar="S", help="stream for S seconds")

    se = subparsers.add_parser(
        "send",
        help="send a console command and print the table's result",
        description="Send a command to dealer.sock (floor.sock with --floor), wait for the "
        "table's result and print it. Fields as key=value (typed by the command's "
        "fields as the daemon lists them) or as one --json object. Exit 0 done, 3 "
        "refused by the table, 2 bad input, 1 the daemon not reachable.",
    )
    _add_runtime_dir(se)
    se.add_argument("--floor", action="store_true", help="a floorperson's command (floor.sock)")
    se.add_argument("--json", metavar="OBJECT", help="the fields as one JSON object")
    se.add_argument(
        "--json-out", action="store_true", help="print the result as the API's JSON message"
    )
    se.add_argument(
        "--timeout",
        type=_seconds,
        default=DEFAULT_RESULT_TIMEOUT,
        metavar="S",
        help=f"how long to wait for the result (default {DEFAULT_RESULT_TIMEOUT:g})",
    )
    se.add_argument("name", help="the command, e.g. wager (docs/api.md lists them)")
    se.add_argument("fields", nargs="*", metavar="key=value", help="the command's fields")


COMMANDS: Final[dict[str, Callable[[argparse.Namespace, TextIO], int]]] = {
    "status": status,
    "events": events,
    "send": send,
}


def run(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Run ``status``, ``events`` or ``send``; the exit code, every failure one line."""
    stream = out or sys.stdout
    try:
        return COMMANDS[args.command](args, stream)
    except ClientError as exc:
        print(f"tablectl: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return exc.status
    except BrokenPipeError:
        # The reader (``| head``) is gone: nothing more to say, and nowhere to say it.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK
