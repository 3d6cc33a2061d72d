"""Reading a scenario file: every key checked, each mistake one ScenarioError line
naming its place (docs/bench.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from controller.bench.dry_run import DryRun
from controller.bench.faults import read_faults
from controller.bench.rounds import baccarat_rounds, read_players, spanish_rounds
from controller.bench.scenario import DEFAULT_CUT_AT, SPANISH21, Scenario, ScenarioError
from controller.bench.values import WrittenNumber, shown, whole
from controller.games import NAMES, Rules
from controller.games import game as registered
from controller.rules.cards import CUT, CardError, card, check_composition
from controller.rules.options import RulesError
from controller.rules.spanish21 import Spanish21Rules
from controller.table.baccarat.machine import SECTIONS
from controller.table.spanish21 import CARDS_PER_DECK
from firmware_sim.shuffle_models import DEFAULT, ShuffleModel, parse_model

MIN_CUT_AT = 14  # 545.5(d), 543.5(e): at least 14 cards above the bottom

_KEYS = {
    "game",
    "rules",
    "shoe",
    "shuffler",
    "shuffle_model",
    "decks",
    "seed",
    "cut_at",
    "rounds",
    "faults",
    "players",
}
_GAME_NAMES = f"{', '.join(NAMES[:-1])} or {NAMES[-1]}"


def load_scenario(path: str) -> Scenario:
    """The validated scenario in ``path``; ScenarioError naming what is wrong and where.

    A Spanish 21 scenario is also played once in-process on synthetic devices, so a
    scripted decision the table refuses is named before anything starts."""
    data = _read(path)
    game, rules = _game_and_rules(data)
    seed = whole(data, "seed", 0)
    spanish = game == SPANISH21
    shoe = _shoe(data["shoe"], rules.decks, spanish) if "shoe" in data else None
    _check_continuous(data, rules, shoe)
    shuffler = _shuffler(data, shoe)
    model = _shuffle_model(data, shoe, rules)
    if "players" in data and not spanish:
        raise ScenarioError("players: names a Spanish 21 box's player (551.14); this is " + game)
    cut_at = _cut_at(data, game, rules, shoe)
    per_deck = CARDS_PER_DECK if spanish else 52
    rates, unplugs, irregularities = read_faults(
        data.get("faults", []), shoe is None or shuffler, spanish, rules.decks * per_deck
    )
    if not isinstance(rules, Spanish21Rules):
        rounds = baccarat_rounds(data.get("rounds", []), rules)
        return Scenario(
            game, rules, shoe, seed, cut_at, rounds, rates, unplugs, [], irregularities, shuffler,
            model,
        )  # fmt: skip
    players = read_players(data.get("players", {}), "players")
    scripts = spanish_rounds(data.get("rounds", []), players, rules)
    scenario = Scenario(
        game, rules, shoe, seed, cut_at, [], rates, unplugs, scripts, irregularities, shuffler,
        model,
    )  # fmt: skip
    DryRun(scenario).run()
    return scenario


def _read(path: str) -> dict[str, Any]:
    """The scenario's JSON object, with no key the bench does not know."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ScenarioError(f"cannot read the scenario: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ScenarioError("the scenario is not UTF-8 text") from None
    try:
        # A number with a point or an exponent keeps its text: an amount is written
        # plainly (ruling R16), and the amounts are read from their digits.
        data = json.loads(text, parse_float=WrittenNumber, parse_constant=_not_json)
    except json.JSONDecodeError as exc:
        raise ScenarioError(f"not valid JSON: {exc}") from None
    except RecursionError:
        raise ScenarioError(
            "not a scenario: its lists or objects are nested too deeply to read"
        ) from None
    except ScenarioError:
        raise  # NaN or Infinity (_not_json)
    except ValueError:  # int() of more digits than Python converts (sys.int_info)
        raise ScenarioError(
            "not a scenario: a number too long to read (more than 4300 digits)"
        ) from None
    if not isinstance(data, dict):
        raise ScenarioError("a scenario is a JSON object")
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise ScenarioError(f"unknown key {shown(unknown[0])}; expected {', '.join(sorted(_KEYS))}")
    return data


def _not_json(name: str) -> object:
    # Python's json reads NaN, Infinity and -Infinity; JSON has no such numbers.
    raise ScenarioError(f"not valid JSON: {name} is not a JSON number")


