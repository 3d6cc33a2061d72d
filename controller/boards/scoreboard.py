"""The results board facing the players (``/scoreboard``), derived from the table's
journal entries (docs/scoreboard.md).

Baccarat and Midibaccarat: the current shoe's bead plate and big road and its counts
(/work/shared/SCOREBOARDS.md). Spanish 21: the table's state and the dealer's totals
over the last rounds, whatever their shoe. Only a ``round_end`` entry that is not
void puts a result on the board: nothing shows before a result is final, and a void
round never does. A ``shuffled`` entry (a new shoe) clears the shoe's results.

``feed(seq, entry)`` takes the entries in journal order, from the journal
(controller/boards/history.py) and then from the live stream: an entry at or before
the last seq fed is one seen already and changes nothing. ``view()`` is plain JSON.
Only the dealer's total of a settled round is read, never a card (551.8(e)).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from typing import Final

from controller.boards.roads import LETTERS, ROWS, Result, bead_plate, big_road, is_pair
from controller.boards.tablestate import TableState
from controller.games import GAMES

DEALER_TOTALS: Final = 20  # the Spanish 21 rounds whose dealer totals are shown
BACCARAT_GAMES: Final = ("baccarat", "midibaccarat")


class BoardError(ValueError):
    """A board asked for a game there is none of (one line)."""


def known_game(game: str) -> str:
    if game not in GAMES:
        raise BoardError(f"no game {game!r}: expected one of {', '.join(sorted(GAMES))}")
    return game


class Scoreboard:
    """One table's results board: ``feed`` its journal entries, ``view`` the board."""

    def __init__(self, game: str) -> None:
        self.game = known_game(game)
        self.seq = 0  # the last entry fed
        self._table = TableState()
        self._results: list[Result] = []  # Baccarat: this shoe's results
        self._dealer: deque[dict[str, object]] = deque(maxlen=DEALER_TOTALS)
        self._rounds = 0  # Spanish 21: rounds settled in this shoe

    def feed(self, seq: int, entry: Mapping[str, object]) -> None:
        if seq <= self.seq:
            return  # seen already: the journal and the stream overlap
        self.seq = seq
        kind = entry.get("type")
        shoe = entry.get("shoe")
        other_shoe = isinstance(shoe, int) and shoe != self._table.shoe
        if kind == "shuffled" or (kind == "round_end" and other_shoe):
            self._clear()  # a new shoe (a round_end of another shoe: its shuffle missed)
        self._table.feed(entry)
        if kind == "round_end" and entry.get("void") is False:
            self._settled(entry)

    def _clear(self) -> None:
        self._results = []
        self._rounds = 0  # the dealer's totals stay: the last rounds, whatever the shoe

    def _settled(self, entry: Mapping[str, object]) -> None:
        number = entry.get("round")
        if not isinstance(number, int):
            return
        if self.game in BACCARAT_GAMES:
            winner = LETTERS.get(str(entry.get("result")))
            if winner is None:
                return
            self._results.append(
                Result(
                    round=number,
                    winner=winner,
                    banker_pair=is_pair(_cards(entry.get("banker"))),
                    player_pair=is_pair(_cards(entry.get("player"))),
                    natural=entry.get("natural") is True,
                )
            )
            return
        total = entry.get("dealer_total")
        if isinstance(total, int):
            self._rounds += 1
            dealer = _cards(entry.get("dealer"))
            self._dealer.append(
                {
                    "shoe": entry.get("shoe"),
                    "round": number,
                    "dealer_total": total,
                    "busted": total > 21,
                    "blackjack": total == 21 and len(dealer) == 2,
                }
            )

    def view(self) -> dict[str, object]:
        board: dict[str, object] = {"game": self.game, "seq": self.seq, **self._table.view()}
        if self.game not in BACCARAT_GAMES:
            board.update(rounds=self._rounds, dealer_totals=list(self._dealer))
            return board
        beads, road = bead_plate(self._results), big_road(self._results)
        board.update(
            bead_plate=_road(beads),
            big_road=_road(road),
            counts=_counts(self._results),
        )
        return board


def _cards(value: object) -> list[object]:
    return list(value) if isinstance(value, list) else []


def _road(cells: list[dict[str, object]]) -> dict[str, object]:
    columns = 1 + max((int(str(c["col"])) for c in cells), default=-1)
    return {"rows": ROWS, "columns": columns, "cells": cells}


def _counts(results: list[Result]) -> dict[str, int]:
    return {
        "rounds": len(results),
        "banker": sum(r.winner == "B" for r in results),
        "player": sum(r.winner == "P" for r in results),
        "tie": sum(r.winner == "T" for r in results),
        "banker_pair": sum(r.banker_pair for r in results),
        "player_pair": sum(r.player_pair for r in results),
        "natural": sum(r.natural for r in results),
    }
