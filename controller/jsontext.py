"""Compact JSON text, as ``json.JSONEncoder(separators=(",", ":"), default=...)``
writes it, through json's C encoder built once: ``JSONEncoder.encode`` builds a new one
for every call, which is most of the cost of encoding one small entry. Shared by the
journal's canonical bodies and the API's lines (each its own keys' order)."""

from __future__ import annotations

import json
from collections.abc import Callable
from json.encoder import c_make_encoder, encode_basestring_ascii  # type: ignore[attr-defined]


def compact(default: Callable[[object], object], *, sort_keys: bool) -> Callable[[object], str]:
    """The text of a value, the same as that encoder's ``encode``; a dict (every entry
    and line) through the C encoder, without the circular check (an entry is a tree)."""
    plain = json.JSONEncoder(sort_keys=sort_keys, separators=(",", ":"), default=default)
    if c_make_encoder is None:
        return plain.encode
    fast = c_make_encoder(
        None, default, encode_basestring_ascii, None, ":", ",", sort_keys, False, True
    )

    def text(value: object) -> str:
        if type(value) is not dict:
            return plain.encode(value)
        return "".join(fast(value, 0))

    return text
