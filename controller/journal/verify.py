"""``tablectl journal verify``: the whole chain recomputed, every edited, removed or
moved row named; and the rows the journal's witnesses saw (its checkpoint, its tail
record: controller/journal/checkpoint.py) looked for, so that rows lost from its end,
which leave the chain intact (a torn write-ahead log), are named too."""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from controller.journal.chain import Chain
from controller.journal.checkpoint import Mark, read_checkpoint, read_tail
from controller.journal.errors import JournalError, failure
from controller.journal.files import JournalFiles
from controller.journal.sqlite import open_read_only


@dataclass(frozen=True, slots=True)
class Verdict:
    rows: int
    problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.problems


def verify(path: str | os.PathLike[str], *, first: bool = False) -> Verdict:
    """Recompute the whole chain: every edited, removed or reordered row is named, and
    every row a witness saw that the journal does not hold (``first``: the check stops
    at the first problem)."""
    p = Path(path)
    # The witnesses are read before the rows: a row they name is durable by then, so a
    # journal being written is never said to lack one.
    witnesses, problems = _witnesses(JournalFiles.of(p))
    db = open_read_only(p)
    count, last = 0, 0
    seen: dict[int, str] = {}
    chain = Chain()
    try:
        for seq, ts, body, prev, stored in db.execute(
            "SELECT seq, ts, body, prev, hash FROM rows ORDER BY seq"
        ):
            count, last = count + 1, seq
            if seq in witnesses:
                seen[seq] = stored
            problems += chain.see(seq, ts, body, prev, stored)
            if first and problems:
                return Verdict(count, tuple(problems[:1]))
    except sqlite3.DatabaseError as exc:
        raise failure(p, exc) from None
    finally:
        db.close()
    problems += _unseen(witnesses, seen, last)
    return Verdict(count, tuple(problems[:1] if first else problems))


def _unseen(witnesses: dict[int, tuple[str, Mark]], seen: dict[int, str], last: int) -> list[str]:
    """The rows the witnesses saw that the journal does not hold, or holds otherwise."""
    problems = []
    for seq, (name, mark) in sorted(witnesses.items()):
        if seq > last:
            problems.append(f"row {seq} missing: the journal ends at row {last}, {name} saw it")
        elif seq in seen and seen[seq] != mark.hash:
            problems.append(f"row {seq}: not the row {name} saw (replaced)")
    return problems


def _witnesses(files: JournalFiles) -> tuple[dict[int, tuple[str, Mark]], list[str]]:
    """The rows the journal's witnesses saw, by sequence number, and what is wrong with
    the witnesses themselves."""
    found: dict[int, tuple[str, Mark]] = {}
    problems: list[str] = []
    try:
        checkpoint = read_checkpoint(files.checkpoint)
    except JournalError as exc:  # not one, or not readable: the line says which
        checkpoint = None
        problems.append(str(exc))
    tail = read_tail(files.tail)
    for name, mark in ((files.tail.name, tail), (files.checkpoint.name, checkpoint)):
        if mark is not None and mark.seq > 0:
            found[mark.seq] = (name, mark)
    return found, problems
