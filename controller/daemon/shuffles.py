"""The shuffle-quality monitor beside the table (issue 14, docs/shuffle-monitor.md
"Alerts"): never on the card path.

A thread of its own reads the journal read-only, from row 1 at start and then each
time a shoe ends, and puts every row through ``ShoeTester`` (controller/shuffle/
verdicts.py), the path ``tablectl shuffle-report`` takes. A shoe whose verdict is
"alert" and that has no ``shuffle_alert`` row yet gets one: the row is handed to the
table's thread through its inbox and written there between two inputs, in a
transaction of its own (a daemon row, which a replay skips: controller/recovery). So a
restart neither loses an alert (one not written before a crash is found again from the
rows) nor writes one twice. An alert never stops play.

The same thread keeps what the journal says of the alerts (``ShuffleAlerts``) for the
API's ``status`` and for ``submit``, which refuses a floorperson's
``acknowledge_shuffle_alert`` for a shoe with no alert waiting (error
``no_shuffle_alert``) before it reaches the table. The statistics (scipy) are loaded on
the thread, so the daemon's start does not wait for them.
"""

from __future__ import annotations

import json
import math
import os
import sqlite3
import threading
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import structlog

from controller.api import Ticket
from controller.api.wire import Refused
from controller.boards.shufflealerts import ACKNOWLEDGE, ALERT, ShuffleAlerts
from controller.config import ShuffleSettings
from controller.journal import JournalError, open_read_only
from controller.table.events import AcknowledgeShuffleAlert, Command

if TYPE_CHECKING:
    from controller.shuffle.verdicts import ShoeTester, Tested

log = structlog.get_logger("controller.daemon")

READ_BATCH = 1000  # rows read at a time: no read transaction is held for long
REFUSED = "no_shuffle_alert"
_WAKES = ("shoe_end", ALERT)


class ShuffleWatch:
    """``observe``: a watcher of the rows written (the table's thread, a wake-up only);
    ``submit``: the API's, in front of ``forward``; ``post``: how an alert row reaches
    the table's thread (``Inbox.note``)."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        settings: ShuffleSettings,
        forward: Callable[[Command, Ticket], bool],
        post: Callable[[dict[str, object]], None],
    ) -> None:
        self.path = path
        self.settings = settings
        self._forward = forward
        self._post = post
        self._alerts = ShuffleAlerts()
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._read_to = threading.Condition()  # notified when a pass ends (``settle``)
        self._stopping = False
        self._seq = 0  # the last row read
        self._done = 0  # the last row read whose shoes' alerts are posted
        self._journaled: set[int] = set()  # shoes with a shuffle_alert row, or posted
        self.caught_up = threading.Event()  # the rows at start are read
        self._thread = threading.Thread(target=self._run, name="shuffle-monitor", daemon=True)

    # ------------------------------------------------------------------ other threads

    def start(self) -> None:
        if self.settings.monitor:
            self._thread.start()

    def stop(self) -> None:
        self._stopping = True
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)

    def settle(self, seq: int, timeout: float) -> bool:
        """Wait until the rows up to ``seq`` are read and their alerts posted (or the
        thread is gone, or ``timeout`` seconds); whether they were."""
        if not self._thread.is_alive():
            return False
        self._wake.set()
        with self._read_to:
            return self._read_to.wait_for(
                lambda: self._done >= seq or not self._thread.is_alive(), timeout
            )

    def observe(self, entry: Mapping[str, object]) -> None:
        kind = entry.get("type")
        if kind in _WAKES or (kind == "command" and entry.get("command") == ACKNOWLEDGE):
            self._wake.set()

    def submit(self, command: Command, ticket: Ticket) -> bool:
        if isinstance(command, AcknowledgeShuffleAlert):
            with self._lock:
                problem = self._alerts.problem(command.shoe)
            if problem is not None:
                raise Refused(REFUSED, problem)
        return self._forward(command, ticket)

    def view(self) -> dict[str, object] | None:
        """The alerts waiting, as ``ShuffleAlerts.view``."""
        with self._lock:
            return self._alerts.view()

    def waiting(self) -> bool:
        with self._lock:
            return bool(self._alerts.open)

    # ------------------------------------------------------------------ its thread

    def _run(self) -> None:
        from controller.shuffle.verdicts import ShoeTester

        tester = ShoeTester(self.settings.confidence, self.settings.window)
        try:
            db = open_read_only(self.path)
        except JournalError as exc:
            log.error("shuffle_monitor_stopped", detail=str(exc))
            return
        try:
            while not self._stopping:
                self._wake.clear()
                self._read(db, tester)
                with self._read_to:
                    self._read_to.notify_all()
                self.caught_up.set()
                self._wake.wait()
        except (JournalError, sqlite3.Error, ValueError) as exc:
            log.error("shuffle_monitor_stopped", detail=str(exc))
        finally:
            db.close()

    def _read(self, db: sqlite3.Connection, tester: ShoeTester) -> None:
        """Every row after the last read, then an alert row for each shoe they found in
        alert that has none (its row may follow in the same rows: looked for first)."""
        found: list[Tested] = []
        while True:
            rows = db.execute(
                "SELECT seq, body FROM rows WHERE seq > ? ORDER BY seq LIMIT ?",
                (self._seq, READ_BATCH),
            ).fetchall()
            for seq, body in rows:
                entry = json.loads(body)
                self._seq = int(seq)
                with self._lock:
                    self._alerts.feed(entry)
                if entry.get("type") == ALERT and isinstance(entry.get("shoe"), int):
                    self._journaled.add(entry["shoe"])
                found += tester.feed(self._seq, entry)
            if len(rows) < READ_BATCH:
                break
        for shoe in found:
            if shoe.result["verdict"] == "alert" and shoe.order.shoe not in self._journaled:
                self._journaled.add(shoe.order.shoe)
                self._post(alert_row(shoe, self.settings))
        self._done = self._seq


def alert_row(shoe: Tested, settings: ShuffleSettings) -> dict[str, object]:
    """The ``shuffle_alert`` row of an alerting shoe: its checks at or under the
    threshold first (``failed``), then every test and p-value."""
    result: dict[str, Any] = shoe.result
    threshold = result["threshold"]
    return {
        "type": ALERT,
        "shoe": shoe.order.shoe,
        "game": shoe.order.game,
        "confidence": settings.confidence,
        "window": settings.window,
        "threshold": threshold,
        "failed": [name for name, p in result["p_values"].items() if p <= threshold],
        "p_values": {name: _finite(p) for name, p in result["p_values"].items()},
        "tests": [{k: _finite(v) for k, v in test.items()} for test in result["tests"]],
        "tested_on": result["tested_on"],
    }


def _finite(value: object) -> object:
    """A number as the journal's JSON can hold it: not a number, or infinite, is None."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
