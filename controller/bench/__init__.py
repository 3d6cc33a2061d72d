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

The bench sits above the rest of the controller: nothing below it imports it. Its
parts: the scenario (``scenario``, read by ``loader`` with ``rounds`` and ``faults``),
the record (``output``), the dealers (``dealer``; ``baccarat``; ``spanish21_players``,
``spanish21_dealer`` and, on the simulators, ``spanish21``), the dry run on synthetic
devices (``dry_run``), the run on the simulators (``runner``), the simulated table the
daemon is handed for ``tablectl run --simulate`` (``simulated``), and the command
(``cli``).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

# The names below are imported from their modules when first asked for: ``tablectl run
# --simulate`` imports ``controller.bench.simulated``, and with it this package, before
# its simulators are spawned, and needs none of the dealers to spawn them.
if TYPE_CHECKING:
    from controller.bench.cli import add_parser, run
    from controller.bench.loader import load_scenario
    from controller.bench.scenario import BenchError, Scenario, ScenarioError, continuous_batch
    from controller.bench.spanish21_players import basic_strategy

_MODULES = {
    "add_parser": "cli",
    "run": "cli",
    "load_scenario": "loader",
    "BenchError": "scenario",
    "Scenario": "scenario",
    "ScenarioError": "scenario",
    "continuous_batch": "scenario",
    "basic_strategy": "spanish21_players",
}

__all__ = [
    "BenchError",
    "Scenario",
    "ScenarioError",
    "add_parser",
    "basic_strategy",
    "continuous_batch",
    "load_scenario",
    "run",
]


def __getattr__(name: str) -> object:
    if name not in _MODULES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_MODULES[name]}"), name)
