"""The cards' values and the Point Count (545.6 / 543.6), and the counts of cards that
go to the discard with a burn (545.5(f)) or a card found face up (545.15(d))."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from controller.rules.cards import card, rank


def _face_value(token: str) -> int:
    r = rank(card(token))
    return 10 if r in "TJQK" else 1 if r == "A" else int(r)


def value(token: str) -> int:
    """The value of a card: 2-9 face value, 10/J/Q/K zero, ace one (545.6(a))."""
    return _face_value(token) % 10


def point(cards: Iterable[str]) -> int:
    """The Point Count: the right digit of the total value (545.6(b))."""
    return sum(value(c) for c in cards) % 10


def is_natural(cards: Sequence[str]) -> bool:
    """A Point Count of 8 or 9 on the first two cards (545.1 / 543.1 "Natural")."""
    return len(cards) == 2 and point(cards) >= 8


def burn_count(first_card: str) -> int:
    """Cards burned after the first one: its face value, 10/J/Q/K ten, ace one.

    545.5(f) / 543.5(g) count a ten-count card as ten here, unlike 545.6(a).
    """
    return _face_value(first_card)


def face_up_discard_count(found: str) -> int:
    """Cards discarded with a card found face up in the shoe (545.15(d) / 543.14(d)).

    The text says "the value of the card", the 545.6 value, so a ten-count card
    takes no further card with it, where the burn (545.5(f)) counts it as ten.
    """
    return value(found)
