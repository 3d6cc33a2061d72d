"""Shuffle monitor power: detection probability against shoes observed, for the simulator's
production shuffle models, and the false-alarm rate on ``random``.

Run: .venv/bin/python benchmarks/shuffle_power.py [--chains R] [--shoes N] [--null-shoes M]
     [--seed S] [--out PNG] [--quick] [--json]

* The real chain, with the production models (``firmware_sim.shuffle_models``): an 8-deck
  416-card shoe starts in pack order (``firmware_sim.decks.deck() * 8``); each shoe is
  ``apply(model, previous shoe)`` and is tested against the previous shoe as its input
  (``stats.all_tests(previous, shoe)``), into a ``Monitor()`` (0.99) and a
  ``Monitor(confidence=0.95)`` side by side.
* **power**: for each bad model, ``--chains`` chains of up to ``--shoes`` shoes, each its
  own generator (``random.Random("{seed}:{model}:{chain}")``): the shoe of the first alert
  at each confidence. Detection probability at n shoes = the fraction of chains that
  alerted on one of their first n shoes; median and largest shoes to the first alert
  (``>N`` when chains did not alert within N).
* **null**: one chain of ``--null-shoes`` ``random`` shoes (``random.Random("{seed}:null")``):
  the shoes that alerted and the alerts raised at each confidence, against the budget
  (``shoe_alpha``: at most 5e-5 and 2.5e-4 alerting shoes a good shoe), per 10,000 shoes
  with the 95 % upper limit of the alerting-shoe rate.
* The plot (matplotlib, ``--out``, docs/shuffle-power.png by default): detection
  probability against shoes observed, one line per model, a panel per confidence.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypedDict

from scipy.stats import chi2

from controller.shuffle.sequential import Monitor
from controller.shuffle.stats import all_tests
from firmware_sim.decks import deck
from firmware_sim.shuffle_models import ShuffleModel, apply, parse_model

ROOT = Path(__file__).resolve().parent.parent
CONFIDENCES = (0.99, 0.95)
DECKS = 8
MODELS = (
    *(f"riffle:{k}" for k in range(1, 11)),
    "strip:1",
    "strip:10",
    "strip:100",
    "clumpy:0.01",
    "clumpy:0.02",
    "clumpy:0.05",
    "clumpy:0.1",
    "clumpy:0.25",
    "clumpy:0.5",
)
QUICK_MODELS = ("riffle:1", "riffle:7", "strip:10", "clumpy:0.1")
COLUMNS = (1, 2, 3, 5, 10, 20, 30)


class Summary(TypedDict):
    curve: list[float]
    median: int | str
    max: int | str
    missed: int


Power = dict[str, dict[str, Summary]]  # model -> confidence -> summary


def shoes(model: ShuffleModel, rng: random.Random) -> Iterator[tuple[list[str], list[str]]]:
    """(input, dealt) for each shoe of the chain, endlessly: pack order first."""
    given = deck() * DECKS
    while True:
        dealt = apply(model, given, rng)
        yield given, dealt
        given = dealt


def first_alerts(model: ShuffleModel, limit: int, rng: random.Random) -> list[int | None]:
    """The shoe (1-based) of each confidence's first alert within ``limit`` shoes."""
    monitors = [Monitor(confidence=c) for c in CONFIDENCES]
    found: list[int | None] = [None] * len(monitors)
    for count, (given, dealt) in enumerate(shoes(model, rng), start=1):
        if count > limit or all(f is not None for f in found):
            break
        results = all_tests(given, dealt)
        for i, monitor in enumerate(monitors):
            alert = monitor.observe(results).status == "alert"
            if alert and found[i] is None:
                found[i] = count
    return found


def summary(found: list[int | None], limit: int) -> Summary:
    """Detection probability at 1..limit shoes, median / largest shoes to the first alert."""
    chains = len(found)
    curve = [sum(f is not None and f <= n for f in found) / chains for n in range(1, limit + 1)]
    ranked = [f if f is not None else limit + 1 for f in found]
    median = statistics.median_low(ranked)
    worst = max(ranked)
    return {
        "curve": curve,
        "median": median if median <= limit else f">{limit}",
        "max": worst if worst <= limit else f">{limit}",
        "missed": sum(f is None for f in found),
    }


def power(names: tuple[str, ...], chains: int, limit: int, seed: int) -> Power:
    table: Power = {}
    for name in names:
        model = parse_model(name)
        runs = [
            first_alerts(model, limit, random.Random(f"{seed}:{name}:{i}")) for i in range(chains)
        ]
        table[name] = {
            str(c): summary([run[j] for run in runs], limit) for j, c in enumerate(CONFIDENCES)
        }
    return table


