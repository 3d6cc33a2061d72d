"""The simulated devices a scenario is played on, as firmware simulator processes: the
bench's run (``runner``) and the daemon's simulated table (``simulated``) start them.
Light on purpose: the simulated table spawns them before the dealers are imported."""

from __future__ import annotations

import json
from pathlib import Path

from controller.bench.scenario import SPANISH21, Scenario
from firmware_sim.harness import SimProcess


def simulators(scenario: Scenario, workdir: Path, key: bytes) -> dict[str, SimProcess]:
    """The simulated devices ``scenario`` is played on, by name, not started: the shoe
    (stacked, or seeded), drawing only when the dealer draws; for Spanish 21 the reader;
    the shuffler unless a stacked shoe is shuffled by hand. Files in ``workdir``."""
    spanish = scenario.game == SPANISH21
    deck_args = ["--spanish"] if spanish else []
    shoe_args = ["--pace", "manual"]
    if scenario.shoe is not None or scenario.chained:
        # A chained scenario's first shoe is its model's order of fresh decks.
        stack = workdir / "stack.json"
        stack.write_text(json.dumps(scenario.order), encoding="utf-8")
        shoe_args += ["--stack-file", str(stack)]
    else:
        decks = scenario.rules.decks
        shoe_args += ["--decks", str(decks), "--seed", str(scenario.seed), *deck_args]
        shoe_args += ["--cut-at", str(scenario.cut_at)]
    sims = {"shoe": SimProcess("shoe", workdir, key, shoe_args)}
    if spanish:
        sims["reader"] = SimProcess("reader", workdir, key)
    if scenario.uses_shuffler:
        model = ["--shuffle-model", str(scenario.shuffle_model), "--seed", str(scenario.seed)]
        sims["shuffler"] = SimProcess(
            "shuffler", workdir, key, ["--decks", str(scenario.rules.decks), *deck_args, *model]
        )
    return sims
