"""The JSON fast paths: drivers.jsontext.encoder makes json.JSONEncoder's text, the
control server decodes a request line as json.loads does."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from drivers.jsontext import encoder
from firmware_sim import control

VALUES: list[dict[str, object]] = [
    {},
    {"ok": True, "event_ids": [1, 2, 3]},
    {"ok": False, "error": 'é \n " \\ \u2028 \U0001f0a1'},
    {"f": 1.5, "big": 10**30, "neg": -0.0, "nan": float("nan"), "inf": float("-inf")},
    {"nested": {"a": [None, {"b": ()}], "1": {2: 3, True: False, None: 1.25}}},
    {"link": {"frames_tx": 0, "rto": 0.1}, "kind": "shoe", "tty": None},
]


@pytest.mark.parametrize("value", VALUES)
@pytest.mark.parametrize("separators", [(", ", ": "), (",", ":")])
def test_same_text_as_jsonencoder(value: dict[str, object], separators: tuple[str, str]) -> None:
    reference = json.JSONEncoder(separators=separators).encode(value)
    assert encoder(separators=separators)(value) == reference


@pytest.mark.parametrize(
    "value", [VALUES[1], VALUES[5], {"b": {"d": 1, "c": 2}, "a": 1}, [{"b": 2, "a": 1}], "x"]
)
def test_sorted_keys_and_values_that_are_not_dicts(value: object) -> None:
    reference = json.JSONEncoder(separators=(",", ":"), sort_keys=True).encode(value)
    assert encoder(sort_keys=True)(value) == reference


def test_default_is_used_and_its_absence_refuses() -> None:
    value = {"obj": object, "set": {1}}
    reference = json.JSONEncoder(default=repr).encode(value)
    assert encoder(separators=(", ", ": "), default=repr)(value) == reference
    with pytest.raises(TypeError, match="not JSON serializable"):
        encoder()(value)


REQUEST_LINES = [
    b'{"cmd": "draw", "count": 1}',
    b"{}",
    b'{"cmd": "load", "cards": ["A\xe2\x99\xa0"], "x": "\xc3\xa9"}',
    b'{"a": "\xed\xa0\x80"}',  # a lone surrogate, as json.loads lets through
    b'{"a"',
    b"[1]",
    b'\xef\xbb\xbf{"cmd": "status"}',
    '{"cmd":"status"}'.encode("utf-16-le"),
    b'{"a": "\xff"}',
    b'{"a": 1} x',
]


@pytest.mark.parametrize("line", REQUEST_LINES)
def test_control_requests_decode_as_json_loads(line: bytes) -> None:
    def outcome(loads: Callable[[bytes], object]) -> tuple[str, object]:
        try:
            return "ok", loads(line)
        except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError
            return type(exc).__name__, str(exc)

    assert outcome(control._loads) == outcome(json.loads)
