"""What recovery follows in the journal, row by row, so that neither a restart nor the
daemon's snapshots need the journal's earlier rows again: where each device's event
stream stood, an earlier restart's interrupted round still waiting for its
floorperson, whether a round is being dealt, the gaming day the journal last showed
(551.2(e)), and the sealed cards of the shoe in play not released yet (551.8(e)). A
``snapshot`` row carries it (``carry``) for the rows after it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from controller.journal import Row
from controller.recovery.inputs import RESUMED, gaming_day_in
from controller.recovery.rounds import ENDS, Interrupted
from controller.table.halts import INTERRUPTED


class Follower:
    """The journal as recovery needs it, one entry at a time (``fold``)."""

    def __init__(self, carried: Mapping[str, Any] | None = None) -> None:
        carried = carried or {}
        self.serials: dict[str, str] = dict(carried.get("serials", {}))
        self.last: dict[str, int] = dict(carried.get("last", {}))
        waiting = carried.get("waiting")
        self.waiting = None if waiting is None else Interrupted.from_entry(waiting)
        self.in_round = bool(carried.get("in_round", False))
        day = carried.get("day")
        self.day = day if isinstance(day, str) else ""  # the gaming day the last input was on
        # Seals of the shoe in play never released (none at a snapshot): a card a restart
        # voided unread stays in the shoe's counts, by value, until the shoe ends.
        self.sealed: set[str] = set()

    def carry(self) -> dict[str, object]:
        """What a snapshot row holds of it."""
        return {
            "serials": dict(self.serials),
            "last": dict(self.last),
            "waiting": None if self.waiting is None else self.waiting.entry(),
            "in_round": self.in_round,
            "day": self.day,
        }

    def fold_rows(self, rows: Iterable[Row]) -> Follower:
        for row in rows:
            self.fold(row.entry)
        return self

    def fold(self, entry: Mapping[str, Any]) -> None:
        kind = entry.get("type")
        # Only a row with a day, or a refusal, tells the day; only these touch the seals
        # (each row of the daemon's journal passes here: no call for the others).
        if "day" in entry or kind == "refused":
            self.day = gaming_day_in(entry) or self.day
        if entry.get("sealed") or "opened" in entry or kind == "shoe_end":
            self._seals(entry)
        self._by_kind(kind, entry)

    def _by_kind(self, kind: object, entry: Mapping[str, Any]) -> None:
        if kind == "device":
            self._device(entry)
        elif kind == RESUMED:
            waiting = entry.get("interrupted")
            self.waiting = Interrupted.from_entry(waiting) if waiting else self.waiting
        elif kind == "floor_clear" and INTERRUPTED in (entry.get("causes") or ()):
            self.waiting = None
        elif kind == "no_more_bets":
            self.in_round = True
        elif kind in ENDS:
            self.in_round = False

    def _seals(self, entry: Mapping[str, Any]) -> None:
        if entry.get("sealed") and isinstance(entry.get("seal"), str):
            self.sealed.add(entry["seal"])
        for opened in entry.get("opened") or ():
            self.sealed.discard(str(opened.get("seal")))
        if entry.get("type") == "shoe_end":
            self.sealed.clear()  # what is left was refused, never used, and is gone

    def _device(self, entry: Mapping[str, Any]) -> None:
        device = str(entry["device"])
        if entry.get("event") == "device_connected":
            serial = str(entry["serial"])
            if self.serials.get(device) != serial:
                self.last.pop(device, None)  # another unit: its ids start afresh
            self.serials[device] = serial
        event_id = entry.get("event_id")
        if isinstance(event_id, int) and device in self.serials:
            self.last[device] = max(self.last.get(device, 0), event_id)

    @property
    def positions(self) -> dict[str, tuple[str, int]]:
        """Where each device's event stream stood when the journal was last written: the
        device's serial and the last event id journaled for it. A restarted driver given
        these (``resume=``) takes the events the device replays (it keeps every event
        until it is acknowledged) without repeating one the journal already holds."""
        return {device: (self.serials[device], self.last[device]) for device in self.last}
