"""The pit's books of a shift: what was wagered (the drop) and what the house won
(the win: minus the players' nets, commission and vigorish included), by wager and by
result for Baccarat and Midibaccarat, by hand outcome for Spanish 21, from the
journal's ``wager`` and ``round_end`` entries (docs/scoreboard.md, "Pit").

Money is ``Decimal`` as the journal writes it (a string, or a number in a bench's
lines) and is shown as a string, exact.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Final

ZERO: Final = Decimal(0)
BACCARAT_BETS: Final = ("banker", "player", "tie")


def money(value: object) -> Decimal:
    """An amount from an entry; 0 for none or one that is not an amount."""
    if isinstance(value, bool) or not isinstance(value, str | int | float | Decimal):
        return ZERO
    try:
        amount = Decimal(str(value))
    except InvalidOperation:
        return ZERO
    return amount if amount.is_finite() else ZERO


def mapping(value: object) -> Mapping[str, object]:
    return value if isinstance(value, Mapping) else {}


class Tally:
    """How many, the drop and the win of one line of the books."""

    __slots__ = ("count", "drop", "win")

    def __init__(self) -> None:
        self.count = 0
        self.drop = ZERO
        self.win = ZERO

    def add(self, drop: Decimal, win: Decimal, count: int = 1) -> None:
        self.count += count
        self.drop += drop
        self.win += win

    def view(self, counted: str) -> dict[str, object]:
        return {counted: self.count, "drop": str(self.drop), "win": str(self.win)}


class BaccaratBook:
    """Baccarat and Midibaccarat: each round's wagers as the layout held them at "no
    more bets" (a wager replaces the seat's one of that kind; 0 withdraws it), settled
    by its ``round_end``. A void round returns every wager (545.15(e)): none counts."""

    def __init__(self) -> None:
        self.by_wager = {bet: Tally() for bet in BACCARAT_BETS}
        self.by_result = {result: Tally() for result in BACCARAT_BETS}
        self.vigorish_rounding = ZERO  # deferred vigorish collected above the owed
        self._layout: dict[str, dict[str, Decimal]] = {}  # seat -> bet -> amount

    def feed(self, entry: Mapping[str, object]) -> None:
        kind = entry.get("type")
        if kind == "wager":
            self._wager(entry)
        elif kind == "round_end":
            if entry.get("void") is False:
                self._settle(entry)
            self._layout = {}
        elif kind == "wagers_returned":
            self._layout = {}
        elif kind == "vigorish_collected":
            # 545.13(d), ruling R11: a deferred vigorish is rounded when collected; the
            # round_end charged the exact amount owed.
            owed, collected = mapping(entry.get("owed")), mapping(entry.get("collected"))
            self.vigorish_rounding += sum(
                (money(collected.get(seat)) - money(amount) for seat, amount in owed.items()),
                ZERO,
            )

    def _wager(self, entry: Mapping[str, object]) -> None:
        seat, bet, amount = (
            str(entry.get("seat")),
            str(entry.get("bet")),
            money(entry.get("amount")),
        )
        bets = self._layout.setdefault(seat, {})
        if amount:
            bets[bet] = amount
        else:
            bets.pop(bet, None)

    def _settle(self, entry: Mapping[str, object]) -> None:
        result = str(entry.get("result"))
        if result not in self.by_result:
            return
        seats = mapping(entry.get("seats"))
        drop = win = ZERO
        for seat, bets in self._layout.items():
            settled = mapping(seats.get(seat))
            nets = bet_nets(bets, result, money(settled.get("net")), money(settled.get("vigorish")))
            for bet, amount in bets.items():
                if bet in self.by_wager:
                    self.by_wager[bet].add(amount, -nets[bet])
            drop += sum(bets.values(), ZERO)
            win -= money(settled.get("net"))
        self.by_result[result].add(drop, win)

    @property
    def drop(self) -> Decimal:
        return sum((t.drop for t in self.by_result.values()), ZERO)

    @property
    def win(self) -> Decimal:
        return sum((t.win for t in self.by_result.values()), ZERO) + self.vigorish_rounding

    def view(self) -> dict[str, object]:
        return {
            "by_wager": {bet: t.view("wagers") for bet, t in self.by_wager.items()},
            "by_result": {result: t.view("rounds") for result, t in self.by_result.items()},
            "vigorish_rounding": str(self.vigorish_rounding),
        }


def bet_nets(
    bets: Mapping[str, Decimal], result: str, net: Decimal, vigorish: Decimal
) -> dict[str, Decimal]:
    """A seat's net split over its wagers (the journal gives the seat's whole net).

    Each wager but one has a net its amount and the result decide: a losing wager's
    is minus its amount; on a tie the Player and Banker wagers are returned (545.8(a)),
    the Banker's charged the vigorish of a tie under the 25% option (543.13(f)). The
    one left, the wager on the winning side when there is one, takes the rest of the
    seat's net: its payout, the commission off a Banker win included (545.13(c))."""
    rest = result if result in bets else ("banker" if "banker" in bets else next(iter(bets), ""))
    nets: dict[str, Decimal] = {}
    for bet, amount in bets.items():
        if bet == rest:
            continue
        if result == "tie" and bet == "player":
            nets[bet] = ZERO
        elif result == "tie" and bet == "banker":
            nets[bet] = -vigorish
        else:
            nets[bet] = -amount
    if rest:
        nets[rest] = net - sum(nets.values(), ZERO)
    return nets
