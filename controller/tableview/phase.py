"""The table's state as its journal tells it. No entry names the state except a
``refused`` one (the state the input met); every other entry is what the table did on
entering one, so each says where the table is now."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from controller.table.halts import HALTED

# The state an entry of this type leaves the table in, whatever the game.
AFTER: Final[Mapping[str, str]] = {
    "shuffled": "burn_due",
    "rack_shuffled": "rack_burn_due",
    "shuffle_failed": "shuffle_due",
    "wager": "wagering",
    "deal_called_off": "wagering",
    "no_more_bets": "dealing",
    "dealt": "dealing",
    "discard": "discarding",
    "reader_armed": "peek_due",
    "insurance_closed": "peeking",
    "decision": "playing",
    "shoe_end": "shuffle_due",
    "reshuffle_required": "shuffle_due",
}


class Phase:
    def __init__(self, spanish: bool) -> None:
        self.state = "starting"
        self._spanish = spanish
        self._resume = "starting"  # the state a floorperson's clear goes back to

    def follow(self, entry: Mapping[str, object]) -> None:
        kind = str(entry.get("type"))
        if kind == "halt":
            if self.state != HALTED:
                self._resume = self.state
            self.state = HALTED
        elif kind == "floor_clear":
            self.state = self._resume
        elif kind == "refused" and isinstance(entry.get("state"), str):
            self.state = str(entry["state"])
        elif self.state != HALTED:
            self.state = self._next(kind, entry)

    def _next(self, kind: str, entry: Mapping[str, object]) -> str:
        if kind in AFTER:
            if kind == "dealt" and self.state in ("playing", "dealer_turn"):
                return self.state
            return AFTER[kind]
        if kind == "prompt":
            return self._prompted(str(entry.get("text")))
        return self._did(kind, entry)

    def _did(self, kind: str, entry: Mapping[str, object]) -> str:
        if kind == "burn":
            return "burning" if not self._spanish else self.state
        if kind == "peek":
            return "playing" if not entry.get("blackjack") else self.state
        if kind == "reveal" and entry.get("section") == "551.8(h)":
            return "dealer_turn"
        if kind == "irregularity" and "rack" in entry:
            return "rack_shuffle_due"
        if kind == "round_end":
            return "wagering"
        return self.state

    def _prompted(self, text: str) -> str:
        if text.endswith("PLACE YOUR BETS"):
            return "wagering"
        if text.startswith("BOX "):
            return "playing"
        if "BURN" in text:
            return "burn_due"
        if text in ("SHOE ENDS: NEW DECKS", "NEW DECKS", "RESHUFFLE", "CARDS TO THE SHUFFLER"):
            return "shuffle_due"
        return self.state