def null(count: int, seed: int) -> dict[str, object]:
    """Over ``count`` shoes of ``random``, at each confidence: the shoes that alerted, the
    alerts raised (an alerting shoe after an ok one: a window's alert repeats), and how
    often each check (``name`` or ``name@window``) was at or under the threshold."""
    monitors = [Monitor(confidence=c) for c in CONFIDENCES]
    rows = [{"alerting_shoes": 0, "alerts_raised": 0, "checks": {}} for _ in CONFIDENCES]
    before = [False] * len(monitors)
    chain = shoes(parse_model("random"), random.Random(f"{seed}:null"))
    for _, (given, dealt) in zip(range(count), chain, strict=False):
        results = all_tests(given, dealt)
        for i, monitor in enumerate(monitors):
            verdict = monitor.observe(results)
            alert = verdict.status == "alert"
            if alert:
                tally(rows[i], verdict.p_values, verdict.threshold, raised=not before[i])
            before[i] = alert
    for row, monitor in zip(rows, monitors, strict=True):
        row.update(rates(row, count, monitor.alpha))
    return {"shoes": count, **{str(c): row for c, row in zip(CONFIDENCES, rows, strict=True)}}


def rates(row: dict[str, Any], count: int, alpha: float) -> dict[str, float]:
    """The budget (the union bound: at most ``alpha`` alerting shoes a good shoe) and the
    measured rates per 10,000 good shoes, with the exact (Garwood) one-sided 95 % upper
    limit of the alerting-shoe rate: the Poisson mean under which seeing this few has 5 %."""
    shoes = row["alerting_shoes"]
    upper = float(chi2.ppf(0.95, 2 * shoes + 2)) / 2
    return {
        "budget_per_10000": 1e4 * alpha,
        "alerting_per_10000": 1e4 * shoes / count,
        "raised_per_10000": 1e4 * row["alerts_raised"] / count,
        "alerting_upper95_per_10000": 1e4 * upper / count,
    }


def tally(row: dict[str, Any], p_values: dict[str, float], threshold: float, raised: bool) -> None:
    row["alerting_shoes"] += 1
    row["alerts_raised"] += raised
    for name, p in p_values.items():
        if p <= threshold:
            row["checks"][name] = row["checks"].get(name, 0) + 1


def markdown(table: Power, result: dict[str, object], limit: int) -> str:
    cols = [n for n in COLUMNS if n <= limit]
    lines: list[str] = []
    for conf in map(str, CONFIDENCES):
        head = " | ".join(f"P(≤{n})" for n in cols)
        lines += [f"\nconfidence {conf}:\n", f"| model | {head} | median | max | missed |"]
        lines.append("|---" * (len(cols) + 4) + "|")
        for name, rows in table.items():
            row = rows[conf]
            cells = " | ".join(f"{row['curve'][n - 1]:.2f}" for n in cols)
            lines.append(f"| {name} | {cells} | {row['median']} | {row['max']} | {row['missed']} |")
    lines.append(f"\nnull: {result['shoes']} `random` shoes")
    lines += [f"  {c}: {result[str(c)]}" for c in CONFIDENCES]
    return "\n".join(lines)


def plot(table: Power, limit: int, out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(CONFIDENCES), figsize=(13, 5), sharey=True)
    x = list(range(1, limit + 1))
    colours = plt.get_cmap("tab20")  # 20 colours; an int picks the i-th
    for ax, conf in zip(axes, map(str, CONFIDENCES), strict=True):
        for i, (name, rows) in enumerate(table.items()):
            style = "-" if name.startswith("riffle") else "--"
            colour = colours(i % colours.N)
            ax.plot(x, rows[conf]["curve"], style, color=colour, marker=".", label=name)
        ax.set_title(f"confidence {conf}")
        ax.set_xlabel("shoes observed")
        ax.set_ylim(-0.02, 1.02)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("detection probability")
    axes[-1].legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.suptitle("Shuffle monitor: detection probability, 416-card shoes")
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=90)
    plt.close(fig)


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chains", type=int, default=50)
    parser.add_argument("--shoes", type=int, default=30, help="shoes a chain (default 30)")
    parser.add_argument("--null-shoes", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "shuffle-power.png")
    parser.add_argument("--quick", action="store_true", help="4 models, 5 chains, 300 nulls")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.chains, args.null_shoes = 5, 300
    if min(args.chains, args.shoes, args.null_shoes) < 1:
        parser.error("--chains, --shoes and --null-shoes must be at least 1")
    return args


def main() -> None:
    args = arguments()
    start = time.monotonic()
    names = QUICK_MODELS if args.quick else MODELS
    table = power(names, args.chains, args.shoes, args.seed)
    result = null(args.null_shoes, args.seed)
    plot(table, args.shoes, args.out)
    seconds = round(time.monotonic() - start, 1)
    if args.json:
        report = {"chains": args.chains, "shoes": args.shoes, "power": table, "null": result}
        print(json.dumps({**report, "seconds": seconds}))
        return
    print(f"{args.chains} chains of up to {args.shoes} shoes a model, seed {args.seed}")
    print(markdown(table, result, args.shoes))
    print(f"\nplot: {args.out}; {seconds} s", file=sys.stderr)


if __name__ == "__main__":
    main()
