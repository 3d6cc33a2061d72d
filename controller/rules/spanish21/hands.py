"""The places on a Spanish 21 layout, the cards' values and the ``Hand`` of a box.

A ten is no card of this game (551.3(a)). Boxes are numbered 1 to 7 from the
dealer's far left (ruling R2).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Final, Literal

from controller.rules.cards import RANKS, CardError, card, deck, is_stand_in, rank, stand_in

Dealer = Literal["dealer"]

DEALER: Final[Dealer] = "dealer"
BOXES: Final = range(1, 8)  # no more than seven player positions (551.2(b)(2))

ZERO: Final = Decimal(0)
FACES: Final = frozenset("JQK")


class PlayError(ValueError):
    """A decision, wager, card or box that the chapter does not allow at that point."""


def _card_value(token: str) -> int:
    """``card_value`` the long way: any spelling ``card`` accepts, or CardError."""
    c = token if is_stand_in(token) else card(token)
    r = rank(c)
    if r == "T":
        raise CardError(f"{c} is not in a Spanish 21 deck (551.3(a), 551.16(b))")
    if r in FACES:
        return 10
    return 1 if r == "A" else int(r)


# The value of each card of a Spanish deck by its canonical token, and of each stand-in:
# a card checked where it entered is valued by one look-up.
DECK_VALUES: Final = {c: _card_value(c) for c in deck(spanish=True)}
VALUES: Final = {
    **DECK_VALUES,
    **{stand_in(r): _card_value(stand_in(r)) for r in RANKS if r != "T"},
}


def card_value(token: str) -> int:
    """2-9 face value, J/Q/K ten, an ace one (551.3(b)); ``hand_value`` makes it 11. A
    stand-in for a sealed card a restart cannot know is valued by its rank."""
    v = VALUES.get(token)
    return _card_value(token) if v is None else v


def hand_value(cards: Iterable[str]) -> tuple[int, bool]:
    """The total and whether it is soft: an ace counts 11 unless that passes 21.

    551.3(b)(3); soft and hard totals as 551.1 defines them. Two aces can never both
    count 11, so at most one does.
    """
    held = cards if isinstance(cards, list | tuple) else tuple(cards)
    try:
        values = list(map(VALUES.__getitem__, held))
    except KeyError:  # another spelling ("10h"), a ten or no card: card_value says which
        values = list(map(card_value, held))
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


def _checked(cards: Sequence[str]) -> tuple[str, ...]:
    """A hand's cards as canonical tokens of a Spanish deck, or CardError. A tuple of
    them is kept as it is: each was checked where it entered."""
    if type(cards) is tuple and all(map(DECK_VALUES.__contains__, cards)):
        return cards
    checked = tuple(card(c) for c in cards)
    for c in checked:
        card_value(c)
    return checked


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
    double_wager: Decimal = ZERO
    from_split: bool = False
    drawing: bool = False
    stood: bool = False
    surrendered: bool = False
    rescued: bool = False
    dead: bool = False
    refused: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "cards", _checked(self.cards))
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
