"""What the pages show, built from the journal's entries by the shared pure models:
``TableModel`` (controller/tableview/) for /dealer and /floor, ``Scoreboard`` and
``Pit`` (controller/boards/) for /scoreboard and /pit, and the floor's recent entries.
The models need the game: entries before it is known (the journal's first entry
names it, the status too) wait, in order."""

from __future__ import annotations

import time
from collections import deque
from typing import Any, Final

from controller.boards.pit import Pit
from controller.boards.scoreboard import Scoreboard
from controller.tableview.model import TableModel
from controller.web import shifts

RECENT: Final = 20  # the floor's recent entries
WAITING: Final = 100_000  # entries kept while the game is not known yet


class Models:
    def __init__(self, shift_starts: tuple[int, ...] = shifts.parse(shifts.DEFAULT)) -> None:
        self.shift_starts = shift_starts
        self.next_shift = 0.0  # when the pit's shift ends (set with the pit)
        self.game: str | None = None
        self.table: TableModel | None = None
        self.board: Scoreboard | None = None
        self.pit: Pit | None = None
        self.recent: deque[dict[str, Any]] = deque(maxlen=RECENT)
        self._waiting: deque[tuple[int, dict[str, Any], float]] = deque(maxlen=WAITING)

    def know(self, game: object) -> None:
        """The table's game (from the journal or the status): the models start."""
        if self.game is not None or not isinstance(game, str):
            return
        self.game = game
        since, self.next_shift = shifts.current(time.time(), self.shift_starts)
        self.table, self.board = TableModel(game), Scoreboard(game)
        self.pit = Pit(game, at=since)  # the journal's rows of the shift count
        while self._waiting:
            self._feed(*self._waiting.popleft())

    def feed(self, seq: int, entry: dict[str, Any], at: float | None = None) -> None:
        when = time.time() if at is None else at
        if entry.get("type") == "journal":
            self.know(entry.get("game"))
        if self.game is None:
            self._waiting.append((seq, entry, when))
            return
        self._feed(seq, entry, when)

    def _feed(self, seq: int, entry: dict[str, Any], at: float) -> None:
        assert self.table is not None and self.board is not None and self.pit is not None
        self.table.feed(seq, entry)
        self.board.feed(seq, entry)
        if at >= self.next_shift:  # a new shift: its figures from its start
            since, self.next_shift = shifts.current(at, self.shift_starts)
            self.pit.reset(since)
        self.pit.feed(seq, entry, at)
        self.recent.append({"seq": seq, "type": entry.get("type"), "at": at})

    def table_view(self) -> dict[str, Any]:
        if self.table is None:
            return {"seq": 0, "recent": []}
        return {**self.table.view(), "recent": list(self.recent)}

    def scoreboard_view(self) -> dict[str, Any]:
        return dict(self.board.view()) if self.board else {"seq": 0}

    def pit_view(self) -> dict[str, Any]:
        return dict(self.pit.view()) if self.pit else {"seq": 0}
