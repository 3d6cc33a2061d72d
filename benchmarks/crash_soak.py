"""Crash soak: the suite's crash campaign (tests/daemon/test_crash_campaign.py), longer.

Run: .venv/bin/python benchmarks/crash_soak.py [--game baccarat] [--kills 200]
     [--seed 1] [--workdir DIR] [--json] [--progress]

One table's work directory (and one of its own for each kill during creation),
`tablectl run --simulate --pace-ms 0` killed with SIGKILL --kills times or a few more
(a step's kills are not split), as tests/support/campaign.py describes: random kills
from outside, aimed kills at failpoints, each followed by the checks, and a check
start (`--rounds 3`) after each step. Prints the kills by kind, where they landed,
and the faults found (all must be 0), the rounds and rows played and the time; with
--json, one JSON object. Exit 1 when a fault was found, each one printed on stderr
with the step and seed that found it. The work directory (default: a temporary one,
removed) keeps every process's stderr in logs/.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter
from dataclasses import fields
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.campaign import CHECK_ROUNDS, Campaign, Tally  # noqa: E402


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="baccarat")
    parser.add_argument("--kills", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workdir", type=Path, help="keep the tables and logs here")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--progress", action="store_true", help="each step on stderr")
    return parser.parse_args(argv)


def figures(tally: Tally) -> dict[str, Any]:
    # asdict() would rebuild each Counter from its (key, count) pairs, counting them.
    data = {f.name: getattr(tally, f.name) for f in fields(tally)}
    data.update({k: dict(v) for k, v in data.items() if isinstance(v, Counter)})
    data["kills_done"] = tally.kills_done
    data["landed_total"] = sum(tally.landed.values())
    data["faults"] = tally.faults()
    return data


def report(tally: Tally, command: str) -> None:
    print(f"crash soak: {command}")
    print(f"{'kills':<44}{tally.kills_done:>8}")
    for kind, count in sorted(tally.kills.items()):
        landed = f"  ({tally.landed[kind]} on their row)" if kind in tally.landed else ""
        print(f"  {kind:<42}{count:>8}{landed}")
    print(f"{'killed by SIGKILL':<44}{tally.killed:>8}")
    print(f"{'random kills: where they fell':<44}")
    for where, count in sorted(tally.random_landed.items()):
        print(f"  {where:<42}{count:>8}")
    print(f"{f'check starts (--rounds {CHECK_ROUNDS}, exit 0)':<44}{tally.restarts:>8}")
    twos = tally.hole_card_twos
    if twos:
        print(f"{'hole cards killed sealed: 2s dealt before':<44}{min(twos):>4}-{max(twos)}")
    for name, count in tally.faults().items():
        print(f"{name:<44}{count:>8}")
    print(f"{'rounds played to their end':<44}{tally.rounds_played:>8}")
    print(f"{'rows in the journals':<44}{tally.rows:>8}")
    print(f"{'seconds':<44}{tally.seconds:>8.1f}")


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    command = f"--game {args.game} --kills {args.kills} --seed {args.seed}"
    with tempfile.TemporaryDirectory(prefix="crash-soak-") as scratch:
        base = args.workdir or Path(scratch)
        progress = (
            (lambda step: print(step, file=sys.stderr, flush=True)) if args.progress else None
        )
        tally = Campaign(args.game, args.seed, base, args.kills).run(progress)
    if args.json:
        print(json.dumps(figures(tally), indent=2, sort_keys=True))
    else:
        report(tally, command)
    for problem in tally.problems:
        print(f"fault: {problem}", file=sys.stderr)
    return 1 if tally.problems else 0


if __name__ == "__main__":
    sys.exit(main())
