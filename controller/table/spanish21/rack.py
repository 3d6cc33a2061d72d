"""The discard rack (551.2(f)), and the round it completes when the shoe runs out in it
(551.16(g))."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from controller.table.core import Refusal
from controller.table.events import ManualShuffle, Need
from controller.table.halts import Halt
from controller.table.spanish21.machine import DEALER_TURN, DEALING, DRAWS, PLAYING
from controller.table.spanish21.part import Part
from drivers import messages as m

if TYPE_CHECKING:
    from controller.table.spanish21.table import Spanish21Table


class Rack(Part):
    """The cards in the discard rack, and a round the shoe ran out in: where it stood and
    what the dealer was doing, until the reshuffled rack's first card is burned."""

    def __init__(self, table: Spanish21Table) -> None:
        super().__init__(table)
        self.round_state: str | None = None  # where the round stood when the shoe ran out
        self._prompt_before: str | None = None
        self.new_shoe()

    def new_shoe(self) -> None:
        self.cards: list[str] = []  # the cards in it now
        self.reshuffled = False  # 551.16(g) done: the shoe ends after this round

    def collect(self) -> None:
        """The round's cards go to the discard rack (551.8(i))."""
        round_ = self._table._round
        self.cards += round_.dealer
        self.cards += [c for hands in round_.hands.values() for h in hands for c in h.cards]

    def pending(self) -> bool:
        """The shoe is empty and a card is due: the discard rack completes the round."""
        table = self._table
        if not (table._in_play.empty and table._need() is Need.CARD and not table._held):
            return False
        if table.state in DRAWS and len(self.cards) >= 2:
            table.shoe_ran_out(None)  # 551.16(g): the discard rack completes the round
        else:
            # Reading (proposed ruling): 551.16(g) needs a round in play and a rack
            # that holds a card to burn and one to deal; without them a floorperson
            # ends the shoe.
            detail = "the shoe is empty and the discard rack cannot complete the round"
            table._stop(Halt("shoe_empty", table._shoe, detail, "551.16(g)", ends_shoe=True))
        return True

    def shoe_ran_out(self, item: object) -> None:
        """551.16(g): too few cards left in the shoe to complete the round. The round's
        cards stay on the layout: only the discard rack's cards are shuffled."""
        table = self._table
        self.round_state = table.state
        self._prompt_before = table._last_prompt
        table._record(
            {
                "type": "irregularity",
                "round": table.round,
                "card": None,
                "section": "551.16(g)",
                "reason": "too few cards in the shoe to complete the round: the discard "
                "rack is shuffled and cut, its first card burned, and the round completed",
                "rack": len(self.cards),
            }
        )
        table._prompt("SHOE EMPTY: SHUFFLE THE DISCARDS", "551.16(g)")

    def shuffle_completed(self, event: m.ShuffleCompleted) -> None:
        if event.card_count != len(self.cards):
            reason = (
                f"the shuffler counted {event.card_count} cards; "
                f"the discard rack holds {len(self.cards)}"
            )
            self._table._refuse(event, Refusal("551.16(g)", reason))
        else:
            self._table._fire("shuffled", event)

    def shuffled(self, item: m.ShuffleCompleted | ManualShuffle) -> None:
        """551.16(g), 551.5: the discard rack's cards, shuffled and cut, are the shoe now;
        the shoe ends after this round."""
        table = self._table
        table._record(
            {
                "type": "rack_shuffled",
                "shoe": table.shoe_number,
                "round": table.round,
                "cards": len(self.cards),
                "how": "shuffler" if isinstance(item, m.ShuffleCompleted) else "manual",
                "section": "551.16(g)",
            }
        )
        table._in_play.seen -= Counter(self.cards)  # back in the shoe
        self.cards = []
        self.reshuffled = True
        table._in_play.empty = False
        table._prompt("BURN CARD", "551.16(g)")

    def resumes_dealing(self, event: m.CardDrawn) -> bool:
        return self.round_state == DEALING

    def resumes_playing(self, event: m.CardDrawn) -> bool:
        return self.round_state == PLAYING

    def resumes_dealer_turn(self, event: m.CardDrawn) -> bool:
        return self.round_state == DEALER_TURN

    def round_resumes(self, event: m.CardDrawn) -> None:
        self.round_state = None
        if self._prompt_before is not None:
            self._table._prompt(self._prompt_before)  # what the dealer was doing
