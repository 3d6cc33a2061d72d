"""The dealer's errors the shoe cannot see, declared at the console and handled in place
(551.16(c)-(f), (h), (i)): an exposed card offered and refused, the dealer's extra card
on 17, places missed in the initial deal (``missed_cards``), a requested card not dealt.

The shoe reads every card and the table places each by the procedure, so a card drawn
when none is due is held as the next card on its own (551.16(c)), and what the shoe
cannot see is declared.
"""

from __future__ import annotations

from collections import deque
from dataclasses import replace
from typing import TYPE_CHECKING

from controller.rules.spanish21 import dealer_blackjack, dealer_needs_to_draw, hand_value, next_hand
from controller.table.core import Refusal
from controller.table.events import CardNotDealt, DealerOverdraw, ExposedCard, RefuseCard
from controller.table.spanish21.machine import PEEK_DUE, PEEKING, PLAYING, WAGERING
from controller.table.spanish21.part import Part
from drivers import messages as m

if TYPE_CHECKING:
    from controller.table.spanish21.table import Spanish21Table


class DealerErrors(Part):
    """The exposed cards drawn in error (551.16(d)), the last round's dealer hand and the
    cards held as it ended (551.16(e)), and the boxes whose requested card comes after
    the others' (551.16(i))."""

    def __init__(self, table: Spanish21Table) -> None:
        super().__init__(table)
        self.deferred: list[int] = []  # 551.16(i): boxes whose card comes after the others'
        self.new_shoe()

    def new_shoe(self) -> None:
        self._exposed: list[m.CardDrawn] = []  # held cards the players saw (551.16(d))
        self._last_dealer: list[str] = []  # the last round's dealer hand (551.16(e))
        self._held_at_end: list[m.CardDrawn] = []  # held as the last round ended (551.16(e))

    def _is_exposed(self, event: m.CardDrawn) -> bool:
        return any(e is event for e in self._exposed)

    # ------------------------------------------------------------------ 551.16(d)

    def exposed_problem(self, command: ExposedCard) -> Refusal | None:
        early = self._table._in_play.early
        if self._table.state not in (PEEK_DUE, PEEKING, PLAYING):
            return None  # refused by the machine, with the state's reason
        if not early:
            return Refusal("551.16(d)", "no card drawn in error is waiting to be used")
        if self._is_exposed(early[-1]):
            return Refusal("551.16(d)", "the card drawn in error is declared exposed already")
        return None

    def expose(self, command: ExposedCard) -> None:
        """The players saw the last card drawn in error: it is no secret now. It is dealt
        as the next card: to the players in turn, who may refuse it, then the dealer."""
        table = self._table
        event = table._in_play.early[-1]
        self._exposed.append(event)
        table._record(
            {
                "type": "irregularity",
                "round": table.round,
                "card": event.token,
                "section": "551.16(d)",
                "reason": "card drawn in error and exposed: offered as the next card, to "
                "the players in turn, then the dealer",
                **table._hole_card.opened(event),
            }
        )
        table._prompt(f"EXPOSED CARD {event.token}: OFFER IT", "551.16(d)")
        if table.state == PLAYING:
            table._round.prompt_turn()

    def refuse_card_problem(self, command: RefuseCard) -> Refusal | None:
        early = self._table._in_play.early
        if self._table.state != PLAYING:
            return None
        if not (early and self._is_exposed(early[0])):
            return Refusal("551.16(d)", "no exposed card is being offered")
        turn = self._table.turn
        if turn is None or turn[0] != command.box:
            to = "the dealer" if turn is None else f"box {turn[0]}"
            return Refusal("551.16(d)", f"the exposed card is offered to {to}, in turn")
        return None

    def refuse_card(self, command: RefuseCard) -> None:
        """The player refuses the exposed card: none of the box's hands takes another card
        this round. The card is offered on, to the next player, then the dealer."""
        table = self._table
        box = command.box
        hands = table._round.hands
        hands[box] = tuple(
            h if h.finished else replace(h, refused=True, drawing=False) for h in hands[box]
        )
        table._record(
            {
                "type": "irregularity",
                "round": table.round,
                "box": box,
                "card": table._in_play.early[0].token,
                "section": "551.16(d)",
                "reason": "the player refused the exposed card: no more cards this round",
            }
        )
        table._round.prompt_turn()

    def discard_exposed(self) -> None:
        """As a round ends: an exposed card drawn in error that no player took and the
        dealer could not use goes to the discard rack (551.16(d))."""
        table = self._table
        in_play = table._in_play
        for event in [e for e in in_play.early if self._is_exposed(e)]:
            in_play.discard(event.token)
            reason = "exposed card drawn in error, refused by the players and not used by the "
            table._record(
                {
                    "type": "irregularity",
                    "round": table.round,
                    "card": event.token,
                    "to": "discard_rack",
                    "section": "551.16(d)",
                    "reason": reason + "dealer: to the discard rack",
                }
            )
        in_play.early = deque(e for e in in_play.early if not self._is_exposed(e))
        self._exposed = []

    # ------------------------------------------------------------------ 551.16(e)

    def _dealer_complete(self) -> bool:
        """Whether the dealer's hand was played out: a Blackjack, or drawn until no
        result depended on it (551.13(b), (c))."""
        round_ = self._table._round
        if len(round_.dealer) < 2 or not round_.revealed:
            return False
        if dealer_blackjack(round_.dealer):
            return True
        hands = round_.every_hand()
        return all(h.finished for h in hands) and not dealer_needs_to_draw(round_.dealer, hands)

    def round_over(self) -> None:
        """The round's end, with its cards on the layout still: the dealer's hand as it
        ended, and the cards held then (551.16(e))."""
        table = self._table
        self._last_dealer = list(table._round.dealer) if self._dealer_complete() else []
        self._held_at_end = list(table._in_play.early)
        self.deferred = []

    def overdraw_problem(self, command: DealerOverdraw) -> Refusal | None:
        early = self._table._in_play.early
        if self._table.state != WAGERING:
            return None
        if not early or any(e is early[-1] for e in self._held_at_end):
            return Refusal("551.16(e)", "no card has left the shoe since the round ended")
        if not self._last_dealer:
            return Refusal("551.16(e)", "the last round ended before the dealer's hand did")
        total = hand_value(self._last_dealer)[0]
        if total < 17:
            why = (
                f"the dealer stood on {total}, not 17 or more: the card is used as the "
                "next card (551.16(c))"
            )
            return Refusal("551.16(e)", why)
        return None

    def discard_overdraw(self, command: DealerOverdraw) -> None:
        table = self._table
        event = table._in_play.early.pop()
        table._in_play.discard(event.token)
        total = hand_value(self._last_dealer)[0]
        table._record(
            {
                "type": "irregularity",
                "round": table.rounds_completed,
                "card": event.token,
                "to": "discard_rack",
                "section": "551.16(e)",
                "reason": f"the dealer had {total} and drew a card for himself: to the "
                "discard rack",
                **table._hole_card.opened(event),
            }
        )
        table._prompt("DEALER'S EXTRA CARD TO THE DISCARD RACK", "551.16(e)")
        table._wagers.open_wagering(command)

    # ------------------------------------------------------------------ 551.16(i)

    def card_not_dealt_problem(self, command: CardNotDealt) -> Refusal | None:
        table = self._table
        if table.state != PLAYING:
            return None
        if not self._waiting(command.box):
            why = f"box {command.box} is not waiting for a card its player requested"
            return Refusal("551.16(i)", why)
        others = (h for b, h in table._round.hands.items() if b != command.box)
        if command.late and not any(next_hand(h) is not None for h in others):
            why = "every other player has his additional cards: the card is dealt now"
            return Refusal("551.16(i)", why)
        return None

    def _waiting(self, box: int) -> bool:
        """Whether the hand in turn is ``box``'s, its player waiting for a card he
        requested."""
        turn = self._table.turn
        hands = self._table._round.hands.get(box, ())
        return (
            turn is not None
            and turn[0] == box
            and hands[turn[1]].drawing
            and len(hands[turn[1]].cards) >= 2
        )

    def card_not_dealt(self, command: CardNotDealt) -> None:
        table = self._table
        box = command.box
        turn = table.turn
        if turn is None:
            raise RuntimeError("a card not dealt with no hand in turn")
        index = turn[1]
        hands = table._round.hands[box]
        if command.late:
            self.deferred.append(box)
            reason = (
                "the requested card was not dealt: it comes after every other player's "
                "additional cards, before the hole card is turned"
            )
        else:
            dead = replace(hands[index], dead=True, drawing=False)
            table._round.hands[box] = (*hands[:index], dead, *hands[index + 1 :])
            reason = "the requested card was not dealt: the hand is dead, its wager returned"
        table._record(
            {
                "type": "irregularity",
                "round": table.round,
                "box": box,
                "hand": index + 1,
                "card": None,
                "late": command.late,
                "section": "551.16(i)",
                "reason": reason,
            }
        )
        table._round.prompt_turn()
