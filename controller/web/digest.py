"""What the pages show, kept from the journal's entries as they stream: the table's
prompt and its section, the round's wagers and cards (a sealed card as sealed, never
a value: 551.8(e)), the last result, refusals, halts, the recent entries, the shoe's
results for the scoreboard and the shift's figures for the pit. Pure: fed entries,
asked for views."""

from __future__ import annotations

import time
from collections import deque
from decimal import Decimal, InvalidOperation
from typing import Any, Final

RECENT: Final = 40
REFUSALS: Final = 10


def _amount(value: object) -> Decimal:
    try:
        return Decimal(str(value))
    except InvalidOperation:
        return Decimal(0)


def _hand_key(entry: dict[str, Any]) -> str:
    to = entry.get("to")
    return f"box {to} hand {entry['hand']}" if "hand" in entry else str(to)


class Digest:
    def __init__(self, clock: Any = time.time) -> None:
        self._clock = clock
        self.game: str | None = None
        self.prompt: dict[str, Any] | None = None
        self.round: int | None = None
        self.wagers: list[dict[str, Any]] = []
        self.hands: dict[str, list[str]] = {}
        self.result: dict[str, Any] | None = None
        self.refusals: deque[dict[str, Any]] = deque(maxlen=REFUSALS)
        self.halts: list[dict[str, Any]] = []
        self.recent: deque[dict[str, Any]] = deque(maxlen=RECENT)
        self.shoe_results: list[dict[str, Any]] = []
        self.dealer_totals: deque[int] = deque(maxlen=20)
        self.rounds = 0
        self.drop = Decimal(0)
        self.win = Decimal(0)
        self.first: float | None = None  # when the shift's first wager came
        self.win_by_outcome: dict[str, Decimal] = {}
        self.last_seq = 0
        self._ended = False  # a round ended: the next wager or card starts a new layout

    def feed(self, seq: int, entry: dict[str, Any]) -> None:
        self.last_seq = seq
        kind = entry.get("type")
        self.recent.append({"seq": seq, **entry})
        handler = getattr(self, f"_on_{kind}", None)
        if handler is not None:
            handler(entry)

    def _on_journal(self, entry: dict[str, Any]) -> None:
        self.game = entry.get("game")

    def _on_prompt(self, entry: dict[str, Any]) -> None:
        self.prompt = {"text": entry.get("text"), "section": entry.get("section")}

    def _on_shuffled(self, entry: dict[str, Any]) -> None:
        self.shoe_results = []

    def _new_round(self, entry: dict[str, Any]) -> None:
        if self._ended or entry.get("round") != self.round:
            self.round, self.wagers, self.hands, self._ended = entry.get("round"), [], {}, False

    def _on_wager(self, entry: dict[str, Any]) -> None:
        self._new_round(entry)
        self.wagers.append(
            {
                "place": entry.get("box", entry.get("seat")),
                "bet": entry.get("bet"),
                "amount": entry.get("amount"),
            }
        )
        self.drop += _amount(entry.get("amount"))
        if self.first is None:
            self.first = self._clock()

    def _on_dealt(self, entry: dict[str, Any]) -> None:
        self._new_round(entry)
        card = "sealed" if entry.get("sealed") else str(entry.get("card"))
        self.hands.setdefault(_hand_key(entry), []).append(card)

    def _on_reveal(self, entry: dict[str, Any]) -> None:
        cards = self.hands.get("dealer", [])
        if "sealed" in cards:
            cards[cards.index("sealed")] = str(entry.get("card"))

    def _on_refused(self, entry: dict[str, Any]) -> None:
        self.refusals.append(
            {
                "what": entry.get("command") or entry.get("event") or "input",
                "section": entry.get("section"),
                "reason": entry.get("reason"),
            }
        )

    def _on_halt(self, entry: dict[str, Any]) -> None:
        self.halts.append(entry)

    def _on_floor_clear(self, entry: dict[str, Any]) -> None:
        self.halts = []

    def _on_round_end(self, entry: dict[str, Any]) -> None:
        self.result = entry
        self._ended = True
        self.rounds += 1
        nets = [_amount(s.get("net")) for s in entry.get("seats", {}).values()]
        for box in entry.get("boxes", {}).values():
            nets += [_amount(h.get("net")) for h in box.get("hands", [])]
        won = -sum(nets, Decimal(0))
        self.win += won
        if entry.get("void"):
            return
        if "result" in entry:
            outcome = str(entry["result"])
            self.shoe_results.append(
                {"round": entry.get("round"), "result": outcome, "natural": entry.get("natural")}
            )
        else:
            outcome = "dealer " + str(entry.get("dealer_total"))
            self.dealer_totals.append(int(entry.get("dealer_total") or 0))
        self.win_by_outcome[outcome] = self.win_by_outcome.get(outcome, Decimal(0)) + won

    def table_view(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "prompt": self.prompt,
            "round": self.round,
            "wagers": self.wagers,
            "hands": self.hands,
            "result": self.result,
            "refusals": list(self.refusals),
            "halts": self.halts,
            "recent": list(self.recent)[-15:],
            "seq": self.last_seq,
        }

    def scoreboard_view(self) -> dict[str, Any]:
        counts: dict[str, int] = {}
        for r in self.shoe_results:
            counts[r["result"]] = counts.get(r["result"], 0) + 1
        return {
            "game": self.game,
            "results": self.shoe_results,
            "counts": counts,
            "dealer_totals": list(self.dealer_totals),
            "seq": self.last_seq,
        }

    def pit_view(self) -> dict[str, Any]:
        hours = (self._clock() - self.first) / 3600 if self.first else 0.0
        rounds = self.rounds
        return {
            "game": self.game,
            "round": self.round,
            "rounds": rounds,
            "rounds_per_hour": round(rounds / hours) if hours > 0 else None,
            "drop": str(self.drop),
            "win": str(self.win),
            "win_by_outcome": {k: str(v) for k, v in self.win_by_outcome.items()},
            "halts": self.halts,
            "refusals": list(self.refusals),
            "seq": self.last_seq,
        }