def _game_and_rules(data: dict[str, Any]) -> tuple[str, Rules]:
    """The game (from the registry) and its Rules Submission, ``decks`` included."""
    game = data.get("game")
    if game not in NAMES:
        raise ScenarioError(f"unknown game {shown(game)}; expected {_GAME_NAMES}")
    rules_data = data.get("rules", {})
    if not isinstance(rules_data, dict):
        raise ScenarioError("rules must be an object of Rules Submission options")
    rules_data = dict(rules_data)
    if "decks" in data:
        if "shoe" in data:
            raise ScenarioError("give either a stacked shoe or decks and seed, not both")
        if rules_data.setdefault("decks", data["decks"]) != data["decks"]:
            raise ScenarioError("decks and rules.decks differ")
    try:
        return game, registered(game).rules(rules_data)
    except RulesError as exc:
        raise ScenarioError(str(exc)) from None


def _shoe(raw: object, decks: int, spanish: bool) -> list[str]:
    if not isinstance(raw, list) or not raw:
        raise ScenarioError("shoe: expected a non-empty list of card tokens")
    tokens: list[str] = []
    for i, token in enumerate(raw):
        if not isinstance(token, str):
            raise ScenarioError(f"shoe[{i}]: {shown(token)} is not a card token")
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


def _check_continuous(data: dict[str, Any], rules: Rules, shoe: list[str] | None) -> None:
    """551.15: a continuous shuffling device's cards are seeded and have no cutting card."""
    if not (isinstance(rules, Spanish21Rules) and rules.continuous_shuffler):
        return
    if shoe is not None:
        raise ScenarioError(
            "shoe: with rules.continuous_shuffler the device shuffles the cards before "
            "every round (551.15): give decks and seed, not a stacked shoe"
        )
    if "cut_at" in data:
        raise ScenarioError(
            "cut_at: a continuous shuffling device's cards have no cutting card (551.15)"
        )


def _shuffler(data: dict[str, Any], shoe: list[str] | None) -> bool:
    """Whether the simulated shuffler shuffles a stacked shoe."""
    shuffler = data.get("shuffler", False)
    if not isinstance(shuffler, bool):
        raise ScenarioError(f"shuffler: expected true or false, got {shown(shuffler)}")
    if "shuffler" in data and shoe is None:
        raise ScenarioError(
            "shuffler: a seeded shoe is always the shuffler's; the key is for a stacked shoe"
        )
    return shuffler


def _shuffle_model(data: dict[str, Any], shoe: list[str] | None, rules: Rules) -> ShuffleModel:
    """How the simulated shuffler shuffles a seeded shoe (docs/shuffle-monitor.md)."""
    if "shuffle_model" not in data:
        return DEFAULT
    text = data["shuffle_model"]
    if shoe is not None:
        raise ScenarioError("shuffle_model: shuffles a seeded shoe; a stacked shoe has its order")
    if isinstance(rules, Spanish21Rules) and rules.continuous_shuffler:
        raise ScenarioError(
            "shuffle_model: not with rules.continuous_shuffler, whose batches are seeded (551.15)"
        )
    if not isinstance(text, str):
        raise ScenarioError(f"shuffle_model: expected a string, got {shown(text)}")
    try:
        return parse_model(text)
    except ValueError as exc:
        raise ScenarioError(f"shuffle_model: {exc}") from None


def _cut_at(data: dict[str, Any], game: str, rules: Rules, shoe: list[str] | None) -> int:
    """Where the cover or cutting card goes in a seeded shoe, in cards above the bottom."""
    if shoe is not None and "cut_at" in data:
        raise ScenarioError("cut_at places the cover card in a seeded shoe; a stacked shoe has it")
    if game == SPANISH21:
        # 551.5(e): the cutting card at least about a quarter of the way in from the bottom.
        cards = rules.decks * CARDS_PER_DECK
        least, default, section = cards // 4, cards // 4, "551.5(e)"
    else:
        cards, least, default = rules.decks * 52, MIN_CUT_AT, DEFAULT_CUT_AT
        section = SECTIONS[game].second_cover
    cut_at = whole(data, "cut_at", default)
    if not least <= cut_at <= cards:
        raise ScenarioError(
            f"cut_at: the cover card goes {least}..{cards} cards above the bottom ({section})"
        )
    return cut_at
