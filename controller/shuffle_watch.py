"""The shuffle monitor's own process, which the daemon starts beside the table
(controller/daemon/shuffles.py; docs/shuffle-monitor.md, "Alerts").

``python -m controller.shuffle_watch JOURNAL --confidence C --window W`` reads the
journal read-only, from row 1, and puts every row through ``ShoeTester``
(controller/shuffle/verdicts.py, the path ``tablectl shuffle-report`` takes). It is a
process of its own so that the statistics (numpy, scipy: some 75 MB) are never in the
daemon's memory, and never take the table's thread's turn: the card path does not wait
for them.

It ignores SIGINT and SIGTERM, which the daemon's stop sends the whole group: it
exits when its input ends (the daemon closed it, or died). On stdin, one line at a
time from the daemon: ``read`` (rows worth reading were written) or ``settle SEQ``
(the daemon stops: read up to row SEQ, then say so). On stdout, one JSON object a line:

* ``{"alert": ROW}``: a ``shuffle_alert`` row to journal, for a shoe whose verdict is
  "alert" and which has none (looked for in every row read so far and in the same
  pass, since its row follows its shoe's end);
* ``{"view": VIEW}``: the alerts waiting (``ShuffleAlerts.view``), when it changes;
* ``{"caught_up": SEQ, "cpu_s": S}`` after the first pass (its CPU time);
  ``{"settled": SEQ}`` after a settle;
* ``{"error": LINE}`` before it exits 1 on a journal it cannot read.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import signal
import sqlite3
import sys
import time
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, TextIO

from controller.boards.shufflealerts import ACKNOWLEDGE, ALERT, ShuffleAlerts
from controller.journal import JournalError, open_read_only
from controller.shuffle.orders import READS_DEVICE_EVENTS, READS_TYPES

if TYPE_CHECKING:
    from controller.shuffle.verdicts import ShoeTester, Tested


READ_BATCH = 1000  # rows read at a time: no read transaction is held for long
# Only the rows the orders and the alerts are made of are decoded: a shoe's 2,500 rows
# hold some 500 of them. They are found by their text, which is the journal's canonical
# JSON (controller/journal/chain.py: sorted keys, no spaces), so a key and its value
# are always written `"key":"value"`. A row found that way that is not one of them is
# decoded and left alone by the orders. (Measured: selecting them in SQL, with
# json_extract or instr, costs as much as this; decoding every row, half as much more.)
_WANTED = re.compile(
    "|".join(
        re.escape(text)
        for text in (
            *(f'"type":"{kind}"' for kind in (*READS_TYPES, ALERT)),
            *(f'"event":"{event}"' for event in READS_DEVICE_EVENTS),
            f'"command":"{ACKNOWLEDGE}"',
            '"opened":',
        )
    )
)
_ROWS = "SELECT seq, body FROM rows WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?"


def selected(db: sqlite3.Connection, after: int, upto: int) -> Iterator[tuple[int, Any]]:
    """The rows after ``after`` up to ``upto`` that the orders and the alerts are made
    of, decoded, a batch at a time."""
    while True:
        rows = db.execute(_ROWS, (after, upto, READ_BATCH)).fetchall()
        for seq, body in rows:
            after = int(seq)
            if _WANTED.search(body):
                yield after, json.loads(body)
        if len(rows) < READ_BATCH:
            return


class Watcher:
    """One pass at a time over the rows after the last read."""

    def __init__(self, db: sqlite3.Connection, confidence: float, window: int, out: TextIO):
        from controller.shuffle.verdicts import ShoeTester

        self.db = db
        self.confidence, self.window = confidence, window
        self.tester: ShoeTester = ShoeTester(confidence, window)
        self.alerts = ShuffleAlerts()
        self.out = out
        self.seq = 0  # the last row read
        self._journaled: set[int] = set()  # shoes with a shuffle_alert row, or sent
        self._shown: object = None

    def read(self) -> None:
        """The rows written since the last pass (those it needs), then what they say."""
        ((last,),) = self.db.execute("SELECT coalesce(max(seq), 0) FROM rows").fetchall()
        found: list[Tested] = []
        for seq, entry in selected(self.db, self.seq, int(last)):
            found += self._row(seq, entry)
        self.seq = max(self.seq, int(last))
        for shoe in found:
            if shoe.result["verdict"] == "alert" and shoe.order.shoe not in self._journaled:
                self._journaled.add(shoe.order.shoe)
                self.say({"alert": alert_row(shoe, self.confidence, self.window)})
        view = self.alerts.view()
        if view != self._shown:
            self._shown = view
            self.say({"view": view})

    def _row(self, seq: int, entry: dict[str, Any]) -> list[Tested]:
        self.seq = seq
        self.alerts.feed(entry)
        if entry.get("type") == ALERT and isinstance(entry.get("shoe"), int):
            self._journaled.add(entry["shoe"])
        return self.tester.feed(seq, entry)

    def say(self, message: dict[str, object]) -> None:
        self.out.write(json.dumps(message, allow_nan=False) + "\n")
        self.out.flush()


def alert_row(shoe: Tested, confidence: float, window: int) -> dict[str, object]:
    """The ``shuffle_alert`` row of an alerting shoe: the checks at or under the
    threshold (``failed``), then every test and p-value."""
    result: dict[str, Any] = shoe.result
    threshold = result["threshold"]
    return {
        "type": ALERT,
        "shoe": shoe.order.shoe,
        "game": shoe.order.game,
        "confidence": confidence,
        "window": window,
        "threshold": threshold,
        "failed": [name for name, p in result["p_values"].items() if p <= threshold],
        "p_values": {name: _finite(p) for name, p in result["p_values"].items()},
        "tests": [{k: _finite(v) for k, v in test.items()} for test in result["tests"]],
        "tested_on": result["tested_on"],
    }


def _finite(value: object) -> object:
    """A number as the journal's JSON holds it: not a number, or infinite, is None."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _serve(watcher: Watcher, commands: TextIO) -> None:
    began = time.process_time()
    watcher.read()
    # The CPU the first pass took (the rows at start), its imports and start aside.
    watcher.say({"caught_up": watcher.seq, "cpu_s": time.process_time() - began})
    for line in commands:
        words = line.split()
        watcher.read()
        if len(words) == 2 and words[0] == "settle":
            watcher.say({"settled": watcher.seq})


def main(argv: Sequence[str] | None = None, commands: TextIO = sys.stdin) -> int:
    parser = argparse.ArgumentParser(prog="controller.shuffle_watch")
    parser.add_argument("journal")
    parser.add_argument("--confidence", type=float, default=0.99)
    parser.add_argument("--window", type=int, default=10)
    args = parser.parse_args(argv)
    # The daemon's stop (SIGTERM to the unit's every process, Ctrl-C to the terminal's
    # group) is not ours: the monitor reads until the daemon closes its input, so the
    # last shoe's alert is still said (``settle``).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    try:
        db = open_read_only(args.journal)
    except JournalError as exc:
        print(json.dumps({"error": str(exc)}), flush=True)
        return 1
    try:
        _serve(Watcher(db, args.confidence, args.window, sys.stdout), commands)
    except (JournalError, sqlite3.Error, ValueError) as exc:
        print(json.dumps({"error": f"{args.journal}: {exc}"}), flush=True)
        return 1
    finally:
        db.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
