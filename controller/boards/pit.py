"""One table at a glance for a pit supervisor over a shift (``/pit``), derived from
the table's journal entries and their times (docs/scoreboard.md, "Pit").

The table's state, shoe and round; the devices' health; the shift's rounds and
rounds per hour, its drop and win by wager and result (Baccarat, Midibaccarat) or by
hand outcome (Spanish 21: controller/boards/spanish21_book.py); the faults (play
stopped, irregularities) and refusals with the last few of each.

``feed(seq, entry, at)`` takes each entry with its time in seconds since the epoch:
a journal row's own (controller/boards/history.py), or, for the live stream, whose
``event`` messages carry only seq and entry, the time it arrived. A shift starts when
the ``Pit`` is made or at ``reset(at)``; an entry from before it changes the state and
the devices' health, none of the shift's figures.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Mapping
from typing import Final

from controller.boards.books import BaccaratBook
from controller.boards.scoreboard import BACCARAT_GAMES, known_game
from controller.boards.spanish21_book import Spanish21Book
from controller.boards.tablestate import TableState

LAST: Final = 5  # the faults and refusals shown
HOUR: Final = 3600.0
FAULTS: Final = ("halt", "irregularity", "internal_error", "shuffle_failed")
# What a device event says of its device's health, as the daemon's status says it
# (controller/daemon/loop.py, HEALTH).
HEALTH: Final[Mapping[str, str]] = {
    "device_connected": "connected",
    "device_lost": "lost",
    "device_unavailable": "unavailable",
    "device_refused": "refused",
    "device_fault": "fault",
}


class Pit:
    """One table's shift: ``feed`` its journal entries with their times, ``view`` it."""

    def __init__(self, game: str, at: float | None = None) -> None:
        self.game = known_game(game)
        self.seq = 0
        self._table = TableState()
        self.devices: dict[str, str] = {}
        self.reset(time.time() if at is None else at)

    def reset(self, at: float) -> None:
        """A new shift from ``at``: its figures start again; state and devices stay."""
        self.since = at
        self.last_at: float | None = None
        self.rounds = 0
        self.void_rounds = 0
        self.book: BaccaratBook | Spanish21Book = (
            BaccaratBook() if self.game in BACCARAT_GAMES else Spanish21Book()
        )
        self.faults = 0
        self.refusals = 0
        self._faults: deque[dict[str, object]] = deque(maxlen=LAST)
        self._refusals: deque[dict[str, object]] = deque(maxlen=LAST)

    def feed(self, seq: int, entry: Mapping[str, object], at: float) -> None:
        if seq <= self.seq:
            return  # seen already: the journal and the stream overlap
        self.seq = seq
        self._table.feed(entry)
        kind = str(entry.get("type"))
        if kind == "device" and str(entry.get("event")) in HEALTH:
            self.devices[str(entry.get("device"))] = HEALTH[str(entry.get("event"))]
        if at < self.since:
            return
        self.last_at = at
        self.book.feed(entry)
        if kind == "round_end":
            if entry.get("void") is False:
                self.rounds += 1
            else:
                self.void_rounds += 1
        elif kind in FAULTS:
            self.faults += 1
            self._faults.append(_fault(seq, entry, at))
        elif kind == "refused":
            self.refusals += 1
            self._refusals.append(_refusal(seq, entry, at))

    def rounds_per_hour(self, now: float | None = None) -> float | None:
        """Rounds settled an hour, over the shift up to ``now`` (default: the last
        entry's time); None before any time has passed."""
        end = self.last_at if now is None else now
        if end is None or end <= self.since:
            return None
        return round(self.rounds * HOUR / (end - self.since), 1)

    def view(self, now: float | None = None) -> dict[str, object]:
        return {
            "game": self.game,
            "seq": self.seq,
            **self._table.view(),
            "devices": dict(sorted(self.devices.items())),
            "shift": {"since": self.since, "last": self.last_at},
            "rounds": self.rounds,
            "void_rounds": self.void_rounds,
            "rounds_per_hour": self.rounds_per_hour(now),
            "drop": str(self.book.drop),
            "win": str(self.book.win),
            **self.book.view(),
            "faults": {"count": self.faults, "last": list(self._faults)},
            "refusals": {"count": self.refusals, "last": list(self._refusals)},
        }


def _fault(seq: int, entry: Mapping[str, object], at: float) -> dict[str, object]:
    """A fault as the pit shows it: what, where and the section; never a card."""
    what = entry.get("reason") or entry.get("detail") or entry.get("cause") or ""
    return {
        "seq": seq,
        "at": at,
        "type": entry.get("type"),
        "cause": entry.get("cause"),
        "device": entry.get("device"),
        "what": str(what),
        "section": entry.get("section"),
    }


def _refusal(seq: int, entry: Mapping[str, object], at: float) -> dict[str, object]:
    return {
        "seq": seq,
        "at": at,
        "command": entry.get("command") or entry.get("event"),
        "reason": entry.get("reason"),
        "section": entry.get("section"),
        "state": entry.get("state"),
    }
