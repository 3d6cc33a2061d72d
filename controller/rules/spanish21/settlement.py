"""Settling a Spanish 21 round: each hand against the dealer's final hand (551.6), the
551.6(g) and (h) bonuses decided hand by hand (ruling R5), and the order the dealer
collects and pays (§ 635a.7(p)).

Money is ``Decimal`` in currency units: 3 to 2 on an odd wager is half a unit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Final, Literal

from controller.rules.cards import card, rank
from controller.rules.spanish21.dealing import (
    blackjack_paid_at_once,
    dealer_draws,
    dealer_needs_to_draw,
    player_order,
)
from controller.rules.spanish21.hands import (
    ZERO,
    Hand,
    PlayError,
    dealer_blackjack,
    hand_value,
    is_blackjack,
)
from controller.rules.spanish21.options import SettlementOrder

Outcome = Literal["win", "lose", "push", "surrender", "rescue", "dead"]

OTHERS_SUPER_BONUS: Final = Decimal(50)  # 551.6(h)


# --------------------------------------------------------------------------- bonuses


@dataclass(frozen=True)
class Payout:
    """Odds "to 1" and the subsection that sets them."""

    odds: Decimal
    section: str


# 551.6(g)(1)-(4): a three-card 21 of these ranks, paid by its suits: (mixed, one suit,
# spades).
_THREE_CARDS: Final[Mapping[tuple[str, ...], tuple[Payout, Payout, Payout]]] = {
    ("6", "7", "8"): (
        Payout(Decimal(3) / 2, "551.6(g)(1)"),
        Payout(Decimal(2), "551.6(g)(2)"),
        Payout(Decimal(3), "551.6(g)(2)"),
    ),
    ("7", "7", "7"): (
        Payout(Decimal(3) / 2, "551.6(g)(3)"),
        Payout(Decimal(2), "551.6(g)(4)"),
        Payout(Decimal(3), "551.6(g)(4)"),
    ),
}
# 551.6(g)(5)-(7): a 21 of five, six, and seven or more cards.
_MANY_CARDS: Final[Mapping[int, Payout]] = {
    5: Payout(Decimal(3) / 2, "551.6(g)(5)"),
    6: Payout(Decimal(2), "551.6(g)(6)"),
    7: Payout(Decimal(3), "551.6(g)(7)"),
}


def bonus_payout(hand: Hand) -> Payout | None:
    """The 551.6(g) odds that replace 1 to 1 for a winning ``hand``, if any.

    Not on a doubled hand (551.6(g), 551.11(b)); decided hand by hand, so a split
    hand that was not doubled keeps them (ruling R5). The categories exclude one
    another, so a hand earns at most one.
    """
    if hand.doubled or hand.total != 21:
        return None
    if len(hand.cards) == 3:
        return _three_card_bonus(hand.cards)
    return _MANY_CARDS.get(min(len(hand.cards), 7))


def _three_card_bonus(cards: Sequence[str]) -> Payout | None:
    payouts = _THREE_CARDS.get(tuple(sorted(rank(c) for c in cards)))
    if payouts is None:
        return None
    mixed, one_suit, spades = payouts
    suits = {c[1] for c in cards}
    if suits == {"S"}:
        return spades
    return one_suit if len(suits) == 1 else mixed


def super_bonus(hand: Hand, up_card: str) -> Decimal:
    """The fixed payout of 551.6(h) on top of (g)(4), or 0.

    Three 7s of one suit against a 7 up card: $1,000 on an original wager from $5 to
    under $25, $5,000 from $25; below $5 the text grants nothing. Never on a doubled
    or a split hand (551.6(h), 551.11(b), 551.12(e)).
    """
    if hand.doubled or hand.from_split or rank(card(up_card)) != "7":
        return ZERO
    if not _suited_sevens(hand.cards):
        return ZERO
    if hand.wager >= 25:
        return Decimal(5000)
    return Decimal(1000) if hand.wager >= 5 else ZERO


def _suited_sevens(cards: Sequence[str]) -> bool:
    """Three 7s of one suit (551.6(g)(4), (h))."""
    same_suit = len({c[1] for c in cards}) == 1
    return len(cards) == 3 and {rank(c) for c in cards} == {"7"} and same_suit


# --------------------------------------------------------------------------- hands


@dataclass(frozen=True)
class HandResult:
    """How a hand ended and what it nets the player.

    ``net`` counts every wager on the hand and every payout, the 551.6(h) fixed
    payout (also given alone as ``super_bonus``) included. ``section``: the
    subsection that decided the amount.
    """

    outcome: Outcome
    net: Decimal
    section: str
    super_bonus: Decimal = ZERO


def _check_dealer_hand(
    dealer_cards: Sequence[str], hands: Sequence[Hand], *, whole_round: bool
) -> None:
    """PlayError unless the dealer's hand is complete and drawn as the chapter says.

    Only with ``whole_round`` can a draw be checked against 551.13(c): another box's
    hand may be the one that needed it.
    """
    if len(dealer_cards) < 2:
        raise PlayError("the dealer has fewer than two cards (551.8(d))")
    for drawn in range(2, len(dealer_cards)):
        before = dealer_cards[:drawn]
        if not dealer_draws(before):
            raise PlayError("the dealer drew on 17 or more (551.13(b), 551.16(e))")
        if whole_round and not dealer_needs_to_draw(before, hands):
            raise PlayError("the dealer drew though no result depended on it (551.13(c))")
    if dealer_blackjack(dealer_cards):
        return
    if not all(h.finished for h in hands):
        raise PlayError("decisions remain on a player's hand (551.8(h))")
    if dealer_needs_to_draw(dealer_cards, hands):
        raise PlayError("the dealer must draw to 17 first (551.13(b))")


def settle_box(hands: Sequence[Hand], dealer_cards: Sequence[str]) -> tuple[HandResult, ...]:
    """The result of each of a box's hands against the dealer's final hand.

    The 551.6(h) payouts to the other players are the round's (``settle_round``).
    """
    _check_dealer_hand(dealer_cards, hands, whole_round=False)
    if dealer_blackjack(dealer_cards):
        return _against_dealer_blackjack(hands)
    return tuple(_settle_hand(h, dealer_cards) for h in hands)


def _against_dealer_blackjack(hands: Sequence[Hand]) -> tuple[HandResult, ...]:
    """A dealer Blackjack collects only the original wager of a box: a double down
    or split wager goes back (551.11(c), 551.12(d)), and a surrender made before
    the hole card was known loses it all (551.9(a)(2))."""
    results: list[HandResult] = []
    collected = False
    for hand in hands:
        if hand.dead:
            results.append(HandResult("dead", ZERO, "551.16"))
        elif hand.blackjack:
            # Ruling R3: the player's Blackjack wins 3 to 2 against the dealer's.
            results.append(HandResult("win", hand.wager * 3 / 2, "551.6(b)(3)"))
        elif collected:
            results.append(HandResult("lose", ZERO, "551.12(d)"))
        else:
            collected = True
            if hand.surrendered:
                section = "551.9(a)(2)"
            elif hand.doubled:
                section = "551.11(c)"
            else:
                section = "551.6(c)"
            outcome: Outcome = "rescue" if hand.rescued else "lose"
            results.append(HandResult(outcome, -hand.wager, section))
    return tuple(results)


def _settle_hand(hand: Hand, dealer_cards: Sequence[str]) -> HandResult:
    settled = _settled_by_the_hand(hand)
    if settled is not None:
        return settled
    dealer = hand_value(dealer_cards)[0]
    won = _winning_section(hand, dealer)
    if won is not None:
        return _win(hand, won, dealer_cards[0])
    if hand.total == dealer:
        return HandResult("push", ZERO, "551.6(c)")
    return HandResult("lose", -hand.stake, "551.6(b)(2)")


def _settled_by_the_hand(hand: Hand) -> HandResult | None:
    """The result of a hand that the dealer's total cannot change (ruling R7)."""
    if hand.dead:
        return HandResult("dead", ZERO, "551.16")
    if hand.surrendered:
        return HandResult("surrender", -hand.wager / 2, "551.9(a)")
    if hand.rescued:
        return HandResult("rescue", -hand.wager, "551.11(d)")
    if hand.bust:
        return HandResult("lose", -hand.stake, "551.6(b)")
    if hand.blackjack:
        # 551.6(f) names (b)(3), but the layout's "Blackjack pays 3 to 2" (551.2(c)(1))
        # and § 635a.7(h)(1)(i) pay every winning Blackjack so.
        return HandResult("win", hand.wager * 3 / 2, "551.6(f)")
    return None


