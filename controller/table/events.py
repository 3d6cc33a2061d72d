"""The table's event model: console commands in, and what a table needs from outside.

A table consumes two kinds of input on one thread: the drivers' device events
(``drivers.messages``) and the console commands below. It writes every input and
every decision to a ``Journal`` and talks back to the devices through ``Devices``.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import ClassVar, Protocol

from drivers.messages import PeekTarget


class Command:
    """A command from the dealer's or the floorperson's console."""

    name: ClassVar[str]

    def fields(self) -> dict[str, object]:
        """The command's fields as a journal records them."""
        return {}


@dataclass(frozen=True, slots=True)
class Wager(Command):
    """Set a seat's (a Spanish 21 box's) wager on one bet; an amount of 0 withdraws it
    (545.8(c), 551.6(d))."""

    seat: int
    bet: str
    amount: Decimal | int

    name = "wager"

    def fields(self) -> dict[str, object]:
        return {"seat": self.seat, "bet": self.bet, "amount": self.amount}


@dataclass(frozen=True, slots=True)
class PlayerLeaves(Command):
    """A player leaves the table: the vigorish the seat still owes is collected then
    (545.13(e), 543.13(e)), and the seat's wagers not yet in play are withdrawn."""

    seat: int

    name = "player_leaves"

    def fields(self) -> dict[str, object]:
        return {"seat": self.seat}


@dataclass(frozen=True, slots=True)
class NoMoreBets(Command):
    """The dealer announces "no more bets" (545.8(c), 545.9(b), 543.9(b))."""

    name = "no_more_bets"


@dataclass(frozen=True, slots=True)
class DisclosedCard(Command):
    """The card drawn in error was seen as it was drawn (545.15(c), 543.14(c)): it goes
    to the discard with the next card, drawn face down."""

    name = "disclosed_card"


@dataclass(frozen=True, slots=True)
class ManualShuffle(Command):
    """The dealer declares the cards shuffled and cut by hand (545.5, 543.5)."""

    name = "manual_shuffle"


@dataclass(frozen=True, slots=True)
class FloorClear(Command):
    """A floorperson clears a stopped table. ``card``: the card the shoe could not
    read, as the floorperson reads it from the layout. ``repair``: ``"repaired"`` or
    ``"replaced"``, the floorperson's record for a device that must not be used until
    then (551.16(m))."""

    card: str | None = None
    repair: str | None = None

    name = "floor_clear"

    def fields(self) -> dict[str, object]:
        out: dict[str, object] = {}
        if self.card is not None:
            out["card"] = self.card
        if self.repair is not None:
            out["repair"] = self.repair
        return out


@dataclass(frozen=True, slots=True)
class Decision(Command):
    """A player's decision on the box's hand in play: ``hit``, ``stand``, ``double``,
    ``split``, ``surrender`` or ``rescue`` (551.8(f), 551.9, 551.11-551.13)."""

    box: int
    decision: str

    name = "decision"

    def fields(self) -> dict[str, object]:
        return {"box": self.box, "decision": self.decision}


@dataclass(frozen=True, slots=True)
class DealersCard(Command):
    """The dealer announces "Dealer's Card" and turns the hole card over (551.8(h))."""

    name = "dealers_card"


@dataclass(frozen=True, slots=True)
class NewDealer(Command):
    """A new dealer comes to the table and burns one card before dealing (551.8(c))."""

    name = "new_dealer"


@dataclass(frozen=True, slots=True)
class InspectReader(Command):
    """The floorperson inspects the card reader device (551.2(e)); the table has the
    reader test itself and records the inspection when the test passes."""

    name = "inspect_reader"


class Journal(Protocol):
    """Where a table writes its record, one entry at a time."""

    def record(self, entry: Mapping[str, object]) -> None:
        """Keep ``entry``; it must be durable when this returns (a device event is
        acknowledged to its device right after)."""


class Devices(Protocol):
    """The table's way back to its devices."""

    def commit(self, device: str, event_id: int) -> None:
        """Events of ``device`` up to ``event_id`` are recorded: the device may drop them."""

    def display(self, text: str) -> bool:
        """Show ``text`` on the shoe's display; False when it could not be sent."""


class ReaderDevices(Devices, Protocol):
    """A Spanish 21 table's way back to its devices: the shoe and the card reader."""

    def arm(self, target: PeekTarget) -> bool:
        """Let the reader peek once for ``target``; False when it could not be sent."""

    def disarm(self) -> bool:
        """Take back an arm that was not used; False when it could not be sent."""

    def self_test(self) -> bool:
        """Have the reader test itself; False when it could not be sent."""


class Need(enum.Enum):
    """What a table waits for next, so a dealer (or the bench) knows what to do."""

    SHUFFLE = "shuffle"  # shuffled and cut cards: a shuffler's shuffle or a manual one
    WAGERS = "wagers"  # wagering is open until "no more bets"
    CARD = "card"  # the next card out of the shoe
    FLOOR = "floor"  # play is stopped until a floorperson clears it
    INSPECTION = "inspection"  # the floorperson's reader inspection (551.2(e))
    PEEK = "peek"  # the reader is armed: the dealer inserts the hole card (551.8(e))
    DECISION = "decision"  # a player's decision on the hand in play (551.8(f))
    REVEAL = "reveal"  # decisions are done: "Dealer's Card" (551.8(h))
    DEVICE = "device"  # a device's answer (a peek, a self-test) is on its way
