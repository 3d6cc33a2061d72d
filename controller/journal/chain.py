"""The hash chain: each row's hash over its place, its time, the hash before it and
its body, and the check of a run of rows against it (``Chain``), shared by
``tablectl journal verify`` (every row) and the daemon's start (the rows after the
checkpoint)."""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Final

from drivers.jsontext import encoder

GENESIS: Final = "0" * 64  # the "previous hash" of the first row
_MOVE_REACH: Final = 1_000  # how far from its place a moved row is looked for
_length: Final = struct.Struct(">I").pack  # a part's length before it


def row_hash(seq: int, ts: str, prev: str, body: str) -> str:
    """A row's hash: over its place, its time, the hash before it and its body, each
    as its UTF-8 bytes after their length (4 bytes, big-endian), hashed in one call."""
    s, t, p, b = str(seq).encode(), ts.encode(), prev.encode(), body.encode()
    joined = b"".join(
        (_length(len(s)), s, _length(len(t)), t, _length(len(p)), p, _length(len(b)), b)
    )
    return hashlib.sha256(joined).hexdigest()


def _json_value(value: object) -> object:
    if isinstance(value, Decimal):
        return str(value)  # exact: an amount is never rounded through a float
    raise TypeError(f"{type(value).__name__} cannot be journaled")


# Built once: json.dumps with arguments builds a new encoder for every row.
_CANONICAL: Final = encoder(default=_json_value, sort_keys=True)


def encode(entry: Mapping[str, object]) -> str:
    """An entry as the canonical JSON its hash is taken over."""
    return _CANONICAL(entry)


@dataclass(frozen=True, slots=True)
class Row:
    seq: int
    ts: str
    entry: dict[str, Any]


class Chain:
    """Rows checked one after another, in sequence order, from the row after ``seq``
    (whose hash is ``prev``): every edited, removed or moved row is named."""

    def __init__(self, seq: int = 0, prev: str = GENESIS) -> None:
        self._expected = seq + 1
        self._prev = prev

    def see(self, seq: int, ts: str, body: str, prev: str, stored: str) -> list[str]:
        """The next row as stored; what is wrong with it (nothing: ``[]``)."""
        problems = []
        if seq != self._expected:
            gap = (
                f"row {self._expected}"
                if seq == self._expected + 1
                else f"rows {self._expected}-{seq - 1}"
            )
            problems.append(f"{gap} missing before row {seq} (removed)")
        if row_hash(seq, ts, prev, body) != stored:
            written = _written_as(seq, ts, prev, body, stored)
            if written is None:
                problems.append(f"row {seq}: contents do not match its hash (edited)")
            else:
                problems.append(f"row {seq}: holds the row written as row {written} (moved)")
        elif prev != self._prev and seq == self._expected:
            problems.append(
                f"row {seq}: does not follow row {seq - 1} (moved, or the row before it "
                "was replaced)"
            )
        self._expected, self._prev = seq + 1, stored
        return problems


def _written_as(seq: int, ts: str, prev: str, body: str, stored: str) -> int | None:
    """The place a row was written at, when it is intact but sits somewhere else."""
    for place in range(max(1, seq - _MOVE_REACH), seq + _MOVE_REACH + 1):
        if place != seq and row_hash(place, ts, prev, body) == stored:
            return place
    return None
