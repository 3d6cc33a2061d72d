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
    (545.8(c), 551.6(d)). ``player`` names the person wagering, so a table can count
    one player's boxes (551.14) and who sat out a round (551.6(k)); without it the
    wager is the box's own player's: a new box's player is named by its number
    (``"3"``)."""

    seat: int
    bet: str
    amount: Decimal | int
    player: str | None = None

    name = "wager"

    def fields(self) -> dict[str, object]:
        out: dict[str, object] = {"seat": self.seat, "bet": self.bet, "amount": self.amount}
        if self.player is not None:
            out["player"] = self.player
        return out


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
    ``split``, ``surrender`` or ``rescue`` (551.8(f), 551.9, 551.11-551.13).
    ``amount``: a double down's wager, at most the hand's original wager (551.11(a));
    without it the player doubles for the full original wager."""

    box: int
    decision: str
    amount: Decimal | int | None = None

    name = "decision"

    def fields(self) -> dict[str, object]:
        out: dict[str, object] = {"box": self.box, "decision": self.decision}
        if self.amount is not None:
            out["amount"] = self.amount
        return out


@dataclass(frozen=True, slots=True)
class ExposedCard(Command):
    """Spanish 21: the last card drawn in error was exposed to the players (551.16(d)).
    It is offered as the next card: to the players in turn, then to the dealer; a
    player who refuses it (``RefuseCard``) gets no more cards this round, and a card
    nobody takes goes to the discard rack."""

    name = "exposed_card"


@dataclass(frozen=True, slots=True)
class RefuseCard(Command):
    """Spanish 21: the player of ``box``, in turn, refuses the exposed card drawn in error
    (551.16(d)): the box's hands take no more cards this round."""

    box: int

    name = "refuse_card"

    def fields(self) -> dict[str, object]:
        return {"box": self.box}


@dataclass(frozen=True, slots=True)
class DealerOverdraw(Command):
    """Spanish 21: the dealer, his hand complete on 17 or more, drew a card for himself
    by accident after the round: that card goes to the discard rack (551.16(e))."""

    name = "dealer_overdraw"


@dataclass(frozen=True, slots=True)
class MissedCard(Command):
    """Spanish 21: during the initial deal the dealer passed over a place and dealt on.
    ``box``: the box, or None for the dealer himself (551.16(f)); ``card``: 1 for the
    first card of the deal, 2 for the second. A box dealt no card is dead and its
    wagers returned; a box left with one card gets its second after every other
    player's second card when its player takes that option (``late``, 551.16(h))."""

    box: int | None
    card: int
    late: bool = True

    name = "missed_card"

    def fields(self) -> dict[str, object]:
        return {"box": self.box, "card": self.card, "late": self.late}


@dataclass(frozen=True, slots=True)
class CardNotDealt(Command):
    """Spanish 21: the dealer did not deal the card the player of ``box`` requested
    (551.16(i)). The player's option: ``late`` True, the card after every other
    player's additional cards, before the hole card is turned; False, the hand is dead
    and the original wager returned."""

    box: int
    late: bool

    name = "card_not_dealt"

    def fields(self) -> dict[str, object]:
        return {"box": self.box, "late": self.late}


@dataclass(frozen=True, slots=True)
class DealersCard(Command):
    """The dealer announces "Dealer's Card" and turns the hole card over (551.8(h))."""

    name = "dealers_card"


@dataclass(frozen=True, slots=True)
class NewDealer(Command):
    """A new dealer comes to the table and burns one card before dealing (551.8(c))."""

    name = "new_dealer"


@dataclass(frozen=True, slots=True)
class PermitWagering(Command):
    """A floorperson lets a person wager again who was barred for sitting out a round
    (551.6(k)(1)). ``player`` as in ``Wager``: a box's unnamed player is its number."""

    player: str

    name = "permit_wagering"

    def fields(self) -> dict[str, object]:
        return {"player": self.player}


@dataclass(frozen=True, slots=True)
class Reshuffle(Command):
    """A floorperson has the cards reshuffled after a round (551.5(a), (g))."""

    name = "reshuffle"


@dataclass(frozen=True, slots=True)
class CardsSpread(Command):
    """No gaming activity at an open Spanish 21 table: the dealer takes the cards out of
    the shoe and the discard rack and spreads them for inspection; they are shuffled
    (or go into the automated shuffler) before anything is dealt again (551.5(h))."""

    name = "cards_spread"


@dataclass(frozen=True, slots=True)
class Recut(Command):
    """A floorperson has the cards recut before any card of the shoe is dealt (551.5(f),
    545.5(e), 543.5(f)); the recut stack goes back in the shoe and its first card is
    burned (551.8(c), 545.5(f), 543.5(g))."""

    name = "recut"


@dataclass(frozen=True, slots=True)
class InspectReader(Command):
    """The floorperson inspects the card reader device (551.2(e)); the table has the
    reader test itself and records the inspection when the test passes."""

    name = "inspect_reader"


@dataclass(frozen=True, slots=True)
class Relinquish(Command):
    """Baccarat / Midibaccarat: ``what`` is given up, to be offered on: ``"shoe"``, the
    curator passes the dealing shoe (545.14); ``"player"`` / ``"banker"``, the player
    who turns over that hand's cards gives the right up (545.15(f), 543.14(f)).
    ``compulsory``: the dealer or a floorperson requires it (545.14(a)(2), 545.15(f))."""

    what: str
    compulsory: bool = False

    name = "relinquish"

    def fields(self) -> dict[str, object]:
        return {"what": self.what, "compulsory": self.compulsory}


@dataclass(frozen=True, slots=True)
class OfferAnswer(Command):
    """Baccarat / Midibaccarat: the answer of the seat offered ``what`` (``"cut"``,
    ``"shoe"``, ``"player"``, ``"banker"``): ``"accept"``, ``"decline"`` (also for an
    empty seat) or, for the shoe, ``"dealer"``: accepted, and the dealer calling the game
    designated as the curator (545.7(d)(1))."""

    what: str
    seat: int
    answer: str

    name = "offer_answer"

    def fields(self) -> dict[str, object]:
        return {"what": self.what, "seat": self.seat, "answer": self.answer}


@dataclass(frozen=True, slots=True)
class CallFloor(Command):
    """The dealer calls the floorperson to the table (for a dispute, a void, a device,
    ...). Only journaled: it changes nothing at the table and is taken in every state,
    a stopped table's included. ``reason``: what the dealer says it is for."""

    reason: str | None = None

    name = "call_floor"

    def fields(self) -> dict[str, object]:
        return {} if self.reason is None else {"reason": self.reason}


@dataclass(frozen=True, slots=True)
class AcknowledgeShuffleAlert(Command):
    """The floorperson has read the shuffle-quality monitor's alert on shoe ``shoe`` and
    acknowledges it and every earlier one (controller/boards/shufflealerts.py). Only
    journaled, as ``call_floor``: an alert never stops play, and its acknowledgement
    changes nothing at the table; the daemon refuses one for a shoe with no alert
    waiting before it reaches the table."""

    shoe: int

    name = "acknowledge_shuffle_alert"

    def fields(self) -> dict[str, object]:
        return {"shoe": self.shoe}


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
