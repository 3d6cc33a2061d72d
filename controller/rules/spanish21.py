"""Spanish 21 (58 Pa. Code ch. 551 and § 635a.7) as pure functions.

Cards are tokens of ``controller.rules.cards``; a ten is no card of this game
(551.3(a)). Boxes are numbered 1 to 7 from the dealer's far left (ruling R2).
Money is ``Decimal`` in currency units, as in ``controller.rules.baccarat``: 3 to 2
on an odd wager is half a unit, and only ``Decimal`` keeps it exact.

A box's hands are a tuple of frozen ``Hand`` values in the order they are played
(551.12(b), ruling R6). The table's state machine drives them:

    hands = (Hand(("8H", "8D"), Decimal(10)),)
    hands = apply_decision(hands, 0, "split", up_card="6S", peeked=False)
    hands = deal_card(hands, "3C")  # the first split hand's second card
    ...
    settle_round({1: BoxRound("ann", hands)}, dealer_cards)
"""

from __future__ import annotations

import enum
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from decimal import ROUND_CEILING, Decimal, InvalidOperation
from typing import Any, ClassVar, Final, Literal, cast, get_args, overload

from controller.rules.cards import CardError, card, rank
from controller.rules.options import RulesError, flag, text, whole

Decision = Literal["hit", "stand", "double", "split", "surrender", "rescue"]
Outcome = Literal["win", "lose", "push", "surrender", "rescue", "dead"]
ReaderMisuse = Literal["void", "continue"]
SettlementOrder = Literal["collect_then_pay", "right_to_left"]
Dealer = Literal["dealer"]

DECISIONS: Final[tuple[Decision, ...]] = get_args(Decision)
DEALER: Final[Dealer] = "dealer"
BOXES: Final = range(1, 8)  # no more than seven player positions (551.2(b)(2))
MAX_SPLIT_HANDS: Final = 3  # 551.12(c)

_ZERO: Final = Decimal(0)
_FACES: Final = frozenset("JQK")
_READER_RANKS: Final = frozenset("AKQJ")


class PlayError(ValueError):
    """A decision, wager, card or box that the chapter does not allow at that point."""


# --------------------------------------------------------------------------- cards


def card_value(token: str) -> int:
    """2-9 face value, J/Q/K ten, an ace one (551.3(b)); ``hand_value`` makes it 11."""
    c = card(token)
    r = rank(c)
    if r == "T":
        raise CardError(f"{c} is not in a Spanish 21 deck (551.3(a), 551.16(b))")
    if r in _FACES:
        return 10
    return 1 if r == "A" else int(r)


def hand_value(cards: Iterable[str]) -> tuple[int, bool]:
    """The total and whether it is soft: an ace counts 11 unless that passes 21.

    551.3(b)(3); soft and hard totals as 551.1 defines them. Two aces can never both
    count 11, so at most one does.
    """
    values = [card_value(c) for c in cards]
    total = sum(values)
    if 1 in values and total + 10 <= 21:
        return total + 10, True
    return total, False


def is_bust(cards: Iterable[str]) -> bool:
    """Over 21: such a hand wins nothing (551.6(b)(1), (2))."""
    return hand_value(cards)[0] > 21


def is_blackjack(cards: Sequence[str], from_split: bool) -> bool:
    """An ace and a ten-value card as the initial two cards (551.1).

    A split hand is formed after the initial deal, so its two-card 21 is no
    Blackjack (ruling R4).
    """
    return not from_split and sorted(card_value(c) for c in cards) == [1, 10]


def dealer_blackjack(dealer_cards: Sequence[str]) -> bool:
    """The dealer's up card and hole card make a Blackjack (551.1)."""
    return is_blackjack(dealer_cards[:2], from_split=False)


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


Place = tuple[int | Dealer, int]  # a box or the dealer, and its first (1) or second (2) card


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
    firsts = tuple(InitialCard(b, True, 1) for b in order if (b, 1) not in passed_over)
    seconds = tuple(InitialCard(b, True, 2) for b in order if (b, 2) not in passed_over)
    later = tuple(
        InitialCard(b, True, 2)
        for b in order
        if b in second_card_later and ((b, 1) in passed_over) != ((b, 2) in passed_over)
    )
    up = (InitialCard(DEALER, True, 1),)
    up_missed = (DEALER, 1) in passed_over
    return (
        *firsts,
        *(() if up_missed else up),
        *seconds,
        *later,
        *(up if up_missed else ()),
        InitialCard(DEALER, False, 2),
    )


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
        missed = sum((box, nth) in passed_over for nth in (1, 2))
        if missed == 2 or (missed == 1 and box not in second_card_later):
            dead.add(box)
    return frozenset(dead)


