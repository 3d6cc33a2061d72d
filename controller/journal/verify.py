"""``tablectl journal verify``: the whole chain recomputed, every edited, removed or
moved row named."""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from controller.journal.store import GENESIS, JournalError, open_read_only, row_hash


@dataclass(frozen=True, slots=True)
class Verdict:
    rows: int
    problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.problems


_MOVE_REACH = 1_000  # how far from its place a moved row is looked for


def _written_as(seq: int, ts: str, prev: str, body: str, stored: str) -> int | None:
    """The place a row was written at, when it is intact but sits somewhere else."""
    for place in range(max(1, seq - _MOVE_REACH), seq + _MOVE_REACH + 1):
        if place != seq and row_hash(place, ts, prev, body) == stored:
            return place
    return None


def verify(path: str | os.PathLike[str]) -> Verdict:
    """Recompute the whole chain: every edited, removed or reordered row is named."""
    p = Path(path)
    db = open_read_only(p)
    problems: list[str] = []
    count = 0
    try:
        expected_seq, prev = 1, GENESIS
        for seq, ts, body, stored_prev, stored_hash in db.execute(
            "SELECT seq, ts, body, prev, hash FROM rows ORDER BY seq"
        ):
            count += 1
            if seq != expected_seq:
                gap = (
                    f"row {expected_seq}"
                    if seq == expected_seq + 1
                    else (f"rows {expected_seq}-{seq - 1}")
                )
                problems.append(f"{gap} missing before row {seq} (removed)")
            if row_hash(seq, ts, stored_prev, body) != stored_hash:
                written = _written_as(seq, ts, stored_prev, body, stored_hash)
                if written is None:
                    problems.append(f"row {seq}: contents do not match its hash (edited)")
                else:
                    problems.append(f"row {seq}: holds the row written as row {written} (moved)")
            elif stored_prev != prev and seq == expected_seq:
                problems.append(
                    f"row {seq}: does not follow row {seq - 1} (moved, or the row before it "
                    "was replaced)"
                )
            expected_seq, prev = seq + 1, stored_hash
    except sqlite3.DatabaseError as exc:
        raise JournalError(f"{p}: the journal is damaged: {exc}") from None
    finally:
        db.close()
    return Verdict(count, tuple(problems))
