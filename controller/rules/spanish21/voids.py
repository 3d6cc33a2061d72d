"""A void Spanish 21 round: what goes back to each box and what stays settled (ruling
R10), whatever voids it — 551.16(a), (b), (l)(1), or a restart that lost the hole card.

A void returns the stakes still on the layout. A wager the procedure settled before
the void stays settled, neither returned nor paid again: a surrender's collected half
(551.9(a)(1)), a rescued hand's forfeited wager (551.11(d)), a Blackjack paid as the
dealer reached it (§ 635a.7(h)(1)(i)), a Match-the-Dealer or Insurance wager paid or
collected (551.7(d), 551.10(d)).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal

from controller.rules.spanish21.dealing import blackjack_paid_at_once, surrender_settled_at_once
from controller.rules.spanish21.hands import ZERO, Hand
from controller.rules.spanish21.settlement import HandResult

DEAD = HandResult("dead", ZERO, "551.16")  # on the layout at the void: its stakes go back


@dataclass(frozen=True)
class SideWager:
    """A Match-the-Dealer or Insurance wager of a box: its amount, and its net once paid
    or collected (None before; 0 when it was neither, as with a dead hand's, 551.16(h))."""

    amount: Decimal
    net: Decimal | None

    @property
    def settled(self) -> bool:
        return self.net is not None and self.net != 0


@dataclass(frozen=True)
class VoidedBox:
    """A box of a void round: each hand's result (its settlement before the void, or
    ``DEAD``), what was settled before the void, and what the void returns."""

    hands: tuple[HandResult, ...]
    settled: Decimal
    returned: Decimal


def settled_before_void(
    hand: Hand, up_card: str | None, *, peeked: bool, decisions_started: bool
) -> HandResult | None:
    """The settlement ``hand`` had before the round was void; None while its wagers were
    still on the layout. ``decisions_started``: the dealer had begun the players'
    decisions, announcing and paying each Blackjack behind a 2-9 (§ 635a.7(h)(1)(i))."""
    if up_card is None or hand.dead:
        return None
    if hand.rescued:  # the Double Down taken back, the original wager forfeited
        return HandResult("rescue", -hand.wager, "551.11(d)")
    if hand.surrendered and surrender_settled_at_once(up_card, peeked):
        return HandResult("surrender", -hand.wager / 2, "551.9(a)(1)")
    if hand.blackjack and decisions_started and blackjack_paid_at_once(up_card):
        return HandResult("win", hand.wager * 3 / 2, "635a.7(h)(1)(i)")
    return None


def void_box(
    hands: Sequence[Hand],
    wager: Decimal,
    up_card: str | None,
    sides: Iterable[SideWager] = (),
    *,
    peeked: bool,
    decisions_started: bool,
) -> VoidedBox:
    """A box of a void round (ruling R10). ``wager``: the box's wager, returned whole when
    no card reached it; ``sides``: its Match-the-Dealer and Insurance wagers."""
    results: list[HandResult] = []
    returned = ZERO if hands else wager
    for hand in hands:
        settled = settled_before_void(
            hand, up_card, peeked=peeked, decisions_started=decisions_started
        )
        results.append(DEAD if settled is None else settled)
        returned += hand.stake if settled is None else ZERO
    total = sum((r.net for r in results), ZERO)
    for side in sides:
        if side.settled:
            total += side.net or ZERO
        else:
            returned += side.amount
    return VoidedBox(tuple(results), total, returned)
