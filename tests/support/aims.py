"""Where the crash campaign (tests/support/campaign.py) aims its kills, and in what
order: the rows a kill is aimed at, picked from a plan's journal (the rows the same
start writes when it is not killed), and each game's schedule of steps.

A pick gets the plan's whole journal and the index of the first row the start wrote,
and returns the index of the row to die after (None: the plan holds no such row)."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

Entries = Sequence[dict[str, Any]]
Pick = Callable[[Entries, int, random.Random], "int | None"]

# The key files a fresh simulated table writes: Spanish 21's sealing key (with the
# journal), then each device's (shoe, reader, shuffler; Baccarat: shoe, shuffler).
KEY_FILES = {"baccarat": 2, "midibaccarat": 2, "spanish21": 4}
RANDOM_STEPS = (("random:start",), ("random:ready",), ("random:start", "random:ready"))
PLAN_ROUNDS = (3, 8)  # a plan's rounds, and a longer plan's when the first has no target
# Each game's aimed steps; a step's kills follow one another with no start between
# them, then one check start. The chain kills a round after its last card, then the
# restart in the first row it writes for it, then the next one just after its
# ``resumed`` row: recovery killed in its own writes.
CHAIN = ("aimed:last-dealt", "aimed:recovery-write", "aimed:resumed")
AIMED_STEPS = {
    "baccarat": (
        CHAIN,
        ("aimed:before-end",),
        ("aimed:last-dealt",),
        ("aimed:round-end",),
        ("aimed:settlement",),
        ("aimed:snapshot",),
        ("aimed:before-end",),
    ),
    "spanish21": (
        CHAIN,
        ("aimed:hole-card",),
        ("aimed:before-end",),  # its settlement: after the result, before round_end
        ("aimed:last-dealt",),
        ("aimed:hole-card",),
        ("aimed:round-end",),
        ("aimed:snapshot",),
    ),
}
AIMED_STEPS["midibaccarat"] = AIMED_STEPS["baccarat"]


def creation(game: str) -> tuple[str, ...]:
    """The failpoints while a fresh table is created: its journal, then each key."""
    keys = tuple(f"key.writing@{n}" for n in range(1, KEY_FILES[game] + 1))
    return ("journal.creating", "journal.placed", *keys)


def schedule(game: str, kills: int, rng: random.Random) -> list[tuple[str, ...]]:
    """Steps worth at least ``kills`` kills: random ones first (the work directory is
    new), then each creation and aimed step once, then random and aimed steps half
    and half, the aimed (creation included) in turn."""
    aimed = [(f"create:{point}",) for point in creation(game)] + list(AIMED_STEPS[game])
    rest = aimed[:]
    rng.shuffle(rest)
    steps = [RANDOM_STEPS[-1], *rest]
    turn = len(creation(game))  # the kills in play first, then those while a table is created
    while sum(len(step) for step in steps) < kills:
        if rng.random() < 0.5:
            steps.append(rng.choice(RANDOM_STEPS))
        else:
            steps.append(aimed[turn % len(aimed)])
            turn += 1
    return steps


def _rounds_begun(entries: Entries, start: int) -> list[tuple[int, int]]:
    """(no_more_bets, round_end) indices of each round dealt and ended in the start."""
    found, begun = [], None
    for n in range(start, len(entries)):
        kind = entries[n]["type"]
        if kind == "no_more_bets":
            begun = n
        elif kind == "round_end" and begun is not None:
            found.append((begun, n))
            begun = None
    return found


def last_dealt(entries: Entries, start: int, rng: random.Random) -> int | None:
    """A round's last ``dealt`` row: its result is known, not yet its end."""
    lasts = [
        max(n for n in range(b, e) if entries[n]["type"] == "dealt")
        for b, e in _rounds_begun(entries, start)
        if any(entries[n]["type"] == "dealt" for n in range(b, e))
    ]
    return rng.choice(lasts) if lasts else None


def before_end(entries: Entries, start: int, rng: random.Random) -> int | None:
    """The row just before a round's ``round_end``: Baccarat's result prompt, Spanish
    21's settlement."""
    ends = [e - 1 for b, e in _rounds_begun(entries, start) if e - 1 > b]
    return rng.choice(ends) if ends else None


def recovery_write(entries: Entries, start: int, rng: random.Random) -> int | None:
    """The first row a restart writes for the input it did not live to finish (before
    its ``resumed`` row); none: the ``resumed`` row itself."""
    for n in range(start, len(entries)):
        if entries[n]["type"] == "resumed":
            return start if n > start else n
    return None


def twos_before(entries: Entries, at: int) -> int:
    """The cards of rank 2 (the stand-in's) the shoe dealt or burned before ``at``."""
    twos = 0
    for n in range(at - 1, -1, -1):
        entry = entries[n]
        if entry["type"] == "shuffled":
            break
        card = entry.get("card")
        twos += entry["type"] in ("dealt", "burn") and isinstance(card, str) and card[0] == "2"
    return twos


def hole_card(entries: Entries, start: int, rng: random.Random) -> int | None:
    """A sealed hole card's ``dealt`` row, the one after the most 2s in its shoe: a
    stand-in of rank 2 would be one more of a card the shoe already dealt."""
    sealed = [
        n
        for n, entry in enumerate(entries)
        if n >= start
        and entry["type"] == "dealt"
        and entry.get("sealed")
        and entry["to"] == "dealer"
    ]
    most = max((twos_before(entries, n) for n in sealed), default=0)
    if most < 1:
        return None  # a longer plan, further into its shoe
    return rng.choice([n for n in sealed if twos_before(entries, n) == most])


PICKS: dict[str, Pick] = {
    "aimed:last-dealt": last_dealt,
    "aimed:before-end": before_end,
    "aimed:recovery-write": recovery_write,
    "aimed:hole-card": hole_card,
}
# Kinds aimed by type alone: any row of the type is in the window; (type, the Nth
# row of it in the start, at most).
BY_TYPE = {
    "aimed:round-end": ("round_end", 2),
    "aimed:settlement": ("settlement", 2),
    "aimed:snapshot": ("snapshot", 1),
    "aimed:resumed": ("resumed", 1),
}


def failpoint(entries: Entries, start: int, at: int) -> str:
    """The failpoint that kills a start right after it wrote row ``at``: the Nth row
    of that type the start writes."""
    kind = entries[at]["type"]
    nth = sum(1 for n in range(start, at + 1) if entries[n]["type"] == kind)
    return f"journal.committed:{kind}@{nth}"