def match_the_dealer_order(boxes: Iterable[int]) -> tuple[int, ...]:
    """Boxes in the order Match-the-Dealer wagers are settled: from the dealer's
    right, so the highest box first (§ 635a.7(f); ruling R2)."""
    return tuple(reversed(player_order(boxes)))


def check_player_boxes(boxes: Collection[int], rules: Spanish21Rules) -> None:
    """PlayError unless one player's boxes are adjacent and no more than the Rules
    Submission allows (551.14)."""
    order = player_order(boxes)
    if len(order) > rules.boxes_per_player:
        raise PlayError(
            f"boxes {', '.join(map(str, order))}: a player may wager on at most "
            f"{rules.boxes_per_player} box(es) (551.14)"
        )
    if order and order[-1] - order[0] != len(order) - 1:
        raise PlayError(
            f"boxes {', '.join(map(str, order))}: a player's boxes must be adjacent (551.14)"
        )


def may_wager(rules: Spanish21Rules, *, sat_out_since_shuffle: bool, readmitted: bool) -> bool:
    """Whether a person may wager this round under the no-mid-shoe-entry option.

    551.6(k): where the certificate holder elects it, someone who let a round pass
    without a wager since the shuffle waits for the next shuffle unless readmitted.
    """
    return not rules.no_mid_shoe_entry or not sat_out_since_shuffle or readmitted


# --------------------------------------------------------------------------- the reader


def reader_allowed(up_card: str) -> bool:
    """The hole card goes into the card reader only behind an A, K, Q or J (551.8(e))."""
    return rank(card(up_card)) in _READER_RANKS


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
    if rank(c) in _FACES:
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


# --------------------------------------------------------------------------- side wagers


def insurance_allowed(up_card: str) -> bool:
    """Insurance is offered only when the dealer's first card is an ace (551.10(a))."""
    return rank(card(up_card)) == "A"


def insurance_max(wager: Decimal, rules: Spanish21Rules) -> Decimal:
    """Half the initial wager, up to the next chip unit when half cannot be bet.

    551.10(b). Reading: ``rules.chip_unit`` is the smallest chip a player can wager;
    half the wager is rounded up to a whole number of those units, and never further.
    """
    units = (wager / 2 / rules.chip_unit).to_integral_value(rounding=ROUND_CEILING)
    return units * rules.chip_unit


def check_insurance(amount: Decimal, wager: Decimal, up_card: str, rules: Spanish21Rules) -> None:
    """PlayError unless an Insurance Wager of ``amount`` may be placed on ``wager``."""
    if not insurance_allowed(up_card):
        raise PlayError(f"up card {card(up_card)}: insurance only against an ace (551.10(a))")
    limit = insurance_max(wager, rules)
    if not 0 < amount <= limit:
        raise PlayError(
            f"insurance {amount}: must be more than 0 and at most {limit} on a "
            f"{wager} wager (551.10(b))"
        )


def insurance_net(amount: Decimal, dealer_cards: Sequence[str]) -> Decimal:
    """An Insurance Wager wins 2 to 1 if the hole card is a K, Q or J and loses on
    anything else (551.10(a), (c)); it stands apart from the hand (551.9(b))."""
    if amount == 0:
        return _ZERO
    if not insurance_allowed(dealer_cards[0]):
        raise PlayError("insurance without an ace up card (551.10(a))")
    return 2 * amount if rank(card(dealer_cards[1])) in _FACES else -amount


def match_the_dealer_max(wager: Decimal, rules: Spanish21Rules) -> Decimal:
    """The larger Match-the-Dealer wager allowed: the box's wager or the Rules
    Submission's maximum, whichever is less (551.7(b))."""
    if rules.match_the_dealer_max is None:
        return wager
    return min(wager, rules.match_the_dealer_max)


