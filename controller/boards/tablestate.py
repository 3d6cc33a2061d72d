"""What the table is doing, in plain words, from its journal entries alone: for the
scoreboard and the pit, which read no state the table keeps (a restarted web process
rebuilds it from the journal, controller/boards/history.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

BETS_OPEN: Final = "place your bets"
DEALING: Final = "no more bets: dealing"
ROUND_OVER: Final = "round over"
SHOE_OVER: Final = "shoe over: waiting for new cards"
NEW_SHOE: Final = "new shoe"
STOPPED: Final = "play stopped: floorperson called"
STARTING: Final = "starting"

# The entry types that move the table to a state; a prompt moves it only by its text.
_MOVES: Final[Mapping[str, str]] = {
    "shuffled": NEW_SHOE,
    "wager": BETS_OPEN,
    "no_more_bets": DEALING,
    "round_end": ROUND_OVER,
    "shoe_end": SHOE_OVER,
    "deal_called_off": BETS_OPEN,
}
_BETS_PROMPT: Final = "PLACE YOUR BETS"


class TableState:
    """The table's state, shoe and round as its journal shows them."""

    def __init__(self) -> None:
        self.state = STARTING
        self.shoe: int | None = None
        self.round: int | None = None
        self.halted = False

    def feed(self, entry: Mapping[str, object]) -> None:
        kind = str(entry.get("type"))
        self._move(kind, entry)
        shoe = entry.get("shoe")
        if kind in ("shuffled", "round_end") and isinstance(shoe, int):
            self.shoe = shoe
        number = entry.get("round")
        if kind in ("no_more_bets", "round_end") and isinstance(number, int):
            self.round = number

    def _move(self, kind: str, entry: Mapping[str, object]) -> None:
        if kind == "halt":
            self.halted = True
        elif kind == "floor_clear":
            self.halted = False
        elif kind == "prompt":
            if entry.get("text") == _BETS_PROMPT:
                self.state = BETS_OPEN
        elif kind == "wager" and entry.get("bet") == "insurance":
            pass  # Spanish 21's Insurance is wagered in the round (551.10(b))
        elif kind in _MOVES:
            self.state = _MOVES[kind]

    def view(self) -> dict[str, object]:
        return {
            "state": STOPPED if self.halted else self.state,
            "shoe": self.shoe,
            "round": self.round,
        }
