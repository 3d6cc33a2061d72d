"""Why the table refuses a trigger that no transition of its state takes (none from the
state, or none whose conditions hold): the section the input breaks, and the reason.

A refusal is looked up by (trigger, state), then by (trigger, ``ANY``) for every other
state. A continuous shuffling device's table looks in ``CONTINUOUS`` first (551.15);
while the discard rack is reshuffled, ``RACK`` answers every trigger but a wager and a
floorperson's clear (551.16(g)). The few reasons that depend on more than the state are
the small functions the tables name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Final, TypeAlias

from controller.table.core import Refusal
from controller.table.events import Command, MissedCard, Wager
from controller.table.spanish21.machine import (
    BURN_DUE,
    IN_ROUND,
    PEEK_DUE,
    PEEKING,
    PLAYING,
    RACK_BURN_DUE,
    RACK_SHUFFLE_DUE,
    SHUFFLE_DUE,
    WAGERING,
)
from drivers import messages as m

if TYPE_CHECKING:
    from controller.table.spanish21.table import Spanish21Table

    Why: TypeAlias = Refusal | Callable[[Spanish21Table, m.Event | Command], Refusal]

ANY: Final = None  # the state of a refusal that holds in every other state


def _shoe_over(table: Spanish21Table, item: m.Event | Command) -> Refusal:
    if table.shoes_completed:
        return Refusal("551.8(j)", "the shoe has ended: the cards are reshuffled first")
    return Refusal("551.5(a)", "no card is dealt before the cards are shuffled")


def _wagering_closed(table: Spanish21Table, item: m.Event | Command) -> Refusal:
    if isinstance(item, Wager) and item.bet == "insurance":
        why = "Insurance is offered only against an ace up card, before the peek"
        return Refusal("551.10(a)", why)
    if table.state in IN_ROUND:
        return Refusal("551.6(d)", "no wager after the first card of the round")
    return Refusal("551.6(a)", f"wagering is not open ({table.state})")


def _no_round_to_deal(table: Spanish21Table, item: m.Event | Command) -> Refusal:
    if not table._wagers.basic:
        return Refusal("551.8(d)(1)", "no box holds a wager")
    return Refusal("551.2(e)", "the floorperson has not inspected the card reader today")


def _not_in_the_deal(table: Spanish21Table, item: m.Event | Command) -> Refusal:
    dealer = isinstance(item, MissedCard) and item.box is None
    why = "a missed card is declared during the initial deal"
    return Refusal("551.16(f)" if dealer else "551.16(h)", why)


_SHOE_IN_PLAY: Final = Refusal(
    "551.8(j)", "a shoe is in play: it is reshuffled after its cutting card"
)
_TOO_LATE_TO_RECUT: Final = Refusal(
    "551.5(f)", "a card of this shoe has been dealt: too late to recut"
)
_NO_ROUND_PLAYED: Final = Refusal(
    "551.5(g)", "no round has been played since the cards were shuffled"
)
_GAMING_ACTIVITY: Final = Refusal("551.5(h)", "wagers are on the layout: there is gaming activity")
# Ruling R9: with a card reader the peek precedes every decision.
_PEEK_FIRST: Final = Refusal("551.8(e)", "the hole card goes into the card reader first")

REFUSALS: Final[Mapping[tuple[str, str | None], Why]] = {
    ("card", SHUFFLE_DUE): _shoe_over,
    ("cutting_card", SHUFFLE_DUE): _shoe_over,
    ("shuffled", SHUFFLE_DUE): _shoe_over,
    ("card", ANY): _SHOE_IN_PLAY,
    ("cutting_card", ANY): _SHOE_IN_PLAY,
    ("shuffled", ANY): _SHOE_IN_PLAY,
    ("wager", ANY): _wagering_closed,
    ("no_more_bets", WAGERING): _no_round_to_deal,
    ("no_more_bets", ANY): Refusal("551.6(d)", "no round is open for wagers"),
    ("recut", BURN_DUE): _TOO_LATE_TO_RECUT,
    ("recut", WAGERING): _TOO_LATE_TO_RECUT,
    ("recut", ANY): Refusal("551.5(f)", "no cut cards are waiting to be dealt"),
    ("reshuffle", SHUFFLE_DUE): Refusal("551.5(g)", "the cards are to be shuffled already"),
    ("reshuffle", BURN_DUE): _NO_ROUND_PLAYED,
    ("reshuffle", WAGERING): _NO_ROUND_PLAYED,
    ("reshuffle", ANY): Refusal(
        "551.5(g)", "a reshuffle follows a round: this one is still in play"
    ),
    ("cards_spread", SHUFFLE_DUE): Refusal("551.5(h)", "the cards are to be shuffled already"),
    ("cards_spread", BURN_DUE): _GAMING_ACTIVITY,
    ("cards_spread", WAGERING): _GAMING_ACTIVITY,
    ("cards_spread", ANY): Refusal("551.5(h)", "a round is in play"),
    ("new_dealer", ANY): Refusal("551.8(c)", "a new dealer takes over between rounds"),
    ("inserted", ANY): Refusal("551.8(e)", "the table did not arm the reader for this peek"),
    ("peek", ANY): Refusal("551.8(e)", "no hole card is in the reader"),
    ("decide", PEEK_DUE): _PEEK_FIRST,
    ("decide", PEEKING): _PEEK_FIRST,
    ("decide", ANY): Refusal("551.8(f)", "no player decision is due"),
    ("dealers_card", PLAYING): Refusal("551.8(h)", "a player's decision or card is still due"),
    ("dealers_card", ANY): Refusal("551.8(h)", "no round is waiting for the dealer's card"),
    # 551.16(c)-(f), (h), (i): the dealer's errors, declared out of their place.
    ("exposed_card", ANY): Refusal(
        "551.16(d)", "551.16(d) applies once each player has his initial two cards, in the round"
    ),
    ("refuse_card", ANY): Refusal("551.16(d)", "no exposed card is being offered"),
    ("dealer_overdraw", ANY): Refusal(
        "551.16(e)", "the dealer's extra card is declared after his round, before the next is dealt"
    ),
    ("missed_card", ANY): _not_in_the_deal,
    ("card_not_dealt", ANY): Refusal("551.16(i)", "no player is waiting for a card he requested"),
}

_BACK_IN_THE_DEVICE: Final = Refusal(
    "551.15", "the cards are back in the device: it confirms its shuffle first"
)
_DEVICE_CARDS_IN_PLAY: Final = Refusal(
    "551.15", "the device's cards are in play: they go back to it after the round"
)

CONTINUOUS: Final[Mapping[tuple[str, str | None], Why]] = {
    ("cutting_card", ANY): Refusal("551.15", "a continuous shuffling device deals no cutting card"),
    ("card", SHUFFLE_DUE): _BACK_IN_THE_DEVICE,
    ("shuffled", SHUFFLE_DUE): _BACK_IN_THE_DEVICE,
    ("card", ANY): _DEVICE_CARDS_IN_PLAY,
    ("shuffled", ANY): _DEVICE_CARDS_IN_PLAY,
    ("recut", ANY): Refusal("551.15", "a continuous shuffling device's cards are not cut"),
}

RACK: Final[Mapping[str, Refusal]] = {
    RACK_SHUFFLE_DUE: Refusal(
        "551.16(g)", "the shoe ran out in the round: the discard rack is shuffled and cut first"
    ),
    RACK_BURN_DUE: Refusal("551.16(g)", "the reshuffled discard rack's first card is burned first"),
}
_TAKEN_WHILE_RACK_RESHUFFLED: Final = ("wager", "floor_clear")

NOT_STOPPED: Final = Refusal(None, "nothing to clear: play is not stopped")


def refusal(table: Spanish21Table, trigger: str, item: m.Event | Command) -> Refusal:
    """Why no transition of the table's current state takes ``trigger``."""
    state = table.state
    if state in RACK and trigger not in _TAKEN_WHILE_RACK_RESHUFFLED:
        return RACK[state]
    tables = (CONTINUOUS, REFUSALS) if table.rules.continuous_shuffler else (REFUSALS,)
    for refusals in tables:
        why = refusals.get((trigger, state), refusals.get((trigger, ANY)))
        if why is not None:
            return why if isinstance(why, Refusal) else why(table, item)
    return NOT_STOPPED
