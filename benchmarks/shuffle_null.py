"""Shuffle monitor calibration: how often each test's p-value falls under a level on good
shoes, the monitor's false alarms, and the shoes it takes to alert on riffles and clumps.

Run: .venv/bin/python benchmarks/shuffle_null.py [--shoes N] [--seed S] [--json]

* **null**: ``--shoes`` seeded uniform shuffles of an 8-deck shoe (``random.Random``), each
  shoe's input the previous shoe's dealt order, through ``stats.all_tests`` and
  ``Monitor()`` (0.99) and ``Monitor(confidence=0.95)``: for each test the fraction of
  p-values under 1e-2, 1e-3 and 1e-4 (a calibrated test gives the level itself), and the
  number of alerting shoes at each confidence (the budget: at most 1e-4 and 5e-4 a shoe).
* **detection**: for riffle:K (K GSR riffles, tests/support/shuffles.py, K = 1..8) and
  blocks of 2, 4, 8 cards kept whole, ``--chains`` chains of up to 30 shoes each at 0.99:
  the median and the largest number of shoes to the first alert (``>30`` if none).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
from collections.abc import Callable
from pathlib import Path

from controller.shuffle.sequential import Monitor
from controller.shuffle.stats import all_tests

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as a script: the bad shuffles are the tests' data

from tests.support.shuffles import clumpy, riffle, shoe, uniform  # noqa: E402

LEVELS = (1e-2, 1e-3, 1e-4)
Shuffle = Callable[[list[str], random.Random], list[str]]


def null(shoes: int, seed: int) -> dict[str, object]:
    rng = random.Random(seed)
    monitors = {"0.99": Monitor(), "0.95": Monitor(confidence=0.95)}
    alerts = dict.fromkeys(monitors, 0)
    below: dict[str, list[int]] = {}
    order = uniform(shoe(), rng)
    for _ in range(shoes):
        dealt = uniform(order, rng)
        results = all_tests(order, dealt)
        for r in results:
            row = below.setdefault(r.name, [0] * len(LEVELS))
            for i, level in enumerate(LEVELS):
                row[i] += r.p_value < level
        for name, monitor in monitors.items():
            alerts[name] += monitor.observe(results).status == "alert"
        order = dealt
    return {
        "shoes": shoes,
        "below": {k: [c / shoes for c in v] for k, v in below.items()},
        "alerts": alerts,
    }


def to_alert(shuffle: Shuffle, seed: int, limit: int = 30) -> int | None:
    rng = random.Random(seed)
    monitor, order = Monitor(), uniform(shoe(), rng)
    for count in range(1, limit + 1):
        dealt = shuffle(order, rng)
        if monitor.observe(all_tests(order, dealt)).status == "alert":
            return count
        order = dealt
    return None


def models() -> dict[str, Shuffle]:
    found: dict[str, Shuffle] = {}
    for k in range(1, 9):
        found[f"riffle:{k}"] = lambda o, r, k=k: riffle(o, r, k)
    for block in (2, 4, 8):
        found[f"blocks:{block}"] = lambda o, r, b=block: clumpy(o, r, b)
    return found


def detection(chains: int, seed: int) -> dict[str, dict[str, object]]:
    table: dict[str, dict[str, object]] = {}
    for name, shuffle in models().items():
        found = [to_alert(shuffle, seed + i) for i in range(chains)]
        shoes = [f if f is not None else 31 for f in found]
        table[name] = {
            "median": statistics.median(shoes),
            "worst": max(shoes) if max(shoes) <= 30 else ">30",
            "missed": sum(f is None for f in found),
        }
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shoes", type=int, default=10000)
    parser.add_argument("--chains", type=int, default=20)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.shoes < 1 or args.chains < 1:
        parser.error("--shoes and --chains must be at least 1")
    report = {"null": null(args.shoes, args.seed), "detection": detection(args.chains, args.seed)}
    if args.json:
        print(json.dumps(report))
        return
    result = report["null"]
    print(f"null: {result['shoes']} uniform shoes; alerting shoes {result['alerts']}")
    for name, row in result["below"].items():
        cells = "  ".join(f"P(p<{lv:g})={v:.5f}" for lv, v in zip(LEVELS, row, strict=True))
        print(f"  {name:20} {cells}")
    print("detection at 0.99 (shoes to the first alert, chains of up to 30 shoes):")
    for name, row in report["detection"].items():
        print(f"  {name:10} median {row['median']}  worst {row['worst']}  missed {row['missed']}")


if __name__ == "__main__":
    main()
