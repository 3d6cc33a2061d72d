"""The shoe in play: its number and its rounds, the cards out of it, the burn, the
cover cards and the last hand, and its end."""

from __future__ import annotations

from collections import Counter

from controller.rules.baccarat import (
    COVER_CARD_FROM_BOTTOM,
    COVER_CARDS,
    LAST_HAND,
    burn_count,
)
from controller.table.baccarat.machine import Context
from controller.table.events import ManualShuffle
from controller.table.halts import Halt
from drivers import messages as m

SHOE_ENDS = "SHOE ENDS: NEW DECKS"


class Shoe:
    """The shoe in play, from its shuffle (545.5) to its end: new decks (545.3(b))."""

    def __init__(self, ctx: Context) -> None:
        self._ctx = ctx
        self.number = 0  # of the shoe in play, or of the last one
        self.completed = 0  # shoes ended
        self.rounds = 0  # rounds completed in the shoe in play
        self._seen: Counter[str] = Counter()
        self._burned: list[str] = []
        self._burn_left = 0
        self._cover_round: int | None = None
        self._cover_cards = 0  # cover cards out of the shoe in play

    @property
    def round(self) -> int:
        """The round being wagered on or dealt, counted within the shoe."""
        return self.rounds + 1

    def shuffled(self, item: m.ShuffleCompleted | ManualShuffle) -> None:
        self.number += 1
        entry: dict[str, object] = {"type": "shuffled", "shoe": self.number}
        if isinstance(item, m.ShuffleCompleted):
            entry.update(how="shuffler", cards=item.card_count)
        else:
            entry["how"] = "manual"
        self._ctx.record(entry)

    def call_burn(self, item: m.ShuffleCompleted | ManualShuffle) -> None:
        self._ctx.prompt("BURN CARD", self._ctx.sec.burn)

    def counted(self, event: m.CardDrawn) -> Halt | None:
        """Count a card out of the shoe in play; the halt when its decks cannot hold it:
        the decks in play are not the ones inspected (545.4), so a floorperson ends the
        shoe."""
        token, decks = event.token, self._ctx.rules.decks
        if self._seen[token] >= decks:
            detail = f"{token}: {decks} decks hold only {decks}"
            return Halt("foreign_card", event.device, detail, self._ctx.sec.decks, True)
        self._seen[token] += 1
        return None

    # ------------------------------------------------------------------ the burn (545.5(f))

    def burn_first(self, event: m.CardDrawn) -> None:
        self._burn_left = burn_count(event.token) + 1
        self.burn(event)
        more = f"{self._burn_left} MORE CARD{'S' if self._burn_left > 1 else ''}"
        self._ctx.prompt(f"BURN {more}", self._ctx.sec.burn)

    def burn_done(self, event: m.CardDrawn) -> bool:
        return self._burn_left == 1

    def burn(self, event: m.CardDrawn) -> None:
        self._burn_left -= 1
        self._burned.append(event.token)
        self._ctx.record({"type": "burn", "card": event.token, "section": self._ctx.sec.burn})

    # ------------------------------------------------------------------ the cover card

    def cover_card_out(self, event: m.CutCardSeen) -> Halt | None:
        """Two cover cards to a shoe (545.3(a)), the one that ends it at least 14 cards
        above the bottom of the stack (545.5(d)); the halt when there is one too many."""
        self._cover_cards += 1
        if self._cover_cards > COVER_CARDS:
            detail = f"cover card {self._cover_cards} out of the shoe: a shoe holds {COVER_CARDS}"
            return Halt("extra_cover_card", event.device, detail, self._ctx.sec.decks, True)
        left = self._ctx.rules.decks * 52 - sum(self._seen.values())
        if self._cover_cards == 1 and left < COVER_CARD_FROM_BOTTOM:
            self._ctx.record(
                {
                    "type": "irregularity",
                    "card": "CUT",
                    "section": self._ctx.sec.second_cover,
                    "reason": f"the cover card came out with {left} cards left in the shoe, "
                    f"not at least {COVER_CARD_FROM_BOTTOM}",
                }
            )
        return None

    def cover(self, event: m.CutCardSeen) -> None:
        if self._cover_round is not None:
            # The other cover card (545.5(d), 543.5(e)) changes nothing: the last hand is set.
            self._ctx.record({"type": "cover_card", "round": self.round, "first": False})
            return
        # Ruling R1: out of the shoe before or as the first card of a hand, it appeared
        # during that hand.
        self._cover_round = self.round
        self._ctx.record(
            {
                "type": "cover_card",
                "round": self.round,
                "first": True,
                "section": self._ctx.sec.cover,
            }
        )

    def is_last_hand(self, item: object = None) -> bool:
        """Whether the round wagered on or dealt is the one after the cover card's."""
        return self._cover_round is not None and self.round == self._cover_round + 1

    # ------------------------------------------------------------------ rounds, the end

    def next_round(self) -> None:
        self.rounds += 1

    def announce_last_hand(self) -> None:
        """A round ended: the next one is the last hand if the cover card came out in it."""
        if self.is_last_hand():
            self._ctx.record(
                {"type": "last_hand", "round": self.round, "section": self._ctx.sec.cover}
            )
            self._ctx.prompt(LAST_HAND, self._ctx.sec.cover)

    def end(self, reason: str, discarded: list[str]) -> None:
        """The shoe ends (``discarded``: the cards that went to no hand): new decks."""
        self._ctx.record(
            {
                "type": "shoe_end",
                "shoe": self.number,
                "rounds": self.rounds,
                "burned": self._burned,
                "discarded": discarded,
                "reason": reason,
            }
        )
        self._ctx.prompt(SHOE_ENDS, self._ctx.sec.new_decks)
        self.completed += 1
        self.rounds = 0
        self._seen = Counter()
        self._burned = []
        self._cover_round = None
        self._cover_cards = 0
