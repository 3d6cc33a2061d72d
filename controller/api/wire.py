"""The console API's lines: one JSON object each, its version ``v`` (docs/api.md)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from decimal import Decimal

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


def encode(message: Mapping[str, object]) -> bytes:
    return (json.dumps(message, separators=(",", ":"), default=_json_default) + "\n").encode()


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


def parse(line: bytes) -> dict[str, object]:
    """The request ``line`` holds: one JSON object, its numbers exact."""
    try:
        request = json.loads(
            line.decode("utf-8"), parse_float=Decimal, parse_constant=_reject_constant
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
