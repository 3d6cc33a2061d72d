"""The table's retained status (controller/uplink/messages.py ``status_message``),
derived from its journal entries alone: the state, shoe, round and halt as
controller/boards/tablestate.py reads them, the devices' health as the pit shows it
(controller/boards/pit.py ``HEALTH``), the game its first row names (so a floor that
joins after that row still knows it), the shuffle alerts not yet acknowledged
(controller/boards/shufflealerts.py, the reader the daemon and the floor use too), the
last row fed and its time.

Rebuilt from row 1 at start (``rebuild``), so a restarted uplink publishes the same
status the table had; then fed each row as it is published. No card is in it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from controller.boards.pit import HEALTH
from controller.boards.shufflealerts import ShuffleAlerts
from controller.boards.tablestate import TableState
from controller.uplink.outbox import Outbox


class Status:
    def __init__(self) -> None:
        self._table = TableState()
        self.devices: dict[str, str] = {}
        self.seq = 0
        self.at: str | None = None
        self.game: str | None = None  # the journal's first row names it
        self.alerts = ShuffleAlerts()

    def feed(self, seq: int, ts: str, entry: Mapping[str, object]) -> None:
        if seq <= self.seq:
            return  # fed already: republished after a reconnect
        self.seq, self.at = seq, ts
        self._table.feed(entry)
        self.alerts.feed(entry)
        if entry.get("type") == "journal" and isinstance(entry.get("game"), str):
            self.game = str(entry["game"])
        if entry.get("type") == "device" and str(entry.get("event")) in HEALTH:
            self.devices[str(entry.get("device"))] = HEALTH[str(entry.get("event"))]

    def feed_body(self, seq: int, ts: str, body: str) -> None:
        """Feed a row as stored; a body that is not a JSON object moves nothing."""
        try:
            entry = json.loads(body)
        except ValueError:
            entry = None
        self.feed(seq, ts, entry if isinstance(entry, dict) else {})

    def shown(self) -> dict[str, object]:
        """What the status says but for the seq and time: a change is worth a message."""
        return {
            "game": self.game,
            **self._table.view(),
            "halted": self._table.halted,
            "devices": dict(sorted(self.devices.items())),
            "shuffle_alert": self.alerts.view(),
        }

    def view(self) -> dict[str, object]:
        return {**self.shown(), "seq": self.seq, "at": self.at}


def rebuild(outbox: Outbox, upto: int) -> Status:
    """The status after rows 1 to ``upto`` of the journal."""
    status = Status()
    for seq, ts, body in outbox.bodies(upto):
        status.feed_body(seq, ts, body)
    return status
