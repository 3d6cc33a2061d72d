"""A player's decisions on a box's hands: which are allowed now, and the hands after
one (551.8(f), 551.9, 551.11-551.13). Splits are played from the dealer's left
(551.12(b), ruling R6); surrender comes after the peek (ruling R9).

A box's hands are a tuple of frozen ``Hand`` values in the order they are played.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Final, Literal, get_args

from controller.rules.spanish21.dealing import reader_allowed
from controller.rules.spanish21.hands import Hand, PlayError, card_value

Decision = Literal["hit", "stand", "double", "split", "surrender", "rescue"]

DECISIONS: Final[tuple[Decision, ...]] = get_args(Decision)
MAX_SPLIT_HANDS: Final = 3  # 551.12(c)


@dataclass(frozen=True)
class DecisionContext:
    """What a hand's decisions depend on beyond the hand itself.

    ``peek_pending``: the up card is an A/K/Q/J and the reader has not been used yet;
    no decision comes before it (551.8(f), ruling R9). ``in_turn``: this is the
    box's first incomplete hand (551.12(b)). ``rescue_open``: the dealer has not yet
    dealt to a later hand of the box; after a box's last hand the table closes it
    by moving on to the next box.
    """

    peek_pending: bool
    hands_in_box: int
    in_turn: bool
    rescue_open: bool


def next_hand(hands: Sequence[Hand]) -> int | None:
    """The index of the hand in play: the first incomplete one, from the dealer's
    left (551.12(b), ruling R6); None when the box is complete."""
    return next((i for i, h in enumerate(hands) if not h.finished), None)


def box_context(
    hands: Sequence[Hand], index: int, *, up_card: str, peeked: bool
) -> DecisionContext:
    """The DecisionContext of ``hands[index]``; ``peeked``: the reader has been used."""
    return DecisionContext(
        peek_pending=reader_allowed(up_card) and not peeked,
        hands_in_box=len(hands),
        in_turn=next_hand(hands) == index,
        # Once a later split hand has its second card, the dealer has moved on.
        rescue_open=all(len(h.cards) == 1 for h in hands[index + 1 :]),
    )


def _refusal(hand: Hand, ctx: DecisionContext, decision: Decision) -> str | None:
    """Why ``decision`` is not allowed on ``hand`` now, with the section; None if it is."""
    if ctx.peek_pending:
        return "the hole card must go into the card reader first (551.8(e), (f))"
    if decision == "rescue":
        return _rescue_refusal(hand, ctx)
    if not ctx.in_turn or hand.finished or hand.needs_card:
        # Includes a player's Blackjack, which takes no decision (§ 635a.7(h)(1)).
        return "the hand is not waiting for a decision (551.8(f), 551.12(b), 551.13(a))"
    check = _CHECKS.get(decision)
    return None if check is None else check(hand, ctx)


def _rescue_refusal(hand: Hand, ctx: DecisionContext) -> str | None:
    """A rescue is made after the double down card, before the dealer moves on
    (551.11(d))."""
    if not hand.doubled or hand.needs_card:
        return "only a doubled hand that has its card can be rescued (551.11(d))"
    if hand.rescued:
        return "the hand is already rescued (551.11(d))"
    if hand.bust:
        return "the double down card took the hand over 21 (551.11(d))"
    if not ctx.rescue_open:
        return "the dealer has moved on to the next hand (551.11(d))"
    return None


def _double_refusal(hand: Hand, ctx: DecisionContext) -> str | None:
    if len(hand.cards) != 2:
        return "double down only on a hand's first two cards (551.11(a))"
    return None


def _split_refusal(hand: Hand, ctx: DecisionContext) -> str | None:
    if len(hand.cards) != 2 or card_value(hand.cards[0]) != card_value(hand.cards[1]):
        return "only two cards identical in value can be split (551.12(a), (c))"
    if ctx.hands_in_box >= MAX_SPLIT_HANDS:
        return f"no more than {MAX_SPLIT_HANDS} hands from one box (551.12(c))"
    return None


def _surrender_refusal(hand: Hand, ctx: DecisionContext) -> str | None:
    if len(hand.cards) != 2 or hand.from_split or ctx.hands_in_box != 1:
        return "surrender only on the first two cards, before any other decision (551.9(a))"
    return None


# What a decision asks of a hand in turn beyond its turn; a hit or a stand, nothing.
_CHECKS: Final[Mapping[Decision, Callable[[Hand, DecisionContext], str | None]]] = {
    "double": _double_refusal,
    "split": _split_refusal,
    "surrender": _surrender_refusal,
}


def allowed_decisions(hand: Hand, context: DecisionContext) -> frozenset[Decision]:
    """The decisions the player may make on ``hand`` now (551.8(f), 551.9, 551.11-551.13)."""
    return frozenset(d for d in DECISIONS if _refusal(hand, context, d) is None)


def apply_decision(
    hands: Sequence[Hand],
    index: int,
    decision: Decision,
    *,
    up_card: str,
    peeked: bool,
    double_amount: Decimal | None = None,
) -> tuple[Hand, ...]:
    """The box's hands after the player's ``decision`` on ``hands[index]``.

    A hit or double down leaves the hand waiting for its card (``deal_card``). A
    double down is for ``double_amount``, by default the hand's wager, and at most
    that (551.11(a)). A split makes two one-card hands with equal wagers in place of
    the pair, the second right after the first (551.12(a), ruling R6).
    """
    hand = hands[index]
    reason = _refusal(hand, box_context(hands, index, up_card=up_card, peeked=peeked), decision)
    if reason is not None:
        raise PlayError(f"hand {index + 1}: cannot {decision}: {reason}")
    new: tuple[Hand, ...]
    if decision == "hit":
        new = (replace(hand, drawing=True),)
    elif decision == "stand":
        new = (replace(hand, stood=True),)
    elif decision == "surrender":
        new = (replace(hand, surrendered=True),)
    elif decision == "rescue":
        new = (replace(hand, rescued=True),)
    elif decision == "double":
        amount = hand.wager if double_amount is None else double_amount
        if not 0 < amount <= hand.wager:
            raise PlayError(
                f"hand {index + 1}: double down {amount}: more than 0 and at most the "
                f"wager {hand.wager} (551.11(a))"
            )
        new = (replace(hand, double_wager=amount, drawing=True),)
    else:
        first, second = hand.cards
        new = tuple(Hand((c,), hand.wager, from_split=True) for c in (first, second))
    return (*hands[:index], *new, *hands[index + 1 :])


def deal_card(hands: Sequence[Hand], token: str) -> tuple[Hand, ...]:
    """The box's hands after the dealer gives ``token`` to the hand in play.

    Only the first incomplete hand may receive a card, so a split hand gets its
    second card only once the hands before it are complete (551.12(b), ruling R6).
    """
    index = next_hand(hands)
    if index is None or not hands[index].needs_card:
        raise PlayError("no hand of this box is waiting for a card (551.8(g), 551.12(b))")
    hand = hands[index]
    dealt = replace(hand, cards=(*hand.cards, token), drawing=False)
    return (*hands[:index], dealt, *hands[index + 1 :])
