"""``tablectl analyze baccarat|midibaccarat``: exact odds and house edge of each wager.

``add_parser`` adds the subcommand to the ``tablectl`` parser and ``run`` carries it
out. A user's mistake (a rules file that is missing, unreadable or has a value the
chapter forbids, a deck count outside 545.3(a)) ends in one line on stderr and
exit status 2.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tomllib
from fractions import Fraction
from pathlib import Path
from typing import Any

from controller.games import GAMES
from controller.rules.baccarat.options import BaccaratRules
from controller.rules.baccarat.settlement import BETS, Bet
from controller.rules.baccarat_analysis import DealCounts, deal_counts, house_edge
from controller.rules.options import RulesError

EXIT_OK = 0
EXIT_USAGE = 2


class RulesFileError(ValueError):
    """A rules file that cannot be read or parsed."""


def add_parser(
    subparsers: argparse._SubParsersAction[Any],
) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "analyze", help="exact probabilities and house edge of a game's wagers"
    )
    parser.add_argument("game", choices=[g.name for g in GAMES.values() if g.analysis])
    parser.add_argument(
        "--decks", type=int, help="decks in the shoe, 6 to 8 (default: the rules', else 8)"
    )
    parser.add_argument(
        "--rules",
        type=Path,
        metavar="FILE",
        help="Rules Submission options as a .toml or .json table (decks, commission, ...)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    return parser


def run(args: argparse.Namespace) -> int:
    try:
        rules = _rules(args)
    except (RulesError, RulesFileError) as exc:
        print(f"tablectl: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    counts = deal_counts(rules.decks)
    edges = {bet: house_edge(counts, bet, rules) for bet in BETS}
    if args.json:
        # default=str: amounts (the chip unit, the maximum wager) exact, as the journal has them
        print(json.dumps(_report(rules, counts, edges), indent=2, default=str))
    else:
        print(_table(rules, counts, edges))
    return EXIT_OK


def _rules(args: argparse.Namespace) -> BaccaratRules:
    options = {} if args.rules is None else load_rules_file(args.rules)
    try:
        rules = BaccaratRules.from_dict(args.game, options)
    except RulesError as exc:
        # Only a file's options can be wrong here: argparse has checked the game.
        raise RulesError(f"{args.rules}: {exc}") from None
    if args.decks is not None:
        rules = dataclasses.replace(rules, decks=args.decks)  # checked again (545.3(a))
    return rules


def load_rules_file(path: Path) -> dict[str, Any]:
    """The options table of a .toml or .json rules file; RulesFileError otherwise."""
    kind = path.suffix.lower()
    if kind not in (".toml", ".json"):
        raise RulesFileError(f"{path}: a rules file is .toml or .json")
    try:
        text = path.read_bytes().decode("utf-8")
    except OSError as exc:
        raise RulesFileError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise RulesFileError(f"{path}: not UTF-8 text") from None
    try:
        data = tomllib.loads(text) if kind == ".toml" else json.loads(text)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
        raise RulesFileError(f"{path}: not valid {kind[1:].upper()}: {exc}") from None
    if not isinstance(data, dict):
        raise RulesFileError(f"{path}: expected a table of options at the top level")
    return data


def _report(rules: BaccaratRules, counts: DealCounts, edges: dict[Bet, Fraction]) -> dict[str, Any]:
    return {
        "game": rules.game,
        "rules": dataclasses.asdict(rules),
        "deals": {**{o: counts.count(o) for o in BETS}, "total": counts.total},
        "probability": {o: float(counts.probability(o)) for o in BETS},
        "house_edge": {bet: float(edge) for bet, edge in edges.items()},
    }


def _table(rules: BaccaratRules, counts: DealCounts, edges: dict[Bet, Fraction]) -> str:
    if rules.vigorish == "tie_25":
        banker = "Banker 1 to 1, 25% of it on a tie"
    else:
        banker = f"Banker 1 to 1 less {rules.commission}%"
    lines = [
        f"{rules.game}, {rules.decks} decks: {banker}, Tie {rules.tie_odds} to 1",
        "",
        f"{'outcome':<8} {'ordered six-card deals':>24} {'probability':>12}",
    ]
    for outcome in BETS:
        probability = float(counts.probability(outcome))
        lines.append(f"{outcome:<8} {counts.count(outcome):>24,} {probability:>12.8f}")
    lines += [f"{'total':<8} {counts.total:>24,}", "", f"{'wager':<8} {'house edge':>12}"]
    lines += [f"{bet:<8} {float(edge):>12.4%}" for bet, edge in edges.items()]
    return "\n".join(lines)
