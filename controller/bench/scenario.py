"""A scenario as the bench plays it: the game and its rules, the shoe (stacked or
seeded), the round scripts and the faults to inject; and the shoes' card orders, each
fixed by the scenario's seed so a run replays."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from decimal import Decimal

from controller.bench.output import json_value
from controller.rules.baccarat import BaccaratRules
from controller.rules.spanish21 import Spanish21Rules
from firmware_sim import decks as sim_decks
from firmware_sim import shuffle_models

SPANISH21 = "spanish21"
RATE_FAULTS = ("corrupt", "drop", "duplicate")
CARD_IRREGULARITIES = ("ten", "face_up")  # the shoe's: at a card
# The reader's, at a round's peek: the scenario's kind and the simulated reader's command.
READER_IRREGULARITIES = {
    "reader_malfunction": "malfunction",
    "reader_wrong_answer": "wrong_answer",
    "reader_tamper": "tamper",
}
READER_MISUSE = "reader_misuse"  # Spanish 21: the hole card in the reader behind a 2-9
# The shuffler's, at a shuffle: the scenario's kind and the simulated shuffler's command.
SHUFFLER_FAULTS = {
    "shuffler_jam": "jam",
    "shuffler_stop": "stop_midway",
    "shuffler_incomplete": "incomplete",
    "shuffler_wrong_count": "wrong_count",
}
# Baccarat and Midibaccarat, the dealer's, in a round: 545.15(a)-(c), 543.14(a)-(c).
DRAWN_IN_ERROR = "drawn_in_error"
PLAYER_THIRD_CARD = "player_third_card"
BACCARAT_ROUND_FAULTS = (DRAWN_IN_ERROR, PLAYER_THIRD_CARD)
DEFAULT_CUT_AT = 16  # cover card 16 cards above the bottom, as the examples place it


class ScenarioError(ValueError):
    """A scenario the bench cannot play; the message is one line."""


class BenchError(Exception):
    """The scenario could not be played to its end (a device failed to come up, a stall)."""


@dataclass(frozen=True)
class Unplug:
    device: str
    at_card: int
    duration_ms: int


@dataclass(frozen=True)
class Irregularity:
    """A game irregularity the simulated devices or the bench's dealer commit: the
    shoe's (``ten``, ``face_up``) at card ``at_card``; the reader's (``reader_*``) at
    the first peek of round ``at_round`` or later (``code``: a malfunction's code); the
    dealer's (``reader_misuse``, ``drawn_in_error``, ``player_third_card``) in the first
    round ``at_round`` or later where it can happen (``disclosed``: the card drawn in
    error was seen); the shuffler's (``shuffler_*``) at its ``at_shuffle``-th shuffle
    (``delta``: a wrong count's difference)."""

    kind: str
    at_card: int = 0
    at_round: int = 0
    code: int | None = None
    at_shuffle: int = 0
    delta: int | None = None
    disclosed: bool = False


@dataclass(frozen=True)
class Scripted:
    """A scripted decision; ``amount``: a Double Down's wager, when not the full original
    wager (551.11(a))."""

    decision: str
    amount: Decimal | None = None

    def __str__(self) -> str:
        if self.amount is None:
            return repr(self.decision)
        return f"{{{self.decision!r}: {json_value(self.amount)}}}"


@dataclass(frozen=True)
class SpanishRound:
    """One round's script: amounts by box, the decisions each box takes in order across
    its hands, and who wagers on which box (551.14; a box not named is its own
    player's)."""

    wagers: dict[int, Decimal]
    match_the_dealer: dict[int, Decimal] = field(default_factory=dict)
    insurance: dict[int, Decimal] = field(default_factory=dict)
    decisions: dict[int, tuple[Scripted, ...]] = field(default_factory=dict)
    players: dict[int, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Scenario:
    game: str
    rules: BaccaratRules | Spanish21Rules
    shoe: list[str] | None  # stacked, in the order the cards leave the shoe
    seed: int
    cut_at: int
    rounds: list[dict[int, dict[str, Decimal]]]  # Baccarat and Midibaccarat
    rates: dict[str, float] = field(default_factory=dict)
    unplugs: list[Unplug] = field(default_factory=list)
    spanish_rounds: list[SpanishRound] = field(default_factory=list)
    irregularities: list[Irregularity] = field(default_factory=list)
    shuffler: bool = False  # a stacked shoe that the simulated shuffler shuffles
    # How the simulated shuffler shuffles; any but random makes each shoe after the first
    # the shuffler's order of the shoe before (docs/shuffle-monitor.md).
    shuffle_model: shuffle_models.ShuffleModel = shuffle_models.DEFAULT

    @property
    def chained(self) -> bool:
        """Each shoe the simulated shuffler's model applied to the shoe before."""
        model = self.shuffle_model != shuffle_models.DEFAULT
        return model and self.shoe is None and not self.continuous

    @property
    def continuous(self) -> bool:
        """551.15: a continuous shuffling device shuffles the cards before every round."""
        return isinstance(self.rules, Spanish21Rules) and self.rules.continuous_shuffler

    @property
    def shoes(self) -> int:
        """The shoes the bench plays: one; with a continuous shuffler, where every round
        is a shoe of its own (551.15), one for each scripted round, at least one."""
        return max(1, len(self.spanish_rounds)) if self.continuous else 1

    @property
    def card_faults(self) -> list[Irregularity]:
        return [f for f in self.irregularities if f.kind in CARD_IRREGULARITIES]

    @property
    def reader_faults(self) -> list[Irregularity]:
        return [f for f in self.irregularities if f.kind in READER_IRREGULARITIES]

    @property
    def misuse_faults(self) -> list[Irregularity]:
        return [f for f in self.irregularities if f.kind == READER_MISUSE]

    @property
    def round_faults(self) -> list[Irregularity]:
        return [f for f in self.irregularities if f.kind in BACCARAT_ROUND_FAULTS]

    def shuffle_fault(self, shuffle: int) -> Irregularity | None:
        """The shuffler's irregularity at its ``shuffle``-th shuffle (from 1), if any."""
        return next(
            (
                f
                for f in self.irregularities
                if f.kind in SHUFFLER_FAULTS and f.at_shuffle == shuffle
            ),
            None,
        )

    @property
    def uses_shuffler(self) -> bool:
        return self.shoe is None or self.shuffler

    @property
    def order(self) -> list[str]:
        """Every token in the order it leaves the shoe: what the dealer's hands hold.
        A seeded shoe is shuffled exactly as the simulated shoe shuffles it."""
        if self.shoe is not None:
            return self.shoe
        if self.continuous:
            return continuous_batch(self, 0)
        if self.chained:
            return model_first_shoe(self)
        return sim_decks.build_shoe(
            self.rules.decks,
            spanish=self.game == SPANISH21,
            rng=sim_decks.make_rng(self.seed),
            cut_at=self.cut_at,
        )


def continuous_batch(scenario: Scenario, shoe: int) -> list[str]:
    """551.15: the cards a continuous shuffling device puts in the shoe for its
    ``shoe``-th shuffle (from 0): every deck, shuffled from the seed, no cutting card."""
    rng = random.Random(f"{scenario.seed}:continuous:{shoe}")
    return sim_decks.build_shoe(scenario.rules.decks, spanish=True, rng=rng)


def model_first_shoe(scenario: Scenario) -> list[str]:
    """The first shoe of a chained scenario: fresh decks in pack order
    (``firmware_sim.decks.deck``) shuffled by the scenario's model from its seed, the
    cutting card ``cut_at`` cards from the end."""
    spanish = scenario.game == SPANISH21
    pack = sim_decks.deck(spanish) * scenario.rules.decks
    rng = random.Random(f"{scenario.seed}:model:first")
    return with_cut(shuffle_models.apply(scenario.shuffle_model, pack, rng), scenario.cut_at)


def with_cut(cards: list[str], cut_at: int) -> list[str]:
    """``cards`` with the cutting card ``cut_at`` cards from the end (at most all)."""
    at = max(0, len(cards) - cut_at)
    return [*cards[:at], sim_decks.CUT, *cards[at:]]


def next_shoe(scenario: Scenario, shoe: int) -> list[str]:
    """The tokens of the ``shoe``-th shoe after the first (from 1) in the order they leave
    the shoe, cutting card included: shuffled from the seed and the shoe's number."""
    rng = random.Random(f"{scenario.seed}:shoe:{shoe}")
    spanish = scenario.game == SPANISH21
    return sim_decks.build_shoe(
        scenario.rules.decks, spanish=spanish, rng=rng, cut_at=scenario.cut_at
    )


def rack_order(scenario: Scenario, rack: list[str], shoe: int, round_: int) -> list[str]:
    """551.16(g): the discard rack's cards as shuffled and cut, the order they leave the
    shoe: shuffled from the seed, the shoe and the round, so a run replays."""
    cards = list(rack)
    random.Random(f"{scenario.seed}:rack:{shoe}:{round_}").shuffle(cards)
    return cards
