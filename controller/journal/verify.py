"""``tablectl journal verify``: the whole chain recomputed, every edited, removed or
moved row named."""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from controller.journal.chain import Chain
from controller.journal.errors import JournalError
from controller.journal.sqlite import open_read_only


@dataclass(frozen=True, slots=True)
class Verdict:
    rows: int
    problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.problems


def verify(path: str | os.PathLike[str], *, first: bool = False) -> Verdict:
    """Recompute the whole chain: every edited, removed or reordered row is named
    (``first``: the check stops at the first one)."""
    p = Path(path)
    db = open_read_only(p)
    problems: list[str] = []
    count = 0
    chain = Chain()
    try:
        for seq, ts, body, prev, stored in db.execute(
            "SELECT seq, ts, body, prev, hash FROM rows ORDER BY seq"
        ):
            count += 1
            problems += chain.see(seq, ts, body, prev, stored)
            if first and problems:
                break
    except sqlite3.DatabaseError as exc:
        raise JournalError(f"{p}: the journal is damaged: {exc}") from None
    finally:
        db.close()
    return Verdict(count, tuple(problems))
