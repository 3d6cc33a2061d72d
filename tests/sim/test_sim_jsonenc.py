"""firmware_sim.jsonenc: the text json.JSONEncoder's encode makes, for dicts."""

from __future__ import annotations

import json

import pytest

from firmware_sim.jsonenc import dict_encoder

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
    assert dict_encoder(separators=separators)(value) == reference


def test_default_is_used_and_its_absence_refuses() -> None:
    value = {"obj": object, "set": {1}}
    assert dict_encoder(default=repr)(value) == json.JSONEncoder(default=repr).encode(value)
    with pytest.raises(TypeError, match="not JSON serializable"):
        dict_encoder()(value)
