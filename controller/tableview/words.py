"""Plain English for what a table's journal names in its own terms: the machines'
states, what a table needs next (``controller.table.events.Need``), why play stopped,
a hand's outcome. Whoever reads a view reads these, never ``shuffle_due``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from controller.table.events import Need

# Every state of both machines (controller/table/baccarat/machine.py,
# controller/table/spanish21/machine.py) and the halt they share
# (controller/table/halts.py), plus the model's own "starting" (no entry yet says).
STATES: Final[Mapping[str, str]] = {
    "starting": "starting up",
    "shuffle_due": "waiting for shuffled cards",
    "burn_due": "burning the first card",
    "burning": "burning cards",
    "discarding": "discarding after a card found face up",
    "wagering": "taking wagers",
    "dealing": "dealing the cards",
    "peek_due": "hole card to the reader",
    "peeking": "the reader is checking the hole card",
    "playing": "players' decisions",
    "dealer_turn": "dealer's turn",
    "rack_shuffle_due": "shoe empty: shuffling the discards",
    "rack_burn_due": "burning from the reshuffled discards",
    "halted": "stopped: call the floorperson",
}

NEEDS: Final[Mapping[Need, str]] = {
    Need.SHUFFLE: "shuffled cards",
    Need.WAGERS: "wagers, then no more bets",
    Need.CARD: "the next card from the shoe",
    Need.FLOOR: "a floorperson to clear the table",
    Need.INSPECTION: "the floorperson's reader inspection",
    Need.PEEK: "the hole card in the reader",
    Need.DECISION: "a player's decision",
    Need.REVEAL: "the dealer's card turned over",
    Need.DEVICE: "a device's answer",
}

# Why play stopped (``halt`` entries' ``cause``, controller/table/halts.py and core.py)
# and what clearing it needs (docs/bench.md, "Stopping for a floorperson").
CAUSES: Final[Mapping[str, tuple[str, str]]] = {
    "device_lost": ("device lost", "the device connected again, then the floor's clear"),
    "device_refused": ("device refused", "the device connected again, then the floor's clear"),
    "device_fault": ("device fault", "the floor's clear"),
    "link_tamper": ("link tampered with", "the floor's clear"),
    "unreadable_card": ("card not read", "the floor's clear with the card read from the layout"),
    "foreign_card": ("card not of these decks", "the floor's clear; the round is void"),
    "event_gap": ("shoe events missing", "the floor's clear; the round is void"),
    "malformed_event": ("bad shoe event", "the floor's clear; the round is void"),
    "cards_loaded": ("cards loaded during play", "the floor's clear; the round is void"),
    "extra_cover_card": ("a second cover card", "the floor's clear"),
    "internal_error": ("controller error", "the floor's clear; the round is void"),
    "reader_malfunction": ("reader malfunction", "the repair recorded, then the floor's clear"),
    "reader_tamper": ("reader tampered with", "the repair recorded, then the floor's clear"),
    "reader_misuse": ("hole card in the reader behind a 2-9", "the floor's clear"),
    "reader_not_armed": ("reader not armed", "the floor's clear"),
    "ten_found": ("a ten in the shoe", "the floor's clear (the ten removed)"),
    "shoe_empty": ("shoe empty", "the floor's clear; the shoe ends"),
    "missed_card_late": ("missed card declared late", "the floor's clear; the round is void"),
    # docs/recovery.md, "A round still in play": the card is checked against its seal.
    "interrupted_round": (
        "restart during a round",
        "the floor's clear; a sealed hole card entered as read from the layout "
        "(checked against its seal, 551.8(e)), or no card to void the round",
    ),
}

OUTCOMES: Final[Mapping[str, str]] = {
    "win": "win",
    "lose": "lose",
    "push": "push",
    "surrender": "surrendered",
    "rescue": "rescued",
    "dead": "dead hand",
    "player": "Player wins",
    "banker": "Banker wins",
    "tie": "Tie",
}

HEALTH: Final[Mapping[str, str]] = {
    "connecting": "connecting",
    "connected": "connected",
    "lost": "lost",
    "unavailable": "unavailable",
    "refused": "refused",
    "fault": "fault",
}


def _said(table: Mapping[str, str], key: str) -> str:
    return table.get(key) or key.replace("_", " ")


def state_words(state: str) -> str:
    """A table state in plain words (an unknown one: its name with spaces)."""
    return _said(STATES, state)


def need_words(need: Need | str) -> str:
    """What a table needs next, in plain words."""
    if isinstance(need, Need):
        return NEEDS[need]
    try:
        return NEEDS[Need(need)]
    except ValueError:
        return need.replace("_", " ")


def cause_words(cause: str) -> str:
    """Why play stopped, in plain words."""
    known = CAUSES.get(cause)
    return known[0] if known else cause.replace("_", " ")


def clearing_words(cause: str) -> str:
    """What clearing a halt needs, in plain words."""
    known = CAUSES.get(cause)
    return known[1] if known else "the floor's clear"


def outcome_words(outcome: str) -> str:
    """A hand's or a round's outcome, in plain words."""
    return _said(OUTCOMES, outcome)


def health_words(health: str) -> str:
    return _said(HEALTH, health)


def rounds_words(count: int) -> str:
    """``1 round played``, ``2 rounds played``."""
    return f"{count} round{'' if count == 1 else 's'} played"
