"""The journal, read-only, for what happened before the web subscribed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

from controller.journal import JournalError, open_read_only

RECENT: Final = 2000  # entries read back at start: well over a shoe's rounds


def reader(path: Path | None) -> Any:
    """``history(after, upto)``: the entries with ``after < seq <= upto`` (the last
    ``RECENT`` of them), or none without a journal."""

    def history(after: int, upto: int | None) -> list[tuple[int, dict[str, Any]]]:
        if path is None or upto is None:
            return []
        try:
            db = open_read_only(path)
        except JournalError:
            return []
        try:
            rows = db.execute(
                "SELECT seq, body FROM rows WHERE seq > ? AND seq <= ? ORDER BY seq DESC LIMIT ?",
                (after, upto, RECENT),
            ).fetchall()
        finally:
            db.close()
        return [(int(seq), json.loads(body)) for seq, body in reversed(rows)]

    return history


def check(path: Path) -> None:
    """JournalError (one line) when ``path`` is not a readable journal."""
    open_read_only(path).close()