def _winning_section(hand: Hand, dealer: int) -> str | None:
    """The subsection under which a hand that has not busted beats the dealer's
    ``dealer`` total; None when it does not."""
    player = hand.total
    if player == 21 and dealer == 21 and len(hand.cards) > 2:
        return "551.6(b)(4)"
    if dealer > 21:
        return "551.6(b)(1)"
    if player > dealer:
        return "551.6(b)(2)"
    return None


def _win(hand: Hand, won: str, up_card: str) -> HandResult:
    """A winning hand's payout: 1 to 1 on both wagers of a doubled hand (551.11(b)),
    else 1 to 1 under ``won`` or its 551.6(g) bonus, and 551.6(h)'s fixed payout."""
    if hand.doubled:
        return HandResult("win", hand.stake, "551.11(b)")
    bonus = bonus_payout(hand)
    if bonus is None:
        return HandResult("win", hand.wager, won)
    fixed = super_bonus(hand, up_card)  # on top of the (g)(4) odds
    section = "551.6(h)" if fixed else bonus.section
    return HandResult("win", hand.wager * bonus.odds + fixed, section, fixed)


# --------------------------------------------------------------------------- the round


@dataclass(frozen=True)
class BoxRound:
    """A box's hands at the end of the round and the player who wagered on it."""

    player: str
    hands: tuple[Hand, ...]


