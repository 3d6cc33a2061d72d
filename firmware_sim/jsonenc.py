"""A dict to JSON text the way ``json.JSONEncoder(...).encode`` does it, with the C
encoder made once instead of once a call (``encode`` builds it anew each time).

Same text; the one difference is that a circular value is not detected (a
RecursionError instead of a ValueError): the log lines and control replies encoded
here are fresh dicts of plain values.
"""

from __future__ import annotations

import json
import json.encoder
from collections.abc import Callable, Mapping
from typing import Any

Encoder = Callable[[Mapping[str, Any]], str]


def dict_encoder(
    separators: tuple[str, str] = (", ", ": "), default: Callable[[Any], Any] | None = None
) -> Encoder:
    """``json.JSONEncoder(separators=separators, default=default).encode``, for dicts."""
    reference = json.JSONEncoder(separators=separators, default=default)
    make = getattr(json.encoder, "c_make_encoder", None)  # the C accelerator's, undocumented
    if make is None:  # a Python without the _json accelerator
        return reference.encode
    item_sep, key_sep = separators
    chunks = make(
        None,  # no circular-value check
        reference.default,
        json.encoder.encode_basestring_ascii,
        None,  # no indent
        key_sep,
        item_sep,
        False,  # sort_keys
        False,  # skipkeys
        True,  # allow_nan
    )
    return lambda value: "".join(chunks(value, 0))
