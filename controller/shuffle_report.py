"""``tablectl shuffle-report --journal FILE [--json] [--confidence 0.99|0.95]``: every
test of the shuffle-quality monitor on each shoe of a journal, and the verdict.

Each shoe's orders (controller/shuffle/orders.py) go through ``all_tests`` (stats.py)
and one ``Monitor`` (sequential.py), in shoe order, by ``ShoeTester`` (verdicts.py), as
the daemon's monitor takes them: the shoe's tests, their p-values and
the window's, the threshold and the shoe's verdict; the journal's verdict is ``"alert"``
when any shoe alerted. A shoe whose input order is not known (the journal's first shoe,
or a pairing without one) is tested on its dealt order alone, and says so. Errors (no
such file, not a journal, rows the orders cannot be read from, a confidence other than
0.99 or 0.95) end in one line and exit 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from controller.export import read_rows
from controller.journal import JournalError
from controller.rules.cards import CUT
from controller.shuffle.orders import Pairing, ShoeOrder, unseen
from controller.shuffle.sequential import DEFAULT_WINDOW, shoe_alpha
from controller.shuffle.verdicts import ShoeTester, Tested

EXIT_OK = 0
EXIT_USAGE = 2
CONFIDENCES = {"0.99": 0.99, "0.95": 0.95}  # GLI-29's 99 % (the default), COMAR's 95 %


def add_parser(subparsers: argparse._SubParsersAction[Any]) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "shuffle-report", help="the shuffle tests of each shoe in a journal, and the verdict"
    )
    parser.add_argument("--journal", required=True, metavar="FILE", help="an SQLite journal")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.add_argument(
        "--confidence", default="0.99", metavar="C", help="0.99 (the default) or 0.95"
    )
    return parser


def report(
    rows: Sequence[tuple[int, Any]], confidence: float = 0.99, window: int = DEFAULT_WINDOW
) -> dict[str, Any]:
    """Each shoe's orders, tests and verdict; ValueError when the rows cannot be read."""
    tester = ShoeTester(confidence, window)
    done: list[Tested] = []
    for seq, entry in rows:
        done += tester.feed(seq, entry)
    done += tester.finish()
    shoes = [{**_shoe(t.order, t.pairing), **t.result} for t in done]
    alerts = [s["shoe"] for s in shoes if s["verdict"] == "alert"]
    return {
        "confidence": confidence,
        "window": window,
        "alpha_per_shoe": shoe_alpha(confidence),
        "shoes": shoes,
        "alerts": alerts,
        "verdict": "alert" if alerts else "ok",
    }


def _shoe(order: ShoeOrder, pairing: Pairing | None) -> dict[str, Any]:
    return {
        "shoe": order.shoe,
        "game": order.game,
        "cards": order.cards,
        "dealt": sum(1 for c in order.dealt if c != CUT),
        "cover_card_at": [i for i, c in enumerate(order.dealt) if c == CUT],
        "unseen": len(unseen(order)),
        "from_rack": len(order.from_rack),
        "rack": None if order.rack is None else len(order.rack),
        "rack_rounds": len(order.rack_rounds),
        "rack_ordered_within_rounds": order.rack_ordered_within_rounds,
        "continuous": order.continuous,
        "complete": order.complete,
        "end": order.end,
        "input_known": None if pairing is None else pairing.input is not None,
        "input_notes": None if pairing is None else pairing.notes,
        "notes": order.notes,
    }


def text(found: dict[str, Any]) -> str:
    lines = [
        f"confidence {found['confidence']}, window {found['window']} shoes, "
        f"false-alarm budget {found['alpha_per_shoe']:g} per good shoe"
    ]
    for s in found["shoes"]:
        lines += _shoe_lines(s)
    alerts = ", ".join(str(n) for n in found["alerts"]) or "none"
    lines.append(f"{len(found['shoes'])} shoe(s); alerting shoe(s): {alerts}")
    lines.append(f"verdict: {found['verdict']}")
    return "\n".join(lines) + "\n"


def _shoe_lines(s: dict[str, Any]) -> list[str]:
    rack = "no rack (the shoe did not end)" if s["rack"] is None else f"rack {s['rack']}"
    known = {None: "first shoe", True: "input order known", False: "input order unknown"}
    lines = [
        f"shoe {s['shoe']}: dealt {s['dealt']} of {s['cards']}, cover card at "
        f"{s['cover_card_at'] or 'none'}, unseen {s['unseen']}, {rack}, "
        f"{'complete' if s['complete'] else 'incomplete'}, {known[s['input_known']]}"
    ]
    lines += [f"  {n}" for n in (s["notes"], s["input_notes"], s["test_notes"]) if n]
    if s["threshold"] is not None:
        lines.append(f"  {'test':<32} {'statistic':>12} {'p-value':>10}")
        stats = {t["name"]: t["statistic"] for t in s["tests"]}
        for name, p in s["p_values"].items():
            stat = f"{stats[name]:.4g}" if name in stats else "(Fisher)"
            lines.append(f"  {name:<32} {stat:>12} {p:>10.3g}")
        lines.append(f"  threshold {s['threshold']:.3g}: {s['verdict'].upper()}")
    else:
        lines.append(f"  {s['verdict']}")
    return lines


def run(args: argparse.Namespace, out: Any = None) -> int:
    out = out or sys.stdout
    confidence = CONFIDENCES.get(args.confidence)
    if confidence is None:
        print(
            f"tablectl: error: --confidence: expected 0.99 or 0.95, got {args.confidence!r}",
            file=sys.stderr,
        )
        return EXIT_USAGE
    try:
        rows = [(row.seq, row.entry) for row in read_rows(args.journal)]
        found = report(rows, confidence)
    except JournalError as exc:  # it names the file
        print(f"tablectl: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except ValueError as exc:
        print(f"tablectl: error: {args.journal}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    out.write(json.dumps(found, indent=2) + "\n" if args.json else text(found))
    return EXIT_OK