@dataclass(frozen=True)
class RoundResult:
    """Each box's hand results, and the 551.6(h) $50 payouts by player."""

    boxes: Mapping[int, tuple[HandResult, ...]]
    others_bonus: Mapping[str, Decimal]

    @property
    def players_net(self) -> Decimal:
        """What the players won from the table, all boxes and bonuses together."""
        hands = sum((r.net for results in self.boxes.values() for r in results), ZERO)
        return hands + sum(self.others_bonus.values(), ZERO)


@dataclass(frozen=True, slots=True)
class SettlementStep:
    """One hand's Spanish 21 wager collected or paid at the end of the round."""

    box: int
    hand: int  # 1-based, split hands from the dealer's left
    action: Literal["collect", "pay"]
    amount: Decimal


def settlement_steps(
    hands: Mapping[int, Sequence[Hand]],
    results: Mapping[int, Sequence[HandResult]],
    up_card: str,
    order: SettlementOrder,
) -> tuple[SettlementStep, ...]:
    """The order the dealer settles the wagers still on the layout when the round ends
    (§ 635a.7(p)): all losing wagers collected, then all winning wagers paid ((p)(1));
    or box by box from the player farthest to the dealer's right, counterclockwise
    ((p)(2)). Boxes go from the dealer's right, the highest box first (ruling R2).

    Left out: hands that push or are dead (nothing to collect or pay), surrendered
    and rescued hands (settled when the player decided, 551.9(a)(1), 551.11(d)) and
    Blackjacks paid as the dealer reached them (§ 635a.7(h)(1)(i))."""
    steps: list[SettlementStep] = []
    for box in sorted(results, reverse=True):
        for n, (hand, r) in enumerate(zip(hands[box], results[box], strict=True), start=1):
            if r.net == 0 or r.outcome in ("surrender", "rescue"):
                continue
            if is_blackjack(hand.cards, hand.from_split) and blackjack_paid_at_once(up_card):
                continue
            steps.append(SettlementStep(box, n, "collect" if r.net < 0 else "pay", abs(r.net)))
    if order == "collect_then_pay":
        steps.sort(key=lambda step: step.action != "collect")  # stable: table order kept
    return tuple(steps)


def settle_round(boxes: Mapping[int, BoxRound], dealer_cards: Sequence[str]) -> RoundResult:
    """Settle every box of the round against the dealer's final hand.

    Each hand paid under 551.6(h) also pays $50 to every other player who wagered
    this round; a player's own other boxes get nothing from it (551.14), and a
    player is paid once per such hand, however many boxes he holds.
    """
    every_hand = [h for box in boxes.values() for h in box.hands]
    _check_dealer_hand(dealer_cards, every_hand, whole_round=True)
    results = {n: settle_box(boxes[n].hands, dealer_cards) for n in player_order(boxes)}
    players = {box.player for box in boxes.values()}
    others: dict[str, Decimal] = {}
    for number, box in boxes.items():
        for result in results[number]:
            if result.super_bonus:
                for other in players - {box.player}:
                    others[other] = others.get(other, ZERO) + OTHERS_SUPER_BONUS
    return RoundResult(results, others)
