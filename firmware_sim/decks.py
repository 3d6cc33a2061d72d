"""Shoe contents: stacked card orders (as test labs load them) and shuffled decks."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterable
from random import SystemRandom

from drivers.messages import RANKS, SUITS, parse_card

CUT = "CUT"
STANDARD_DECK = 52
SPANISH_DECK = 48  # 551.3(a): the 10 of each suit removed
MAX_DECKS = 64  # keeps every count within the protocol's 16-bit fields

_SEPARATORS = re.compile(r"[\s,]+")


def deck(spanish: bool = False) -> list[str]:
    """One deck in a fixed order: suits SHDC, ranks A..K (no tens in a Spanish deck)."""
    ranks = RANKS.replace("T", "") if spanish else RANKS
    return [rank + suit for suit in SUITS for rank in ranks]


def deck_size(spanish: bool) -> int:
    return SPANISH_DECK if spanish else STANDARD_DECK


def make_rng(seed: int | None) -> random.Random:
    """A reproducible generator for a seed; secrets-grade (the OS's) without one."""
    return random.Random(seed) if seed is not None else SystemRandom()


def build_shoe(
    decks: int, *, spanish: bool = False, rng: random.Random, cut_at: int | None = None
) -> list[str]:
    """``decks`` decks shuffled with ``rng``; CUT placed ``cut_at`` cards from the end."""
    if not 1 <= decks <= MAX_DECKS:
        raise ValueError(f"a shoe holds 1..{MAX_DECKS} decks, not {decks}")
    cards = deck(spanish) * decks
    rng.shuffle(cards)
    if cut_at is not None:
        if not 0 <= cut_at <= len(cards):
            raise ValueError(
                f"the cutting card goes 0..{len(cards)} cards from the end, not {cut_at}"
            )
        cards.insert(len(cards) - cut_at, CUT)
    return cards


def normalize(tokens: Iterable[str]) -> list[str]:
    """Canonical tokens ('10d' -> 'TD', 'cut' -> 'CUT'); ValueError naming a bad token."""
    out: list[str] = []
    for token in tokens:
        if token.strip().upper() == CUT:
            out.append(CUT)
        else:
            rank, suit = parse_card(token)
            out.append(rank + suit)
    if out.count(CUT) > 1:
        raise ValueError("a shoe holds one cutting card, not several CUT tokens")
    return out


def parse_tokens(text: str) -> list[str]:
    """Cards separated by whitespace or commas."""
    return normalize(t for t in _SEPARATORS.split(text) if t)


def load_stack_file(path: str) -> list[str]:
    """A stack file: a JSON list of tokens, or tokens separated by whitespace or commas."""
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except OSError as exc:
        raise ValueError(f"stack file {path} cannot be read: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ValueError(f"stack file {path} is not UTF-8 text") from None
    if not text.lstrip().startswith("["):
        return parse_tokens(text)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"stack file {path} is not valid JSON: {exc}") from None
    if not isinstance(data, list) or not all(isinstance(t, str) for t in data):
        raise ValueError(f"stack file {path} must hold a JSON list of card tokens")
    return normalize(data)


def real_cards(cards: Iterable[str]) -> int:
    return sum(1 for c in cards if c != CUT)
