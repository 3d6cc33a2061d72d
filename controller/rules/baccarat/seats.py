"""The seats in turn: what is offered seat by seat (the cut, the shoe, a hand's cards),
the seat a hand's cards are handed to under the players-reveal option, and when the
curator passes the shoe.

The cut (545.5(b), 543.5(c)), the dealing shoe (545.7(b), 545.14(b)) and the right to
turn over a hand's cards (545.15(f), 543.14(f)) are offered seat by seat until a
player accepts. Seats are numbered from the dealer's far left (ruling R2), so
clockwise runs up the seat numbers and counterclockwise down them; past seat 1
counterclockwise (past the highest seat clockwise) comes the dealer, then the other
end of the table. The dealer's right is the highest seat, as in ``squeeze_seat``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Literal, get_args

from controller.rules.baccarat.drawing import Hand, Outcome

Offerable = Literal["cut", "shoe", "player", "banker"]
OFFERABLE: tuple[Offerable, ...] = get_args(Offerable)
COVER_CARDS = 2  # 545.3(a), 543.3(a): two cover cards besides the decks
COVER_CARD_FROM_BOTTOM = 14  # 545.5(d), 543.5(e): at least 14 cards above the bottom


def counterclockwise(seats: int, after: int | None) -> tuple[int, ...]:
    """Every other seat in turn counterclockwise, starting with the one immediately to
    the right of seat ``after`` (None: of the dealer, the highest seat first)."""
    if after is None:
        return tuple(range(seats, 0, -1))
    return tuple((after - 1 - i - 1) % seats + 1 for i in range(seats - 1))


def clockwise(seats: int, first: int) -> tuple[int, ...]:
    """Every seat in turn clockwise, starting with ``first``."""
    return tuple((first - 1 + i) % seats + 1 for i in range(seats))


def cut_order(seats: int, last_curator: int | None) -> tuple[int, ...]:
    """The order in which the stack is offered for the cut: the highest seat number or,
    on a reshuffle, the last curator, then clockwise (545.5(b), 543.5(c))."""
    return clockwise(seats, seats if last_curator is None else last_curator)


def shoe_order(seats: int) -> tuple[int, ...]:
    """The order in which a new shoe is offered: seat one, then each other seat in turn
    counterclockwise (545.7(b))."""
    return (1, *counterclockwise(seats, 1))


@dataclass(frozen=True)
class Offer:
    """Something offered seat by seat, in ``order``, until a player accepts; ``section``
    is the rule that sets the order. A seat declines for its player, or because nobody
    sits there (545.7(b), 545.14(b): "there is no player in that position")."""

    order: tuple[int, ...]
    section: str
    at: int = 0

    @property
    def seat(self) -> int | None:
        """The seat offered now; None once every seat has declined."""
        return self.order[self.at] if self.at < len(self.order) else None

    def declined(self) -> Offer:
        return Offer(self.order, self.section, self.at + 1)

    def after(self) -> tuple[int, ...]:
        """The seats still entitled after the one offered now (a recut, 545.5(e))."""
        return self.order[self.at + 1 :]


def squeeze_seat(wagers: Mapping[int, Mapping[str, Decimal]], hand: Hand) -> int | None:
    """The seat handed ``hand``'s cards under the players-reveal dealing option: the
    highest wager on that hand; of equal highest wagers, the one closest to the dealer
    moving counterclockwise (545.9(d)(2)-(6), 543.9(c)(3)(i)-(v)). None when nobody
    wagered on it: the dealer turns it face up (545.9(d)(7)).

    Seats are numbered from the dealer's far left (ruling R2), so counterclockwise from
    the dealer starts at the dealer's right, the highest seat number, as in 635a.7(f)
    ("farthest to the dealer's right ... counterclockwise").
    """
    bets = {seat: b[hand] for seat, b in wagers.items() if b.get(hand, 0) > 0}
    if not bets:
        return None
    return max(bets, key=lambda seat: (bets[seat], seat))


def curator_passes(outcome: Outcome) -> bool:
    """Whether the curator must pass the shoe: when the Banker's Hand loses (545.14(a)(1)).

    A tie is not a loss of the Banker's Hand (545.8(a)(1)(iii)).
    """
    return outcome == "player"
