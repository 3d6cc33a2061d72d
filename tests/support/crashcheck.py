"""What the crash campaign (tests/support/campaign.py) checks on a journal after each
kill and each restart, read from its rows alone: rows lost or changed, rounds not
resolved, cards counted twice in a shoe, device events journaled twice in one run and
stand-ins. Each check returns what it found wrong, one line each (none: nothing)."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.support.journal import stored_rows

Stored = tuple[int, str, str, str, str]  # seq, ts, body, prev, hash, as SQLite holds them

# Cards in one deck: a Spanish deck has no tens (551.3(a)).
DECK_SIZE = {"baccarat": 52, "midibaccarat": 52, "spanish21": 48}
# A stand-in (controller.rules.cards.stand_in) written anywhere in a row: "2?".
STAND_IN = re.compile(r'"[2-9TJQKA]\?"')
CARD = re.compile(r"[2-9TJQKA][SHDC]")


def rows_of(path: Path) -> list[Stored]:
    """The journal's rows as stored, read-only; none when no journal is in place (a
    kill before its creation)."""
    return stored_rows(path) if path.exists() else []


def entries_of(rows: Sequence[Stored]) -> list[dict[str, Any]]:
    return [json.loads(body) for _, _, body, _, _ in rows]


def lost_or_changed(before: Sequence[Stored], after: Sequence[Stored]) -> list[str]:
    """Each row of ``before`` that ``after`` does not hold as it was, at its place."""
    problems = []
    for n, row in enumerate(before):
        if n >= len(after):
            problems.append(f"row {row[0]} lost (the journal now ends at row {len(after)})")
        elif after[n] != row:
            problems.append(f"row {row[0]} changed: {row} is now {after[n]}")
    return problems


def stand_ins(rows: Iterable[Stored]) -> list[str]:
    return [
        f"row {seq}: a stand-in journaled" for seq, _, body, *_ in rows if STAND_IN.search(body)
    ]


@dataclass
class _Shoe:
    """One shoe of the table's, from its ``shuffled`` row to the next: the cards it
    counted (each ``dealt`` and ``burn`` row, a sealed one by its opening) and the
    cards its device delivered (a card drawn while play was stopped may be held, then
    refused: delivered, not counted)."""

    number: int
    decks: int
    counted: list[tuple[str | None, str]] = field(default_factory=list)  # (card, seal)
    drawn: int = 0

    def cards_twice(self, opened: dict[str, str]) -> list[str]:
        cards = [card or opened.get(seal) for card, seal in self.counted]
        counted = Counter(c for c in cards if c is not None)
        name = f"shoe {self.number}"
        problems = [
            f"{name}: {card} counted {n} times, of {self.decks} decks"
            for card, n in counted.items()
            if n > self.decks
        ]
        problems += [f"{name}: {c!r} is not a card" for c in counted if not CARD.fullmatch(c)]
        if len(self.counted) > self.drawn:
            problems.append(f"{name}: {len(self.counted)} cards counted, {self.drawn} drawn")
        return problems


@dataclass
class _Rounds:
    """Each round from its first wager (or ``no_more_bets``) until its end: resolved
    exactly once, by ``round_end`` or, before any card, ``wagers_returned``."""

    open: dict[tuple[int, int], int] = field(default_factory=dict)  # (shoe, round): seq
    dealt: set[tuple[int, int]] = field(default_factory=set)
    problems: list[str] = field(default_factory=list)
    ends: list[tuple[int, bool]] = field(default_factory=list)  # (begun at seq, void)

    def see(self, seq: int, shoe: int, entry: dict[str, Any]) -> None:
        kind, key = entry["type"], (shoe, entry.get("round", 0))
        if kind in ("wager", "no_more_bets"):
            self.open.setdefault(key, seq)
            if kind == "no_more_bets":
                self.dealt.add(key)
        elif kind in ("round_end", "wagers_returned"):
            if key not in self.open:
                self.problems.append(f"row {seq}: {kind} of shoe {shoe} round {key[1]}, not open")
            elif kind == "wagers_returned" and key in self.dealt:
                self.problems.append(f"row {seq}: wagers returned after the cards were dealt")
            begun = self.open.pop(key, seq)
            self.dealt.discard(key)
            if kind == "round_end":
                self.ends.append((begun, bool(entry.get("void"))))
            if kind == "round_end" and entry.get("shoe", shoe) != shoe:
                self.problems.append(f"row {seq}: round_end of shoe {entry['shoe']} in {shoe}")


@dataclass
class Reading:
    """The journal read once, row by row, for every check that follows it."""

    game: str
    rounds: _Rounds = field(default_factory=_Rounds)
    shoes: list[_Shoe] = field(default_factory=list)
    opened: dict[str, str] = field(default_factory=dict)  # seal: card

    def read(self, entries: Iterable[dict[str, Any]]) -> Reading:
        shoe = _Shoe(0, 0)
        for seq, entry in enumerate(entries, 1):
            kind = entry["type"]
            if kind == "shuffled":
                shoe = _Shoe(entry["shoe"], entry["cards"] // DECK_SIZE[self.game])
                self.shoes.append(shoe)
            elif kind == "device" and entry.get("event") == "card_drawn":
                shoe.drawn += 1
            elif kind in ("dealt", "burn"):
                shoe.counted.append((entry.get("card"), entry.get("seal", "")))
            for opened in entry.get("opened") or ():
                self.opened[opened["seal"]] = opened["card"]
            self.rounds.see(seq, shoe.number, entry)
        return self

    def unresolved(self) -> list[str]:
        """Rounds still open, and rounds resolved more than once or out of place."""
        left = self.rounds.open.items()
        return self.rounds.problems + [
            f"shoe {shoe} round {n} (from row {seq}) never resolved" for (shoe, n), seq in left
        ]

    def played_since(self, seq: int) -> int:
        """Rounds begun at row ``seq`` or later and played to their normal end."""
        return sum(1 for begun, void in self.rounds.ends if begun >= seq and not void)

    def cards_twice(self) -> list[str]:
        """Per shoe: no card counted (dealt or burned) more times than the shoe's
        decks hold it, no more cards counted than its device delivered, and every
        card a real card."""
        return [problem for shoe in self.shoes for problem in shoe.cards_twice(self.opened)]


def events_twice(entries: Iterable[dict[str, Any]], first_seq: int) -> list[str]:
    """Within one daemon run (its devices' ids are their own for as long as they
    live): each device's event ids, each journaled once."""
    seen: dict[tuple[str, int], int] = {}
    problems = []
    for seq, entry in enumerate(entries, first_seq):
        if entry["type"] != "device" or entry.get("event_id") is None:
            continue
        key = (entry["device"], entry["event_id"])
        if key in seen:
            problems.append(f"row {seq}: {key[0]} event {key[1]} journaled again (row {seen[key]})")
        seen.setdefault(key, seq)
    return problems
