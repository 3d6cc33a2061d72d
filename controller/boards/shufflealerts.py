"""The shuffle-quality alerts a table's journal holds, and which a floorperson has
acknowledged (issue 14, docs/shuffle-monitor.md "Alerts"), from its entries alone: for
the daemon's status and live view, the uplink's retained status and the floor's pit,
which all read the same rows.

Two rows: ``shuffle_alert``, written by the daemon when the monitor's verdict on a shoe
is "alert" (``{"type": "shuffle_alert", "shoe": N, "failed": [check names], "p_values":
{...}, ...}``); and the floorperson's ``acknowledge_shuffle_alert`` command row
(``{"type": "command", "command": "acknowledge_shuffle_alert", "shoe": N, "login":
...}``), which acknowledges the alert of shoe N and every earlier one. An alert never
stops play: the floorperson reads it and decides.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Final

ALERT: Final = "shuffle_alert"
ACKNOWLEDGE: Final = "acknowledge_shuffle_alert"


class ShuffleAlerts:
    """The alerts not yet acknowledged (by shoe), the latest one, and the last
    acknowledgement."""

    def __init__(self) -> None:
        self.open: dict[int, dict[str, object]] = {}  # shoe -> its alert's summary
        self.raised = 0  # every alert row seen
        self.acknowledged_through = 0  # the highest shoe an acknowledgement covered
        self.acknowledged_by: str | None = None

    def feed(self, entry: Mapping[str, object]) -> bool:
        """Take one journal entry; whether it changed what ``view`` shows."""
        kind = entry.get("type")
        if kind == ALERT:
            shoe = entry.get("shoe")
            if not isinstance(shoe, int) or shoe <= self.acknowledged_through:
                return False
            self.raised += 1
            self.open[shoe] = _summary(shoe, entry)
            return True
        if kind == "command" and entry.get("command") == ACKNOWLEDGE:
            shoe = entry.get("shoe")
            if not isinstance(shoe, int):
                return False
            login = entry.get("login")
            self.acknowledged_through = max(self.acknowledged_through, shoe)
            self.acknowledged_by = login if isinstance(login, str) else None
            self.open = {s: a for s, a in self.open.items() if s > shoe}
            return True
        return False

    def problem(self, shoe: int) -> str | None:
        """Why a floorperson's acknowledgement of shoe ``shoe``'s alert is refused; None:
        it is taken (it acknowledges that alert and every earlier one)."""
        return acknowledge_problem(shoe, self.open)

    def view(self) -> dict[str, object] | None:
        """None when no alert waits; else the shoes whose alerts wait and the latest."""
        if not self.open:
            return None
        latest = max(self.open)
        return {"shoes": sorted(self.open), "latest": self.open[latest]}


def acknowledge_problem(shoe: int, waiting: Iterable[int]) -> str | None:
    """Why an acknowledgement of shoe ``shoe``'s alert is refused when the alerts of the
    shoes ``waiting`` wait; None: it is taken."""
    shoes = sorted(waiting)
    if shoe in shoes:
        return None
    if not shoes:
        return "no shuffle alert is waiting to be acknowledged"
    listed = ", ".join(str(s) for s in shoes)
    return f"no unacknowledged shuffle alert for shoe {shoe} (waiting: shoe {listed})"


def _summary(shoe: int, entry: Mapping[str, object]) -> dict[str, object]:
    failed = entry.get("failed")
    p_values = entry.get("p_values")
    smallest = None
    if isinstance(p_values, Mapping):
        numbers = [p for p in p_values.values() if isinstance(p, int | float)]
        smallest = min(numbers) if numbers else None
    return {
        "shoe": shoe,
        "failed": list(failed) if isinstance(failed, list) else [],
        "p_value": smallest,
        "confidence": entry.get("confidence"),
    }
