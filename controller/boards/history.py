"""The journal read back for the boards: every entry with its seq and its time, read
read-only (``controller.journal.open_read_only``: the daemon may be writing it, and a
reader never checkpoints nor removes its write-ahead log), so the web process can
rebuild the scoreboard and the pit view when it starts, then go on from the live
stream after the last seq read.

An entry the API would withhold (a card marked sealed that carries a value, 551.8(e):
controller/api/sealed.py) is left out here too.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from controller.api.sealed import carries_sealed_card
from controller.journal import JournalError, open_read_only
from controller.journal.errors import unusable

History = Iterator[tuple[int, dict[str, Any], float]]


def row_time(ts: str) -> float:
    """A row's time (``2026-12-01T13:59:24.123456+00:00``) as seconds since the epoch."""
    return datetime.fromisoformat(ts).timestamp()


def history(path: str | os.PathLike[str], after: int = 0) -> History:
    """(seq, entry, time) of each row after row ``after``, in order, as they are read:
    the rows committed when the reading began. JournalError (one line) for a file that
    is missing, not a journal, or damaged."""
    p = Path(path)
    db = open_read_only(p)
    at = ""
    try:
        cursor = db.execute("SELECT seq, ts, body FROM rows WHERE seq > ? ORDER BY seq", (after,))
        for seq, ts, body in cursor:
            at = f" at row {seq}"
            entry = json.loads(body)
            when = row_time(str(ts))
            if not isinstance(entry, dict):
                raise ValueError("the row is not a JSON object")
            if not carries_sealed_card(entry):
                yield int(seq), entry, when
    except (sqlite3.DatabaseError, ValueError) as exc:
        reason = unusable(exc)
        if reason is not None:
            raise JournalError(f"{p}: cannot read the journal{at}: {reason}") from None
        raise JournalError(f"{p}: the journal is damaged{at}: {exc}") from None
    finally:
        db.close()
