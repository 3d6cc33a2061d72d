"""Where the floor is in each table's journal: the last ``seq`` received, the table's
game once a row named it, and the rows found missing (a gap), kept in the state
directory so a restarted floor knows where each table was.

``Track.admit(seq)`` says what a journal message is: the next row (``new``), one seen
already (``duplicate``: QoS 1 delivers a message again after a cut; dropped), the row
after a gap (``gap``: ``seq`` > last + 1; the rows between are recorded as missing), or
a missing row arriving late (``recovered``: taken out of the missing ranges).

``save`` writes the file atomically (a temporary file, fsync, rename, fsync of the
directory): a crash leaves the previous state or the new one, never half of either.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, Literal

FILE: Final = "tracks.json"
MISSING_KEPT: Final = 100  # ranges kept per table; the oldest go first

Verdict = Literal["first", "new", "duplicate", "gap", "recovered"]


@dataclass
class Track:
    seq: int = 0  # the last row received (0: none yet)
    game: str | None = None
    missing: list[list[int]] = field(default_factory=list)  # [first, last] ranges

    def admit(self, seq: int) -> Verdict:
        if self.seq == 0:
            self.seq = seq  # the floor joins the table here: nothing before it is owed
            return "first"
        if seq == self.seq + 1:
            self.seq = seq
            return "new"
        if seq > self.seq:
            self.missing.append([self.seq + 1, seq - 1])
            del self.missing[:-MISSING_KEPT]
            self.seq = seq
            return "gap"
        return "recovered" if self._recover(seq) else "duplicate"

    def _recover(self, seq: int) -> bool:
        for index, (first, last) in enumerate(self.missing):
            if first <= seq <= last:
                parts = [[first, seq - 1], [seq + 1, last]]
                self.missing[index : index + 1] = [p for p in parts if p[0] <= p[1]]
                return True
        return False

    @property
    def missing_rows(self) -> int:
        return sum(last - first + 1 for first, last in self.missing)

    def copy(self) -> Track:
        return Track(self.seq, self.game, [list(r) for r in self.missing])


def _track(data: object) -> Track | None:
    if not isinstance(data, dict):
        return None
    seq, game, missing = data.get("seq"), data.get("game"), data.get("missing", [])
    if type(seq) is not int or seq < 0 or not isinstance(missing, list):
        return None
    return Track(seq, game if isinstance(game, str) else None, _ranges(missing))


def _ranges(missing: list[object]) -> list[list[int]]:
    def whole(r: object) -> bool:
        return isinstance(r, list) and len(r) == 2 and all(type(x) is int for x in r)

    return [[int(r[0]), int(r[1])] for r in missing if isinstance(r, list) and whole(r)]


class TrackError(ValueError):
    """The state file is unreadable; the message is one line."""


def load(state_dir: Path) -> dict[str, Track]:
    """The tracks saved in ``state_dir`` (none when there is no file yet)."""
    path = state_dir / FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise TrackError(f"{path}: unreadable ({exc})") from None
    tables = data.get("tables") if isinstance(data, dict) else None
    if not isinstance(tables, dict):
        raise TrackError(f"{path}: not the floor's state (no tables)")
    tracks = {str(t): _track(d) for t, d in tables.items()}
    return {t: track for t, track in tracks.items() if track is not None}


def save(state_dir: Path, tracks: dict[str, Track]) -> None:
    """Write the tracks atomically and durably; OSError if the disk refuses."""
    tables = {t: {"seq": k.seq, "game": k.game, "missing": k.missing} for t, k in tracks.items()}
    data = json.dumps({"tables": tables}, sort_keys=True).encode()
    path = state_dir / FILE
    temporary = state_dir / f".{FILE}.tmp"
    with temporary.open("wb") as out:
        out.write(data)
        out.flush()
        os.fsync(out.fileno())
    os.replace(temporary, path)
    directory = os.open(state_dir, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)