def check_match_the_dealer(amount: Decimal, wager: Decimal, rules: Spanish21Rules) -> None:
    """PlayError unless a Match-the-Dealer wager of ``amount`` may go beside ``wager``."""
    if not rules.match_the_dealer:
        raise PlayError("Match-the-Dealer is not offered at this table (551.2(c)(5), 551.7)")
    if wager <= 0:
        raise PlayError("Match-the-Dealer needs the basic wager on the box (551.7(b))")
    limit = match_the_dealer_max(wager, rules)
    if not 1 <= amount <= limit:
        raise PlayError(f"Match-the-Dealer {amount}: must be from 1 to {limit} (551.7(b))")


def match_the_dealer_net(
    initial_cards: Sequence[str], up_card: str, amount: Decimal, rules: Spanish21Rules
) -> Decimal:
    """The net of a Match-the-Dealer wager on a box's initial two cards.

    Each card of the up card's rank is paid, at the same-suit or the other-suit odds
    (551.7(a), (e), § 635a.7(f)(2)); ranks must be identical, so a king matches only
    a king (§ 635a.7(f)(1)). Nothing else in the round bears on it (551.7(f)).
    """
    if amount == 0:
        return _ZERO
    if len(initial_cards) != 2:
        raise PlayError("Match-the-Dealer is settled on the initial two cards (551.7(a), (d))")
    up = card(up_card)
    odds = 0
    for c in map(card, initial_cards):
        if rank(c) == rank(up):
            same_suit = c[1] == up[1]
            odds += (
                rules.match_the_dealer_same_suit
                if same_suit
                else rules.match_the_dealer_different_suit
            )
    return amount * odds if odds else -amount


# --------------------------------------------------------------------------- hands


@dataclass(frozen=True)
class Hand:
    """One hand of a box and the wagers on it.

    ``wager`` is the hand's own wager: the original one, or the equal wager that a
    split put on a new hand (551.12(a)). ``drawing``: a hit or a double down was
    called and its card is still to come. ``dead``: the hand was called dead
    (551.16(h), (i), (l)(1)) and its wagers are returned. ``refused``: its player
    refused a card drawn in error and exposed, so it takes no more cards this round
    (551.16(d)); it is settled on the cards it holds.
    """

    cards: tuple[str, ...]
    wager: Decimal
    double_wager: Decimal = _ZERO
    from_split: bool = False
    drawing: bool = False
    stood: bool = False
    surrendered: bool = False
    rescued: bool = False
    dead: bool = False
    refused: bool = False

    def __post_init__(self) -> None:
        cards = tuple(card(c) for c in self.cards)
        for c in cards:
            card_value(c)
        object.__setattr__(self, "cards", cards)
        if self.wager <= 0:
            raise PlayError(f"hand wager {self.wager}: must be more than 0")
        if not 0 <= self.double_wager <= self.wager:
            raise PlayError(
                f"double down {self.double_wager}: at most the original wager {self.wager} "
                "(551.11(a))"
            )
        if self.rescued and not self.double_wager:
            raise PlayError("only a doubled hand can be rescued (551.11(d))")
        if self.stood + self.surrendered + self.rescued + self.dead + self.refused > 1:
            raise PlayError(
                "a hand ends one way only: stood, surrendered, rescued, dead or refused"
            )
        if self.refused and self.drawing:
            raise PlayError("a hand that refused a card takes no more (551.16(d))")

    @property
    def total(self) -> int:
        return hand_value(self.cards)[0]

    @property
    def soft(self) -> bool:
        return hand_value(self.cards)[1]

    @property
    def bust(self) -> bool:
        return self.total > 21

    @property
    def blackjack(self) -> bool:
        return is_blackjack(self.cards, self.from_split)

    @property
    def doubled(self) -> bool:
        return self.double_wager > 0

    @property
    def stake(self) -> Decimal:
        """Everything wagered on the hand."""
        return self.wager + self.double_wager

    @property
    def needs_card(self) -> bool:
        """A split hand's second card (551.12(b)) or the card of a hit or double."""
        if self.dead or self.surrendered or self.rescued or self.refused:
            return False
        return len(self.cards) < 2 or self.drawing

    @property
    def finished(self) -> bool:
        """No card or decision is owed: it stood, doubled (one card only, 551.11(a)),
        reached 21 (551.13(a)(1)), busted, surrendered, was rescued, is dead or refused
        a card drawn in error (551.16(d))."""
        if self.dead or self.surrendered or self.rescued or self.refused:
            return True
        if self.needs_card:
            return False
        return self.stood or self.doubled or self.total >= 21


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
        if not hand.doubled or hand.needs_card:
            return "only a doubled hand that has its card can be rescued (551.11(d))"
        if hand.rescued:
            return "the hand is already rescued (551.11(d))"
        if hand.bust:
            return "the double down card took the hand over 21 (551.11(d))"
        if not ctx.rescue_open:
            return "the dealer has moved on to the next hand (551.11(d))"
        return None
    if not ctx.in_turn or hand.finished or hand.needs_card:
        # Includes a player's Blackjack, which takes no decision (§ 635a.7(h)(1)).
        return "the hand is not waiting for a decision (551.8(f), 551.12(b), 551.13(a))"
    if decision == "double" and len(hand.cards) != 2:
        return "double down only on a hand's first two cards (551.11(a))"
    if decision == "split":
        if len(hand.cards) != 2 or card_value(hand.cards[0]) != card_value(hand.cards[1]):
            return "only two cards identical in value can be split (551.12(a), (c))"
        if ctx.hands_in_box >= MAX_SPLIT_HANDS:
            return f"no more than {MAX_SPLIT_HANDS} hands from one box (551.12(c))"
    if decision == "surrender" and (
        len(hand.cards) != 2 or hand.from_split or ctx.hands_in_box != 1
    ):
        return "surrender only on the first two cards, before any other decision (551.9(a))"
    return None


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


