"""The journal's two witnesses of how far it went, beside it.

``journal.checkpoint`` names the last row whose chain was verified, by its sequence
number and hash: every row up to it was checked when it was written, so a start checks
only the rows after it, and a journal that ends before it has lost rows. It is written
whole (temporary file, fsync, rename, fsync of the directory) at start, every
``CHECKPOINT_EVERY`` rows and at a clean stop. The full check that runs after start
marks it ``broken`` when it finds a bad row, and every later start is refused until
the journal is repaired (docs/recovery.md).

``journal.tail`` names the last row written, overwritten in place after every row and
never fsynced, so it costs one small write: after a crash it may be behind the journal
(the row it names is then in the journal), never ahead of what the journal had made
durable. A journal that ends before it has lost committed rows (a torn write-ahead
log). A tail that cannot be read is no witness, not an error: it is not written whole.

    {"format": 1, "seq": 1200, "hash": "<64 hex>", "broken": null}   journal.checkpoint
    00000000000000001234 <64 hex>                                     journal.tail
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import threading
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Final

from controller.journal.errors import JournalError
from drivers import durable

CHECKPOINT_EVERY: Final = 1_000  # rows between two checkpoints: what a start re-checks
FORMAT: Final = 1
_HASH = re.compile(r"[0-9a-f]{64}")
_TAIL = re.compile(rb"(\d{20}) ([0-9a-f]{64})\n")
_TAIL_SIZE: Final = 86


@dataclass(frozen=True, slots=True)
class Mark:
    """A row the chain reached: its sequence number and hash (0 and GENESIS: none)."""

    seq: int
    hash: str
    broken: str | None = None  # the first bad row the full check found


def read_checkpoint(path: Path) -> Mark | None:
    """The checkpoint in ``path``; None when there is none; JournalError (one line) when
    the file is not one."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise JournalError(f"{path}: cannot read the checkpoint: {exc}") from None
    try:
        data = json.loads(text)
        mark = Mark(int(data["seq"]), str(data["hash"]), data.get("broken"))
        good = data.get("format") == FORMAT and mark.seq >= 0 and _HASH.fullmatch(mark.hash)
    except (ValueError, KeyError, TypeError, AttributeError):
        good = False
    if not good:
        raise JournalError(
            f"{path}: not a journal checkpoint: move it aside and the next start checks "
            "the whole chain (docs/recovery.md)"
        )
    return mark


def read_tail(path: Path) -> Mark | None:
    """The row ``journal.tail`` names; None when there is none or it cannot be read."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    found = _TAIL.fullmatch(data)
    return None if found is None else Mark(int(found[1]), found[2].decode("ascii"))


# The witnesses hold a row's number and hash, which the journal holds too: readable by
# the journal's group (0640 with the journal, the unit's UMask=0027), so that a reader
# of the journal (`tablectl journal verify`, the web's /floor as user tablectl-web in
# group tablectl) checks them as well.
WITNESS_MODE = 0o640


class Checkpoint:
    """The journal's ``journal.checkpoint``, kept by the journal's writer and marked
    broken by the full check's thread (hence the lock)."""

    def __init__(self, path: Path, mark: Mark | None) -> None:
        self.path = path
        self.mark = mark
        self._lock = threading.Lock()

    def advance(self, seq: int, digest: str) -> None:
        """Every row up to ``seq`` (whose hash is ``digest``) is verified."""
        with self._lock:
            broken = None if self.mark is None else self.mark.broken
            self._write(Mark(seq, digest, broken))

    def mark_broken(self, problem: str) -> None:
        """The full check found ``problem``: every later start is refused."""
        with self._lock:
            mark = self.mark or Mark(0, "0" * 64)
            if mark.broken is None:
                self._write(replace(mark, broken=problem))

    def _write(self, mark: Mark) -> None:
        data = {"format": FORMAT, "seq": mark.seq, "hash": mark.hash, "broken": mark.broken}
        durable.replace(self.path, (json.dumps(data) + "\n").encode("utf-8"), WITNESS_MODE)
        self.mark = mark


class Tail:
    """The journal's ``journal.tail``, overwritten after every row (see the module)."""

    def __init__(self, path: Path, seq: int, digest: str) -> None:
        self.path = path
        if not path.exists():
            durable.create(path, _tail(seq, digest), WITNESS_MODE, None)
        self._fd: int | None = os.open(path, os.O_WRONLY)
        self.wrote(seq, digest)
        os.ftruncate(self._fd, _TAIL_SIZE)  # whatever else the file held, it is one record

    def wrote(self, seq: int, digest: str) -> None:
        if self._fd is not None:
            os.pwrite(self._fd, _tail(seq, digest), 0)

    def close(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = None


def _tail(seq: int, digest: str) -> bytes:
    data = f"{seq:020d} {digest}\n".encode("ascii")
    assert len(data) == _TAIL_SIZE
    return data
