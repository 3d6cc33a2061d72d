"""Exact outcome counts and house edge of the Baccarat / Midibaccarat wagers.

Every ordered six-card deal from the shoe is counted once, whether the round uses
four, five or six of its cards, as the published tables count them. Cards are
grouped by value class (545.6(a): ten-count cards are one class of 16 per deck), so
the count is a sum over value sequences of falling products of class sizes; the
order of the player's and of the banker's first two cards does not change the
round, so each unordered pair is counted once with its multiplicity.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from itertools import combinations_with_replacement

from controller.rules.baccarat.drawing import (
    Outcome,
    banker_draws_by_points,
    player_draws_by_points,
)
from controller.rules.baccarat.options import BaccaratRules
from controller.rules.baccarat.settlement import Bet

CARDS_PER_DECK = 52
_PAIRS = tuple(combinations_with_replacement(range(10), 2))


@dataclass(frozen=True)
class DealCounts:
    """How many ordered six-card deals end in each outcome."""

    banker: int
    player: int
    tie: int

    @property
    def total(self) -> int:
        return self.banker + self.player + self.tie

    def count(self, outcome: Outcome) -> int:
        return {"banker": self.banker, "player": self.player, "tie": self.tie}[outcome]

    def probability(self, outcome: Outcome) -> Fraction:
        return Fraction(self.count(outcome), self.total)


def deck_classes(decks: int) -> tuple[int, ...]:
    """Cards of each value 0-9 in ``decks`` decks: 10/J/Q/K are value 0 (545.6(a))."""
    if decks < 1:
        raise ValueError(f"decks must be at least 1, not {decks}")
    return (16 * decks, *(4 * decks for _ in range(9)))


@lru_cache(maxsize=16)
def deal_counts(decks: int) -> DealCounts:
    """Outcome counts for a full shoe of ``decks`` decks."""
    return count_outcomes(deck_classes(decks))


def count_outcomes(classes: Sequence[int]) -> DealCounts:
    """Outcome counts for a shoe holding ``classes[v]`` cards of value v (v = 0..9)."""
    if len(classes) != 10 or min(classes) < 0:
        raise ValueError("ten non-negative counts, one per card value 0-9, are needed")
    size = sum(classes)
    if size < 6:
        raise ValueError(f"a round can need six cards; the shoe holds {size}")
    count = _Count(classes)
    for p1, p2 in _PAIRS:
        for b1, b2 in _PAIRS:
            count.deals_from(p1, p2, b1, b2)
    return DealCounts(*count.tally)


class _Count:
    """The cards left in the shoe, by value, while the deals are counted; the tally."""

    def __init__(self, classes: Sequence[int]) -> None:
        size = sum(classes)
        self.rest = list(classes)
        self.tally = [0, 0, 0]  # banker, player, tie
        # What the unused positions of the six-card deal can hold after 4 or 5 cards.
        self.after_four = (size - 4) * (size - 5)
        self.after_five = size - 5

    def take(self, v: int) -> int:
        # A class taken past empty turns negative only after a zero factor: weight 0.
        ways = self.rest[v]
        self.rest[v] -= 1
        return ways

    def record(self, weight: int, player_point: int, banker_point: int) -> None:
        if banker_point > player_point:
            self.tally[0] += weight
        elif player_point > banker_point:
            self.tally[1] += weight
        else:
            self.tally[2] += weight

    def deals_from(self, p1: int, p2: int, b1: int, b2: int) -> None:
        """Every deal whose first four cards are these values, in either order per hand."""
        orders = (1 if p1 == p2 else 2) * (1 if b1 == b2 else 2)
        # 545.9(c): P, B, P, B; the falling product does not depend on the order.
        weight = orders * self.take(p1) * self.take(b1) * self.take(p2) * self.take(b2)
        if weight:
            self._after_four(weight, (p1 + p2) % 10, (b1 + b2) % 10)
        for v in (p1, b1, p2, b2):
            self.rest[v] += 1

    def _after_four(self, weight: int, pp: int, bp: int) -> None:
        if pp >= 8 or bp >= 8:
            self.record(weight * self.after_four, pp, bp)  # 545.11(a): a Natural
        elif player_draws_by_points(pp, bp):
            self._player_third(weight, pp, bp)
        elif banker_draws_by_points(bp, None):
            self._banker_third(weight * self.after_five, pp, bp)
        else:
            self.record(weight * self.after_four, pp, bp)

    def _player_third(self, weight: int, pp: int, bp: int) -> None:
        for x in range(10):
            w1 = weight * self.take(x)
            if w1:
                p3 = (pp + x) % 10
                if banker_draws_by_points(bp, x):
                    self._banker_third(w1, p3, bp)
                else:
                    self.record(w1 * self.after_five, p3, bp)
            self.rest[x] += 1

    def _banker_third(self, weight: int, pp: int, bp: int) -> None:
        """Every Banker's third card y: the Banker ends on (bp + y) % 10 against ``pp``."""
        rest = self.rest
        tie = rest[(pp - bp) % 10]
        banker = sum(map(rest.__getitem__, _BANKER_ABOVE[pp][bp]))
        player = sum(rest) - tie - banker
        tally = self.tally
        tally[0] += weight * banker
        tally[1] += weight * player
        tally[2] += weight * tie


# The Banker's third card values that take his Point Count ``bp`` above the Player's
# ``pp``: _BANKER_ABOVE[pp][bp].
_BANKER_ABOVE = tuple(
    tuple(tuple(y for y in range(10) if (bp + y) % 10 > pp) for bp in range(10)) for pp in range(10)
)


def expected_return(counts: DealCounts, bet: Bet, rules: BaccaratRules) -> Fraction:
    """The wager's exact expected net per unit staked (negative: the player loses).

    The vigorish is taken exactly (545.13(c)); the optional rounding of 545.13(d) /
    543.13(d) depends on the amount and is left out.
    """
    banker = counts.probability("banker")
    player = counts.probability("player")
    tie = counts.probability("tie")
    if bet == "player":
        return player - banker  # 545.13(a); a tie returns the wager, 545.8(a)(2)(iii)
    if bet == "tie":
        return rules.tie_odds * tie - (1 - tie)  # 545.13(b)
    if rules.vigorish == "tie_25":
        return banker - player - tie / 4  # 543.13(f)
    return banker * (1 - Fraction(rules.commission, 100)) - player  # 545.13(c)


def house_edge(counts: DealCounts, bet: Bet, rules: BaccaratRules) -> Fraction:
    """The casino's expected win per unit staked on ``bet``."""
    return -expected_return(counts, bet, rules)
