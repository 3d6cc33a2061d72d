"""Baccarat and Midibaccarat in the tests: both games as a parameter, the dealer that
drives their table, and Table 1 as the regulations print it."""

from __future__ import annotations

from collections.abc import Iterable

import pytest

from controller.rules.baccarat import BaccaratRules
from controller.table.baccarat import BaccaratTable
from controller.table.events import ManualShuffle, Need, NoMoreBets, Wager
from tests.support import tables

GAMES = pytest.mark.parametrize("game", ["baccarat", "midibaccarat"])
CH = {"baccarat": "545", "midibaccarat": "543"}

# 545.11(c)(2)(iii) and 543.11(c)(2)(iii), Table 1 exactly as the text prints it. The
# text run puts each row's label (Banker's Point Count 3, 4, 5, 6) at the end of the
# line before the row, so the four D/S rows belong to 3, 4, 5 and 6 in that order.
TABLE_1_TEXT = """\
0 1 2 3 4 5 6 7 8 9 Point Count of Banker's Hand
After Two Cards3
D D D D D D D D S D 4
S S D D D D D D S S 5
S S S S D D D D S S 6
S S S S S S D D S S
"""


def _table_1_from_text() -> dict[tuple[int, int], bool]:
    rows = [line.split()[:10] for line in TABLE_1_TEXT.splitlines()[2:]]
    return {
        (banker, third): letter == "D"
        for banker, row in zip((3, 4, 5, 6), rows, strict=True)
        for third, letter in enumerate(row)
    }


TABLE_1 = _table_1_from_text()  # (Banker's point, Player's third card) -> the Banker draws


class Dealer(tables.Dealer):
    """Drives a table the way a dealer and a shoe would."""

    table: BaccaratTable

    def __init__(self, game: str = "baccarat", **rules: object) -> None:
        super().__init__()
        self.table = BaccaratTable(BaccaratRules.from_dict(game, rules), self.io, self.io)

    def open(self, burn: Iterable[str] = ("AS", "2S")) -> None:
        """Shuffled by hand and burned: wagering is open."""
        self.table.handle(ManualShuffle())
        self.cards(burn)
        assert self.need() is Need.WAGERS

    def play(self, tokens: Iterable[str], wagers: dict[int, dict[str, int]] | None = None) -> None:
        for seat, bets in (wagers or {}).items():
            for bet, amount in bets.items():
                self.table.handle(Wager(seat, bet, amount))
        self.table.handle(NoMoreBets())
        self.cards(tokens)
