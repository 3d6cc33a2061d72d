"""Places the dealer passed over in the initial deal (551.16(f), (h)), as the dealer
declares them: the deal is corrected and goes on, or the round is void."""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING

from controller.rules.spanish21 import (
    DEALER,
    Hand,
    InitialCard,
    Place,
    dead_boxes,
    initial_deal_order,
)
from controller.table.core import Refusal
from controller.table.events import MissedCard
from controller.table.halts import Halt
from controller.table.spanish21.machine import DEALING
from controller.table.spanish21.part import Part
from controller.table.spanish21.round_end import Void

if TYPE_CHECKING:
    from controller.table.spanish21.table import Spanish21Table


def _section(command: MissedCard) -> str:
    return "551.16(f)" if command.box is None else "551.16(h)"


def _place(command: MissedCard) -> Place:
    return (DEALER if command.box is None else command.box, command.card)


class MissedCards(Part):
    """The initial deal's cards out of the shoe, the places missed, the boxes taking a
    later second card, and the boxes dealt out of the round."""

    def __init__(self, table: Spanish21Table) -> None:
        super().__init__(table)
        self.round_over()

    def round_over(self) -> None:
        self.initial: list[str] = []  # the initial deal's cards out of the shoe, in order
        self._passed_over: set[Place] = set()  # places missed (551.16(f), (h))
        self._second_later: set[int] = set()  # 551.16(h): one-card boxes taking the option
        self.dead: frozenset[int] = frozenset()  # 551.16(h): boxes dealt out of the round

    def declare(self, command: MissedCard) -> None:
        """The dealer declares a missed place: the deal is corrected, unless the dealer
        dealt his own second card already."""
        table = self._table
        problem = self._problem(command)
        if problem is not None:
            table._refuse(command, problem)
        elif table.state == DEALING and self._too_late(command):
            self._declared_too_late(command)
        else:
            table._fire("missed_card", command)

    def _problem(self, command: MissedCard) -> Refusal | None:
        if self._table.state != DEALING:
            return None
        section = _section(command)
        if isinstance(command.card, bool) or command.card not in (1, 2):
            why = f"card {command.card!r}: 1 for the first card of the deal, 2 for the second"
            return Refusal(section, why)
        if command.box is not None and (
            isinstance(command.box, bool) or command.box not in self._table._wagers.basic
        ):
            return Refusal(section, f"box {command.box} holds no wager this round")
        place = _place(command)
        if place in self._passed_over:
            return Refusal(section, "that card is declared missed already")
        return self._not_passed(place, section)

    def _not_passed(self, place: Place, section: str) -> Refusal | None:
        """Why the deal has not passed over ``place``: it is not yet that card's turn."""
        order = self._table._round.order
        at = next(i for i, s in enumerate(order) if (s.to, s.nth) == place)
        drawn = len(self.initial)
        if place == (DEALER, 2):
            if at != drawn:
                why = "the dealer's second card is the last of the deal (551.8(d)(4)): not due yet"
                return Refusal(section, why)
        elif at >= drawn:
            why = "the next card is that card: it is dealt now, not missed"
            return Refusal(section, why if at == drawn else "the deal has not reached that card")
        return None

    def _corrected(
        self, command: MissedCard
    ) -> tuple[tuple[InitialCard, ...], set[Place], set[int]]:
        """The deal as it now goes on: the order, the places missed, the boxes taking a
        later second card."""
        passed = {*self._passed_over, _place(command)}
        later = set(self._second_later)
        if command.box is not None and command.late:
            later.add(command.box)
        basic = self._table._wagers.basic
        order = initial_deal_order(basic, passed_over=passed, second_card_later=later)
        return order, passed, later

    def _too_late(self, command: MissedCard) -> bool:
        """Whether the corrected deal would put the dealer's hole card among the cards
        already out of the shoe, each recorded face up as a player's or the up card."""
        return len(self.initial) >= len(self._corrected(command)[0])

    def _declared(self, command: MissedCard) -> dict[str, object]:
        """The irregularity line's fields for the missed place as the dealer declares it."""
        return {
            "type": "irregularity",
            "round": self._table.round,
            "box": DEALER if command.box is None else command.box,
            "missed": command.card,
            "card": None,
            "section": _section(command),
        }

    def _declared_too_late(self, command: MissedCard) -> None:
        """Reading (proposed ruling): the dealer dealt his own second card before the
        miss was declared, so the table took the hole card for a face-up card and
        recorded it. The deal cannot be put right without that record showing the hole
        card: play stops, and the floorperson's clear voids the round."""
        table = self._table
        section = _section(command)
        table._record(
            {
                **self._declared(command),
                "reason": "missed card declared after the dealer dealt his own second card: "
                "the deal cannot be corrected; the round is void",
            }
        )
        why = "the missed card was declared after the dealer's own second card"
        table._round_end.void_on_clear = Void(why, section, reshuffle=False)
        table._stop(Halt("missed_card_late", None, why, section))

    def missed_card(self, command: MissedCard) -> None:
        """The cards out of the shoe are placed again as the corrected deal has them (each
        one face up); the deal goes on in that order."""
        table = self._table
        round_ = table._round
        section = _section(command)
        drawn = len(self.initial)
        before = [s.to for s in round_.order[:drawn]]
        self._redeal(command)
        moved = [
            {"card": token, "from": old, "to": new}
            for token, old, new in zip(
                self.initial, before, [s.to for s in round_.order], strict=False
            )
            if old != new
        ]
        entry: dict[str, object] = {
            **self._declared(command),
            "reason": self._reason(command),
            "reassigned": moved,
        }
        if command.box is not None:
            entry["late"] = command.late
        table._record(entry)
        if all(b in self.dead for b in table._wagers.basic):
            table._round_end.void_due = Void(
                "the dealer dealt no live hand", section, reshuffle=False
            )
            return
        nxt = round_.order[drawn]
        to = "DEALER" if nxt.to == DEALER else f"BOX {nxt.to}"
        table._prompt(f"MISSED CARD: NEXT CARD TO {to}", section)

    def _redeal(self, command: MissedCard) -> None:
        """The corrected deal, and the cards out of the shoe placed again by it; a box it
        deals out of the round is dead, its Match-the-Dealer wager returned with it."""
        round_, wagers = self._table._round, self._table._wagers
        was_dead = self.dead
        round_.order, self._passed_over, self._second_later = self._corrected(command)
        self.dead = dead_boxes(wagers.basic, self._passed_over, self._second_later)
        round_.hands, round_.dealer = {}, []
        for slot, token in zip(round_.order[: len(self.initial)], self.initial, strict=True):
            round_.place_initial(slot, token)
        for box in self.dead - was_dead:
            if box not in round_.hands:
                round_.hands[box] = (Hand((), wagers.basic[box], dead=True),)
            if box in wagers.match:
                wagers.match_net[box] = Decimal(0)  # returned with the hand

    def _reason(self, command: MissedCard) -> str:
        if command.box is None:
            if command.card == 2:
                return "the dealer missed his second card: it is the next card"
            return (
                "the dealer missed his first card: the players' first two cards are dealt, "
                "then his own"
            )
        box = command.box
        if all((box, nth) in self._passed_over for nth in (1, 2)):
            return (
                f"box {box} was dealt no card: the hand is dead, its wagers returned; the "
                "player is dealt in on the next round"
            )
        if box in self.dead:
            return (
                f"box {box} was dealt one card and its player declines a later second card: "
                "the hand is dead, its wagers returned"
            )
        return (
            f"box {box} was dealt one card: at its player's option the second comes after "
            "every other player's second card"
        )
