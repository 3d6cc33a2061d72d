"""How the simulated shuffler shuffles: uniformly, or badly on purpose (docs/shuffle-monitor.md,
"The simulator's shuffle models"). Pure: no I/O; the randomness is the caller's ``rng``.

``parse_model(text)`` reads ``random``, ``riffle:K``, ``strip:K`` or ``clumpy:P``;
``apply(model, cards, rng)`` returns a new order of ``cards`` (position 0 = the first card
out), a permutation of them, the input left as it is.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

RANDOM: Final = "random"
RIFFLE: Final = "riffle"
STRIP: Final = "strip"
CLUMPY: Final = "clumpy"
KINDS: Final = (RANDOM, RIFFLE, STRIP, CLUMPY)
MAX_PASSES: Final = 1000
# A strip pass cuts between two adjacent cards with this probability, independently at
# every gap: packets of 8 cards on average (geometric sizes), as a hand strips a deck.
STRIP_CUT: Final = 1 / 8
USAGE: Final = "random, riffle:K, strip:K (K 1..1000) or clumpy:P (P 0..1)"


@dataclass(frozen=True)
class ShuffleModel:
    kind: str
    passes: int = 0  # riffle, strip: K
    p: float = 0.0  # clumpy: P

    def __str__(self) -> str:
        if self.kind in (RIFFLE, STRIP):
            return f"{self.kind}:{self.passes}"
        if self.kind == CLUMPY:
            return f"{self.kind}:{self.p:g}"
        return self.kind


DEFAULT: Final = ShuffleModel(RANDOM)


def parse_model(text: str) -> ShuffleModel:
    """The model ``text`` names; ValueError with a one-line message otherwise."""
    kind, sep, arg = text.strip().partition(":")
    model = None
    if kind == RANDOM:
        model = None if sep else DEFAULT
    elif kind in (RIFFLE, STRIP):
        passes = _number(arg, int)
        if passes is not None and 1 <= passes <= MAX_PASSES:
            model = ShuffleModel(kind, passes=int(passes))
    elif kind == CLUMPY:
        p = _number(arg, float)
        if p is not None and 0.0 <= p <= 1.0:  # NaN fails this too
            model = ShuffleModel(kind, p=p)
    if model is None:
        raise ValueError(f"shuffle model must be {USAGE}, not {text!r}")
    return model


def _number(text: str, kind: type[int] | type[float]) -> float | None:
    """``text`` as a number of ``kind``; None for no number ("riffle" has none)."""
    try:
        return kind(text)
    except ValueError:
        return None


def apply(model: ShuffleModel, cards: Sequence[str], rng: random.Random) -> list[str]:
    """``cards`` (position 0 = first out) shuffled as ``model`` shuffles them."""
    order = list(cards)
    if model.kind == RANDOM:
        rng.shuffle(order)
    elif model.kind == RIFFLE:
        for _ in range(model.passes):
            order = riffle(order, rng)
    elif model.kind == STRIP:
        for _ in range(model.passes):
            order = strip(order, rng)
    else:
        order = clumpy(order, model.p, rng)
    return order


def riffle(cards: Sequence[str], rng: random.Random) -> list[str]:
    """One Gilbert-Shannon-Reeds riffle: cut at Binomial(n, 1/2), then each next card
    dropped from a packet with probability proportional to that packet's size. Each
    packet keeps its order, so the result has at most 2 rising sequences."""
    n = len(cards)
    cut = sum(rng.random() < 0.5 for _ in range(n))
    top, bottom = list(cards[:cut]), list(cards[cut:])
    out: list[str] = []
    i = j = 0
    while i < len(top) or j < len(bottom):
        left, right = len(top) - i, len(bottom) - j
        if rng.random() * (left + right) < left:
            out.append(top[i])
            i += 1
        else:
            out.append(bottom[j])
            j += 1
    return out


def packets(cards: Sequence[str], cut: float, rng: random.Random) -> list[list[str]]:
    """``cards`` cut into consecutive packets: a cut at each gap with probability ``cut``."""
    if not cards:
        return []
    out = [[cards[0]]]
    for card in cards[1:]:
        if rng.random() < cut:
            out.append([card])
        else:
            out[-1].append(card)
    return out


def strip(cards: Sequence[str], rng: random.Random) -> list[str]:
    """One strip (overhand) pass: the cards cut into packets (``STRIP_CUT``), the packets'
    order reversed, each packet's own order kept."""
    return [card for packet in reversed(packets(cards, STRIP_CUT, rng)) for card in packet]


def clumpy(cards: Sequence[str], p: float, rng: random.Random) -> list[str]:
    """A shuffler that carries clumps through: each pair of cards adjacent in the input
    stays joined with probability ``p`` (independently), the joined runs are blocks, and
    the blocks are shuffled uniformly, each carried through whole in its own order. P=0 is
    a uniform shuffle; P=1 gives the input back."""
    blocks = packets(cards, 1.0 - p, rng)
    rng.shuffle(blocks)
    return [card for block in blocks for card in block]


def rising_sequences(before: Sequence[str], after: Sequence[str]) -> int:
    """The rising sequences of ``after`` relative to ``before``: 1 + the number of cards
    of ``before`` whose successor there comes earlier in ``after``. The cards must be
    distinct (label duplicates first); a riffle of one packet order has at most 2."""
    where = {card: i for i, card in enumerate(after)}
    if len(where) != len(after) or sorted(where) != sorted(before):
        raise ValueError("rising sequences need the same distinct cards before and after")
    if not before:
        return 0
    return 1 + sum(where[b] < where[a] for a, b in itertools.pairwise(before))


def labelled(cards: Sequence[str]) -> list[str]:
    """Each card with its occurrence number ("AS#0", "AS#1", ...): a shoe's several decks
    made distinct, so that ``rising_sequences`` can compare two orders of one shoe."""
    seen: dict[str, int] = {}
    out = []
    for card in cards:
        k = seen.get(card, 0)
        seen[card] = k + 1
        out.append(f"{card}#{k}")
    return out
