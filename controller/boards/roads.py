"""The Baccarat results boards' roads, drawn from a shoe's results in order
(/work/shared/SCOREBOARDS.md, docs/scoreboard.md): the bead plate, one cell per round,
and the big road, one column per streak with ties as slashes on the last circle.

Pure: a list of ``Result`` in, cells out. A cell is a dict ready for JSON:
``{"row", "col", "round", "winner", "ties", "banker_pair", "player_pair", "natural"}``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final, Literal

from controller.rules.cards import CardError, card

ROWS: Final = 6  # both roads are six cells high

Winner = Literal["B", "P", "T"]
LETTERS: Final[dict[str, Winner]] = {"banker": "B", "player": "P", "tie": "T"}


@dataclass(frozen=True, slots=True)
class Result:
    """One round's final result as the boards need it."""

    round: int
    winner: Winner
    banker_pair: bool
    player_pair: bool
    natural: bool


def is_pair(cards: Sequence[object]) -> bool:
    """The hand's first two cards are of equal rank ("TD" and "10H" alike)."""
    if len(cards) < 2 or not all(isinstance(c, str) for c in cards[:2]):
        return False
    try:
        first, second = card(str(cards[0])), card(str(cards[1]))
    except CardError:
        return False
    return first[0] == second[0]


def _cell(row: int, col: int, result: Result, ties: int) -> dict[str, object]:
    return {
        "row": row,
        "col": col,
        "round": result.round,
        "winner": result.winner,
        "ties": ties,
        "banker_pair": result.banker_pair,
        "player_pair": result.player_pair,
        "natural": result.natural,
    }


def bead_plate(results: Iterable[Result]) -> list[dict[str, object]]:
    """One cell a round, ties included: down the first column, then the next."""
    return [_cell(i % ROWS, i // ROWS, r, 0) for i, r in enumerate(results)]


class _Circle:
    """A big road circle being drawn: where it is, its round, the ties on it."""

    __slots__ = ("col", "result", "row", "ties")

    def __init__(self, row: int, col: int, result: Result, ties: int) -> None:
        self.row, self.col, self.result, self.ties = row, col, result, ties


class _BigRoad:
    """The big road as it is drawn, circle by circle."""

    def __init__(self) -> None:
        self.circles: list[_Circle] = []
        self.used: set[tuple[int, int]] = set()
        self.carried = 0  # ties before the first circle
        self.start = -1  # the column the current streak began in
        self.turned = False  # the current streak runs along a row

    def draw(self, result: Result) -> None:
        last = self.circles[-1] if self.circles else None
        if result.winner == "T":
            if last is None:
                self.carried += 1
            else:
                last.ties += 1
            return
        if last is not None and last.result.winner == result.winner:
            row, col = self._next(last)
        else:
            row, col, self.turned = 0, self._free_top(self.start + 1), False
            self.start = col
        self.used.add((col, row))
        self.circles.append(_Circle(row, col, result, self.carried if last is None else 0))

    def _next(self, last: _Circle) -> tuple[int, int]:
        """Where a streak goes on: down, or once it cannot, right along its row."""
        row, col = last.row, last.col
        if not self.turned and row + 1 < ROWS and (col, row + 1) not in self.used:
            return row + 1, col
        self.turned = True
        col += 1
        while (col, row) in self.used:
            col += 1
        return row, col

    def _free_top(self, col: int) -> int:
        while (col, 0) in self.used:
            col += 1
        return col


def big_road(results: Iterable[Result]) -> list[dict[str, object]]:
    """The big road's circles, in the order drawn.

    Banker and Player results only; a tie is counted on the last circle, ties before
    the first circle are carried onto it. A streak goes down its column; at the sixth
    row, or above a used cell, it turns right along that row (the dragon tail) and
    stays there. A new streak starts at the top of the column after the last streak's
    first one, or further right if that top cell is taken."""
    road = _BigRoad()
    for result in results:
        road.draw(result)
    return [_cell(c.row, c.col, c.result, c.ties) for c in road.circles]
