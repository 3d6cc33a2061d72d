"""The rising-sequence test's null tail: simulated against the normal and the saddlepoint.

Run: .venv/bin/python benchmarks/shuffle_tail.py [--shoes N] [--known K] [--seed S] [--json]

One fixed input order (a uniform shuffle of 8 decks, its first ``--known`` cards known)
and ``--shoes`` uniform outputs (numpy's generator, seeded). For each output the
rising-sequence deviation (statistic - null mean) is computed in batches, the same sums
as ``stats.rising_sequences`` (checked equal on the first outputs), and z = deviation /
the exact null standard deviation. Printed: z's mean, variance and excess kurtosis, and
for each level the fraction of outputs with z below it, beside the normal tail and the
saddlepoint tail (``stats._lower_p``) that the test uses. Also Spearman's z (normal,
two-sided) and position uniformity's chi-square p-values, as a check of those tests.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

import numpy as np
from scipy import stats as sps
from scipy.special import ndtr

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as a script: the shoe is the tests' data

from controller.shuffle import stats  # noqa: E402
from tests.support.shuffles import shoe, uniform  # noqa: E402

LEVELS = (-2.5, -3.0, -3.5, -3.89, -4.26, -4.5)
BATCH = 250


class Setup:
    """The fixed input as identity codes and what the tests need of it."""

    def __init__(self, known: int, seed: int) -> None:
        rng = random.Random(seed)
        self.given = uniform(shoe(), rng)[:known]
        self.base = uniform(shoe(), rng)
        self.pair = stats._pair(self.given, self.base)
        self.null = stats._rising_null(self.pair.first, self.pair.second, self.pair.counts)
        codes, m = self.pair.in_codes, len(self.pair.in_codes)
        k = len(self.pair.counts)
        sums = np.bincount(codes, weights=np.arange(m), minlength=k)
        known_copies = np.bincount(codes, minlength=k)
        self.mean_in = np.where(known_copies > 0, sums / np.maximum(known_copies, 1), (m - 1) / 2)
        index = dict.fromkeys(self.base)
        ranks = {card: stats.RANK_ORDER.index(card[0]) for card in index}
        self.rank = np.array([ranks[c] for c in index])


def rising(setup: Setup, codes: np.ndarray) -> np.ndarray:
    """The deviation of each output (rows of ``codes``) from the null mean."""
    pair, k = setup.pair, len(setup.pair.counts)
    onehot = np.zeros((*codes.shape, k), np.float32)
    np.put_along_axis(onehot, codes[:, :, None], 1.0, axis=2)
    seen = np.cumsum(onehot, axis=1) - onehot
    before = np.matmul(onehot.transpose(0, 2, 1), seen)  # [a, b]: b-copies before a-copies
    first, second, counts = pair.first, pair.second, pair.counts
    frac = before[:, first, second] / (counts[first] * counts[second])
    observed = 1 + np.where(first == second, 0.5, frac).sum(axis=1)
    deviation: np.ndarray = observed - (1 + len(first) / 2)
    return deviation


def spearman_z(setup: Setup, codes: np.ndarray) -> np.ndarray:
    n = codes.shape[1]
    ranks = sps.rankdata(setup.mean_in[codes], axis=1)
    x, y = np.arange(n) - (n - 1) / 2, ranks - ranks.mean(axis=1, keepdims=True)
    rho = (x * y).sum(axis=1) / np.sqrt((x * x).sum() * (y * y).sum(axis=1))
    z: np.ndarray = rho * np.sqrt(n - 1)
    return z


def uniformity_p(setup: Setup, codes: np.ndarray, bands: int = 4) -> np.ndarray:
    rows, n = codes.shape
    table = np.zeros((rows, 13, bands))
    band = np.arange(n) * bands // n
    np.add.at(
        table, (np.repeat(np.arange(rows), n), setup.rank[codes].ravel(), np.tile(band, rows)), 1
    )
    expected = table.sum(axis=2, keepdims=True) * table.sum(axis=1, keepdims=True) / n
    chi2 = ((table - expected) ** 2 / expected).sum(axis=(1, 2))
    p: np.ndarray = sps.chi2.sf(chi2, (13 - 1) * (bands - 1))
    return p


def simulate(setup: Setup, shoes: int, seed: int) -> dict[str, np.ndarray]:
    gen = np.random.default_rng(seed)
    base = setup.pair.codes
    parts: dict[str, list[np.ndarray]] = {"rising": [], "spearman": [], "uniformity": []}
    for start in range(0, shoes, BATCH):
        perms = np.argsort(gen.random((min(BATCH, shoes - start), len(base))), axis=1)
        codes = base[perms]
        if start == 0:  # the batched sums are the module's own statistic
            dealt = [setup.base[j] for j in perms[0]]
            direct = stats.rising_sequences(setup.given, dealt)
            assert (
                abs(rising(setup, codes[:1])[0] - direct.statistic + direct.detail["expected"])
                < 1e-9
            )
        parts["rising"].append(rising(setup, codes) / np.sqrt(setup.null.variance))
        parts["spearman"].append(spearman_z(setup, codes))
        parts["uniformity"].append(uniformity_p(setup, codes))
    return {name: np.concatenate(values) for name, values in parts.items()}


def below(p_values: np.ndarray) -> dict[str, float]:
    return {f"{lv:g}": float(np.mean(p_values < lv)) for lv in (1e-2, 1e-3, 1e-4)}


def tail(setup: Setup, z: np.ndarray) -> list[dict[str, float]]:
    both = np.concatenate([z, -z])  # the law is symmetric: both tails, twice the counts
    sd = np.sqrt(setup.null.variance)
    return [
        {
            "z": level,
            "simulated": float(np.mean(both < level)),
            "normal": float(ndtr(level)),
            "saddlepoint": stats._lower_p(level * sd, setup.null),
        }
        for level in LEVELS
    ]


def summarise(setup: Setup, found: dict[str, np.ndarray]) -> dict[str, Any]:
    z, spearman = found["rising"], found["spearman"]
    rising_z = {"mean": float(z.mean()), "variance": float(z.var())}
    rising_z["excess_kurtosis"] = float(sps.kurtosis(z))
    return {
        "shoes": len(z),
        "known": len(setup.given),
        "rising": {**rising_z, "tail": tail(setup, z)},
        "spearman": {"variance": float(spearman.var()), "below": below(2 * ndtr(-abs(spearman)))},
        "position_uniformity": {"below": below(found["uniformity"])},
    }


def show(report: dict[str, Any], seed: int) -> None:
    rising_z = report["rising"]
    print(f"{report['shoes']} uniform outputs, {report['known']} input cards known, seed {seed}")
    print(
        f"rising z: mean {rising_z['mean']:.4f} variance {rising_z['variance']:.4f} "
        f"excess kurtosis {rising_z['excess_kurtosis']:.3f}"
    )
    print("| z | simulated (both tails) | normal | saddlepoint |\n|---|---|---|---|")
    for row in rising_z["tail"]:
        cells = " | ".join(f"{row[k]:.2e}" for k in ("simulated", "normal", "saddlepoint"))
        print(f"| {row['z']} | {cells} |")
    spearman = report["spearman"]
    print(f"spearman: variance {spearman['variance']:.4f}, p below {spearman['below']}")
    print(f"position_uniformity: p below {report['position_uniformity']['below']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shoes", type=int, default=100_000)
    parser.add_argument("--known", type=int, default=416, help="input cards known (2..416)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.shoes < 1 or not 2 <= args.known <= 416:
        parser.error("--shoes must be at least 1 and --known in 2..416")
    setup = Setup(args.known, args.seed)
    report = summarise(setup, simulate(setup, args.shoes, args.seed))
    if args.json:
        print(json.dumps(report))
        return
    show(report, args.seed)


if __name__ == "__main__":
    main()
