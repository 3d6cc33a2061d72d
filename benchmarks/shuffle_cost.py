"""Shuffle monitor cost: CPU time per 416-card shoe of every per-shoe test
(``controller.shuffle.stats.all_tests``) and the monitor's verdict (``Monitor.observe``).

Run: .venv/bin/python benchmarks/shuffle_cost.py [--shoes N] [--runs N] [--json]

* Seeded uniform shuffles of an 8-deck shoe (``random.Random(seed).shuffle``), each shoe's
  input the previous shoe's dealt order, made before timing (the shuffles are not timed).
* CPU time (``time.process_time``) of the tests and the verdict over ``--shoes`` shoes,
  the cyclic garbage collector off inside the timing; min / median / max over ``--runs``
  runs, in ms per shoe. The target is under 5 ms a shoe, off the card path.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import json
import random
import statistics
import time

from controller.shuffle.sequential import Monitor
from controller.shuffle.stats import all_tests
from firmware_sim.decks import deck


def chain(shoes: int, seed: int) -> list[list[str]]:
    rng = random.Random(seed)
    orders = [deck() * 8]
    for _ in range(shoes):
        nxt = list(orders[-1])
        rng.shuffle(nxt)
        orders.append(nxt)
    return orders


def one_run(orders: list[list[str]]) -> float:
    """ms of CPU per shoe for the tests and the verdict of every shoe in ``orders``."""
    monitor = Monitor()
    gc.collect()
    gc.disable()
    try:
        start = time.process_time()
        for given, dealt in itertools.pairwise(orders):
            monitor.observe(all_tests(given, dealt))
        spent = time.process_time() - start
    finally:
        gc.enable()
    return 1000 * spent / (len(orders) - 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shoes", type=int, default=200)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.shoes < 1 or args.runs < 1:
        parser.error("--shoes and --runs must be at least 1")
    orders = chain(args.shoes, 2026)
    one_run(orders[:3])  # imports and first calls out of the timing
    runs = sorted(one_run(orders) for _ in range(args.runs))
    row = {
        "shoes": args.shoes,
        "cards": len(orders[0]),
        "min_ms": round(runs[0], 3),
        "median_ms": round(statistics.median(runs), 3),
        "max_ms": round(runs[-1], 3),
    }
    if args.json:
        print(json.dumps(row))
    else:
        print(
            f"{row['shoes']} shoes of {row['cards']} cards: CPU per shoe "
            f"min {row['min_ms']} ms, median {row['median_ms']} ms, max {row['max_ms']} ms"
        )


if __name__ == "__main__":
    main()
