"""Shoe benchmark: one whole shoe through the full stack (`tablectl bench`) against the
pure rules engine on the same shoe, in rounds per second, and the ratio.

Run: .venv/bin/python benchmarks/bench_shoe.py [--stack-runs N] [--engine-runs N] [--json]

Measured for each shoe in SHOES:
* full stack: `tablectl bench SCENARIO --events OUT` as a separate process: the
  firmware simulators on pseudo-terminals, the real drivers over the serial path,
  the table machine, the event file written and flushed line by line. Rounds per
  second over the bench's own `seconds` (devices connected -> end of shoe, from
  its `bench_end` line), and over the whole command (process start-up included).
  Median of --stack-runs runs.
* rules engine: the same cards in the same order, with the wagers the stack's run
  placed (read back from its event file), through the rules alone as the table
  calls them: the burn (`burn_count`), each card to the round's `Coup` (the hand
  due, the outcome), `settle` per seat, the cover card and the one more hand after
  it. Spanish 21: the same cards with the wagers (Match-the-Dealer and Insurance
  included) and the decisions the stack's run took (its `wager` and `decision`
  lines), through `controller.rules.spanish21` alone: the burn,
  `initial_deal_order`, the side nets, the peek, each box's hands
  (`apply_decision`, `deal_card`), the dealer's draws and `settle_round`, until
  the cutting card's round. No devices, no machine, no output. Median of --engine-runs runs.
Before any figure is reported, the engine's rounds must equal the stack's
`round_end` lines (Baccarat: cards, result, each seat's net; Spanish 21: the
dealer's cards, each box's hands with cards, outcome and net, and its side nets):
both must have played the same shoe.

A game that `tablectl bench` refuses as a scenario (exit 2) is reported "not yet
supported" for its row; a game without a rules-engine replay here reports the stack
alone.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from shoe_replays import ENGINES, Event, round_ends  # noqa: E402

EXAMPLES = ROOT / "tests" / "spec" / "examples"
# (label, scenario): a stacked shoe each, so every run deals the same cards.
SHOES = (
    ("Baccarat, 8 decks", EXAMPLES / "baccarat-eight-decks.json"),
    ("Spanish 21, 6 decks", EXAMPLES / "spanish21-six-decks.json"),
)
EXIT_BAD_SCENARIO = 2  # `tablectl bench`: the scenario was refused, nothing started


@dataclass(frozen=True)
class StackRun:
    rounds: int
    cards: int
    bench_seconds: float
    command_seconds: float
    events: list[Event]


# ----------------------------------------------------------------- full stack


def tablectl() -> Path:
    path = Path(sys.executable).with_name("tablectl")
    if not path.exists():
        raise SystemExit(f"no tablectl beside {sys.executable}: install the project (make test)")
    return path


def run_stack(scenario: Path, tmp: Path) -> StackRun | str:
    """One `tablectl bench` run; the bench's one-line reason when it refuses the scenario."""
    out = tmp / "events.jsonl"
    argv = [str(tablectl()), "bench", str(scenario.relative_to(ROOT)), "--events", str(out)]
    started = time.perf_counter()
    proc = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=False)
    command_seconds = time.perf_counter() - started
    if proc.returncode == EXIT_BAD_SCENARIO:
        return proc.stderr.strip()
    if proc.returncode != 0:
        raise SystemExit(f"{scenario.name}: tablectl bench failed: {proc.stderr.strip()}")
    events = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    end = events[-1]
    if end["type"] != "bench_end":
        raise SystemExit(f"{scenario.name}: the event file does not end with bench_end")
    return StackRun(end["rounds"], end["cards"], end["seconds"], command_seconds, events)


def time_engine(replay: Callable[[], object], runs: int) -> float:
    seconds = []
    for _ in range(runs):
        started = time.perf_counter()
        replay()
        seconds.append(time.perf_counter() - started)
    return statistics.median(seconds)


def check_same_rounds(
    label: str, what: str, ours: Sequence[object], theirs: Sequence[object]
) -> None:
    if len(ours) != len(theirs):
        raise SystemExit(f"{label}: {what}: {len(ours)} rounds against {len(theirs)}")
    for n, (a, b) in enumerate(zip(ours, theirs, strict=True), 1):
        if a != b:
            raise SystemExit(f"{label}: {what}: round {n} differs: {a} against {b}")


# ----------------------------------------------------------------- the rows


def measure(label: str, scenario_path: Path, stack_runs: int, engine_runs: int) -> dict[str, Any]:
    scenario = json.loads(scenario_path.read_text(encoding="utf-8"))
    row: dict[str, Any] = {"shoe": label, "scenario": scenario_path.name}
    runs: list[StackRun] = []
    with tempfile.TemporaryDirectory(prefix="bench-shoe-") as tmp:
        for _ in range(stack_runs):
            run = run_stack(scenario_path, Path(tmp))
            if isinstance(run, str):
                row["not_supported"] = run
                return row
            runs.append(run)
    first = round_ends(runs[0].events)
    for run in runs[1:]:  # a stacked shoe and seeded wagers: every run plays alike
        check_same_rounds(label, "stack runs", round_ends(run.events), first)
    row.update(
        rounds=runs[0].rounds,
        cards=runs[0].cards,
        stack_rounds_per_s=round(statistics.median(r.rounds / r.bench_seconds for r in runs), 1),
        command_rounds_per_s=round(
            statistics.median(r.rounds / r.command_seconds for r in runs), 1
        ),
    )
    engine = ENGINES.get(scenario["game"])
    if engine is None:
        row["no_engine_replay"] = scenario["game"]
        return row
    rules = engine(scenario, runs[0].events)
    check_same_rounds(label, "engine against stack", rules.replay(), rules.expected)
    row["engine_rounds_per_s"] = round(runs[0].rounds / time_engine(rules.replay, engine_runs), 1)
    row["engine_over_stack"] = round(row["engine_rounds_per_s"] / row["stack_rounds_per_s"], 1)
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--stack-runs", type=int, default=5, help="tablectl bench runs per shoe")
    ap.add_argument("--engine-runs", type=int, default=200, help="rules-engine replays per shoe")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args()
    rows = [measure(label, path, args.stack_runs, args.engine_runs) for label, path in SHOES]
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print(
        f"Python {platform.python_version()}, {os.cpu_count()} CPUs; median of "
        f"{args.stack_runs} stack runs and {args.engine_runs} engine replays per shoe"
    )
    print(
        "| shoe | rounds | cards | full stack, rounds/s | whole command, rounds/s "
        "| rules engine, rounds/s | engine / stack |"
    )
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        if "not_supported" in r:
            print(f"| {r['shoe']} | not yet supported | | | | | |")
            continue
        engine, ratio = "no rules-engine replay yet", ""
        if "engine_rounds_per_s" in r:
            engine, ratio = f"{r['engine_rounds_per_s']}", f"{r['engine_over_stack']}x"
        print(
            f"| {r['shoe']} | {r['rounds']} | {r['cards']} | {r['stack_rounds_per_s']} "
            f"| {r['command_rounds_per_s']} | {engine} | {ratio} |"
        )
    for r in rows:
        if "not_supported" in r:
            print(f"\n{r['shoe']}: {r['not_supported']}")


if __name__ == "__main__":
    main()
