"""``tablectl bench SCENARIO.json --events OUT.jsonl``: play a scenario on simulated
devices through the real drivers and the table machine, and write the event stream.

The simulated shoe (and, for a seeded shoe, the shuffler; for Spanish 21, the card
reader) run as processes on pseudo-terminals; the real drivers connect over the
serial path. The bench is the table's dealer, players and floorperson: it shuffles
(or declares a manual shuffle for a stacked shoe), places the scenario's wagers and
takes its decisions (then seeded random wagers and basic strategy), draws each card
the table asks for, puts the hole card in the reader when the table arms it, injects
the scenario's faults and clears the table once a faulted device is back. The output
format is in docs/bench.md.
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import json
import queue
import random
import secrets
import sys
import tempfile
import time
from abc import ABC, abstractmethod
from collections import Counter, deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any, Protocol, TextIO

from controller.devices_adapter import TableDevices
from controller.errors import EXPECTED
from controller.observed_journal import ObservedJournal
from controller.rules.baccarat import (
    BETS,
    GAMES,
    BaccaratRules,
    RulesError,
    WagerError,
    next_to_draw,
    wager_amount,
)
from controller.rules.cards import CUT, CardError, card, check_composition
from controller.rules.spanish21 import (
    BOXES,
    DECISIONS,
    Hand,
    Spanish21Rules,
    allowed_decisions,
    box_context,
    card_value,
    reader_allowed,
)
from controller.table.baccarat import SEATS, BaccaratTable
from controller.table.events import (
    Command,
    DealersCard,
    Decision,
    DisclosedCard,
    FloorClear,
    InspectReader,
    ManualShuffle,
    Need,
    NoMoreBets,
    Wager,
)
from controller.table.spanish21 import (
    CARDS_PER_DECK,
    DEALER_TURN,
    PEEK_DUE,
    PLAYING,
    RACK_BURN_DUE,
    RACK_SHUFFLE_DUE,
    Spanish21Table,
)
from drivers import messages as m
from drivers.device import DeviceDriver, ReaderDriver, ShoeDriver, ShufflerDriver
from firmware_sim import decks as sim_decks
from firmware_sim.harness import SimError, SimProcess

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130

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
# How the shuffler's irregularities reach the table (the dry run plays them the same way).
SHUFFLER_FAULT_EVENTS: dict[str, type[m.Event]] = {
    "shuffler_jam": m.ShufflerJam,
    "shuffler_stop": m.ShufflerStopped,
    "shuffler_incomplete": m.CycleIncomplete,
}
SHUFFLE_ENDS = (m.ShuffleCompleted, m.ShufflerJam, m.ShufflerStopped, m.CycleIncomplete)
# Baccarat and Midibaccarat, the dealer's, in a round: 545.15(a)-(c), 543.14(a)-(c).
DRAWN_IN_ERROR = "drawn_in_error"
PLAYER_THIRD_CARD = "player_third_card"
BACCARAT_ROUND_FAULTS = (DRAWN_IN_ERROR, PLAYER_THIRD_CARD)
MAX_COUNT = 0xFFFF  # the shuffler's card count is a 16-bit field
DEFAULT_CUT_AT = 16  # cover card 16 cards above the bottom, as the examples place it
MIN_CUT_AT = 14  # 545.5(d), 543.5(e): at least 14 cards above the bottom
MAX_UNPLUG_MS = 3_600_000
CONNECT_TIMEOUT = 10.0
STALL_TIMEOUT = 10.0  # no event for this long while waiting for one: the bench gives up
POLL_INTERVAL = 0.002  # how often the dealer looks at the reader's "armed" light
AUTOPLAY_SEATS = 7
AUTOPLAY_AMOUNTS = (10, 25, 50, 100)
SPANISH_AMOUNTS = (5, 10, 25, 50)
SPANISH_KEYS = ("wagers", "match_the_dealer", "insurance", "decisions", "players")
PARTIAL_DOUBLE = "double"  # {"double": 5}: a Double Down for less than the wager (551.11(a))

_KEYS = {
    "game",
    "rules",
    "shoe",
    "shuffler",
    "decks",
    "seed",
    "cut_at",
    "rounds",
    "faults",
    "players",
}


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
        return f"{{{self.decision!r}: {_json_value(self.amount)}}}"


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


# --------------------------------------------------------------------------- scenario


def load_scenario(path: str) -> Scenario:
    """The validated scenario in ``path``; ScenarioError naming what is wrong and where.

    A Spanish 21 scenario is also played once in-process on synthetic devices, so a
    scripted decision the table refuses is named before anything starts."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ScenarioError(f"cannot read the scenario: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ScenarioError("the scenario is not UTF-8 text") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ScenarioError(f"not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ScenarioError("a scenario is a JSON object")
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise ScenarioError(f"unknown key {unknown[0]!r}; expected {', '.join(sorted(_KEYS))}")
    game = data.get("game")
    if game not in (*GAMES, SPANISH21):
        raise ScenarioError(f"unknown game {game!r}; expected baccarat, midibaccarat or spanish21")
    rules_data = data.get("rules", {})
    if not isinstance(rules_data, dict):
        raise ScenarioError("rules must be an object of Rules Submission options")
    rules_data = dict(rules_data)
    if "decks" in data:
        if "shoe" in data:
            raise ScenarioError("give either a stacked shoe or decks and seed, not both")
        if rules_data.setdefault("decks", data["decks"]) != data["decks"]:
            raise ScenarioError("decks and rules.decks differ")
    rules: BaccaratRules | Spanish21Rules
    try:
        if game == SPANISH21:
            rules = Spanish21Rules.from_dict(rules_data)
        else:
            rules = BaccaratRules.from_dict(game, rules_data)
    except RulesError as exc:
        raise ScenarioError(str(exc)) from None
    seed = _integer(data, "seed", 0)
    spanish = game == SPANISH21
    shoe = _shoe(data["shoe"], rules.decks, spanish) if "shoe" in data else None
    continuous = isinstance(rules, Spanish21Rules) and rules.continuous_shuffler
    if continuous and shoe is not None:
        raise ScenarioError(
            "shoe: with rules.continuous_shuffler the device shuffles the cards before "
            "every round (551.15): give decks and seed, not a stacked shoe"
        )
    if continuous and "cut_at" in data:
        raise ScenarioError(
            "cut_at: a continuous shuffling device's cards have no cutting card (551.15)"
        )
    shuffler = data.get("shuffler", False)
    if not isinstance(shuffler, bool):
        raise ScenarioError(f"shuffler: expected true or false, got {shuffler!r}")
    if "shuffler" in data and shoe is None:
        raise ScenarioError(
            "shuffler: a seeded shoe is always the shuffler's; the key is for a stacked shoe"
        )
    if "players" in data and not spanish:
        raise ScenarioError("players: names a Spanish 21 box's player (551.14); this is " + game)
    if shoe is not None and "cut_at" in data:
        raise ScenarioError("cut_at places the cover card in a seeded shoe; a stacked shoe has it")
    if spanish:
        # 551.5(e): the cutting card at least about a quarter of the way in from the bottom.
        cards = rules.decks * CARDS_PER_DECK
        least, section = cards // 4, "551.5(e)"
    else:
        cards, least = rules.decks * 52, MIN_CUT_AT
        section = "545.5(d)" if game == "baccarat" else "543.5(e)"
    cut_at = _integer(data, "cut_at", least if spanish else DEFAULT_CUT_AT)
    if not least <= cut_at <= cards:
        raise ScenarioError(
            f"cut_at: the cover card goes {least}..{cards} cards above the bottom ({section})"
        )
    per_deck = CARDS_PER_DECK if spanish else 52
    rates, unplugs, irregularities = _faults(
        data.get("faults", []), shoe is None or shuffler, spanish, rules.decks * per_deck
    )
    if not spanish:
        rounds = _rounds(data.get("rounds", []), game)
        return Scenario(
            game, rules, shoe, seed, cut_at, rounds, rates, unplugs, [], irregularities, shuffler
        )
    scenario = Scenario(
        game,
        rules,
        shoe,
        seed,
        cut_at,
        [],
        rates,
        unplugs,
        _spanish_rounds(data.get("rounds", []), _players(data.get("players", {}), "players")),
        irregularities,
        shuffler,
    )
    _DryRun(scenario).run()
    return scenario


def _integer(data: Mapping[str, Any], key: str, default: int, where: str = "") -> int:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        at = f"{where}.{key}" if where else key
        raise ScenarioError(f"{at}: expected a whole number, got {value!r}")
    return value


def _shoe(raw: object, decks: int, spanish: bool) -> list[str]:
    if not isinstance(raw, list) or not raw:
        raise ScenarioError("shoe: expected a non-empty list of card tokens")
    tokens: list[str] = []
    for i, token in enumerate(raw):
        if not isinstance(token, str):
            raise ScenarioError(f"shoe[{i}]: {token!r} is not a card token")
        if token.strip().upper() == CUT:
            if CUT in tokens:
                raise ScenarioError(f"shoe[{i}]: a second CUT; the shoe holds one cover card")
            tokens.append(CUT)
            continue
        try:
            tokens.append(card(token))
        except CardError as exc:
            raise ScenarioError(f"shoe[{i}]: {exc}") from None
    try:
        check_composition(tokens, decks, spanish)
    except CardError as exc:
        raise ScenarioError(f"shoe: {exc}") from None
    return tokens


def _rounds(raw: object, game: str) -> list[dict[int, dict[str, Decimal]]]:
    if not isinstance(raw, list):
        raise ScenarioError("rounds: expected a list of round scripts")
    seats = SEATS[game]
    section = "545.2(a)" if game == "baccarat" else "543.2(a)"
    out: list[dict[int, dict[str, Decimal]]] = []
    for i, script in enumerate(raw):
        where = f"rounds[{i}]"
        if not isinstance(script, dict):
            raise ScenarioError(f"{where}: expected an object such as {{'wagers': {{...}}}}")
        unknown = sorted(set(script) - {"wagers"})
        if unknown:
            raise ScenarioError(f"{where}: unknown key {unknown[0]!r}; a {game} round has wagers")
        wagers = script.get("wagers", {})
        if not isinstance(wagers, dict):
            raise ScenarioError(f"{where}.wagers: expected seats mapped to bets")
        round_wagers: dict[int, dict[str, Decimal]] = {}
        for seat_key, bets in wagers.items():
            at = f"{where}.wagers.{seat_key}"
            try:
                seat = int(seat_key)
            except ValueError:
                seat = 0
            if not 1 <= seat <= seats:
                raise ScenarioError(f"{at}: not a seat 1..{seats} ({section})")
            if not isinstance(bets, dict) or not bets:
                raise ScenarioError(f"{at}: expected bets such as {{'banker': 100}}")
            round_wagers[seat] = {}
            for bet, amount in bets.items():
                if bet not in BETS:
                    raise ScenarioError(f"{at}: {bet!r} is not player, banker or tie")
                if isinstance(amount, bool) or not isinstance(amount, int | float):
                    raise ScenarioError(f"{at}.{bet}: {amount!r} is not an amount")
                try:
                    round_wagers[seat][bet] = wager_amount(bet, Decimal(str(amount)))
                except WagerError as exc:
                    raise ScenarioError(f"{at}.{bet}: {exc}") from None
        out.append(round_wagers)
    return out


def _players(raw: object, where: str) -> dict[int, str]:
    """Who wagers on which box: boxes mapped to players' names (551.14)."""
    if not isinstance(raw, dict):
        raise ScenarioError(
            f"{where}: expected boxes mapped to players' names, such as {{'1': 'ann', '2': 'ann'}}"
        )
    out: dict[int, str] = {}
    for key, name in raw.items():
        at = f"{where}.{key}"
        box = _box(key, at)
        if not isinstance(name, str) or not name.strip():
            raise ScenarioError(f"{at}: expected a player's name, got {name!r}")
        out[box] = name
    return out


def _scripted(decision: object, at: str) -> Scripted:
    """A scripted decision: one of DECISIONS, or ``{"double": amount}``."""
    if isinstance(decision, str):
        if decision not in DECISIONS:
            raise ScenarioError(f"{at}: {decision!r} is not one of {', '.join(DECISIONS)}")
        return Scripted(decision)
    if isinstance(decision, dict) and list(decision) == [PARTIAL_DOUBLE]:
        amount = decision[PARTIAL_DOUBLE]
        if isinstance(amount, bool) or not isinstance(amount, int | float) or amount <= 0:
            raise ScenarioError(f"{at}.double: {amount!r} is not an amount more than 0 (551.11(a))")
        return Scripted(PARTIAL_DOUBLE, Decimal(str(amount)))
    raise ScenarioError(
        f"{at}: {decision!r} is not a decision: one of {', '.join(DECISIONS)}, or "
        "{'double': amount} for a Double Down for less (551.11(a))"
    )


def _spanish_rounds(raw: object, players: Mapping[int, str]) -> list[SpanishRound]:
    if not isinstance(raw, list):
        raise ScenarioError("rounds: expected a list of round scripts")
    out: list[SpanishRound] = []
    for i, script in enumerate(raw):
        where = f"rounds[{i}]"
        if not isinstance(script, dict):
            raise ScenarioError(f"{where}: expected an object such as {{'wagers': {{'1': 10}}}}")
        unknown = sorted(set(script) - set(SPANISH_KEYS))
        if unknown:
            raise ScenarioError(
                f"{where}: unknown key {unknown[0]!r}; a spanish21 round has "
                f"{', '.join(SPANISH_KEYS)}"
            )
        wagers = _box_amounts(script.get("wagers", {}), f"{where}.wagers", "551.6(a)")
        if not wagers:
            raise ScenarioError(f"{where}.wagers: no box holds a wager (551.8(d)(1))")
        sides: dict[str, dict[int, Decimal]] = {}
        for key, section in (("match_the_dealer", "551.7(b)"), ("insurance", "551.10(b)")):
            sides[key] = _box_amounts(script.get(key, {}), f"{where}.{key}", section)
            for box in sides[key]:
                if box not in wagers:
                    raise ScenarioError(
                        f"{where}.{key}.{box}: box {box} holds no Spanish 21 wager ({section})"
                    )
        decisions = script.get("decisions", {})
        if not isinstance(decisions, dict):
            raise ScenarioError(f"{where}.decisions: expected boxes mapped to lists of decisions")
        by_box: dict[int, tuple[Scripted, ...]] = {}
        for key, listed in decisions.items():
            at = f"{where}.decisions.{key}"
            box = _box(key, at)
            if box not in wagers:
                raise ScenarioError(f"{at}: box {box} holds no wager this round (551.8(f))")
            if not isinstance(listed, list):
                raise ScenarioError(f"{at}: expected a list such as ['hit', 'stand']")
            by_box[box] = tuple(_scripted(d, f"{at}[{k}]") for k, d in enumerate(listed))
        named = {**players, **_players(script.get("players", {}), f"{where}.players")}
        out.append(
            SpanishRound(wagers, sides["match_the_dealer"], sides["insurance"], by_box, named)
        )
    return out


def _box(key: str, at: str) -> int:
    try:
        box = int(key)
    except ValueError:
        box = 0
    if box not in BOXES:
        raise ScenarioError(f"{at}: not a box 1..7 (551.2(b)(2))")
    return box


def _box_amounts(raw: object, where: str, section: str) -> dict[int, Decimal]:
    if not isinstance(raw, dict):
        raise ScenarioError(f"{where}: expected boxes mapped to amounts, such as {{'1': 10}}")
    out: dict[int, Decimal] = {}
    for key, amount in raw.items():
        at = f"{where}.{key}"
        box = _box(key, at)
        if isinstance(amount, bool) or not isinstance(amount, int | float) or amount <= 0:
            raise ScenarioError(f"{at}: {amount!r} is not an amount more than 0 ({section})")
        out[box] = Decimal(str(amount))
    return out


def _faults(
    raw: object, with_shuffler: bool, spanish: bool, cards: int
) -> tuple[dict[str, float], list[Unplug], list[Irregularity]]:
    if not isinstance(raw, list):
        raise ScenarioError("faults: expected a list of faults")
    devices = (
        "shoe",
        *(("reader",) if spanish else ()),
        *(("shuffler",) if with_shuffler else ()),
    )
    rates: dict[str, float] = {}
    unplugs: list[Unplug] = []
    irregularities: list[Irregularity] = []
    shuffles: list[tuple[int, int]] = []  # (at_shuffle, index in faults)
    for i, fault in enumerate(raw):
        where = f"faults[{i}]"
        if not isinstance(fault, dict):
            raise ScenarioError(f"{where}: expected an object with a kind")
        kind = fault.get("kind")
        if kind in RATE_FAULTS:
            extra = sorted(set(fault) - {"kind", "rate"})
            if extra:
                raise ScenarioError(f"{where}: unknown key {extra[0]!r} for a {kind} fault")
            rate = fault.get("rate")
            if isinstance(rate, bool) or not isinstance(rate, int | float) or not 0 <= rate <= 1:
                raise ScenarioError(f"{where}.rate: expected a probability 0..1")
            rates[kind] = float(rate)
        elif kind == "unplug":
            extra = sorted(set(fault) - {"kind", "device", "at_card", "duration_ms"})
            if extra:
                raise ScenarioError(f"{where}: unknown key {extra[0]!r} for an unplug")
            device = fault.get("device", "shoe")
            if device not in devices:
                raise ScenarioError(f"{where}.device: expected {' or '.join(devices)}")
            at_card = _integer(fault, "at_card", 0, where)
            if at_card < 1:
                raise ScenarioError(f"{where}.at_card: expected the number of a card, 1 or more")
            duration = _integer(fault, "duration_ms", 300, where)
            if not 0 <= duration <= MAX_UNPLUG_MS:
                raise ScenarioError(f"{where}.duration_ms: expected 0..{MAX_UNPLUG_MS}")
            unplugs.append(Unplug(device, at_card, duration))
        elif kind in CARD_IRREGULARITIES or (spanish and kind in READER_IRREGULARITIES):
            irregularities.append(_irregularity(fault, str(kind), where, spanish))
        elif kind in SHUFFLER_FAULTS:
            if not with_shuffler:
                raise ScenarioError(
                    f"{where}.kind: a {kind} fault needs a seeded shoe (decks and seed) "
                    'or "shuffler": true: a stacked shoe is otherwise shuffled by hand'
                )
            irregularities.append(_shuffler_fault(fault, str(kind), where, cards))
            shuffles.append((irregularities[-1].at_shuffle, i))
        elif kind == READER_MISUSE:
            if not spanish:
                raise ScenarioError(
                    f"{where}.kind: a {kind} fault is for a spanish21 table (551.16(l))"
                )
            irregularities.append(_round_fault(fault, kind, where))
        elif kind in BACCARAT_ROUND_FAULTS:
            if spanish:
                raise ScenarioError(
                    f"{where}.kind: a {kind} fault is for a baccarat or midibaccarat table"
                )
            irregularities.append(_round_fault(fault, str(kind), where))
        else:
            kinds = ", ".join(_fault_kinds(spanish, with_shuffler))
            raise ScenarioError(f"{where}.kind: {kind!r} is not one of {kinds}")
    _check_shuffles(shuffles)
    unplugs.sort(key=lambda u: u.at_card)
    irregularities.sort(key=lambda f: (f.at_card, f.at_round, f.at_shuffle))
    return rates, unplugs, irregularities


def _fault_kinds(spanish: bool, with_shuffler: bool) -> tuple[str, ...]:
    card_kinds = CARD_IRREGULARITIES if spanish else ("face_up",)
    round_kinds = (*READER_IRREGULARITIES, READER_MISUSE) if spanish else BACCARAT_ROUND_FAULTS
    shuffler_kinds = tuple(SHUFFLER_FAULTS) if with_shuffler else ()
    return (*RATE_FAULTS, "unplug", *card_kinds, *round_kinds, *shuffler_kinds)


def _irregularity(fault: Mapping[str, Any], kind: str, where: str, spanish: bool) -> Irregularity:
    if kind == "ten" and not spanish:
        # 551.16(b): a ten is an irregularity only in a Spanish deck.
        raise ScenarioError(f"{where}.kind: a ten fault is for a spanish21 shoe")
    if kind in CARD_IRREGULARITIES:
        extra = sorted(set(fault) - {"kind", "at_card"})
        if extra:
            raise ScenarioError(f"{where}: unknown key {extra[0]!r} for a {kind} fault")
        at_card = _integer(fault, "at_card", 0, where)
        if at_card < 1:
            raise ScenarioError(f"{where}.at_card: expected the number of a card, 1 or more")
        return Irregularity(kind, at_card=at_card)
    allowed = {"kind", "at_round", *(("code",) if kind == "reader_malfunction" else ())}
    extra = sorted(set(fault) - allowed)
    if extra:
        raise ScenarioError(f"{where}: unknown key {extra[0]!r} for a {kind} fault")
    at_round = _integer(fault, "at_round", 0, where)
    if at_round < 1:
        raise ScenarioError(f"{where}.at_round: expected the number of a round, 1 or more")
    code = None
    if kind == "reader_malfunction":
        code = _integer(fault, "code", 1, where)
        if not 0 <= code <= 255:
            raise ScenarioError(f"{where}.code: expected a malfunction code 0..255")
    return Irregularity(kind, at_round=at_round, code=code)


def _round_fault(fault: Mapping[str, Any], kind: str, where: str) -> Irregularity:
    """The dealer's irregularity in a round: ``reader_misuse``, ``drawn_in_error``
    (which may be ``disclosed``) or ``player_third_card``."""
    allowed = {"kind", "at_round", *(("disclosed",) if kind == DRAWN_IN_ERROR else ())}
    extra = sorted(set(fault) - allowed)
    if extra:
        raise ScenarioError(f"{where}: unknown key {extra[0]!r} for a {kind} fault")
    at_round = _integer(fault, "at_round", 0, where)
    if at_round < 1:
        raise ScenarioError(f"{where}.at_round: expected the number of a round, 1 or more")
    disclosed = fault.get("disclosed", False)
    if not isinstance(disclosed, bool):
        raise ScenarioError(f"{where}.disclosed: expected true or false, got {disclosed!r}")
    return Irregularity(kind, at_round=at_round, disclosed=disclosed)


def _shuffler_fault(fault: Mapping[str, Any], kind: str, where: str, cards: int) -> Irregularity:
    wrong_count = kind == "shuffler_wrong_count"
    allowed = {"kind", "at_shuffle", *(("delta",) if wrong_count else ())}
    extra = sorted(set(fault) - allowed)
    if extra:
        raise ScenarioError(f"{where}: unknown key {extra[0]!r} for a {kind} fault")
    at_shuffle = _integer(fault, "at_shuffle", 1, where)
    if at_shuffle < 1:
        raise ScenarioError(f"{where}.at_shuffle: expected the number of a shuffle, 1 or more")
    delta = None
    if wrong_count:
        if "delta" not in fault:
            raise ScenarioError(f"{where}.delta: the count's difference is required, such as -1")
        delta = _integer(fault, "delta", 0, where)
        if delta == 0 or not -cards <= delta <= MAX_COUNT - cards:
            raise ScenarioError(
                f"{where}.delta: expected a difference from the {cards} cards other than 0, "
                f"{-cards}..{MAX_COUNT - cards}"
            )
    return Irregularity(kind, at_shuffle=at_shuffle, delta=delta)


def _check_shuffles(shuffles: list[tuple[int, int]]) -> None:
    """The shuffler's faults fail shuffles 1, 2, ... in turn: the bench asks again after
    each failure and plays the shoe after the first good shuffle."""
    previous: tuple[int, int] | None = None
    for at, i in sorted(shuffles):
        if previous is not None and at == previous[0]:
            raise ScenarioError(
                f"faults[{i}].at_shuffle: shuffle {at} already fails (faults[{previous[1]}])"
            )
        expected = 1 if previous is None else previous[0] + 1
        if at != expected:
            raise ScenarioError(
                f"faults[{i}].at_shuffle: shuffle {at} never happens: shuffle {expected} "
                "completes and the shoe is played"
            )
        previous = (at, i)


# --------------------------------------------------------------------------- output


class JsonlJournal(ObservedJournal):
    """The bench's record: one JSON object per line, flushed before ``record`` returns,
    so a card is on file before it is acknowledged to the shoe."""

    def __init__(self, out: TextIO) -> None:
        super().__init__()
        self._out = out

    def _write(self, entry: Mapping[str, object]) -> None:
        self._out.write(json.dumps(entry, default=_json_value) + "\n")
        self._out.flush()


def _json_value(value: object) -> object:
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    raise TypeError(f"{type(value).__name__} is not JSON")


# --------------------------------------------------------------------------- the run


def clear_as_the_floorperson(table: BaccaratTable | Spanish21Table) -> None:
    """The bench's floorperson clears a stopped table, recording the device's repair
    where one is needed (551.16(m))."""
    table.handle(FloorClear(repair="repaired" if table.repair_needed else None))


class _Bench(ABC):
    """The dealer and floorperson of one scenario run, on the thread that owns the table:
    the bench's (``connect``, ``play``), or the daemon's simulated console, which hands
    each event to the table itself, then to ``saw``, and calls ``step``."""

    def __init__(
        self,
        scenario: Scenario,
        table: BaccaratTable | Spanish21Table,
        journal: ObservedJournal,
        sims: Mapping[str, SimProcess],
        drivers: Mapping[str, DeviceDriver],
    ) -> None:
        self.s = scenario
        self.table = table
        self.journal = journal
        self.sims = sims
        self.drivers = drivers
        self.pending: set[int] = set()  # shoe event ids of the last draw not yet handled
        self.cards = 0
        self.unplugs = list(scenario.unplugs)
        self.card_faults = scenario.card_faults
        self.unplugged: str | None = None  # until the table has seen the device go
        self.replug_at = 0.0  # no event need come from an unplugged device before this
        self.shuffle_requested = False  # until the shuffler reports the shuffle's end
        self.shuffles = 0  # shuffles asked of the shuffler, failed ones included
        self.polling = False  # looking at a device's light rather than waiting for an event
        self.shoes_loaded = 1  # the first shoe's cards are the simulator's own

    @abstractmethod
    def act(self) -> bool:
        """Do the next thing the table needs; False when that means waiting."""

    def start(self) -> None:  # noqa: B027 - only Spanish 21 has a start of day
        """What the floorperson does once the devices are connected."""

    def finish(self) -> None:  # noqa: B027 - only Spanish 21 checks its script
        """After the last round."""

    def connect(self, events: queue.Queue[m.Event]) -> None:
        deadline = time.monotonic() + CONNECT_TIMEOUT
        while not all(d.connected.is_set() for d in self.drivers.values()):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                down = [n for n, d in self.drivers.items() if not d.connected.is_set()]
                raise BenchError(f"the simulated {' and '.join(down)} did not connect")
            try:
                event = events.get(timeout=min(remaining, 0.2))
            except queue.Empty:
                continue
            if isinstance(event, m.DeviceRefused):
                raise BenchError(f"the {event.device} was refused: {event.detail}")
            self.handle(event)

    def play(self, events: queue.Queue[m.Event]) -> None:
        while self.table.shoes_completed < self.s.shoes:
            while True:
                try:
                    self.handle(events.get_nowait())
                except queue.Empty:
                    break
            if self.table.shoes_completed >= self.s.shoes or self.step():
                continue
            if self.polling:
                timeout = POLL_INTERVAL
            else:
                timeout = STALL_TIMEOUT + max(0.0, self.replug_at - time.monotonic())
            try:
                event = events.get(timeout=timeout)
            except queue.Empty:
                if self.polling:
                    continue
                raise BenchError(
                    f"stalled: no device event for {STALL_TIMEOUT:.0f} s "
                    f"(table state {self.table.state}, {self.cards} cards dealt)"
                ) from None
            self.handle(event)

    def handle(self, event: m.Event) -> None:
        self.table.handle(event)
        self.saw(event)

    def saw(self, event: m.Event) -> None:
        """The table has handled ``event``: what the dealer waited for may be done."""
        if event.device == "shoe" and event.event_id is not None:
            self.pending.discard(event.event_id)
            if isinstance(event, m.CardDrawn):
                self.cards += 1
        elif event.device == "shuffler" and isinstance(event, SHUFFLE_ENDS):
            # Completed, or jammed, stopped or cut short (551.16(j)): a table that still
            # needs shuffled cards gets another shuffle.
            self.shuffle_requested = False

    def step(self) -> bool:
        self.polling = False
        if self.unplugged is not None:
            if self.table.need is not Need.FLOOR:
                return False  # the device's loss is still on its way to the table
            self.unplugged = None
        return self.act()

    def floor(self) -> bool:
        if not self.table.can_clear:
            return False  # the device is not back yet
        clear_as_the_floorperson(self.table)
        return True

    def draw(self) -> bool:
        if self.pending:
            return False
        if self.unplugs and self.unplugs[0].at_card == self.cards + 1:
            self.unplug(self.unplugs.pop(0))
            return False
        while self.card_faults and self.card_faults[0].at_card <= self.cards + 1:
            self.inject_card(self.card_faults.pop(0))
        reply = self.sims["shoe"].control("draw", count=1)
        self.pending.update(reply["event_ids"])
        return False

    def shuffle(self) -> bool:
        if not self.s.continuous and self.table.shoes_completed >= self.shoes_loaded:
            return self.load_next_shoe()
        if not self.s.uses_shuffler:
            self.table.handle(ManualShuffle())  # the stacked shoe is the lab's shuffle
            return True
        if not self.shuffle_requested:
            self.shuffles += 1
            fault = self.s.shuffle_fault(self.shuffles)
            if fault is not None:
                self.inject_shuffle(fault)
            shuffler = self.drivers["shuffler"]
            assert isinstance(shuffler, ShufflerDriver)  # SimProcess.driver picks it by kind
            shuffler.start_shuffle()
            self.shuffle_requested = True
        return False

    def load_next_shoe(self) -> bool:
        """The shoe after the ones played (the bench stops before; the daemon's console
        plays on): the next seeded shoe's cards into the simulated shoe, to be shuffled
        once the table has them."""
        if self.pending:
            return False
        cards = next_shoe(self.s, self.shoes_loaded)
        self.shoes_loaded += 1
        self.new_cards([t for t in cards if t != CUT])
        reply = self.sims["shoe"].control("load", cards=cards)
        self.pending.update(reply["event_ids"])
        return False

    def new_cards(self, cards: list[str]) -> None:  # noqa: B027 - only Spanish 21 tracks its cards
        """``cards`` are the shoe now, in the order they leave it."""

    def inject_shuffle(self, fault: Irregularity) -> None:
        """The shuffler's irregularity at the shuffle about to be asked for: it jams,
        stops part way, does not complete its cycle, or miscounts the cards."""
        entry: dict[str, object] = {
            "type": "fault_injected",
            "kind": fault.kind,
            "device": "shuffler",
            "at_shuffle": fault.at_shuffle,
        }
        fields: dict[str, object] = {}
        if fault.delta is not None:
            entry["delta"] = fields["delta"] = fault.delta
        self.journal.record(entry)
        self.sims["shuffler"].control(SHUFFLER_FAULTS[fault.kind], **fields)

    def command(self, command: Command) -> None:
        """Issue the bench's own ``command``; a refusal is the bench's failure."""
        refused = self.journal.counts["refused"]
        self.table.handle(command)
        if self.journal.counts["refused"] != refused:
            reason = self.journal.last_refusal.get("reason")
            raise BenchError(f"the table refused the bench's {command.name}: {reason}")

    def inject_card(self, fault: Irregularity) -> None:
        """The shoe's irregularity at the next card: a ten put in ahead of it, or the
        card itself coming out face up."""
        self.journal.record(
            {
                "type": "fault_injected",
                "kind": fault.kind,
                "device": "shoe",
                "at_card": fault.at_card,
            }
        )
        self.sims["shoe"].control(fault.kind)
        if fault.kind == "ten":
            self.ten_added()

    def ten_added(self) -> None:  # noqa: B027 - only Spanish 21 tracks its cards
        """A ten is next out of the shoe, ahead of the scenario's order."""

    def unplug(self, fault: Unplug) -> None:
        self.journal.record(
            {
                "type": "fault_injected",
                "kind": "unplug",
                "device": fault.device,
                "at_card": fault.at_card,
                "duration_ms": fault.duration_ms,
            }
        )
        self.sims[fault.device].control("unplug", duration_ms=fault.duration_ms)
        self.unplugged = fault.device
        self.replug_at = time.monotonic() + fault.duration_ms / 1000


class _BaccaratBench(_Bench):
    def __init__(
        self,
        scenario: Scenario,
        table: BaccaratTable,
        journal: ObservedJournal,
        sims: Mapping[str, SimProcess],
        drivers: Mapping[str, DeviceDriver],
    ) -> None:
        super().__init__(scenario, table, journal, sims, drivers)
        self.baccarat = table
        self.rng = random.Random(scenario.seed)
        self.round_faults = scenario.round_faults
        self.fired: set[tuple[str, int]] = set()  # (kind, round): one of each per round
        self.extra: Irregularity | None = None  # a card the dealer is drawing in error
        self.extra_from = 0  # the cards out of the shoe before it
        self.hands: dict[str, list[str]] = {"player": [], "banker": []}  # the round's cards
        self.hands_round = 0
        journal.watchers.append(self.observe)

    def act(self) -> bool:
        need = self.table.need
        if need is Need.SHUFFLE:
            return self.shuffle()
        if need is Need.FLOOR:
            return self.floor()
        if self.extra is not None:
            return self.draw_in_error()
        if need is Need.WAGERS:
            fault = self.error_due()
            if fault is not None:
                return self.draw_in_error()
            self.wagers()
            return True
        self.third_card_to_banker()
        return self.draw()

    def observe(self, entry: Mapping[str, object]) -> None:
        """Follow the round's cards as the table places them (its ``dealt`` lines)."""
        kind = entry.get("type")
        if kind == "dealt":
            if entry.get("round") != self.hands_round:
                self.hands = {"player": [], "banker": []}
                self.hands_round = int(str(entry.get("round")))
            self.hands[str(entry.get("hand"))].append(str(entry.get("card")))
        elif kind in ("round_end", "shoe_end"):
            self.hands = {"player": [], "banker": []}
            self.hands_round = 0

    def error_due(self) -> Irregularity | None:
        """A card the dealer draws before "no more bets" of this round: one drawn in
        error (545.15(a), 543.14(a)), or a third card dealt to the Player's Hand of the
        round just ended, which took none and whose Banker stayed (545.15(b), 543.14(b)).
        Its ``fault_injected`` line is written; ``self.extra`` holds it until it is out."""
        now = self.baccarat.round
        last = self.journal.last.get("round_end", {})
        ended = now - 1
        stayed = (
            last.get("round") == ended
            and last.get("shoe") == self.baccarat.shoe_number
            and not last.get("void")
            and len(_cards(last.get("player"))) == 2
            and len(_cards(last.get("banker"))) == 2
        )
        for fault in self.round_faults:
            if fault.kind == DRAWN_IN_ERROR:
                at = now
            elif stayed:
                at = ended
            else:
                continue
            if fault.at_round <= at and (fault.kind, at) not in self.fired:
                self.start_extra(fault, at)
                return fault
        return None

    def start_extra(self, fault: Irregularity, at: int) -> None:
        self.round_faults.remove(fault)
        self.fired.add((fault.kind, at))
        entry: dict[str, object] = {
            "type": "fault_injected",
            "kind": fault.kind,
            "device": "shoe",
            "at_round": fault.at_round,
            "round": at,
        }
        if fault.kind == DRAWN_IN_ERROR:
            entry["disclosed"] = fault.disclosed
        self.journal.record(entry)
        if fault.kind == DRAWN_IN_ERROR or self.baccarat.need is Need.WAGERS:
            self.extra = fault
            self.extra_from = self.cards

    def draw_in_error(self) -> bool:
        """Draw the card (the cover card does not count), then, when it was seen,
        announce it disclosed (545.15(c), 543.14(c)) so it goes to the discard."""
        if self.pending or self.unplugged is not None:
            return False
        if self.cards == self.extra_from:
            return self.draw()
        fault, self.extra = self.extra, None
        if fault is not None and fault.disclosed:
            self.command(DisclosedCard())
        return True

    def third_card_to_banker(self) -> None:
        """545.15(b), 543.14(b): the Player's Hand may not take a third card and the
        Banker's Hand must draw: the dealer deals the next card to the Player's Hand.
        The shoe cannot tell where the dealer puts it; the table places it as the rules
        do, as the Banker's third card."""
        now = self.baccarat.round
        if self.hands_round != now or (PLAYER_THIRD_CARD, now) in self.fired:
            return
        player, banker = self.hands["player"], self.hands["banker"]
        if len(player) != 2 or len(banker) != 2:
            return
        try:
            banker_draws = next_to_draw(player, banker) == "banker"
        except ValueError:
            return
        fault = next(
            (f for f in self.round_faults if f.kind == PLAYER_THIRD_CARD and f.at_round <= now),
            None,
        )
        if banker_draws and fault is not None:
            self.start_extra(fault, now)

    def wagers(self) -> None:
        index = self.baccarat.round - 1
        script = self.s.rounds[index] if index < len(self.s.rounds) else self.autoplay()
        for seat, bets in sorted(script.items()):
            for bet, amount in bets.items():
                self.table.handle(Wager(seat, bet, amount))
        self.table.handle(NoMoreBets())

    def autoplay(self) -> dict[int, dict[str, Decimal]]:
        wagers: dict[int, dict[str, Decimal]] = {}
        for seat in range(1, AUTOPLAY_SEATS + 1):
            if self.rng.random() < 0.5:
                bet = self.rng.choices(BETS, weights=(45, 45, 10))[0]
                wagers[seat] = {bet: Decimal(self.rng.choice(AUTOPLAY_AMOUNTS))}
        return wagers


def _cards(value: object) -> list[object]:
    return value if isinstance(value, list) else []


# --------------------------------------------------------------------------- Spanish 21


def basic_strategy(hand: Hand, up_card: str, allowed: frozenset[str]) -> str:
    """Autoplay's decision from ``allowed``: a short basic strategy. Split aces and
    eights; double a hard 10 or 11 against a 2-9; draw to a hard 11, to a hard 12-16
    against a 7 or more (12 also against a 2 or 3), to a soft 17, to a soft 18 against
    a 9 or more; otherwise stand."""
    up = card_value(up_card)
    up = 11 if up == 1 else up
    total = hand.total
    if "split" in allowed and hand.cards[0][0] in "A8":
        return "split"
    if "double" in allowed and not hand.soft and total in (10, 11) and up <= 9:
        return "double"
    if hand.soft:
        hit = total <= 17 or (total == 18 and up >= 9)
    else:
        hit = total <= 11 or (total <= 16 and (up >= 7 or (total == 12 and up <= 3)))
    return "hit" if hit and "hit" in allowed else "stand"


class _Players:
    """The players of a Spanish 21 scenario: the round scripts in order, each box's
    decisions taken in order across its hands, then seeded random wagers and basic
    strategy until the shoe ends."""

    def __init__(self, scenario: Scenario) -> None:
        self.scripts = scenario.spanish_rounds
        self.match_offered = isinstance(scenario.rules, Spanish21Rules) and (
            scenario.rules.match_the_dealer
        )
        self.rng = random.Random(scenario.seed)
        self.index = -1
        self.script = SpanishRound({})
        self.left: dict[int, deque[Scripted]] = {}
        self.taken: Counter[int] = Counter()

    @property
    def scripted(self) -> bool:
        return self.index < len(self.scripts)

    def where(self, key: str, box: int | None = None) -> str:
        return (
            f"rounds[{self.index}]"
            + (f".{key}" if key else "")
            + (f".{box}" if box is not None else "")
        )

    def next_round(self) -> SpanishRound:
        self.index += 1
        self.script = self.scripts[self.index] if self.scripted else self.autoplay()
        self.left = {box: deque(listed) for box, listed in self.script.decisions.items()}
        self.taken = Counter()
        return self.script

    def next_is_rescue(self, box: int) -> bool:
        left = self.left.get(box)
        return left is not None and bool(left) and left[0].decision == "rescue"

    def take(self, box: int) -> tuple[Scripted, str] | None:
        """The box's next scripted decision and where the scenario names it."""
        left = self.left.get(box)
        if not left:
            return None
        where = f"{self.where('decisions', box)}[{self.taken[box]}]"
        self.taken[box] += 1
        return left.popleft(), where

    def unused(self) -> str | None:
        """The first scripted decision the round never came to, named; None if none."""
        for box, left in sorted(self.left.items()):
            if left:
                return (
                    f"{self.where('decisions', box)}[{self.taken[box]}]: {left[0]} was "
                    "never taken: the round ended before the box's decisions (a dealer "
                    "Blackjack ends it at the peek, 635a.7(g))"
                )
        return None

    def autoplay(self) -> SpanishRound:
        wagers: dict[int, Decimal] = {}
        match: dict[int, Decimal] = {}
        for box in BOXES:
            if self.rng.random() < 0.4:
                wagers[box] = Decimal(self.rng.choice(SPANISH_AMOUNTS))
                if self.match_offered and self.rng.random() < 0.25:
                    match[box] = min(Decimal(5), wagers[box])
        return SpanishRound(wagers or {1: Decimal(10)}, match)


class _World(Protocol):
    """The physical side of the dealer's work: the simulators, or the dry run's
    synthetic devices. Each returns True when it did something, False to wait."""

    def shuffle(self) -> bool: ...

    def shuffle_rack(self, count: int) -> bool: ...

    def load(self, cards: list[str]) -> bool: ...

    def idle(self) -> bool: ...

    def draw(self) -> bool: ...

    def insert(self, hole: str) -> bool: ...

    def misuse(self, fault: Irregularity, hole: str) -> bool: ...

    def floor(self) -> bool: ...


class _Spanish21Dealer:
    """What the bench's dealer and players do for each need of a Spanish 21 table."""

    def __init__(
        self, scenario: Scenario, table: Spanish21Table, journal: ObservedJournal, world: _World
    ) -> None:
        self.s = scenario
        self.table = table
        self.journal = journal
        self.world = world
        self.players = _Players(scenario)
        self.cards = [t for t in scenario.order if t != CUT]  # the shoe's cards, in order
        self.cards_seen = 0
        # 551.16(g): the discard rack's cards as the table puts them there, and the
        # reshuffled rack the dealer still has to load into the shoe.
        self.rack: list[str] = []
        self.reload: list[str] | None = None
        self.batch = 0  # 551.15: the continuous shuffler's batches loaded so far
        journal.watchers.append(self.observe)
        self.hole: str | None = None
        self.insured = True
        self.misuse = scenario.misuse_faults
        self.misused_round = 0

    def start(self) -> None:
        if self.table.need is not Need.FLOOR:  # a table resumed on a stopped round waits
            self.command(InspectReader())  # 551.2(e): the floorperson, at the start of day

    def ten_added(self) -> None:
        """A ten the dealer will find next in the shoe: it is in his hands' count."""
        self.cards.insert(self.cards_seen, "TS")

    def loaded(self, cards: list[str]) -> None:
        """``cards`` are the shoe now, in the order they leave it; any left go back."""
        self.cards = [*self.cards[: self.cards_seen], *cards]

    def observe(self, entry: Mapping[str, object]) -> None:
        """Follow the discard rack (551.2(f)) by the table's record: burn cards, cards
        found face up, cards sent to it, and each round's cards as it ends; when the
        table has the rack reshuffled (551.16(g)), shuffle those cards for the shoe."""
        kind = entry.get("type")
        if kind == "burn" or (
            kind == "irregularity"
            and (entry.get("section") == "551.16(a)" or entry.get("to") == "discard_rack")
        ):
            self.rack.append(str(entry.get("card")))
        elif kind == "round_end":
            self.rack += [str(c) for c in _cards(entry.get("dealer"))]
            boxes = entry.get("boxes")
            for box in boxes.values() if isinstance(boxes, dict) else ():
                for hand in box.get("hands", ()):
                    self.rack += [str(c) for c in _cards(hand.get("cards"))]
        elif kind == "rack_shuffled":
            if len(self.rack) != entry.get("cards"):
                raise BenchError(
                    f"the dealer's discard rack holds {len(self.rack)} cards; the table "
                    f"counts {entry.get('cards')}"
                )
            shoe, round_ = int(str(entry.get("shoe"))), int(str(entry.get("round")))
            self.reload = rack_order(self.s, self.rack, shoe, round_)
            self.rack = []
        elif kind in ("shuffled", "shoe_end"):
            self.rack = []

    def card_seen(self) -> None:
        """A card out of the shoe reached the table."""
        self.cards_seen += 1
        self.track_hole()

    def track_hole(self) -> None:
        # The dealer draws one card at a time and waits until the table has it, so a
        # hole card just dealt is the last card drawn: the dealer knows it from the
        # shoe's order, as his hand holds it, never from the table (551.8(e)).
        if not self.table.hole_dealt:
            self.hole = None
        elif self.hole is None:
            self.hole = self.cards[self.cards_seen - 1]

    def act(self) -> bool:
        table, players = self.table, self.players
        need = table.need
        if need is Need.FLOOR:
            done = self.world.floor()
            self.track_hole()  # held cards ran
            return done
        if not self.insured and table.state in (PEEK_DUE, PLAYING, DEALER_TURN):
            self.insure()
            return True
        if self.misuse_due():
            if self.hole is None:
                raise BenchError("the dealer lost track of the hole card")
            self.misused_round = table.round
            return self.world.misuse(self.misuse.pop(0), self.hole)
        rescue = table.rescuable
        if rescue is not None and players.next_is_rescue(rescue[0]):
            self.decide(rescue[0])
            return True
        if need is Need.SHUFFLE and table.state == RACK_SHUFFLE_DUE:
            return self.world.shuffle_rack(len(self.rack))  # 551.16(g)
        loading = (need is Need.SHUFFLE and self.s.continuous) or table.state == RACK_BURN_DUE
        if loading and not self.world.idle():
            return False  # the shoe's last events are on their way
        if need is Need.SHUFFLE and self.s.continuous and self.batch <= table.shoes_completed:
            # 551.15: the device's cards go into the shoe, then it confirms its shuffle.
            cards = continuous_batch(self.s, self.batch)
            self.batch += 1
            self.loaded(cards)
            return self.world.load(cards)
        if need is Need.SHUFFLE:
            return self.world.shuffle()
        if table.state == RACK_BURN_DUE and self.reload is not None:
            cards, self.reload = self.reload, None
            self.loaded(cards)  # 551.16(g): the reshuffled rack into the shoe
            return self.world.load(cards)
        if need is Need.INSPECTION:
            self.command(InspectReader())
            return True
        if need is Need.WAGERS:
            self.open_round()
            return True
        if need is Need.PEEK:
            if self.hole is None:
                raise BenchError("the dealer lost track of the hole card")
            return self.world.insert(self.hole)
        if need is Need.DECISION:
            turn = table.turn
            assert turn is not None  # Need.DECISION names a hand in play
            self.left_over(turn[0])
            self.decide(turn[0])
            return True
        if need is Need.REVEAL:
            self.left_over(None)
            self.command(DealersCard())
            return True
        if need is Need.CARD:
            return self.world.draw()
        return False  # a device's answer is on its way

    def misuse_due(self) -> bool:
        """551.16(l): the scenario has the dealer put the hole card in the reader behind
        a 2-9 up card, in the first such round from ``at_round`` on, before any decision
        (the first thing the dealer does once the round is in play)."""
        table = self.table
        up = table.up_card
        return (
            bool(self.misuse)
            and table.state == PLAYING
            and table.round >= self.misuse[0].at_round
            and table.round != self.misused_round
            and table.hole_dealt
            and up is not None
            and not reader_allowed(up)
        )

    def open_round(self) -> None:
        self.finish()
        script = self.players.next_round()
        self.insured = not script.insurance
        where = self.players.where
        named = script.players
        for box, amount in sorted(script.wagers.items()):
            wager = Wager(box, "spanish21", amount, named.get(box))
            self.command(wager, where("wagers", box))
        for box, amount in sorted(script.match_the_dealer.items()):
            wager = Wager(box, "match_the_dealer", amount, named.get(box))
            self.command(wager, where("match_the_dealer", box))
        self.command(NoMoreBets(), where(""))

    def left_over(self, before: int | None) -> None:
        """The table has moved past the boxes before ``before`` (all of them: None). A
        decision scripted for one is put to the table all the same, so the scenario's
        error is the table's own refusal, with its reason."""
        for box in sorted(self.players.left):
            if (before is None or box < before) and self.players.left[box]:
                self.decide(box)

    def insure(self) -> None:
        """The scripted Insurance, once the up card is known: offered only against an
        ace (551.10(a)), so the table refuses it otherwise and the scenario is bad."""
        self.insured = True
        script = self.players.script
        for box, amount in sorted(script.insurance.items()):
            where = self.players.where("insurance", box)
            self.command(Wager(box, "insurance", amount, script.players.get(box)), where)

    def decide(self, box: int) -> None:
        table = self.table
        taken = self.players.take(box)
        if taken is not None:
            scripted, where = taken
            self.command(Decision(box, scripted.decision, scripted.amount), where)
            return
        turn = table.turn
        up = table.up_card
        assert turn is not None and up is not None  # only asked for the hand in play
        hands = table.hands_of(box)
        ctx = box_context(hands, turn[1], up_card=up, peeked=True)
        decision = basic_strategy(hands[turn[1]], up, allowed_decisions(hands[turn[1]], ctx))
        self.command(Decision(box, decision))

    def command(self, command: Command, where: str | None = None) -> None:
        """Issue ``command``; a refusal is a bad scenario where the scenario asked for
        it (``where`` names it), and the bench's own failure otherwise."""
        refused = self.journal.counts["refused"]
        self.table.handle(command)
        last = self.journal.last_refusal
        if self.journal.counts["refused"] == refused or last.get("command") != command.name:
            return
        reason, section = str(last.get("reason")), last.get("section")
        if section and str(section) not in reason:
            reason += f" ({section})"
        if where is None:
            raise BenchError(f"the table refused the bench's {command.name}: {reason}")
        at = f"round {self.players.index + 1}"
        if isinstance(command, Decision):
            amount = None if command.amount is None else Decimal(command.amount)
            what = f"{at}, box {command.box}: {Scripted(command.decision, amount)}"
        elif isinstance(command, Wager):
            what = f"{at}, box {command.seat}: {command.bet} wager of {command.amount}"
            if command.player is not None:
                what += f" by {command.player}"
        else:
            what = f"{at}: {command.name}"
        raise ScenarioError(f"{where}: {what} refused: {reason}")

    def finish(self) -> None:
        last = self.journal.last.get("round_end", {})
        if last.get("void") and last.get("round") == self.players.index + 1:
            return  # a void round's hands are dead: its decisions left over are dropped
        if self.players.scripted:
            unused = self.players.unused()
            if unused is not None:
                raise ScenarioError(unused)


class _SyntheticDevices:
    """The dry run's devices: a display that shows everything, and a reader that
    answers as the simulated reader does (only behind an arm, blackjack yes or no)."""

    def __init__(self) -> None:
        self.target: m.PeekTarget | None = None
        self.outbox: deque[m.Event] = deque()
        self.ids = 0

    def commit(self, device: str, event_id: int) -> None:
        pass  # nothing to acknowledge

    def display(self, text: str) -> bool:
        return True

    def arm(self, target: m.PeekTarget) -> bool:
        self.target = target
        return True

    def disarm(self) -> bool:
        self.target = None
        return True

    def self_test(self) -> bool:
        self.outbox.append(m.SelfTestResult("reader", self.next_id(), True, 0))
        return True

    def insert(self, hole: str) -> None:
        target, self.target = self.target, None
        self.outbox.append(m.CardInserted("reader", self.next_id(), target is not None))
        if target is not None:
            wanted = "A" if target is m.PeekTarget.ACE else "JQK"
            self.outbox.append(m.PeekResult("reader", self.next_id(), hole[0] in wanted))

    def next_id(self) -> int:
        self.ids += 1
        return self.ids


class _DryRun:
    """A Spanish 21 scenario played in-process on synthetic devices before any simulator
    starts, so a scripted wager or decision the table refuses is named at once."""

    def __init__(self, scenario: Scenario) -> None:
        assert isinstance(scenario.rules, Spanish21Rules)  # load_scenario built it so
        self.s = scenario
        self.journal = JsonlJournal(io.StringIO())
        self.devices = _SyntheticDevices()
        self.table = Spanish21Table(scenario.rules, self.journal, self.devices)
        self.order = scenario.order
        self.position = 0
        self.drawn = 0  # cards (not the cutting card) out of the shoe, with injected tens
        self.card_faults = scenario.card_faults
        self.face_up = False
        self.shuffles = 0
        self.dealer = _Spanish21Dealer(scenario, self.table, self.journal, self)

    def run(self) -> None:
        try:
            if self.s.uses_shuffler:
                self.feed(m.ShufflerAttached("shuffler", self.devices.next_id()))
            self.dealer.start()
            while self.table.shoes_completed < self.s.shoes:
                acted = self.dealer.act()
                delivered = bool(self.devices.outbox)
                while self.devices.outbox:
                    self.feed(self.devices.outbox.popleft())
                if not acted and not delivered:
                    raise BenchError(f"the table waits in state {self.table.state}")
            self.dealer.finish()
        except BenchError as exc:
            raise ScenarioError(f"the scenario cannot be played: {exc}") from None

    def feed(self, event: m.Event) -> None:
        self.table.handle(event)
        if isinstance(event, m.CardDrawn):
            self.drawn += 1
            self.dealer.card_seen()

    def shuffle(self) -> bool:
        if not self.s.uses_shuffler:
            self.table.handle(ManualShuffle())
            return True
        self.shuffles += 1
        fault = self.s.shuffle_fault(self.shuffles)
        event_id = self.devices.next_id()
        if fault is not None and fault.kind in SHUFFLER_FAULT_EVENTS:
            self.feed(SHUFFLER_FAULT_EVENTS[fault.kind]("shuffler", event_id))
        else:
            count = self.s.rules.decks * CARDS_PER_DECK
            delta = 0 if fault is None or fault.delta is None else fault.delta
            self.feed(m.ShuffleCompleted("shuffler", event_id, count + delta))
        return True

    def shuffle_rack(self, count: int) -> bool:
        """551.16(g): the discard rack's ``count`` cards shuffled, by hand or by the
        shuffler."""
        if not self.s.uses_shuffler:
            self.table.handle(ManualShuffle())
        else:
            self.feed(m.ShuffleCompleted("shuffler", self.devices.next_id(), count))
        return True

    def idle(self) -> bool:
        return True

    def load(self, cards: list[str]) -> bool:
        self.order = [*self.order[: self.position], *cards]
        self.feed(m.CardsLoaded("shoe", self.devices.next_id(), len(cards)))
        return True

    def draw(self) -> bool:
        if self.position >= len(self.order):
            raise BenchError("the shoe ran out")
        while self.card_faults and self.card_faults[0].at_card <= self.drawn + 1:
            fault = self.card_faults.pop(0)
            if fault.kind == "face_up":
                self.face_up = True
            else:  # as the simulated shoe: a ten next out, ahead of the order
                self.dealer.ten_added()
                self.feed(m.CardDrawn("shoe", self.devices.next_id(), "T", "S", self.face_up))
                self.face_up = False
                return True
        token = self.order[self.position]
        self.position += 1
        event_id = self.devices.next_id()
        if token == CUT:
            self.feed(m.CutCardSeen("shoe", event_id))
        else:
            self.feed(m.CardDrawn("shoe", event_id, token[0], token[1], self.face_up))
            self.face_up = False
        if self.position == len(self.order):
            self.feed(m.ShoeEmpty("shoe", self.devices.next_id()))
        return True

    def insert(self, hole: str) -> bool:
        self.devices.insert(hole)
        return False  # the reader's answer is in the outbox

    def misuse(self, fault: Irregularity, hole: str) -> bool:
        return self.insert(hole)  # not armed: the reader reports the insertion only

    def floor(self) -> bool:
        if not self.table.can_clear:
            raise BenchError("play stopped and cannot be cleared")
        clear_as_the_floorperson(self.table)
        return True


class _Spanish21Bench(_Bench):
    def __init__(
        self,
        scenario: Scenario,
        table: Spanish21Table,
        journal: ObservedJournal,
        sims: Mapping[str, SimProcess],
        drivers: Mapping[str, DeviceDriver],
    ) -> None:
        super().__init__(scenario, table, journal, sims, drivers)
        self.reader_pending: set[int] = set()  # reader event ids of the last insertion
        self.armed_wait: float | None = None  # since when the dealer waits for the arm
        self.dealer = _Spanish21Dealer(scenario, table, journal, self)
        self.spanish = table
        self.reader_faults = scenario.reader_faults

    def act(self) -> bool:
        if self.reader_pending:
            return False  # the dealer waits for the reader's answer to what he did
        return self.dealer.act()

    def idle(self) -> bool:
        return not self.pending

    def shuffle(self) -> bool:
        if self.pending:
            return False  # the cards loaded into the shoe are not at the table yet
        return super().shuffle()

    def shuffle_rack(self, count: int) -> bool:
        """551.16(g): the discard rack shuffled: by hand for a stacked shoe, otherwise
        by the shuffler, loaded with the rack's ``count`` cards (control ``load``)."""
        if self.pending:
            return False
        if not self.s.uses_shuffler:
            self.command(ManualShuffle())
            return True
        if not self.shuffle_requested:
            self.sims["shuffler"].control("load", count=count)
            shuffler = self.drivers["shuffler"]
            assert isinstance(shuffler, ShufflerDriver)  # SimProcess.driver picks it by kind
            shuffler.start_shuffle()
            self.shuffle_requested = True
        return False

    def load(self, cards: list[str]) -> bool:
        """The shuffled cards into the simulated shoe (control ``load``); the dealer
        waits until the table has the shoe's ``cards_loaded``."""
        reply = self.sims["shoe"].control("load", cards=cards)
        self.pending.update(reply["event_ids"])
        return False

    def ten_added(self) -> None:
        self.dealer.ten_added()

    def misuse(self, fault: Irregularity, hole: str) -> bool:
        """551.16(l): the hole card into the reader, which the table never armed behind
        this up card; the reader reports the insertion and the table stops for the
        floorperson."""
        self.journal.record(
            {
                "type": "fault_injected",
                "kind": fault.kind,
                "device": "reader",
                "at_round": fault.at_round,
                "round": self.spanish.round,
                "up_card": self.spanish.up_card,
            }
        )
        reply = self.sims["reader"].control("insert", card=hole)
        self.reader_pending.update(reply["event_ids"])
        return False

    def start(self) -> None:
        self.dealer.start()

    def finish(self) -> None:
        self.dealer.finish()

    def new_cards(self, cards: list[str]) -> None:
        self.dealer.loaded(cards)

    def saw(self, event: m.Event) -> None:
        super().saw(event)
        if event.device == "reader" and event.event_id is not None:
            self.reader_pending.discard(event.event_id)
        elif isinstance(event, m.CardDrawn) and event.event_id is not None:
            self.dealer.card_seen()

    def insert(self, hole: str) -> bool:
        if self.reader_pending:
            return False
        reader = self.sims["reader"]
        # The table's arm travels over the reader's link; the dealer waits for the
        # reader's "armed" light before inserting the card.
        if not reader.control("status").get("armed"):
            now = time.monotonic()
            if self.armed_wait is None:
                self.armed_wait = now
            elif now - self.armed_wait > STALL_TIMEOUT:
                raise BenchError(f"the reader was not armed within {STALL_TIMEOUT:.0f} s")
            self.polling = True
            return False
        self.armed_wait = None
        if self.reader_faults and self.reader_faults[0].at_round <= self.spanish.round:
            fault = self.reader_faults.pop(0)
            self.journal.record(
                {
                    "type": "fault_injected",
                    "kind": fault.kind,
                    "device": "reader",
                    "at_round": fault.at_round,
                    "round": self.spanish.round,
                }
            )
            command = READER_IRREGULARITIES[fault.kind]
            fields = {} if fault.code is None else {"code": fault.code}
            reply = reader.control(command, **fields)
            if command != "wrong_answer":
                # The reader stops; the table halts for the repair before any insertion.
                self.reader_pending.update(reply["event_ids"])
                return False
        reply = reader.control("insert", card=hole)
        self.reader_pending.update(reply["event_ids"])
        return False


def simulators(scenario: Scenario, workdir: Path, key: bytes) -> dict[str, SimProcess]:
    """The simulated devices ``scenario`` is played on, by name, not started: the shoe
    (stacked, or seeded), drawing only when the dealer draws; for Spanish 21 the reader;
    the shuffler unless a stacked shoe is shuffled by hand. Files in ``workdir``."""
    spanish = scenario.game == SPANISH21
    deck_args = ["--spanish"] if spanish else []
    shoe_args = ["--pace", "manual"]
    if scenario.shoe is not None:
        stack = workdir / "stack.json"
        stack.write_text(json.dumps(scenario.shoe), encoding="utf-8")
        shoe_args += ["--stack-file", str(stack)]
    else:
        decks = scenario.rules.decks
        shoe_args += ["--decks", str(decks), "--seed", str(scenario.seed), *deck_args]
        shoe_args += ["--cut-at", str(scenario.cut_at)]
    sims = {"shoe": SimProcess("shoe", workdir, key, shoe_args)}
    if spanish:
        sims["reader"] = SimProcess("reader", workdir, key)
    if scenario.uses_shuffler:
        sims["shuffler"] = SimProcess(
            "shuffler", workdir, key, ["--decks", str(scenario.rules.decks), *deck_args]
        )
    return sims


def autoplay_scenario(rules: BaccaratRules | Spanish21Rules, seed: int) -> Scenario:
    """A scenario with no script: a seeded shoe, the shuffler, seeded random wagers and
    basic strategy throughout; the cover or cutting card where the bench puts it by
    default."""
    if isinstance(rules, Spanish21Rules):
        cut_at = rules.decks * CARDS_PER_DECK // 4  # 551.5(e)
        return Scenario(SPANISH21, rules, None, seed, cut_at, [])
    return Scenario(rules.game, rules, None, seed, DEFAULT_CUT_AT, [])


def dealer_console(
    scenario: Scenario,
    table: BaccaratTable | Spanish21Table,
    journal: ObservedJournal,
    sims: Mapping[str, SimProcess],
    drivers: Mapping[str, DeviceDriver],
) -> _Bench:
    """The dealer, players and floorperson who play ``scenario`` at ``table`` on the
    simulated devices ``sims`` through ``drivers``."""
    if isinstance(table, Spanish21Table):
        return _Spanish21Bench(scenario, table, journal, sims, drivers)
    return _BaccaratBench(scenario, table, journal, sims, drivers)


def play(scenario: Scenario, scenario_path: str, out: TextIO, workdir: Path) -> tuple[int, float]:
    """Play ``scenario`` into ``out``; the number of rounds and the seconds they took."""
    journal = JsonlJournal(out)
    spanish = scenario.game == SPANISH21
    sims = simulators(scenario, workdir, secrets.token_bytes(32))
    events: queue.Queue[m.Event] = queue.Queue()
    drivers: dict[str, DeviceDriver] = {}
    journal.record(
        {
            "type": "bench_start",
            "scenario": scenario_path,
            "game": scenario.game,
            "shoe": "seeded" if scenario.shoe is None else "stacked",
            "seed": scenario.seed,
            "faults": {
                "rates": scenario.rates,
                "unplugs": [dataclasses.asdict(u) for u in scenario.unplugs],
                "irregularities": [
                    {
                        k: v
                        for k, v in dataclasses.asdict(f).items()
                        if v is not None and (k == "code" or v)
                    }
                    for f in scenario.irregularities
                ],
            },
        }
    )
    try:
        for name, sim in sims.items():
            sim.start()
            if scenario.rates:
                sim.control("faults", seed=scenario.seed, rates=scenario.rates)
            drivers[name] = sim.driver(events)
        shoe = drivers["shoe"]
        assert isinstance(shoe, ShoeDriver)  # SimProcess.driver picks it by kind
        table: BaccaratTable | Spanish21Table
        if isinstance(scenario.rules, Spanish21Rules):
            reader = drivers["reader"]
            assert isinstance(reader, ReaderDriver)
            table = Spanish21Table(scenario.rules, journal, TableDevices(drivers, shoe, reader))
        else:
            table = BaccaratTable(scenario.rules, journal, TableDevices(drivers, shoe))
        bench = dealer_console(scenario, table, journal, sims, drivers)
        for driver in drivers.values():
            driver.start()
        bench.connect(events)
        started = time.monotonic()
        bench.start()
        bench.play(events)
        bench.finish()
        seconds = time.monotonic() - started
        rounds = journal.counts["round_end"]
        journal.record(
            {
                "type": "bench_end",
                "rounds": rounds,
                "cards": bench.cards,
                "seconds": round(seconds, 3),
                "rounds_per_second": round(rounds / seconds, 1) if seconds > 0 else None,
                "shoe_link": shoe.link_stats,
                **({"reader_link": drivers["reader"].link_stats} if spanish else {}),
            }
        )
        return rounds, seconds
    finally:
        for driver in drivers.values():
            driver.stop()
        for sim in sims.values():
            sim.stop()


# --------------------------------------------------------------------------- CLI


def add_parser(subparsers: argparse._SubParsersAction[Any]) -> argparse.ArgumentParser:
    """Add ``bench`` to the ``tablectl`` subcommands (whatever parser class they use)."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "bench",
        help="play a scenario on simulated devices and write the event stream",
        description="Play SCENARIO.json on the simulated shoe (and shuffler) through the "
        "real drivers and the table state machine; write one JSON object per line.",
    )
    parser.add_argument("scenario", metavar="SCENARIO.json", help="the scenario to play")
    parser.add_argument(
        "--events", required=True, metavar="OUT.jsonl", help="where to write the event stream"
    )
    parser.add_argument(
        "--log-level",
        default="warning",
        choices=["debug", "info", "warning", "error"],
        help="log lines on stderr (the event stream records everything regardless)",
    )
    return parser


def run(args: argparse.Namespace) -> int:
    try:
        scenario = load_scenario(args.scenario)
    except ScenarioError as exc:
        return _error(f"{args.scenario}: {exc}", EXIT_USAGE)
    try:
        out = open(args.events, "w", encoding="utf-8")  # noqa: SIM115 - closed below
    except OSError as exc:
        return _error(f"cannot write {args.events}: {exc.strerror or exc}", EXIT_USAGE)
    try:
        with out, tempfile.TemporaryDirectory(prefix="tablectl-bench-") as tmp:
            rounds, seconds = play(scenario, args.scenario, out, Path(tmp))
    except ScenarioError as exc:
        return _error(f"{args.scenario}: {exc}", EXIT_USAGE)  # the record up to here is kept
    except (BenchError, SimError, *EXPECTED, OSError) as exc:
        return _error(str(exc), EXIT_FAILURE)
    except KeyboardInterrupt:
        return _error("interrupted", EXIT_INTERRUPTED)
    rate = f"{rounds / seconds:.1f}" if seconds > 0 else "-"
    print(f"tablectl bench: {rounds} rounds in {seconds:.2f} s ({rate} rounds/s)", file=sys.stderr)
    return EXIT_OK


def _error(message: str, status: int) -> int:
    print(f"tablectl: error: {' '.join(message.split())}", file=sys.stderr)
    return status
