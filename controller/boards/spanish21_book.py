"""The pit's book of a Spanish 21 shift, by hand outcome (docs/scoreboard.md, "Pit").

A hand's wager is worked out from the round's entries: the box's wager (``wager``,
bet ``spanish21``: 0 withdraws it), an equal wager on the new hand a split makes,
right after the hand split (551.12(a), ruling R6), and a Double Down's amount
(551.11(a)). Its win is minus its net in the ``round_end``. A dead hand's wager is
returned (551.16(h), (i), (l)(1)): it counts no drop. A void round's hands settled
before the void stay settled (ruling R10) and count like any other.
Match-the-Dealer and Insurance: their amounts as settled, their nets as the
``round_end`` gives them; the 551.6(h) payout to the other players is the house's.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Final

from controller.boards.books import ZERO, Tally, mapping, money

OUTCOMES: Final = ("win", "lose", "push", "surrender", "rescue", "dead")
SIDES: Final = {"match_the_dealer": "match_the_dealer_net", "insurance": "insurance_net"}


class Spanish21Book:
    """One shift's Spanish 21 wagers: by hand outcome, and the side wagers."""

    def __init__(self) -> None:
        self.by_outcome = {outcome: Tally() for outcome in OUTCOMES}
        self.sides = {side: Tally() for side in SIDES}
        self.others_bonus = ZERO  # paid by the house (551.6(h))
        self._start_round()

    def _start_round(self) -> None:
        self._hands: dict[str, list[Decimal]] = {}  # box -> each hand's wager
        self._side_drop: dict[str, dict[str, Decimal]] = {side: {} for side in SIDES}

    def feed(self, entry: Mapping[str, object]) -> None:
        kind = str(entry.get("type"))
        box = str(entry.get("box"))
        if kind == "wager" and entry.get("bet") == "spanish21":
            amount = money(entry.get("amount"))
            if amount:
                self._hands[box] = [amount]
            else:
                self._hands.pop(box, None)
        elif kind == "decision":
            self._decision(box, entry)
        elif kind in SIDES:  # settled: its amount is in play
            self._side_drop[kind][box] = money(entry.get("amount"))
        elif kind == "round_end":
            self._settle(entry)
            self._start_round()
        elif kind == "wagers_returned":
            self._start_round()

    def _decision(self, box: str, entry: Mapping[str, object]) -> None:
        hands = self._hands.get(box)
        number = entry.get("hand")
        if hands is None or not isinstance(number, int) or not 1 <= number <= len(hands):
            return
        if entry.get("decision") == "split":
            hands.insert(number, hands[number - 1])
        elif entry.get("decision") == "double":
            hands[number - 1] += money(entry.get("amount"))

    def _settle(self, entry: Mapping[str, object]) -> None:
        for box, settled in mapping(entry.get("boxes")).items():
            played = mapping(settled)
            wagers = self._hands.get(box, [])
            hands = played.get("hands")
            for i, hand in enumerate(hands if isinstance(hands, list) else []):
                self._hand(mapping(hand), wagers[i] if i < len(wagers) else ZERO)
            for side, key in SIDES.items():
                if key in played:
                    drop = self._side_drop[side].get(box, ZERO)
                    self.sides[side].add(drop, -money(played.get(key)))
        bonus = mapping(entry.get("others_bonus"))
        self.others_bonus += sum((money(v) for v in bonus.values()), ZERO)

    def _hand(self, hand: Mapping[str, object], wager: Decimal) -> None:
        outcome = str(hand.get("outcome"))
        tally = self.by_outcome.get(outcome)
        if tally is not None:
            tally.add(ZERO if outcome == "dead" else wager, -money(hand.get("net")))

    @property
    def drop(self) -> Decimal:
        tallies = [*self.by_outcome.values(), *self.sides.values()]
        return sum((t.drop for t in tallies), ZERO)

    @property
    def win(self) -> Decimal:
        tallies = [*self.by_outcome.values(), *self.sides.values()]
        return sum((t.win for t in tallies), ZERO) - self.others_bonus

    def view(self) -> dict[str, object]:
        return {
            "by_outcome": {o: t.view("hands") for o, t in self.by_outcome.items()},
            "side_wagers": {side: t.view("wagers") for side, t in self.sides.items()},
            "others_bonus": {"paid": str(self.others_bonus), "win": str(-self.others_bonus)},
        }
