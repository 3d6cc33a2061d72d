"""The shoe in play: shuffled, burned and cut cards, the cards found in it that are never
used, the cards drawn in error, and the shoe's end."""

from __future__ import annotations

from collections import Counter, deque
from typing import TYPE_CHECKING, Final

from controller.rules.cards import is_stand_in
from controller.table.core import Refusal, event_name
from controller.table.events import CardsSpread, ManualShuffle, Need, NewDealer, Recut, Reshuffle
from controller.table.halts import Halt
from controller.table.spanish21.machine import (
    BURN_DUE,
    IN_PLAY,
    RACK_BURN_DUE,
    RACK_SHUFFLE_DUE,
    SHUFFLE_DUE,
)
from controller.table.spanish21.part import Part
from controller.table.spanish21.round_end import Void
from drivers import messages as m

if TYPE_CHECKING:
    from controller.table.spanish21.table import Spanish21Table

CARDS_PER_DECK: Final = 48  # 551.3(a): the tens removed


class ShoeInPlay(Part):
    """The cards of the shoe in play: seen, burned, discarded and removed; the face-up
    cards and tens found in it (551.16(a), (b)); its cutting card (551.8(j)); the cards
    drawn in error, held as the next cards (551.16(c)). It counts the shoes, and the
    rounds of the shoe in play."""

    def __init__(self, table: Spanish21Table) -> None:
        super().__init__(table)
        self.shoe_number = 0
        self.shoes_completed = 0
        self.rounds_completed = 0  # in the shoe in play
        self.shuffler_attached = False
        self.burn_reason = "new batch"
        self._new_shoe()

    def _new_shoe(self) -> None:
        self.seen: Counter[str] = Counter()
        self.burned: list[str] = []
        self.discarded: list[str] = []  # found face up; drawn in error and never used
        self.removed: list[str] = []  # tens, torn up by the floorperson (551.16(b))
        self.face_ups = 0
        self.tens = 0
        self.decks_removed = False
        self.cut_seen = False
        self.early: deque[m.CardDrawn] = deque()  # 551.16(c): the next cards to use
        self.empty = False  # the shoe reported it is empty
        # Cards held while play was stopped, discarded as the decks went.
        self.discarded_held: list[m.CardDrawn] = []

    # ------------------------------------------------------------------ the shoe's events

    def on_card(self, event: m.CardDrawn) -> None:
        table = self._table
        decks = table.rules.decks
        if table.state not in IN_PLAY:
            table._fire("card", event)  # refused: no shoe in play
        elif event.face_up:
            self._found_face_up(event)
        elif event.rank == "T":
            self._found_ten(event)
        elif is_stand_in(event.token):
            table._fire("card", event)  # no card of the shoe: a restart's stand-in, never counted
        elif self.seen[event.token] >= decks:
            # A card the decks cannot hold: they are not the decks inspected (551.4).
            detail = f"more {event.token} than {decks} decks hold"
            table._stop(Halt("foreign_card", event.device, detail, "551.3(a)", ends_shoe=True))
        else:
            self.seen[event.token] += 1
            table._fire("card", event)

    def ran_empty(self, event: m.ShoeEmpty) -> None:
        self.empty = True

    def unreadable(self, event: m.UnreadableCard) -> None:
        table = self._table
        if table.state in IN_PLAY:
            detail = "a card left the shoe unread"
            table._stop(Halt("unreadable_card", event.device, detail, None, needs_card=True))
        else:
            table._refuse(event, table._refusal("card", event))

    def loaded(self, event: m.CardsLoaded) -> None:
        # The shuffled cards (the discard rack's, 551.16(g)) go into the shoe.
        if self._table.state not in (SHUFFLE_DUE, BURN_DUE, RACK_SHUFFLE_DUE, RACK_BURN_DUE):
            detail = f"{event.count} cards loaded into the shoe during play"
            self._table._stop(Halt("cards_loaded", event.device, detail, "551.8(j)", True))

    def shuffle_completed(self, event: m.ShuffleCompleted) -> None:
        table = self._table
        if table.state == RACK_SHUFFLE_DUE:
            table._rack.shuffle_completed(event)
            return
        expected = table.rules.decks * CARDS_PER_DECK
        if event.card_count != expected:
            reason = (
                f"the shuffler counted {event.card_count} cards; "
                f"{table.rules.decks} Spanish decks are {expected}"
            )
            table._refuse(event, Refusal("551.3(a)", reason))
        else:
            table._fire("shuffled", event)

    def shuffle_failed(self, event: m.Event) -> None:
        if self._table.state in (SHUFFLE_DUE, RACK_SHUFFLE_DUE):
            # 551.16(j): a jam, a stop or an incomplete cycle: the cards are reshuffled.
            self._table._record({"type": "shuffle_failed", "event": event_name(event)})
            self._table._prompt("SHUFFLE FAILED: SHUFFLE AGAIN", "551.16(j)")

    def manual_shuffle_problem(self, command: ManualShuffle) -> Refusal | None:
        if self.shuffler_attached:
            why = "an automated shuffler is attached: it is removed before any other shuffle"
            return Refusal("551.16(k)", why)
        if self._table.rules.continuous_shuffler:
            why = "this table's cards are shuffled by its continuous shuffling device"
            return Refusal("551.15", why)
        return None

    def pending(self) -> bool:
        """551.16(c): a card drawn in error is used as the next card once one is due."""
        table = self._table
        if self.early and table._need() is Need.CARD:
            event = self.early.popleft()
            table._guard(lambda e: table._fire("card", e), event)
            return True
        return False

    # ------------------------------------------------------------------ shuffle, burn, cut

    def shuffled(self, item: m.ShuffleCompleted | ManualShuffle) -> None:
        table = self._table
        self.shoe_number += 1
        entry: dict[str, object] = {"type": "shuffled", "shoe": self.shoe_number}
        if isinstance(item, m.ShuffleCompleted):
            entry.update(how="shuffler", cards=item.card_count)
        else:
            entry["how"] = "manual"
        if table.rules.continuous_shuffler:
            entry["section"] = "551.15"
        table._record(entry)
        table._wagers.reshuffled()
        self.burn_reason = "new batch"
        if not table.rules.continuous_shuffler:
            table._prompt("BURN CARD", "551.8(c)")

    def new_dealer(self, command: NewDealer) -> None:
        self.burn_reason = "new dealer"
        self._table._prompt("NEW DEALER: BURN CARD", "551.8(c)")

    def burn(self, event: m.CardDrawn) -> None:
        table = self._table
        self.burned.append(event.token)
        table._rack.cards.append(event.token)
        rack = table.state == RACK_BURN_DUE  # 551.16(g): drawn face down, to the discard rack
        table._record(
            {
                "type": "burn",
                "card": event.token,
                "reason": "discard rack reshuffled" if rack else self.burn_reason,
                "section": "551.16(g)" if rack else "551.8(c)",
                **table._hole_card.opened(event),
            }
        )

    def cut(self, event: m.CutCardSeen) -> None:
        first = not self.cut_seen
        self.cut_seen = True
        self._table._record(
            {
                "type": "cutting_card",
                "round": self._table.round,
                "first": first,
                "section": "551.8(j)",
            }
        )
        if first:
            self._table._prompt("CUTTING CARD: LAST ROUND", "551.8(j)")

    def continuous(self, item: object) -> bool:
        return self._table.rules.continuous_shuffler

    def recut(self, command: Recut) -> None:
        """551.5(f): the cards are cut again by the next player entitled to cut; the
        recut stack goes back in the shoe as a batch, and its first card is burned."""
        self._table._record({"type": "recut", "shoe": self.shoe_number, "section": "551.5(f)"})
        self.burn_reason = "recut"
        self._table._prompt("RECUT: BURN CARD", "551.5(f)")

    def nothing_dealt(self, command: Recut) -> bool:
        """No card of the shoe has been dealt: only the burn card has left it (551.8(c))."""
        return self.rounds_completed == 0 and not self._table._round.in_round and not self.early

    def no_gaming_activity(self, command: CardsSpread) -> bool:
        return not self._table._wagers.basic and not self.early

    def round_played(self, command: Reshuffle) -> bool:
        return self.rounds_completed > 0

    # ------------------------------------------------------------------ cards never used

    def _found_face_up(self, event: m.CardDrawn) -> None:
        """551.16(a): not used, to the discard rack; a second in the shoe voids the round
        and the cards are reshuffled (ruling proposed: counted per shoe)."""
        self.face_ups += 1
        self.discard(event.token)
        second = self.face_ups > 1
        reason = "card found face up in the shoe: not used, to the discard rack"
        if second:
            reason += "; the second in this shoe: the round is void and the cards reshuffled"
        self._table._record(
            {"type": "irregularity", "card": event.token, "section": "551.16(a)", "reason": reason}
        )
        if second:
            self._table.void(Void("a second card found face up", "551.16(a)", reshuffle=True))
        else:
            self._table._prompt("FACE UP CARD TO THE DISCARD", "551.16(a)")

    def _found_ten(self, event: m.CardDrawn) -> None:
        """551.16(b): a 10 is not used; a floorperson removes it and tears it in half. A
        second in the shoe voids the round and the decks are removed from play."""
        self.tens += 1
        self.removed.append(event.token)
        second = self.tens > 1
        self.decks_removed = second
        reason = "a 10 in a Spanish 21 shoe: not used, removed and torn in half by a floorperson"
        if second:
            reason += "; the second in this shoe: the round is void and the decks removed"
        self._table._record(
            {"type": "irregularity", "card": event.token, "section": "551.16(b)", "reason": reason}
        )
        self._table._stop(Halt("ten_found", event.device, reason, "551.16(b)", ends_shoe=second))

    def drawn_in_error(self, event: m.CardDrawn) -> None:
        self.early.append(event)
        self._table._record(
            {
                "type": "irregularity",
                "card": None,
                "sealed": True,
                "section": "551.16(c)",
                "reason": f"card drawn in error: used as the next card ({len(self.early)} held)",
            }
        )

    def discard(self, token: str) -> None:
        self.discarded.append(token)
        self._table._rack.cards.append(token)

    # ------------------------------------------------------------------ the shoe's end

    def is_last_round(self, item: object) -> bool:
        # 551.15: a continuous shuffling device takes the cards back after every round;
        # 551.16(g): the discard rack's cards complete one round, then the shoe ends.
        return (
            self.cut_seen or self._table.rules.continuous_shuffler or self._table._rack.reshuffled
        )

    def end_after_round(self, item: object) -> None:
        # 551.8(j)(1)-(3): collect, then reshuffle; or back to the device (551.15).
        if self._table._rack.reshuffled:
            self.end("shoe_empty")  # 551.16(g): the round is completed
        else:
            self.end("continuous_shuffler" if self.continuous(item) else "cutting_card")

    def end_after_void(self, void: Void) -> None:
        if self.face_ups > 1:
            self.end("face_up")
        else:
            self.end("continuous_shuffler" if self.continuous(void) else "cutting_card")

    def spread(self, command: CardsSpread) -> None:
        """551.5(h): the cards are out of the shoe and spread; the shoe is over."""
        self._table._record(
            {"type": "cards_spread", "shoe": self.shoe_number, "section": "551.5(h)"}
        )
        self.end("no_gaming_activity")

    def reshuffle_required(self, command: Reshuffle) -> None:
        """551.5(a), (g): the floorperson has the cards reshuffled after this round. Wagers
        already placed for the next round stay on the layout for it."""
        self._table._record(
            {
                "type": "reshuffle_required",
                "shoe": self.shoe_number,
                "rounds": self.rounds_completed,
                "section": "551.5(g)",
            }
        )
        self.end("reshuffle")

    def void_and_end(self, reason: str) -> None:
        """A floorperson's clear ends the shoe: its round is void."""
        table = self._table
        if table._resume == SHUFFLE_DUE:
            return  # no shoe was in play
        if self.decks_removed:
            void = Void("a second 10 was found in the shoe", "551.16(b)", reshuffle=True)
        else:
            void = Void(f"floorperson: {reason}", None, reshuffle=True)
        table._round_end.void(void)
        # Cards that left the shoe while play was stopped go to the discard rack with it.
        for event in [e for e in table._held if isinstance(e, m.CardDrawn)]:
            table._held.remove(event)
            self.discarded.append(event.token)
            self.discarded_held.append(event)
        self.end("decks_removed" if self.decks_removed else "floorperson")

    def end(self, reason: str) -> None:
        table = self._table
        self.discarded += [e.token for e in self.early]
        opened = table._hole_card.opened(*self.early, *self.discarded_held)
        table._record(
            {
                "type": "shoe_end",
                "shoe": self.shoe_number,
                "rounds": self.rounds_completed,
                "burned": self.burned,
                "discarded": self.discarded,
                "removed": self.removed,
                "reason": reason,
                **opened,
            }
        )
        table._hole_card.clear()  # what is left was refused, never used
        if table.rules.continuous_shuffler and not self.decks_removed:
            table._prompt("CARDS TO THE SHUFFLER", "551.15")
        else:
            section = "551.5(g)" if reason == "reshuffle" else "551.8(j)"
            table._prompt("NEW DECKS" if self.decks_removed else "RESHUFFLE", section)
        self.shoes_completed += 1
        self.rounds_completed = 0
        self._new_shoe()
        table._rack.new_shoe()
        table._dealer_errors.new_shoe()
