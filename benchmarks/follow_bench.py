"""Recovery's follower (controller/recovery/follow.py), the per-row cost the daemon's
snapshots pay: ``Follower.fold`` over the journal entries of seeded random Spanish 21
play (tests/support/play.py), in nanoseconds a row, min and median of 7 runs.

Run: .venv/bin/python benchmarks/follow_bench.py [--inputs N] [--seed S]
     (PYTHONPATH=TREE runs another tree's follower over the same entries)
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.append(str(ROOT))  # after PYTHONPATH: another tree's follower, this tree's play

from controller.recovery.follow import Follower  # noqa: E402
from tests.support.play import Played  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--inputs", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    played = Played("spanish21", args.seed)
    for _ in range(args.inputs):
        played.step()
    entries = played.journal.entries
    per_row = []
    for _ in range(7):
        follower = Follower()
        began = time.perf_counter()
        for _ in range(5):
            for entry in entries:
                follower.fold(entry)
        per_row.append((time.perf_counter() - began) / (5 * len(entries)) * 1e9)
    print(f"{len(entries)} rows: {min(per_row):.0f} / {statistics.median(per_row):.0f} ns a row")


if __name__ == "__main__":
    main()
