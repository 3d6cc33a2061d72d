"""The round on the layout: the initial deal in its order, the players' hands and their
decisions box by box, and the dealer's hand."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Final, cast

from controller.rules.amounts import AmountError, as_amount, chips
from controller.rules.spanish21 import (
    DEALER,
    DECISIONS,
    Hand,
    InitialCard,
    PlayError,
    Spanish21Rules,
    allowed_decisions,
    apply_decision,
    box_context,
    deal_card,
    dealer_needs_to_draw,
    hand_value,
    initial_deal_order,
    insurance_allowed,
    next_hand,
)
from controller.rules.spanish21 import Decision as DecisionName
from controller.table.core import Refusal
from controller.table.events import DealersCard, Decision, Need, NoMoreBets, Wager
from controller.table.spanish21.machine import DEALING, PLAYING
from controller.table.spanish21.part import Part
from drivers import messages as m

if TYPE_CHECKING:
    from controller.table.spanish21.table import Spanish21Table

_DECISION_SECTIONS: Final[Mapping[str, str]] = {
    "hit": "551.13(a)",
    "stand": "551.8(f)",
    "double": "551.11(a)",
    "split": "551.12(a)",
    "surrender": "551.9(a)",
    "rescue": "551.11(d)",
}

_CITED: Final = re.compile(r"\((\d{3}\.\d+(?:\([a-z0-9]+\))*)")  # "(551.9(a))"


class Round(Part):
    """The round being dealt: the deal's order and how far it is, each box's hands, the
    dealer's hand, whether the peek was made and the hole card turned, and the box the
    dealer is with."""

    def __init__(self, table: Spanish21Table) -> None:
        super().__init__(table)
        self.clear()

    def clear(self) -> None:
        self.in_round = False
        self.order: tuple[InitialCard, ...] = ()
        self.slot = 0
        self.hands: dict[int, tuple[Hand, ...]] = {}
        self.dealer: list[str] = []
        self.peeked = False
        self.revealed = False
        self.acting: int | None = None  # the box the dealer is with (rescue, 551.11(d))
        # The players' decisions have begun: a Blackjack behind a 2-9 is announced and
        # paid then (§ 635a.7(h)(1)(i)), so a void leaves it paid (ruling R10).
        self.decisions_started = False

    # ------------------------------------------------------------------ reads

    @property
    def hole_dealt(self) -> bool:
        return len(self.dealer) >= 2 and not self.revealed

    def ace_up(self) -> bool:
        return bool(self.dealer) and insurance_allowed(self.dealer[0])

    @property
    def turn(self) -> tuple[int, int] | None:
        boxes = [b for b in sorted(self.hands) if b not in self._table._dealer_errors.deferred]
        for box in [*boxes, *self._table._dealer_errors.deferred]:
            index = next_hand(self.hands[box])
            if index is not None:
                return box, index
        return None

    @property
    def rescuable(self) -> tuple[int, int] | None:
        if self._table.state != PLAYING or self.acting is None:
            return None
        hands = self.hands[self.acting]
        for index, hand in enumerate(hands):
            ctx = box_context(hands, index, up_card=self.dealer[0], peeked=self.peeked)
            if "rescue" in allowed_decisions(hand, ctx):
                return self.acting, index
        return None

    def decisions(self) -> dict[str, object] | None:
        """The box and hand in turn and what its player may decide (551.8(f)); a rescue
        of the box that just doubled is offered with them (551.11(d))."""
        if self._table.state != PLAYING or self.need() is not Need.DECISION:
            return None
        turn = self.turn
        assert turn is not None  # a decision is due
        box, index = turn
        hands = self.hands[box]
        ctx = box_context(hands, index, up_card=self.dealer[0], peeked=self.peeked)
        out: dict[str, object] = {
            "box": box,
            "hand": index + 1,
            "allowed": sorted(allowed_decisions(hands[index], ctx)),
        }
        rescuable = self.rescuable
        if rescuable is not None:
            out["rescue"] = {"box": rescuable[0], "hand": rescuable[1] + 1}
        return out

    def need(self) -> Need:
        """What a round in play waits for: a card, a decision, or the dealer's card."""
        turn = self.turn
        if turn is None:
            return Need.REVEAL
        box, index = turn
        return Need.CARD if self.hands[box][index].needs_card else Need.DECISION

    def every_hand(self) -> list[Hand]:
        return [h for hands in self.hands.values() for h in hands]

    # ------------------------------------------------------------------ the initial deal

    def start(self, command: NoMoreBets) -> None:
        self.in_round = True
        self.order = initial_deal_order(self._table._wagers.basic)
        self.slot = 0
        self._table._record(
            {"type": "no_more_bets", "round": self._table.round, "section": "551.6(d)"}
        )

    def order_deal(self, command: Wager) -> None:
        self.order = initial_deal_order(self._table._wagers.basic)

    def call_off_deal(self, command: Wager) -> None:
        """The round's last wager is withdrawn before its first card: no round to deal
        (551.8(d)(1)), and wagering is open again."""
        table = self._table
        self.in_round = False
        self.order = ()
        table._record({"type": "deal_called_off", "round": table.round, "section": "551.8(d)(1)"})
        table._wagers.open_wagering(command)

    def before_first_card(self, item: object) -> bool:
        return self._table.state == DEALING and self.slot == 0

    def is_hole_card(self, event: m.CardDrawn) -> bool:
        return self.slot == len(self.order) - 1

    def deal_initial(self, event: m.CardDrawn) -> None:
        table = self._table
        slot = self.order[self.slot]
        self.slot += 1
        table._missed_cards.initial.append(event.token)
        self.place_initial(slot, event.token)
        entry: dict[str, object] = {"type": "dealt", "round": table.round}
        if slot.to == DEALER:
            entry["to"] = DEALER
        else:
            entry.update(to=slot.to, hand=1)
        if slot.face_up:
            entry.update(card=event.token, face_up=True, **table._hole_card.opened(event))
        else:
            entry.update(table._hole_card.dealt(event))  # 551.8(e): the hole card
        table._record(entry)

    def place_initial(self, slot: InitialCard, token: str) -> None:
        if slot.to == DEALER:
            self.dealer.append(token)
        else:
            box = slot.to
            held = self.hands[box][0].cards if box in self.hands else ()
            dead = box in self._table._missed_cards.dead  # 551.16(h)
            self.hands[box] = (Hand((*held, token), self._table._wagers.basic[box], dead=dead),)

    # ------------------------------------------------------------------ decisions

    def start_decisions(self, item: object) -> None:
        self.acting = None
        self.decisions_started = True
        for box, hands in sorted(self.hands.items()):
            if hands[0].blackjack:
                self._table._prompt(f"BOX {box}: BLACKJACK", "635a.7(h)(1)")
        self.prompt_turn()

    def prompt_turn(self) -> None:
        turn = self.turn
        if turn is None:
            self._table._prompt("DEALER'S CARD", "551.8(h)")
            return
        box, index = turn
        hands = self.hands[box]
        if not hands[index].needs_card:
            name = f"BOX {box}" if len(hands) == 1 else f"BOX {box} HAND {index + 1}"
            self._table._prompt(f"{name}: {hands[index].total}", "551.8(f)")

    def decision_problem(self, command: Decision) -> Refusal | None:
        if self._table.state != PLAYING:
            return None  # refused by the machine, with the state's reason
        if command.decision not in DECISIONS:
            why = f"{command.decision!r} is not one of {', '.join(DECISIONS)}"
            return Refusal("551.8(f)", why)
        if command.amount is not None:
            problem = _double_amount_problem(command, self._table.rules)
            if problem is not None:
                return problem
        refused = any(h.refused for h in self.hands.get(command.box, ()))
        if refused and command.decision != "rescue":
            why = f"box {command.box} refused the exposed card: no more cards this round"
            return Refusal("551.16(d)", why)
        try:
            self._decided(command)
        except PlayError as exc:
            cited = _CITED.search(str(exc))
            section = cited.group(1) if cited else _DECISION_SECTIONS[command.decision]
            return Refusal(section, str(exc))
        return None

    def _decided(self, command: Decision) -> tuple[int, tuple[Hand, ...]]:
        """The hand a decision is for and the box's hands after it; PlayError if the
        procedure does not allow it now."""
        box, decision = command.box, cast(DecisionName, command.decision)
        hands = self.hands.get(box)
        if hands is None:
            raise PlayError(f"box {box} holds no hand this round")
        index = self._rescued(box, hands) if decision == "rescue" else self._in_turn(box, hands)
        # 551.11(a): a double down for at most the original wager, by default all of it.
        double = None if command.amount is None else as_amount(command.amount)
        new = apply_decision(
            hands,
            index,
            decision,
            up_card=self.dealer[0],
            peeked=self.peeked,
            double_amount=double,
        )
        return index, new

    def _rescued(self, box: int, hands: tuple[Hand, ...]) -> int:
        """The doubled hand a rescue takes back (551.11(d))."""
        if box != self.acting:
            raise PlayError("the dealer has moved on from this box (551.11(d))")
        doubled = [i for i, h in enumerate(hands) if h.doubled and not h.needs_card]
        return doubled[-1] if doubled else 0

    def _in_turn(self, box: int, hands: tuple[Hand, ...]) -> int:
        """The box's hand in play, box by box from the left (551.8(f))."""
        turn = self.turn
        open_hand = next_hand(hands)
        if open_hand is None:
            return len(hands) - 1  # the box is complete: the rules say why
        if turn is None or turn[0] != box:
            in_turn = "no box" if turn is None else f"box {turn[0]}"
            raise PlayError(f"{in_turn} is in turn: box by box from the left (551.8(f))")
        return open_hand

    def apply_decision(self, command: Decision) -> None:
        index, self.hands[command.box] = self._decided(command)
        self.acting = command.box
        entry: dict[str, object] = {
            "type": "decision",
            "round": self._table.round,
            "box": command.box,
            "hand": index + 1,
            "decision": command.decision,
            "section": _DECISION_SECTIONS[command.decision],
        }
        if command.decision == "double":
            entry["amount"] = self.hands[command.box][index].double_wager
        self._table._record(entry)
        self.prompt_turn()

    def card_expected(self, event: m.CardDrawn) -> bool:
        return self._table._need() is Need.CARD

    def deal_to_player(self, event: m.CardDrawn) -> None:
        table = self._table
        turn = self.turn
        if turn is None:
            raise RuntimeError("a card was routed to a round with no hand waiting")
        box, index = turn
        self.hands[box] = deal_card(self.hands[box], event.token)
        self.acting = box
        table._record(
            {
                "type": "dealt",
                "round": table.round,
                "to": box,
                "hand": index + 1,
                "card": event.token,
                "face_up": True,
                "section": "551.8(g)",
                **table._hole_card.opened(event),
            }
        )
        self.prompt_turn()

    def all_decided(self, command: DealersCard) -> bool:
        return self.turn is None

    def dealer_stands(self, command: DealersCard) -> bool:
        return not dealer_needs_to_draw(self.dealer, self.every_hand())

    # ------------------------------------------------------------------ the dealer

    def reveal(self, item: object) -> None:
        """551.8(h): "Dealer's Card", and the hole card is turned face up."""
        table = self._table
        self.revealed = True
        self.acting = None
        table._record(
            {
                "type": "reveal",
                "round": table.round,
                "card": self.dealer[1],
                "section": "551.8(h)",
                **table._hole_card.reveal_opened(self.dealer[1]),
            }
        )
        table._prompt(f"DEALER {hand_value(self.dealer)[0]}", "551.8(h)")

    def dealer_done_with(self, event: m.CardDrawn) -> bool:
        return not dealer_needs_to_draw([*self.dealer, event.token], self.every_hand())

    def deal_to_dealer(self, event: m.CardDrawn) -> None:
        table = self._table
        self.dealer.append(event.token)
        table._record(
            {
                "type": "dealt",
                "round": table.round,
                "to": DEALER,
                "card": event.token,
                "face_up": True,
                "section": "551.13(b)",
                **table._hole_card.opened(event),
            }
        )
        table._prompt(f"DEALER {hand_value(self.dealer)[0]}", "551.8(h)")


def _double_amount_problem(command: Decision, rules: Spanish21Rules) -> Refusal | None:
    """An amount goes only with a double down, and is a wager of the table's chips
    (551.11(a), ruling R16); the rules hold it to the original wager."""
    if command.decision != "double":
        return Refusal("551.11(a)", "an amount goes only with a double down")
    try:
        chips(command.amount, rules.chip_unit, rules.max_wager)
    except AmountError as exc:
        return Refusal("551.11(a)", f"double down: {exc}")
    return None
