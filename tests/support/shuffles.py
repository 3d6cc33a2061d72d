"""Bad shuffles as test data for the shuffle monitor (the production models live in
firmware_sim): a Gilbert-Shannon-Reeds riffle, blocks carried whole, and none at all."""

from __future__ import annotations

import random

from firmware_sim import shuffle_models
from firmware_sim.decks import deck


def shoe(decks: int = 8) -> list[str]:
    """``decks`` standard decks one after the other (416 cards for 8)."""
    return deck() * decks


def uniform(order: list[str], rng: random.Random) -> list[str]:
    out = list(order)
    rng.shuffle(out)
    return out


def riffle(order: list[str], rng: random.Random, times: int = 1) -> list[str]:
    """``times`` GSR riffles, the simulator's (firmware_sim/shuffle_models.py): cut at
    Binomial(n, 1/2), then drop the next card from each packet with probability
    proportional to the packet's size."""
    out = list(order)
    for _ in range(times):
        out = shuffle_models.riffle(out, rng)
    return out


def clumpy(order: list[str], rng: random.Random, block: int = 8) -> list[str]:
    """Cut into blocks of ``block`` cards and shuffle the blocks, each kept whole."""
    blocks = [order[i : i + block] for i in range(0, len(order), block)]
    rng.shuffle(blocks)
    return [card for b in blocks for card in b]


def riffle_of(before: list[str], after: list[str]) -> bool:
    """Whether ``after`` (a prefix of a shoe) can be one riffle of ``before``: ``before``
    cut somewhere, and ``after`` an interleaving of the two packets, each in its order.
    The states are (cut, cards taken from the top packet); copies of a card make
    several possible at once."""
    n = len(before)
    states = {(cut, 0) for cut in range(n + 1)}
    for k, card in enumerate(after):
        states = {
            step
            for cut, top in states
            for step in (
                (cut, top + 1) if top < cut and before[top] == card else None,
                (cut, top) if cut + k - top < n and before[cut + k - top] == card else None,
            )
            if step is not None
        }
        if not states:
            return False
    return True
