"""``tablectl shuffle-report --journal FILE [--json]``: the orders each shoe of a
journal gives the shuffle-quality monitor (controller/shuffle/orders.py): how many
cards were read out of it and where the cover card came out, how many were never read,
the rack handed to the next shoe's shuffler, and whether all of it is known.

A skeleton (issue 14 item 3): the statistics and the verdict come with the monitor's
tests (controller/shuffle/stats.py); until then the report gives no verdict.
Errors (no such file, not a journal, rows the orders cannot be read from) end in one
line and exit 2.
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
from controller.shuffle.orders import Pairing, ShoeOrder, pairings, shoe_orders, unseen

EXIT_OK = 0
EXIT_USAGE = 2


def add_parser(subparsers: argparse._SubParsersAction[Any]) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "shuffle-report", help="the dealt and rack orders of each shoe in a journal"
    )
    parser.add_argument("--journal", required=True, metavar="FILE", help="an SQLite journal")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    return parser


def report(rows: Sequence[tuple[int, Any]]) -> dict[str, Any]:
    """Each shoe's orders as counts; ValueError when the rows cannot be read."""
    orders = shoe_orders(rows)
    inputs = {p.shoe: p for p in pairings(orders)}
    return {"shoes": [_shoe(o, inputs.get(o.shoe)) for o in orders]}


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
    lines = []
    for s in found["shoes"]:
        rack = "no rack (the shoe did not end)" if s["rack"] is None else f"rack {s['rack']}"
        known = {None: "first shoe", True: "input order known", False: "input order unknown"}
        lines.append(
            f"shoe {s['shoe']}: dealt {s['dealt']} of {s['cards']}, cover card at "
            f"{s['cover_card_at'] or 'none'}, unseen {s['unseen']}, {rack}, "
            f"{'complete' if s['complete'] else 'incomplete'}, {known[s['input_known']]}"
        )
        for note in filter(None, (s["notes"], s["input_notes"])):
            lines.append(f"  {note}")
    lines.append(f"{len(found['shoes'])} shoe(s); no verdict: the statistics are not computed")
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace, out: Any = None) -> int:
    out = out or sys.stdout
    try:
        rows = [(row.seq, row.entry) for row in read_rows(args.journal)]
        found = report(rows)
    except JournalError as exc:  # it names the file
        print(f"tablectl: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except ValueError as exc:
        print(f"tablectl: error: {args.journal}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    out.write(json.dumps(found, indent=2) + "\n" if args.json else text(found))
    return EXIT_OK
