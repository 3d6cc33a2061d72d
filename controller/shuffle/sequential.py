"""A sequential scheme over shoes: per-shoe Bonferroni plus a rolling Fisher window.

At confidence ``c`` (0.99 by default, 0.95 selectable) the monitor spends a false-alarm
budget of alpha = (1 - c) / 200 per good shoe observed: 5e-5 at 0.99 (at most 0.05 false
alarms per 1,000 good shoes, 0.5 per 10,000: half the target of one per 10,000, so that
the target holds with a margin) and 2.5e-4 at 0.95 (at most 0.25 per 1,000, 2.5 per
10,000).

At each shoe, for each of the T tests the shoe ran, two checks, each at level alpha / (2T):

* the shoe alone: the test's p-value;
* the window: Fisher's combination of the test's p-values over the last ``window`` shoes,
  -2 sum ln p, which is chi-square with 2w degrees of freedom under the null
  (``scipy.special.chdtrc``) -- this is what catches a shuffler that is a little
  bad every shoe (a riffle with many passes).

By the union bound the probability that a good shoe raises an alert is at most alpha,
whatever the dependence between the tests and between overlapping windows; the expected
number of alerting good shoes per 1,000 is at most 1,000 alpha. The bound needs each
p-value to be valid that far out (P(p <= t) <= t at t = alpha / (2T), about 6e-6 with 4
tests at 0.99): stats.py's rising-sequence tail is a saddlepoint for that reason, the
normal tail being light by a factor of 2 there. A window's small p-value stays in it for
``window`` shoes, so one false alarm can make several alerting shoes in a row; the
benchmark (benchmarks/shuffle_power.py) counts both the alerting shoes and the alerts
raised (an alerting shoe after an ok one). An alert never stops play: it is a verdict
for the floorperson to read.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from scipy.special import chdtrc

from controller.shuffle.stats import TestResult

DEFAULT_WINDOW = 10
# alpha = (1 - c) / 200: at 0.99, 0.5 false alarms per 10,000 good shoes at most (target 1)
BUDGET_DIVISOR = 200


def shoe_alpha(confidence: float) -> float:
    """The false-alarm budget per good shoe for a confidence (0.99 -> 5e-5, 0.95 -> 2.5e-4)."""
    if not 0.5 <= confidence < 1:
        raise ValueError(f"confidence must be in [0.5, 1), got {confidence}")
    return (1 - confidence) / BUDGET_DIVISOR


@dataclass(frozen=True)
class Verdict:
    """The monitor's reading after one shoe: the shoe's tests and each check's p-value."""

    status: Literal["ok", "alert"]
    tests: tuple[TestResult, ...]
    p_values: dict[str, float]
    threshold: float


def fisher(p_values: Iterable[float]) -> float:
    """Fisher's combined p-value: -2 sum ln p against chi-square with 2w degrees of
    freedom (as ``scipy.stats.combine_pvalues(method="fisher")``, without its overhead)."""
    logs = [math.log(p) for p in p_values]
    return float(chdtrc(2 * len(logs), -2 * sum(logs)))


class Monitor:
    """Feed it each shoe's test results in dealing order; it answers ok or alert."""

    def __init__(self, confidence: float = 0.99, window: int = DEFAULT_WINDOW) -> None:
        if window < 1:
            raise ValueError(f"window must be at least 1 shoe, got {window}")
        self.alpha = shoe_alpha(confidence)
        self.window = window
        self._history: dict[str, deque[float]] = {}

    def observe(self, shoe_result: Sequence[TestResult]) -> Verdict:
        if not shoe_result:
            raise ValueError("a shoe result needs at least one test")
        threshold = self.alpha / (2 * len(shoe_result))
        p_values: dict[str, float] = {}
        for test in shoe_result:
            past = self._history.setdefault(test.name, deque(maxlen=self.window))
            past.append(max(test.p_value, 1e-300))
            p_values[test.name] = test.p_value
            if len(past) > 1:
                p_values[f"{test.name}@window"] = fisher(past)
        status: Literal["ok", "alert"] = "alert" if min(p_values.values()) <= threshold else "ok"
        return Verdict(status, tuple(shoe_result), p_values, threshold)
