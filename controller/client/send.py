"""``tablectl send``: one console command, and the table's result.

The fields are given as key=value, typed by the command's fields as the daemon's
``hello`` lists them, or as one ``--json`` object written as given.
"""

from __future__ import annotations

import argparse
import json
import re
import time
from collections.abc import Mapping, Sequence
from typing import Any, Final, TextIO

from controller.api.wire import VERSION
from controller.client.connection import (
    EXIT_REFUSED,
    REPLY_TIMEOUT,
    ClientError,
    Connection,
    NoAnswer,
    api_error,
    runtime_dir,
)
from controller.errors import EXIT_FAILURE, EXIT_OK, EXIT_USAGE

DEFAULT_RESULT_TIMEOUT: Final = 10.0  # seconds for the table to handle a sent command
_WHOLE: Final = re.compile(r"-?[0-9]+")
# A whole number longer than this goes as its text: int() may refuse it (Python's limit
# on converting digits, 4,300 by default), and the daemon says what it is (ruling R16).
_INT_DIGITS: Final = 640


def send(args: argparse.Namespace, out: TextIO) -> int:
    if args.json is not None and args.fields:
        raise ClientError("give the fields as key=value or as --json, not both", EXIT_USAGE)
    pairs = _pairs(args.fields)
    args_text = _args_json(args.json) if args.json is not None else None
    socket_name = "floor" if args.floor else "dealer"
    with Connection(runtime_dir(args) / f"{socket_name}.sock") as conn:
        if args_text is None:
            args_text = _typed_args(conn, args.name, pairs)
        ticket = _submit(conn, args.name, args_text)
        result = _result(conn, args.name, ticket, args.timeout)
    if args.json_out:
        out.write(json.dumps(result, separators=(",", ":")) + "\n")
    else:
        out.write(_result_text(result) + "\n")
    return EXIT_OK if result.get("outcome") == "done" else EXIT_REFUSED


def _typed_args(conn: Connection, name: str, pairs: Mapping[str, str]) -> str:
    """The key=value ``pairs`` as a JSON object, typed by the command's fields."""
    hello = conn.expect({"op": "hello"}, "hello")
    schema = hello.get("commands", {}).get(name, {})
    return json.dumps({k: _typed(v, schema.get(k)) for k, v in pairs.items()})


def _submit(conn: Connection, name: str, args_text: str) -> object:
    """Send the command; the ticket the API accepted it with."""
    # The args are written as given: a JSON amount keeps its exact digits.
    head = json.dumps({"v": VERSION, "id": "tablectl-send", "op": "command", "name": name})
    conn.send(f'{head[:-1]},"args":{args_text}}}')
    reply = conn.receive(REPLY_TIMEOUT)
    if reply.get("type") != "accepted":
        raise api_error(conn.path, reply, EXIT_USAGE)
    return reply.get("ticket")


def _result(conn: Connection, name: str, ticket: object, timeout: float) -> dict[str, Any]:
    """The table's result for ``ticket``, within ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        try:
            result = conn.receive(max(left, 0.001))
        except NoAnswer:
            raise ClientError(
                f"{conn.path}: {name} accepted (ticket {ticket}) but no result "
                f"within {timeout:g} s",
                EXIT_FAILURE,
            ) from None
        if result.get("type") == "result" and result.get("ticket") == ticket:
            return result


def _result_text(result: Mapping[str, Any]) -> str:
    name, ticket = result.get("command"), result.get("ticket")
    if result.get("outcome") == "done":
        first, last = result.get("first_seq"), result.get("last_seq")
        entries = f", journal {first}-{last}" if first is not None else ""
        return f"done: {name} (ticket {ticket}{entries})"
    # A refusal no section decides (nothing to clear, say) has none to show.
    section = result.get("section")
    cited = f"{section}; " if section is not None else ""
    return (
        f"refused: {name}: {result.get('reason')} ({cited}"
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


def _reject_constant(name: str) -> object:
    raise ValueError(f"{name} is not a JSON number")


def _args_json(text: str) -> str:
    try:
        # Numbers are only looked at, never converted: the daemon reads them exactly.
        value = json.loads(text, parse_int=str, parse_float=str, parse_constant=_reject_constant)
    except ValueError as exc:
        why = f": {exc}" if "is not a JSON number" in str(exc) else ""
        raise ClientError(f"--json is not valid JSON{why}", EXIT_USAGE) from None
    except RecursionError:
        raise ClientError("--json is nested too deeply", EXIT_USAGE) from None
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
    if kind in ("int", "amount") and _WHOLE.fullmatch(value) and len(value) <= _INT_DIGITS:
        return int(value)
    if kind == "bool" and value in ("true", "false"):
        return value == "true"
    # A str, an amount as a decimal string ("12.50", read exactly by the daemon), or a
    # value the API refuses ("1e30": an amount is written plainly, ruling R16).
    return value
