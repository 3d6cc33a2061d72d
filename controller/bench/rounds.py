"""A scenario's round scripts: Baccarat's wagers by seat; Spanish 21's wagers, side
wagers and decisions by box, and who plays which box (551.14)."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from controller.bench.scenario import ScenarioError, Scripted, SpanishRound
from controller.bench.values import amount, shown
from controller.games import game as registered
from controller.rules.baccarat import BETS, BaccaratRules
from controller.rules.spanish21 import BOXES, DECISIONS, Spanish21Rules
from controller.table.baccarat.machine import SECTIONS

SPANISH_KEYS = ("wagers", "match_the_dealer", "insurance", "decisions", "players")
PARTIAL_DOUBLE = "double"  # {"double": 5}: a Double Down for less than the wager (551.11(a))
SIDE_WAGERS = (("match_the_dealer", "551.7(b)"), ("insurance", "551.10(b)"))

Wagers = dict[int, dict[str, Decimal]]  # a Baccarat round's bets by seat


def baccarat_rounds(raw: object, rules: BaccaratRules) -> list[Wagers]:
    if not isinstance(raw, list):
        raise ScenarioError("rounds: expected a list of round scripts")
    return [_baccarat_round(script, f"rounds[{i}]", rules) for i, script in enumerate(raw)]


def _baccarat_round(script: object, where: str, rules: BaccaratRules) -> Wagers:
    game = rules.game
    if not isinstance(script, dict):
        raise ScenarioError(f"{where}: expected an object such as {{'wagers': {{...}}}}")
    unknown = sorted(set(script) - {"wagers"})
    if unknown:
        raise ScenarioError(f"{where}: unknown key {shown(unknown[0])}; a {game} round has wagers")
    wagers = script.get("wagers", {})
    if not isinstance(wagers, dict):
        raise ScenarioError(f"{where}.wagers: expected seats mapped to bets")
    seats = registered(game).seats
    section = SECTIONS[game].seats
    round_wagers: Wagers = {}
    for seat_key, bets in wagers.items():
        at = f"{where}.wagers.{seat_key}"
        try:
            seat = int(seat_key)
        except ValueError:
            seat = 0
        if not 1 <= seat <= seats:
            raise ScenarioError(f"{at}: not a seat 1..{seats} ({section})")
        round_wagers[seat] = _bets(bets, at, rules)
    return round_wagers


def _bets(bets: object, at: str, rules: BaccaratRules) -> dict[str, Decimal]:
    if not isinstance(bets, dict) or not bets:
        raise ScenarioError(f"{at}: expected bets such as {{'banker': 100}}")
    section = SECTIONS[rules.game].chips
    out: dict[str, Decimal] = {}
    for bet, value in bets.items():
        if bet not in BETS:
            raise ScenarioError(f"{at}: {bet!r} is not player, banker or tie")
        out[bet] = amount(value, f"{at}.{bet}", section, rules.chip_unit, rules.max_wager)
    return out


def read_players(raw: object, where: str) -> dict[int, str]:
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
            raise ScenarioError(f"{at}: expected a player's name, got {shown(name)}")
        out[box] = name
    return out


def _scripted(decision: object, at: str, rules: Spanish21Rules) -> Scripted:
    """A scripted decision: one of DECISIONS, or ``{"double": amount}``."""
    if isinstance(decision, str):
        if decision not in DECISIONS:
            raise ScenarioError(f"{at}: {shown(decision)} is not one of {', '.join(DECISIONS)}")
        return Scripted(decision)
    if isinstance(decision, dict) and list(decision) == [PARTIAL_DOUBLE]:
        double = _amount(decision[PARTIAL_DOUBLE], f"{at}.double", "551.11(a)", rules)
        return Scripted(PARTIAL_DOUBLE, double)
    raise ScenarioError(
        f"{at}: {shown(decision)} is not a decision: one of {', '.join(DECISIONS)}, or "
        "{'double': amount} for a Double Down for less (551.11(a))"
    )


def spanish_rounds(
    raw: object, players: Mapping[int, str], rules: Spanish21Rules
) -> list[SpanishRound]:
    if not isinstance(raw, list):
        raise ScenarioError("rounds: expected a list of round scripts")
    return [_spanish_round(script, f"rounds[{i}]", players, rules) for i, script in enumerate(raw)]


def _spanish_round(
    script: object, where: str, named: Mapping[int, str], rules: Spanish21Rules
) -> SpanishRound:
    if not isinstance(script, dict):
        raise ScenarioError(f"{where}: expected an object such as {{'wagers': {{'1': 10}}}}")
    unknown = sorted(set(script) - set(SPANISH_KEYS))
    if unknown:
        raise ScenarioError(
            f"{where}: unknown key {shown(unknown[0])}; a spanish21 round has "
            f"{', '.join(SPANISH_KEYS)}"
        )
    wagers = _box_amounts(script.get("wagers", {}), f"{where}.wagers", "551.6(a)", rules)
    if not wagers:
        raise ScenarioError(f"{where}.wagers: no box holds a wager (551.8(d)(1))")
    sides = {
        key: _side_wagers(script, where, key, section, wagers, rules)
        for key, section in SIDE_WAGERS
    }
    decisions = _decisions(script.get("decisions", {}), where, wagers, rules)
    named = {**named, **read_players(script.get("players", {}), f"{where}.players")}
    return SpanishRound(wagers, sides["match_the_dealer"], sides["insurance"], decisions, named)


def _side_wagers(
    script: Mapping[str, Any],
    where: str,
    key: str,
    section: str,
    wagers: Mapping[int, Decimal],
    rules: Spanish21Rules,
) -> dict[int, Decimal]:
    """A side wager's amounts by box: only on a box that holds a Spanish 21 wager."""
    amounts = _box_amounts(script.get(key, {}), f"{where}.{key}", section, rules)
    for box in amounts:
        if box not in wagers:
            raise ScenarioError(
                f"{where}.{key}.{box}: box {box} holds no Spanish 21 wager ({section})"
            )
    return amounts


def _decisions(
    decisions: object, where: str, wagers: Mapping[int, Decimal], rules: Spanish21Rules
) -> dict[int, tuple[Scripted, ...]]:
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
        by_box[box] = tuple(_scripted(d, f"{at}[{k}]", rules) for k, d in enumerate(listed))
    return by_box


def _box(key: str, at: str) -> int:
    try:
        box = int(key)
    except ValueError:
        box = 0
    if box not in BOXES:
        raise ScenarioError(f"{at}: not a box 1..7 (551.2(b)(2))")
    return box


def _box_amounts(
    raw: object, where: str, section: str, rules: Spanish21Rules
) -> dict[int, Decimal]:
    if not isinstance(raw, dict):
        raise ScenarioError(f"{where}: expected boxes mapped to amounts, such as {{'1': 10}}")
    out: dict[int, Decimal] = {}
    for key, value in raw.items():
        at = f"{where}.{key}"
        out[_box(key, at)] = _amount(value, at, section, rules)
    return out


def _amount(value: object, at: str, section: str, rules: Spanish21Rules) -> Decimal:
    return amount(value, at, section, rules.chip_unit, rules.max_wager)
