"""The hole card (551.8(e), (h)).

The table learns it from the shoe, because it cross-checks the reader's answer against
it, and keeps it to itself until the dealer turns it over. A card that may become the
hole card is recorded sealed (``"card": null, "sealed": true`` and a ``seal``, see
``controller.table.seal``) and released by the line that places it face up, or by the
``reveal`` line for the hole card itself: that line's ``opened`` gives the card and the
seal's nonce.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from controller.rules.cards import CardError, is_stand_in
from controller.rules.cards import card as parse_card
from controller.rules.spanish21 import DEALER
from controller.table.core import Refusal
from controller.table.events import FloorClear
from controller.table.halts import HALTED, Halt
from controller.table.seal import Sealed
from controller.table.spanish21.machine import (
    DEALING,
    PEEK_DUE,
    PEEKING,
    PLAYING,
    SHUFFLE_DUE,
    WAGERING,
)
from controller.table.spanish21.part import Part
from drivers import messages as m

if TYPE_CHECKING:
    from controller.table.spanish21.table import Spanish21Table


class HoleCard(Part):
    """The seals of the cards that may be the hole card, the hole card's own seal once it
    is dealt, and a floorperson's entry of it after a restart."""

    def __init__(self, table: Spanish21Table) -> None:
        super().__init__(table)
        # Sealed cards not yet released, by the input (event or command) that brought
        # them; the hole card's seal once it is dealt; a floorperson's entry of it.
        self._seals: dict[int, tuple[object, Sealed]] = {}
        self.sealed: Sealed | None = None
        self.entered: Sealed | None = None

    @property
    def unread(self) -> bool:
        """The hole card is sealed and not known: it was dealt before a restart."""
        return self.sealed is not None and self.sealed.unknown

    # ------------------------------------------------------------------ records

    def card_fields(self, event: m.CardDrawn) -> dict[str, object] | None:
        """How a card the shoe read is recorded while it may become the hole card;
        None for a card recorded as it is."""
        if not self._may_be_hole_card(event):
            return None
        sealed = self._seal(event, event.token)
        return {"card": None, "sealed": True, "face_up": False, **sealed.fields()}

    def entry_fields(self, command: FloorClear, card: str) -> dict[str, object]:
        """How the floorperson's reading of an unread card is recorded: it may be the
        hole card."""
        try:
            token = parse_card(card)
        except CardError:
            token = str(card)
        return {"card": None, "sealed": True, **self._seal(command, token).fields()}

    def _seal(self, item: object, token: str) -> Sealed:
        """The seal of the card ``item`` brought: one per input, whichever line shows it."""
        held = self._seals.get(id(item))
        if held is None:
            held = (item, self._table.sealer.seal(token))  # the item is kept: its id stays its own
            self._seals[id(item)] = held
        return held[1]

    def opened(self, *events: m.CardDrawn) -> dict[str, object]:
        """The ``opened`` field releasing these cards' seals, as they are placed face up
        or leave the layout; empty for cards that were never sealed."""
        opened: list[dict[str, str]] = []
        for event in events:
            held = self._seals.pop(id(event), None)
            if held is not None:
                opened.append(self._open(held[1], event.token))
        return {"opened": opened} if opened else {}

    def _open(self, sealed: Sealed, token: str) -> dict[str, str]:
        # A stand-in for a card sealed before a restart is never shown as a card: the
        # sealer refuses to open it.
        return self._table.sealer.opening(sealed, token)

    def dealt(self, event: m.CardDrawn) -> dict[str, object]:
        """The fields of the hole card's ``dealt`` line (551.8(e)): its seal, never the card."""
        held = self._seals.pop(id(event), None)
        self.sealed = None if held is None else held[1]
        fields: dict[str, object] = {"card": None, "sealed": True, "face_up": False}
        if self.sealed is not None:
            fields.update(self.sealed.fields())
        return fields

    def reveal_opened(self, token: str) -> dict[str, object]:
        """The ``opened`` field of the hole card's reveal (551.8(h))."""
        hole = [s for s in (self.sealed, self.entered) if s is not None]
        self.forget()
        return {"opened": [self._open(s, token) for s in hole]} if hole else {}

    def forget(self) -> None:
        self.sealed = self.entered = None

    def clear(self) -> None:
        """The shoe is over: what is still sealed was refused, never used."""
        self._seals.clear()

    def _may_be_hole_card(self, event: m.CardDrawn) -> bool:
        """Whether this card, just out of the shoe, may end up as the hole card: it is
        then recorded sealed until it is placed face up or revealed (551.8(e))."""
        table = self._table
        if event.face_up or event.rank == "T":
            return False  # never used in the game (551.16(a), (b))
        if table.state == HALTED:
            # Held until a floorperson clears, so its place is not known yet; with no
            # shoe in play it is refused then, never used.
            return table._resume != SHUFFLE_DUE
        if table._in_play.early:
            return True  # its place is not known yet
        if table.state == DEALING:
            slot = table._round.order[table._round.slot]
            return slot.to == DEALER and not slot.face_up
        if table.state == PLAYING:
            return not table._round.card_expected(event)
        return table.state in (WAGERING, PEEK_DUE, PEEKING)  # drawn in error (551.16(c))

    # ------------------------------------------------------------------ a floorperson's entry

    def follow_entry(self, command: FloorClear, entered: m.Event | None) -> None:
        """After a clear: the floorperson's reading of an unread card took its place among
        the held events; it stays sealed until placed face up."""
        held = self._table._held
        if held and held[0] is not entered and id(command) in self._seals:
            self._seals[id(held[0])] = (held[0], self._seals.pop(id(command))[1])

    def entered_problem(self, halt: Halt, token: str) -> Refusal | None:
        hole = self.sealed
        if hole is None or hole.seal != halt.seal:
            return Refusal("551.8(e)", "no sealed hole card is waiting to be entered")
        if not self._table.sealer.matches(hole, token):
            why = (
                "the card entered does not match the hole card's seal: enter it as read "
                "from the layout, or clear without a card to void the round"
            )
            return Refusal("551.8(e)", why)
        return None

    def enter(self, command: FloorClear, card: str) -> None:
        """The floorperson's card, checked against the seal, completes a round interrupted
        by a restart: an unknown hole card is known from it."""
        hole = self.sealed
        if hole is None:
            raise RuntimeError("a hole card entered with no hole card dealt")
        # A replay's entry of a card the journal never released is a stand-in too.
        token = card if is_stand_in(card) else parse_card(card)
        entered = self._seals.pop(id(command), None)
        self.entered = None if entered is None else entered[1]
        if hole.unknown:
            table = self._table
            seen = table._in_play.seen
            replaced = table._round.dealer[1]
            if not is_stand_in(replaced):
                seen[replaced] -= 1  # a stand-in was never counted
            if not is_stand_in(token):
                seen[token] += 1
            table._round.dealer[1] = token
            # Known now, unless this is a replay of an entry never released.
            unknown = self.entered is not None and self.entered.unknown
            self.sealed = replace(hole, unknown=unknown)
