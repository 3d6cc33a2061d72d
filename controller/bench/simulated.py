"""The simulated table ``tablectl run --simulate`` hands the daemon: the firmware
simulators as its devices, and the bench's dealer, players and floorperson as its
console (seeded wagers, basic strategy, the floorperson clearing what a device's return
allows)."""

from __future__ import annotations

from controller.bench.scenario import DEFAULT_CUT_AT, SPANISH21, Scenario
from controller.games import Rules
from controller.rules.spanish21 import Spanish21Rules
from controller.table.spanish21 import CARDS_PER_DECK


def autoplay_scenario(rules: Rules, seed: int) -> Scenario:
    """A scenario with no script: a seeded shoe, the shuffler, seeded random wagers and
    basic strategy throughout; the cover or cutting card where the bench puts it by
    default."""
    if isinstance(rules, Spanish21Rules):
        cut_at = rules.decks * CARDS_PER_DECK // 4  # 551.5(e)
        return Scenario(SPANISH21, rules, None, seed, cut_at, [])
    return Scenario(rules.game, rules, None, seed, DEFAULT_CUT_AT, [])