# --------------------------------------------------------------------------- settlement


@dataclass(frozen=True)
class Payout:
    """Odds "to 1" and the subsection that sets them."""

    odds: Decimal
    section: str


def bonus_payout(hand: Hand) -> Payout | None:
    """The 551.6(g) odds that replace 1 to 1 for a winning ``hand``, if any.

    Not on a doubled hand (551.6(g), 551.11(b)); decided hand by hand, so a split
    hand that was not doubled keeps them (ruling R5). The categories exclude one
    another, so a hand earns at most one.
    """
    if hand.doubled or hand.total != 21:
        return None
    count = len(hand.cards)
    if count == 3:
        ranks = sorted(rank(c) for c in hand.cards)
        suits = {c[1] for c in hand.cards}
        same_suit = len(suits) == 1
        spades = suits == {"S"}
        if ranks == ["6", "7", "8"]:
            if spades:
                return Payout(Decimal(3), "551.6(g)(2)")
            return Payout(Decimal(2), "551.6(g)(2)") if same_suit else _three_to_two("(g)(1)")
        if ranks == ["7", "7", "7"]:
            if spades:
                return Payout(Decimal(3), "551.6(g)(4)")
            return Payout(Decimal(2), "551.6(g)(4)") if same_suit else _three_to_two("(g)(3)")
        return None
    if count == 5:
        return _three_to_two("(g)(5)")
    if count == 6:
        return Payout(Decimal(2), "551.6(g)(6)")
    if count >= 7:
        return Payout(Decimal(3), "551.6(g)(7)")
    return None


def _three_to_two(paragraph: str) -> Payout:
    return Payout(Decimal(3) / 2, f"551.6{paragraph}")


def super_bonus(hand: Hand, up_card: str) -> Decimal:
    """The fixed payout of 551.6(h) on top of (g)(4), or 0.

    Three 7s of one suit against a 7 up card: $1,000 on an original wager from $5 to
    under $25, $5,000 from $25; below $5 the text grants nothing. Never on a doubled
    or a split hand (551.6(h), 551.11(b), 551.12(e)).
    """
    if hand.doubled or hand.from_split or rank(card(up_card)) != "7":
        return _ZERO
    if len(hand.cards) != 3 or {rank(c) for c in hand.cards} != {"7"}:
        return _ZERO
    if len({c[1] for c in hand.cards}) != 1:
        return _ZERO
    if hand.wager >= 25:
        return Decimal(5000)
    return Decimal(1000) if hand.wager >= 5 else _ZERO


