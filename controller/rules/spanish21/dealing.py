"""Dealing a Spanish 21 round: the order of the boxes (ruling R2), the initial deal,
the card reader's use and what it looks for, and the dealer's drawing (ruling R7).
"""

from __future__ import annotations

import enum
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Final, Literal

from controller.rules.cards import card, rank
from controller.rules.spanish21.hands import (
    BOXES,
    DEALER,
    DECK_VALUES,
    FACES,
    Dealer,
    Hand,
    PlayError,
    hand_value,
)
from controller.rules.spanish21.options import Spanish21Rules

ReaderMisuse = Literal["void", "continue"]
Place = tuple[int | Dealer, int]  # a box or the dealer, and its first (1) or second (2) card

_READER_RANKS: Final = frozenset("AKQJ")


# --------------------------------------------------------------------------- boxes and order


@dataclass(frozen=True)
class InitialCard:
    """One card of the initial deal: to a box or the dealer, face up or down. ``nth``:
    the first (1) or second (2) card of that place (551.8(d)); it names the place a
    dealer missed (551.16(f), (h)) and takes no part in comparing deals."""

    to: int | Dealer
    face_up: bool
    nth: int = field(default=1, compare=False)


def player_order(boxes: Iterable[int]) -> tuple[int, ...]:
    """Boxes in the order the dealer deals and takes decisions: from his left, box 1
    upward (551.8(d), (f), § 635a.7(e), (h); ruling R2)."""
    seen: list[int] = []
    for box in boxes:
        if isinstance(box, bool) or not isinstance(box, int) or box not in BOXES:
            raise PlayError(f"box {box!r}: a Spanish 21 layout has boxes 1 to 7 (551.2(b)(2))")
        if box in seen:
            raise PlayError(f"box {box}: listed twice")
        seen.append(box)
    return tuple(sorted(seen))


def initial_deal_order(
    boxes: Iterable[int],
    *,
    passed_over: Collection[Place] = frozenset(),
    second_card_later: Collection[int] = frozenset(),
) -> tuple[InitialCard, ...]:
    """The initial cards of a round for the boxes that hold a wager.

    One card face up to each box, one face up to the dealer, a second face up to
    each box, the hole card face down (551.8(d)(1)-(4), § 635a.7(e)(1)-(4)).

    ``passed_over``: places the dealer missed. A box's missed card is not dealt; a box
    left with one card gets its second card after every other player's second card
    if its player takes that option (``second_card_later``, 551.16(h)). The dealer's
    missed first card comes after the players' first two cards, before his second
    (551.16(f)); his second card is the last of the deal anyway.
    """
    order = player_order(boxes)
    if not order:
        raise PlayError("no box holds a wager, so there is no round to deal (551.8(d)(1))")
    for to, nth in passed_over:
        if nth not in (1, 2) or (to != DEALER and to not in order):
            raise PlayError(f"{to} has no card {nth} in this deal (551.8(d))")
    up = (InitialCard(DEALER, True, 1),)
    up_missed = (DEALER, 1) in passed_over
    return (
        *_boxes_nth(order, 1, passed_over),
        *(() if up_missed else up),
        *_boxes_nth(order, 2, passed_over),
        *_late_seconds(order, passed_over, second_card_later),
        *(up if up_missed else ()),
        InitialCard(DEALER, False, 2),
    )


def _boxes_nth(
    order: Iterable[int], nth: int, passed_over: Collection[Place]
) -> tuple[InitialCard, ...]:
    """Each box's ``nth`` card, face up, but the ones the dealer missed (551.16(h))."""
    return tuple(InitialCard(b, True, nth) for b in order if (b, nth) not in passed_over)


def _late_seconds(
    order: Iterable[int], passed_over: Collection[Place], second_card_later: Collection[int]
) -> tuple[InitialCard, ...]:
    """The second card of each box left with one card whose player takes it after the
    others' second cards (551.16(h))."""
    return tuple(
        InitialCard(b, True, 2)
        for b in order
        if b in second_card_later and _missed(b, passed_over) == 1
    )


def _missed(box: int, passed_over: Collection[Place]) -> int:
    """How many of its two initial cards the dealer missed on ``box``."""
    return sum((box, nth) in passed_over for nth in (1, 2))


