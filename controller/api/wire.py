"""The console API's lines: one JSON object each, its version ``v`` (docs/api.md)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal

from drivers.jsontext import encoder

VERSION = 1


class Refused(Exception):
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


# One encoder for every line (json.dumps with arguments builds a new one each call).
_text = encoder(default=_json_default)


def encode(message: Mapping[str, object]) -> bytes:
    return (_text(message) + "\n").encode()


def event(seq: int, entry: Mapping[str, object]) -> bytes:
    """The ``event`` line streaming journal entry ``seq``: the same bytes as ``encode``
    of ``{"v", "type", "seq", "entry"}``, the entry encoded once, into the line."""
    return event_text(seq, _text(entry))


def event_text(seq: int, entry: str) -> bytes:
    """The ``event`` line of an entry already written as JSON (``entry``): the daemon
    streams each journal row's own body, its keys sorted (controller/journal/chain.py)."""
    return f'{{"v":{VERSION},"type":"event","seq":{seq},"entry":{entry}}}\n'.encode()


def error(refused: Refused, request_id: str | int | None) -> bytes:
    """The ``error`` line answering a refused request."""
    return encode(
        {
            "v": VERSION,
            "type": "error",
            "id": request_id,
            "code": refused.code,
            "message": refused.message,
            **refused.extra,
        }
    )


def _reject_constant(name: str) -> object:
    raise ValueError(f"{name} is not a JSON number")


@dataclass(frozen=True, slots=True)
class ExponentNumber:
    """A JSON number written with an exponent (``1e30``), kept as written: no field takes
    one, and an amount is written plainly (ruling R16), so it never becomes a value a
    field could mistake for its own."""

    text: str


def _number(text: str) -> Decimal | ExponentNumber:
    """A JSON number with a point or an exponent: exact, as written."""
    return ExponentNumber(text) if "e" in text or "E" in text else Decimal(text)


def _integer(text: str) -> int | Decimal:
    """A JSON whole number; one too long for an int (over 4,300 digits) stays exact as a
    Decimal, so the table, not the parser, says it is too large."""
    try:
        return int(text)
    except ValueError:
        return Decimal(text)


def parse(line: bytes) -> dict[str, object]:
    """The request ``line`` holds: one JSON object, its numbers exact."""
    try:
        request = json.loads(
            line.decode("utf-8"),
            parse_float=_number,
            parse_int=_integer,
            parse_constant=_reject_constant,
        )
    except (UnicodeDecodeError, ValueError, RecursionError):  # too deep: not served
        raise Refused("bad_json", "a request is one JSON object on one line") from None
    if not isinstance(request, dict):
        raise Refused("bad_request", "a request is a JSON object")
    return request


def request_id(request: Mapping[str, object]) -> str | int | None:
    """The request's ``id``, echoed in every reply to it: a string or a whole number."""
    value = request.get("id")
    if value is None or (isinstance(value, str | int) and not isinstance(value, bool)):
        return value
    raise Refused("bad_request", "id must be a string or a whole number", field="id")


def check_version(request: Mapping[str, object]) -> None:
    version = request.get("v")
    if type(version) is not int or version != VERSION:
        raise Refused("bad_version", f'every request carries "v": {VERSION}', supported=[VERSION])
