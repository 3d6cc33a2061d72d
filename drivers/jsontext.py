"""JSON text as ``json.JSONEncoder(...).encode`` writes it, through json's C encoder
built once: ``encode`` builds a new one for every call, which is most of the cost of
encoding one small dict. Shared by the journal's canonical bodies and the API's lines
(controller/journal/chain.py, controller/api/wire.py: each its own key order) and the
simulators' log lines and control replies (firmware_sim)."""

from __future__ import annotations

import json
import json.encoder
from collections.abc import Callable
from typing import Any

Encoder = Callable[[object], str]


def encoder(
    *,
    separators: tuple[str, str] = (",", ":"),
    sort_keys: bool = False,
    default: Callable[[Any], Any] | None = None,
) -> Encoder:
    """``json.JSONEncoder(separators=..., sort_keys=..., default=...).encode``: the same
    text; a dict (every entry, line and reply) through the C encoder, without the
    circular check (each is a tree of fresh values: a circular one would raise
    RecursionError, not ValueError)."""
    plain = json.JSONEncoder(sort_keys=sort_keys, separators=separators, default=default)
    make = getattr(json.encoder, "c_make_encoder", None)  # the C accelerator's, undocumented
    if make is None:  # a Python without the _json accelerator
        return plain.encode
    item_sep, key_sep = separators
    chunks = make(
        None,  # no circular-value check
        plain.default,
        json.encoder.encode_basestring_ascii,
        None,  # no indent
        key_sep,
        item_sep,
        sort_keys,
        False,  # skipkeys
        True,  # allow_nan
    )

    def text(value: object) -> str:
        if type(value) is not dict:
            return plain.encode(value)
        return "".join(chunks(value, 0))

    return text