def dead_boxes(
    boxes: Iterable[int], passed_over: Collection[Place], second_card_later: Collection[int]
) -> frozenset[int]:
    """Boxes whose hand is dead because the dealer missed their cards (551.16(h)): no
    card dealt, or one card and the player declined his second after the others'.

    Reading (proposed ruling): declining the late second card leaves a one-card hand,
    which cannot be played, so it is dead like a hand dealt no card.
    """
    dead: set[int] = set()
    for box in player_order(boxes):
        missed = _missed(box, passed_over)
        if missed == 2 or (missed == 1 and box not in second_card_later):
            dead.add(box)
    return frozenset(dead)


# --------------------------------------------------------------------------- the reader


def reader_allowed(up_card: str) -> bool:
    """The hole card goes into the card reader only behind an A, K, Q or J (551.8(e))."""
    c = up_card if up_card in DECK_VALUES else card(up_card)  # checked where it entered
    return rank(c) in _READER_RANKS


class PeekTarget(enum.Enum):
    """What the card reader device looks for behind the dealer's up card (551.8(e))."""

    TEN_VALUE = "ten_value"  # behind an ace: a king, queen or jack (no tens, 551.3(a))
    ACE = "ace"  # behind a king, queen or jack


def peek_target(up_card: str) -> PeekTarget:
    """What the reader looks for: a K/Q/J behind an ace, an ace behind a K/Q/J.

    551.8(e), § 635a.7(g); with no tens in the deck (551.3(a)) a ten-value card is a
    king, queen or jack.
    """
    c = card(up_card)
    if rank(c) == "A":
        return PeekTarget.TEN_VALUE
    if rank(c) in FACES:
        return PeekTarget.ACE
    raise PlayError(f"up card {c}: the reader is used only behind an A, K, Q or J (551.8(e))")


def reader_misuse(up_card: str, rules: Spanish21Rules) -> ReaderMisuse:
    """What follows when the hole card went into the reader behind another up card.

    551.16(l)(1): a reader that lets a player learn the hole card voids the round
    (all hands dead, each wager returned); (l)(2): otherwise play continues. The
    Match-the-Dealer wagers stand: they were settled before the reader was used
    (551.7(d)).
    """
    if reader_allowed(up_card):
        raise PlayError(f"up card {card(up_card)}: using the reader is required here (551.8(e))")
    return "void" if rules.reader_reveals_hole_card else "continue"


def blackjack_paid_at_once(up_card: str) -> bool:
    """A player's Blackjack is paid as the dealer reaches it behind a 2-9 up card,
    and only after the hole card is turned behind an A/K/Q/J (§ 635a.7(h)(1))."""
    return not reader_allowed(up_card)


def surrender_settled_at_once(up_card: str, peeked: bool) -> bool:
    """Half the wager is collected at once unless a dealer Blackjack is still possible.

    551.9(a)(1), (2); with a card reader the peek comes first, so (a)(2) waits only
    when no peek took place (ruling R9).
    """
    return not reader_allowed(up_card) or peeked


# --------------------------------------------------------------------------- the dealer


def dealer_draws(cards: Sequence[str]) -> bool:
    """The dealer draws to 16 and stands on every 17, a soft 17 included.

    551.13(b), 551.2(c)(2): "a hard or soft total of 17".
    """
    if len(cards) < 2:
        raise PlayError("the dealer's hand has two cards before any draw (551.8(d))")
    return hand_value(cards)[0] < 17


def depends_on_dealer(hand: Hand) -> bool:
    """Whether the dealer's final total can still change this hand's result.

    Once the peek has ruled out a dealer Blackjack, a busted, surrendered, rescued
    or dead hand is settled, a Blackjack wins, and a 21 in three or more cards wins
    against any dealer total (551.6(b)(1), (2), (4); ruling R7). A split hand's
    two-card 21 still depends: it pushes against a dealer's 21 (ruling R4).
    """
    if hand.dead or hand.surrendered or hand.rescued or hand.bust or hand.blackjack:
        return False
    return not (hand.total == 21 and len(hand.cards) > 2)


def dealer_needs_to_draw(dealer_cards: Sequence[str], hands: Iterable[Hand]) -> bool:
    """Whether the dealer takes another card, given every player hand of the round.

    551.13(b), (c), § 635a.7(l), (m): under 17 the dealer draws only while some
    hand's result depends on his total (ruling R7).
    """
    if not dealer_draws(dealer_cards):
        return False
    hands = tuple(hands)
    if not all(h.finished for h in hands):
        raise PlayError("decisions remain on a player's hand (551.13(c), 551.8(h))")
    return any(depends_on_dealer(h) for h in hands)
