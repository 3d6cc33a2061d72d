"""The round a restart finds in play: what the journal shows of it, and the halt that
stops the table for a floorperson (``interrupted_round``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from controller.journal import Row
from controller.rules import cards
from controller.rules.spanish21 import dealer_blackjack
from controller.table.core import Table
from controller.table.halts import INTERRUPTED, Halt

ENDS = ("round_end", "deal_called_off", "shoe_end")  # what ends a round's deal


@dataclass(frozen=True, slots=True)
class Interrupted:
    """The round the journal shows in play at the restart."""

    round: int
    cards: tuple[dict[str, object], ...]  # as dealt: to, hand, card (None: sealed)
    seal: str | None  # the hole card's seal, when it is not known
    dropped: tuple[int, ...] = ()  # inputs journaled but not acted on (rows)
    held: tuple[int, ...] = ()  # inputs held until the floorperson clears (rows)

    @property
    def halt(self) -> Halt:
        known = sum(1 for c in self.cards if c.get("card") is not None)
        if self.cards:
            detail = f"round {self.round} was in play at the restart: {known} cards known"
        else:
            detail = "the restart did not act on the last input journaled"
        if self.seal is not None:
            detail += (
                "; the hole card is sealed and not known: enter it as read from the "
                "layout, or clear to void the round"
            )
        if self.dropped:
            detail += "; the command journaled last (an announcement, a decision) is given again"
        if self.held:
            detail += "; the device event journaled last is taken after the clear"
        return Halt(INTERRUPTED, None, detail, None, seal=self.seal)

    def entry(self) -> dict[str, object]:
        return {
            "round": self.round,
            "cards": list(self.cards),
            "seal": self.seal,
            "dropped": list(self.dropped),
            "held": list(self.held),
            "halt": self.halt.entry(),
        }

    @staticmethod
    def from_entry(entry: Mapping[str, Any]) -> Interrupted:
        return Interrupted(
            int(entry["round"]),
            tuple(entry["cards"]),
            entry.get("seal"),
            tuple(entry.get("dropped", ())),
            tuple(entry.get("held", ())),
        )


def round_in_play(
    entries: Sequence[Mapping[str, Any]],
) -> tuple[int, list[dict[str, object]]] | None:
    """The round dealt and not ended at the end of ``entries``, and its cards."""
    start = None
    for i, e in enumerate(entries):
        kind = e.get("type")
        if kind == "no_more_bets":
            start = i
        elif kind in ENDS:
            start = None
    if start is None:
        return None
    cards = _dealt(entries[start:])
    if not cards:
        return None  # nothing dealt: the round simply goes on
    return int(entries[start]["round"]), cards


def _dealt(entries: Sequence[Mapping[str, Any]]) -> list[dict[str, object]]:
    """The cards ``entries`` deal, as dealt; the hole card's value once revealed."""
    cards: list[dict[str, object]] = []
    for e in entries:
        if e.get("type") == "dealt":
            cards.append(
                {
                    "to": e.get("to", e.get("hand")),
                    "hand": e.get("hand"),
                    "card": e.get("card"),
                    **({"sealed": True} if e.get("sealed") else {}),
                }
            )
        elif e.get("type") == "reveal":
            for dealt in cards:
                if dealt.get("sealed") and dealt["to"] == "dealer":
                    dealt.update(card=e.get("card"), sealed=False)
    return cards


def stand_in(table: Table, rows: Sequence[Row], at: int) -> str:
    """A token to hold an unknown sealed card's place: no card any shoe holds
    (``controller.rules.cards.stand_in``), of a rank that gives the dealer a Blackjack
    exactly when the table found one on the reader's recorded answer in this round:
    the answer its ``peek`` line records, or the other one when the table halted on it
    for disagreeing with the shoe's reading of the hole card."""
    blackjack = _peeked(rows[at + 1 :])
    up = getattr(table, "up_card", None)
    if not isinstance(up, str):
        return cards.stand_in("2")
    for rank in ("2", "K", "A"):
        token = cards.stand_in(rank)
        if dealer_blackjack([up, token]) == blackjack:
            return token
    return cards.stand_in("2")


def _peeked(rows: Sequence[Row]) -> bool:
    """Whether the hole card in ``rows`` makes a Blackjack, as the peek showed it."""
    answer: bool | None = None  # the reader's last answer, as its input records it
    for row in rows:
        e = row.entry
        kind = e.get("type")
        if kind == "peek":
            return bool(e.get("blackjack"))
        if kind == "halt" and e.get("cause") == "reader_malfunction" and answer is not None:
            return not answer  # 551.16(m): the reader disagreed with the shoe
        if kind in ("round_end", "shoe_end"):
            break
        is_answer = kind == "device" and e.get("event") == "peek_result"
        answer = bool(e.get("blackjack")) if is_answer else None
    return False
