"""Card tokens shared by every game: two characters, rank then suit ("TD", "7S").

Ranks A23456789TJQK, suits SHDC; "10D" is accepted as input. "CUT" is the
cover/cutting card and is not a card of any deck.

A stand-in ("2?") holds the place of a sealed card whose value a restart cannot know
(controller/recovery): a rank, so the rules can value it, and a suit no deck has, so
no shoe can hold it, the shoe's counts never count it and ``card`` never accepts it
from a console.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

RANKS: Final = "A23456789TJQK"
SUITS: Final = "SHDC"
CUT: Final = "CUT"
STAND_IN_SUIT: Final = "?"


class CardError(ValueError):
    """A token that is not a card."""


def card(token: str) -> str:
    """The canonical token of a card ("10d" -> "TD"); CardError otherwise."""
    t = token.strip().upper()
    if t.startswith("10"):
        t = "T" + t[2:]
    if len(t) != 2 or t[0] not in RANKS or t[1] not in SUITS:
        raise CardError(f"not a card: {token!r} (expected rank {RANKS} then suit {SUITS})")
    return t


def stand_in(of_rank: str) -> str:
    """The stand-in of rank ``of_rank``: no card of any deck."""
    if of_rank not in RANKS:
        raise CardError(f"not a rank: {of_rank!r}")
    return of_rank + STAND_IN_SUIT


def is_stand_in(token: str) -> bool:
    return len(token) == 2 and token[0] in RANKS and token[1] == STAND_IN_SUIT


def rank(token: str) -> str:
    return token[0]


def deck(spanish: bool = False) -> list[str]:
    """One deck in rank-major order: 52 cards, or 48 without the tens (551.3(a))."""
    return [r + s for r in RANKS if not (spanish and r == "T") for s in SUITS]


def check_composition(tokens: Iterable[str], decks: int, spanish: bool = False) -> None:
    """CardError naming the first card that ``decks`` decks cannot hold."""
    allowed = {c: decks for c in deck(spanish)}
    for position, token in enumerate(tokens, 1):
        if token == CUT:
            continue
        c = card(token)
        if c not in allowed:
            raise CardError(f"card {position}: {c} is not in a Spanish 21 deck (551.3(a))")
        allowed[c] -= 1
        if allowed[c] < 0:
            raise CardError(f"card {position}: more {c} than {decks} decks hold")
