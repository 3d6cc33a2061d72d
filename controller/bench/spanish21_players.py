"""The players of a Spanish 21 scenario: its round scripts, then seeded random wagers
and a short basic strategy."""

from __future__ import annotations

import random
from collections import Counter, deque
from decimal import Decimal

from controller.bench.scenario import Scenario, Scripted, SpanishRound
from controller.rules.spanish21 import BOXES, Hand, Spanish21Rules, card_value

SPANISH_AMOUNTS = (5, 10, 25, 50)


def basic_strategy(hand: Hand, up_card: str, allowed: frozenset[str]) -> str:
    """Autoplay's decision from ``allowed``: a short basic strategy. Split aces and
    eights; double a hard 10 or 11 against a 2-9; draw to a hard 11, to a hard 12-16
    against a 7 or more (12 also against a 2 or 3), to a soft 17, to a soft 18 against
    a 9 or more; otherwise stand."""
    up = card_value(up_card)
    up = 11 if up == 1 else up
    total = hand.total
    if "split" in allowed and hand.cards[0][0] in "A8":
        return "split"
    if "double" in allowed and not hand.soft and total in (10, 11) and up <= 9:
        return "double"
    return "hit" if _hits(total, hand.soft, up) and "hit" in allowed else "stand"


def _hits(total: int, soft: bool, up: int) -> bool:
    """Whether the strategy draws to a (soft or hard) ``total`` against an ``up`` card
    of that value (an ace as 11)."""
    if soft:
        return total <= 17 or (total == 18 and up >= 9)
    return total <= 11 or (total <= 16 and (up >= 7 or (total == 12 and up <= 3)))


class Spanish21Players:
    """The players of a Spanish 21 scenario: the round scripts in order, each box's
    decisions taken in order across its hands, then seeded random wagers and basic
    strategy until the shoe ends."""

    def __init__(self, scenario: Scenario) -> None:
        self.scripts = scenario.spanish_rounds
        self.match_offered = isinstance(scenario.rules, Spanish21Rules) and (
            scenario.rules.match_the_dealer
        )
        self.rng = random.Random(scenario.seed)
        self.index = -1
        self.script = SpanishRound({})
        self.left: dict[int, deque[Scripted]] = {}
        self.taken: Counter[int] = Counter()

    @property
    def scripted(self) -> bool:
        return self.index < len(self.scripts)

    def where(self, key: str, box: int | None = None) -> str:
        return (
            f"rounds[{self.index}]"
            + (f".{key}" if key else "")
            + (f".{box}" if box is not None else "")
        )

    def next_round(self) -> SpanishRound:
        self.index += 1
        self.script = self.scripts[self.index] if self.scripted else self.autoplay()
        self.left = {box: deque(listed) for box, listed in self.script.decisions.items()}
        self.taken = Counter()
        return self.script

    def next_is_rescue(self, box: int) -> bool:
        left = self.left.get(box)
        return left is not None and bool(left) and left[0].decision == "rescue"

    def take(self, box: int) -> tuple[Scripted, str] | None:
        """The box's next scripted decision and where the scenario names it."""
        left = self.left.get(box)
        if not left:
            return None
        where = f"{self.where('decisions', box)}[{self.taken[box]}]"
        self.taken[box] += 1
        return left.popleft(), where

    def unused(self) -> str | None:
        """The first scripted decision the round never came to, named; None if none."""
        for box, left in sorted(self.left.items()):
            if left:
                return (
                    f"{self.where('decisions', box)}[{self.taken[box]}]: {left[0]} was "
                    "never taken: the round ended before the box's decisions (a dealer "
                    "Blackjack ends it at the peek, 635a.7(g))"
                )
        return None

    def autoplay(self) -> SpanishRound:
        wagers: dict[int, Decimal] = {}
        match: dict[int, Decimal] = {}
        for box in BOXES:
            if self.rng.random() < 0.4:
                wagers[box] = Decimal(self.rng.choice(SPANISH_AMOUNTS))
                if self.match_offered and self.rng.random() < 0.25:
                    match[box] = min(Decimal(5), wagers[box])
        return SpanishRound(wagers or {1: Decimal(10)}, match)
