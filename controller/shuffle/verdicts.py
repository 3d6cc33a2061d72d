"""Each shoe's verdict, shoe by shoe, from a journal's rows as they come: the one path
``tablectl shuffle-report`` and the daemon's monitor (controller/daemon/shuffles.py)
both take, so the alerts the daemon journals are the report's alerts on the same rows.

``ShoeTester.feed`` takes the rows in sequence order and, at each ``shoe_end``, gives the
shoes that row completes (one, or more when a shoe was shuffled again before its end),
each as a ``Tested``: its orders, the order its shuffler was given as far as it is known,
and the monitor's reading. Only the rows since the last shoe's end are kept, and the
last shoe's orders, so its memory does not grow with the journal. ``finish`` gives the
shoe still open at the journal's end (the report tests it too; the daemon does not).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from controller.rules.cards import CUT
from controller.shuffle.orders import UNKNOWN, Pairing, ShoeOrder, pairings, shoe_orders
from controller.shuffle.sequential import DEFAULT_WINDOW, Monitor
from controller.shuffle.stats import all_tests


@dataclass(frozen=True)
class Tested:
    order: ShoeOrder
    pairing: Pairing | None  # None: the first shoe of the rows
    result: dict[str, Any]  # ``tested``'s


class ShoeTester:
    def __init__(self, confidence: float = 0.99, window: int = DEFAULT_WINDOW) -> None:
        self.monitor = Monitor(confidence, window)
        self._rows: list[tuple[int, Mapping[str, Any]]] = []
        self._previous: ShoeOrder | None = None

    def feed(self, seq: int, entry: Mapping[str, Any]) -> list[Tested]:
        """Take one row; the shoes it completes (a ``shoe_end``), tested, else []."""
        if self._rows and seq <= self._rows[-1][0]:
            raise ValueError(f"journal rows out of order: row {seq} after row {self._rows[-1][0]}")
        self._rows.append((seq, entry))
        if entry.get("type") != "shoe_end":
            return []
        return self._test_kept()

    def finish(self) -> list[Tested]:
        """The shoe still open at the end of the rows (not ended), tested."""
        return self._test_kept()

    def _test_kept(self) -> list[Tested]:
        orders = shoe_orders(self._rows)
        self._rows = []
        done = []
        for order in orders:
            pairing = None
            if self._previous is not None:
                pairing = pairings([self._previous, order])[0]
            done.append(Tested(order, pairing, tested(self.monitor, order, pairing)))
            self._previous = order
        return done


def known_input(pairing: Pairing) -> tuple[list[str] | None, int]:
    """The pairing's input order as far as the dealt prefix holds its cards: copies of a
    card beyond those dealt (the rest stayed under the cover card) are left out, the
    earliest copies kept; and how many were left out. A function of the cards dealt, not
    of their order, so the tests' null distribution is unchanged."""
    if pairing.input is None:
        return None, 0
    kept = _earliest(pairing.input, Counter(pairing.output))
    return kept, len(pairing.input) - len(kept)


def _earliest(cards: Sequence[str], room: Counter[str]) -> list[str]:
    kept = []
    for card in cards:
        if room[card] > 0:
            room[card] -= 1
            kept.append(card)
    return kept


def tested(monitor: Monitor, order: ShoeOrder, pairing: Pairing | None) -> dict[str, Any]:
    """The shoe's tests through ``monitor``: each test, the p-values (the window's too),
    the threshold and the verdict ("ok", "alert", or "untested": too few cards)."""
    output = [c for c in order.dealt if c not in (CUT, UNKNOWN)]
    given, dropped = known_input(pairing) if pairing is not None else (None, 0)
    on = "the input and dealt orders" if given is not None else "the dealt order only"
    try:
        verdict = monitor.observe(all_tests(given, output))
    except ValueError as exc:  # too few cards to measure: no verdict for this shoe
        return {
            "tested_on": None,
            "tests": [],
            "p_values": {},
            "threshold": None,
            "verdict": "untested",
            "test_notes": str(exc),
        }
    notes = [] if given is not None else ["input order unknown: tested on the dealt order alone"]
    if dropped:
        notes.append(f"{dropped} input card(s) not in the dealt prefix left out")
    return {
        "tested_on": on,
        "tests": [
            {"name": t.name, "statistic": t.statistic, "p_value": t.p_value, "n": t.n}
            for t in verdict.tests
        ],
        "p_values": verdict.p_values,
        "threshold": verdict.threshold,
        "verdict": verdict.status,
        "test_notes": "; ".join(notes),
    }