OTHERS_SUPER_BONUS: Final = Decimal(50)  # 551.6(h)


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
    super_bonus: Decimal = _ZERO


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
            results.append(HandResult("dead", _ZERO, "551.16"))
        elif hand.blackjack:
            # Ruling R3: the player's Blackjack wins 3 to 2 against the dealer's.
            results.append(HandResult("win", hand.wager * 3 / 2, "551.6(b)(3)"))
        elif collected:
            results.append(HandResult("lose", _ZERO, "551.12(d)"))
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
    if hand.dead:
        return HandResult("dead", _ZERO, "551.16")
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
    player = hand.total
    dealer = hand_value(dealer_cards)[0]
    if player == 21 and dealer == 21 and len(hand.cards) > 2:
        won = "551.6(b)(4)"
    elif dealer > 21:
        won = "551.6(b)(1)"
    elif player > dealer:
        won = "551.6(b)(2)"
    elif player == dealer:
        return HandResult("push", _ZERO, "551.6(c)")
    else:
        return HandResult("lose", -hand.stake, "551.6(b)(2)")
    if hand.doubled:
        return HandResult("win", hand.stake, "551.11(b)")
    bonus = bonus_payout(hand)
    if bonus is None:
        return HandResult("win", hand.wager, won)
    fixed = super_bonus(hand, dealer_cards[0])  # on top of the (g)(4) odds
    section = "551.6(h)" if fixed else bonus.section
    return HandResult("win", hand.wager * bonus.odds + fixed, section, fixed)


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
        hands = sum((r.net for results in self.boxes.values() for r in results), _ZERO)
        return hands + sum(self.others_bonus.values(), _ZERO)


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
                    others[other] = others.get(other, _ZERO) + OTHERS_SUPER_BONUS
    return RoundResult(results, others)


# --------------------------------------------------------------------------- Rules Submission

# (different suit, same suit) minimum odds by deck count (551.7(e)(1), (2)).
_MATCH_MINIMUM: Final[Mapping[int, tuple[int, int]]] = {6: (4, 9), 8: (3, 12)}
_DECK_WORDS: Final[Mapping[int, str]] = {6: "six", 8: "eight"}


