"""The cards' values and the Point Count (545.6 / 543.6), and the counts of cards that
go to the discard with a burn (545.5(f)) or a card found face up (545.15(d)).

A card is checked where it enters (``controller.rules.cards.card``: a device's token,
a console's, a scenario's); from there on it is a canonical token, and its value is
one look-up in a table built once from ``_face_value``. A token in another spelling
("10d") takes the slow way, through ``card``, which also refuses what is no card.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Final

from controller.rules.cards import RANKS, SUITS, card, rank


def _face_value(token: str) -> int:
    r = rank(card(token))
    return 10 if r in "TJQK" else 1 if r == "A" else int(r)


# Every card of a deck, by its canonical token: the face value of the burn (545.5(f))
# and the 545.6(a) value.
FACE_VALUES: Final[Mapping[str, int]] = {r + s: _face_value(r + s) for r in RANKS for s in SUITS}
VALUES: Final[Mapping[str, int]] = {t: face % 10 for t, face in FACE_VALUES.items()}


def value(token: str) -> int:
    """The value of a card: 2-9 face value, 10/J/Q/K zero, ace one (545.6(a))."""
    v = VALUES.get(token)
    return _face_value(token) % 10 if v is None else v


def point(cards: Iterable[str]) -> int:
    """The Point Count: the right digit of the total value (545.6(b))."""
    held = cards if isinstance(cards, list | tuple) else tuple(cards)
    try:
        return sum(map(VALUES.__getitem__, held)) % 10
    except KeyError:  # a spelling such as "10d", or no card: ``value`` says which
        return sum(map(value, held)) % 10


def is_natural(cards: Sequence[str]) -> bool:
    """A Point Count of 8 or 9 on the first two cards (545.1 / 543.1 "Natural")."""
    return len(cards) == 2 and point(cards) >= 8


def burn_count(first_card: str) -> int:
    """Cards burned after the first one: its face value, 10/J/Q/K ten, ace one.

    545.5(f) / 543.5(g) count a ten-count card as ten here, unlike 545.6(a).
    """
    face = FACE_VALUES.get(first_card)
    return _face_value(first_card) if face is None else face


def face_up_discard_count(found: str) -> int:
    """Cards discarded with a card found face up in the shoe (545.15(d) / 543.14(d)).

    The text says "the value of the card", the 545.6 value, so a ten-count card
    takes no further card with it, where the burn (545.5(f)) counts it as ten.
    """
    return value(found)