@dataclass(frozen=True)
class Spanish21Rules:
    """The Rules Submission options of one Spanish 21 table.

    Build it with ``from_dict``, which also takes the Match-the-Dealer odds to the
    minimums for the deck count; the constructor checks the values. Defaults are
    the chapter's minimums (ruling R8).
    """

    game: ClassVar[str] = "spanish21"
    decks: int = 6  # 551.3(a)
    match_the_dealer: bool = True  # offered at all (551.2(c)(5))
    match_the_dealer_different_suit: int = 4  # to 1, each matching card (551.7(e))
    match_the_dealer_same_suit: int = 9  # to 1, each matching card (551.7(e))
    match_the_dealer_max: Decimal | None = None  # None: the box's wager caps it (551.7(b))
    boxes_per_player: int = 1  # adjacent boxes (551.14)
    continuous_shuffler: bool = False  # 551.15
    no_mid_shoe_entry: bool = False  # 551.6(k)
    # 551.16(l): whether the reader in use lets a player learn the hole card. True
    # unless the certificate holder says otherwise: a void round wrongs nobody.
    reader_reveals_hole_card: bool = True
    chip_unit: Decimal = Decimal(1)  # smallest chip a player can wager (551.10(b))
    settlement_order: SettlementOrder = "collect_then_pay"  # § 635a.7(p)(1) or (2)

    def __post_init__(self) -> None:
        if self.decks not in _MATCH_MINIMUM:
            raise RulesError(
                f"rules.decks: {self.decks} is not allowed; Spanish 21 is played with "
                "six or eight decks (551.3(a))"
            )
        different, same = _MATCH_MINIMUM[self.decks]
        words = _DECK_WORDS[self.decks]
        for key, odds, least in (
            ("match_the_dealer_different_suit", self.match_the_dealer_different_suit, different),
            ("match_the_dealer_same_suit", self.match_the_dealer_same_suit, same),
        ):
            if odds < least:
                raise RulesError(
                    f"rules.{key}: {odds} to 1 is under the {least} to 1 minimum with "
                    f"{words} decks (551.7(e))"
                )
        if self.match_the_dealer_max is not None and self.match_the_dealer_max < 1:
            raise RulesError(
                f"rules.match_the_dealer_max: {self.match_the_dealer_max} is under the $1 "
                "least wager (551.7(b))"
            )
        if self.boxes_per_player not in BOXES:
            raise RulesError(
                f"rules.boxes_per_player: {self.boxes_per_player} is not from 1 to 7 "
                "(551.14, 551.2(b)(2))"
            )
        if self.chip_unit <= 0:
            raise RulesError(f"rules.chip_unit: {self.chip_unit} is not more than 0 (551.10(b))")
        if self.settlement_order not in get_args(SettlementOrder):
            raise RulesError(
                f"rules.settlement_order: {self.settlement_order!r} is not one of "
                f"{', '.join(get_args(SettlementOrder))} (635a.7(p))"
            )

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Spanish21Rules:
        """Validated rules from a Rules Submission table (TOML or JSON), defaults filled.

        RulesError, one line naming the key and the section, for an unknown key, a
        value of the wrong type or a value the chapter forbids.
        """
        if not isinstance(d, Mapping):
            raise RulesError(f"rules: expected a table of options, got {type(d).__name__}")
        for key in d:
            if key not in _SECTIONS:
                raise RulesError(
                    f"rules.{key}: unknown option; expected one of {', '.join(_SECTIONS)} "
                    "(Rules Submission, 521.2)"
                )
        decks = whole(d, "decks", 6, _SECTIONS["decks"])
        different, same = _MATCH_MINIMUM.get(decks, (0, 0))
        return cls(
            decks=decks,
            match_the_dealer=flag(d, "match_the_dealer", True, _SECTIONS["match_the_dealer"]),
            match_the_dealer_different_suit=whole(
                d,
                "match_the_dealer_different_suit",
                different,
                _SECTIONS["match_the_dealer_different_suit"],
            ),
            match_the_dealer_same_suit=whole(
                d, "match_the_dealer_same_suit", same, _SECTIONS["match_the_dealer_same_suit"]
            ),
            match_the_dealer_max=_money(d, "match_the_dealer_max", None),
            boxes_per_player=whole(d, "boxes_per_player", 1, _SECTIONS["boxes_per_player"]),
            continuous_shuffler=flag(
                d, "continuous_shuffler", False, _SECTIONS["continuous_shuffler"]
            ),
            no_mid_shoe_entry=flag(d, "no_mid_shoe_entry", False, _SECTIONS["no_mid_shoe_entry"]),
            reader_reveals_hole_card=flag(
                d, "reader_reveals_hole_card", True, _SECTIONS["reader_reveals_hole_card"]
            ),
            chip_unit=_money(d, "chip_unit", Decimal(1)),
            settlement_order=cast(
                SettlementOrder,
                text(d, "settlement_order", "collect_then_pay", _SECTIONS["settlement_order"]),
            ),
        )


_SECTIONS: Final[Mapping[str, str]] = {
    "decks": "551.3(a)",
    "match_the_dealer": "551.2(c)(5)",
    "match_the_dealer_different_suit": "551.7(e)",
    "match_the_dealer_same_suit": "551.7(e)",
    "match_the_dealer_max": "551.7(b)(2)",
    "boxes_per_player": "551.14",
    "continuous_shuffler": "551.15",
    "no_mid_shoe_entry": "551.6(k)",
    "reader_reveals_hole_card": "551.16(l)",
    "chip_unit": "551.10(b)",
    "settlement_order": "635a.7(p)",
}


@overload
def _money(d: Mapping[str, Any], key: str, default: Decimal) -> Decimal: ...
@overload
def _money(d: Mapping[str, Any], key: str, default: None) -> Decimal | None: ...
def _money(d: Mapping[str, Any], key: str, default: Decimal | None) -> Decimal | None:
    """An amount given as a number or a decimal string ("2.50")."""
    if key not in d:
        return default
    v = d[key]
    amount: Decimal | None = None
    if isinstance(v, int | float | str) and not isinstance(v, bool):
        try:
            # str() first: a TOML float 0.1 means one tenth, not its binary neighbour.
            amount = Decimal(str(v))
        except InvalidOperation:
            amount = None
    if amount is None or not amount.is_finite():
        raise RulesError(f"rules.{key}: expected an amount, got {v!r} ({_SECTIONS[key]})")
    return amount
