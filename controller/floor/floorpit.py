"""The pit across the floor: one ``controller.boards.pit.Pit`` per table, fed with each
journal message's entry (an entry the table withheld, 551.8(e), is skipped) at its
row's time, the table's retained status (online, or offline by its last will), and
the follower's track of it (its missing rows); the tables in the order of what needs a
floorperson first (``NEEDS``).

The shuffle alerts no floorperson has acknowledged (controller/boards/shufflealerts.py,
the reader the daemon and the uplink use) come from the rows the floor received, or
from the status (``shuffle_alert``) when it is as new as the last row that changed them:
a floor that joined after an alert was raised learns it from the status only.

A table's game comes from its journal's first row (``{"type": "journal", "game": ...}``),
from its status when the status names it, or from the follower's saved track (a
restarted floor); until then its entries wait, in order, and its card shows what its
status says. The shift's figures count from the shift's start (controller/web/
shifts.py), as on a table's own /pit; a restarted floor counts from its restart on.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Mapping
from typing import Any, Final

from controller.boards.history import row_time
from controller.boards.pit import Pit
from controller.boards.scoreboard import BoardError
from controller.boards.shufflealerts import ShuffleAlerts
from controller.boards.tablestate import STOPPED
from controller.floor.tracks import Track
from controller.uplink.messages import JournalMessage
from controller.web import shifts

# What needs a floorperson, first first: a table whose uplink is gone, play stopped
# (a halt), a fault this shift, a device lost, unavailable, refused or in fault, a
# shuffle alert not yet acknowledged, rows that never reached the floor. A table
# needing none comes after, all by table id. A shuffle alert never stops play (the
# floorperson decides), so it comes after what keeps a table from dealing right now;
# but it is the table's own game at risk (a shuffler leaving patterns players can
# follow), where a gap is the floor's record missing rows the table itself still has.
NEEDS: Final = ("offline", "stopped", "fault", "device", "shuffle", "gap")
BAD_HEALTH: Final = frozenset({"lost", "unavailable", "refused", "fault"})
WAITING: Final = 500  # a table's entries kept while its game is not known (its first rows)


def needs(view: Mapping[str, Any]) -> list[str]:
    """What a table's view (``FloorTable.view``) needs, in ``NEEDS`` order."""
    found = {
        "offline": view.get("online") is False,
        "stopped": bool(view.get("halted")),
        "fault": bool((view.get("faults") or {}).get("count")),
        "device": any(health in BAD_HEALTH for health in (view.get("devices") or {}).values()),
        "shuffle": bool(view.get("shuffle_alert")),
        "gap": bool(view.get("missing")),
    }
    return [need for need in NEEDS if found[need]]


def need_order(view: Mapping[str, Any]) -> tuple[int, str]:
    """The sort key: the first need's place in ``NEEDS`` (none: after all), then the id."""
    first = view["needs"][0] if view["needs"] else None
    return (NEEDS.index(first) if first else len(NEEDS), str(view["table"]))


class FloorTable:
    """One table as the floor sees it."""

    def __init__(self, table: str, shift_starts: tuple[int, ...]) -> None:
        self.table = table
        self.shift_starts = shift_starts
        self.pit: Pit | None = None
        self.next_shift = 0.0
        self.status: dict[str, Any] = {}  # the last online status
        self.online: bool | None = None
        self.alerts = ShuffleAlerts()  # from the rows received
        self.alerts_seq = 0  # the last row that changed them
        self._waiting: deque[tuple[int, Mapping[str, object], float]] = deque(maxlen=WAITING)

    def know(self, game: object) -> None:
        if self.pit is not None or not isinstance(game, str):
            return
        try:
            self.pit = Pit(game, at=0.0)
        except BoardError:
            return  # a game this floor does not know: the card shows the status alone
        while self._waiting:
            self._feed(*self._waiting.popleft())

    def feed(self, seq: int, entry: Mapping[str, object], at: float) -> None:
        if self.alerts.feed(entry):
            self.alerts_seq = seq
        if entry.get("type") == "journal":
            self.know(entry.get("game"))
        if self.pit is None:
            self._waiting.append((seq, entry, at))
        else:
            self._feed(seq, entry, at)

    def _feed(self, seq: int, entry: Mapping[str, object], at: float) -> None:
        assert self.pit is not None
        if at >= self.next_shift:
            since, self.next_shift = shifts.current(at, self.shift_starts)
            self.pit.reset(since)
        self.pit.feed(seq, entry, at)

    def feed_status(self, status: Mapping[str, Any]) -> None:
        self.online = bool(status.get("online"))
        if self.online:
            self.status = dict(status)
            self.know(status.get("game"))

    def view(self, track: Track | None, now: float) -> dict[str, Any]:
        status = self.status
        if self.pit is not None:
            view: dict[str, Any] = self.pit.view(now)
        else:
            view = {key: status.get(key) for key in ("game", "state", "shoe", "round")}
            view["seq"] = 0
        stopped = view.get("state") == STOPPED or (
            self.online is not False and status.get("halted")
        )
        given = status.get("devices")
        devices: dict[str, Any] = given if isinstance(given, dict) else {}
        view.update(
            table=self.table,
            online=self.online,
            halted=bool(stopped),
            devices=dict(sorted({**devices, **view.get("devices", {})}.items())),
            status_at=status.get("at"),
            seq=track.seq if track is not None else view["seq"],
            missing=track.missing if track is not None else [],
            missing_rows=track.missing_rows if track is not None else 0,
            shuffle_alert=self.shuffle_alert(),
        )
        view["needs"] = needs(view)
        return view

    def shuffle_alert(self) -> object:
        """The status's alerts when it says them and is as new as the rows that moved
        them (it is the whole journal's word); else the rows'."""
        status = self.status
        said = "shuffle_alert" in status and isinstance(status.get("seq"), int)
        if said and status["seq"] >= self.alerts_seq:
            given = status["shuffle_alert"]
            return given if isinstance(given, dict) else None
        return self.alerts.view()


class FloorPit:
    """Every table: fed from the follower's thread, read from the web's."""

    def __init__(self, shift_starts: tuple[int, ...] = shifts.parse(shifts.DEFAULT)) -> None:
        self.shift_starts = shift_starts
        self._lock = threading.Lock()
        self._tables: dict[str, FloorTable] = {}

    def _table(self, table: str) -> FloorTable:
        known = self._tables.get(table)
        if known is None:
            known = self._tables[table] = FloorTable(table, self.shift_starts)
        return known

    def on_row(self, table: str, seq: int, message: JournalMessage, received: float) -> None:
        """The follower's ``on_row``: the entry at its row's time; a withheld one skipped."""
        entry = message.entry
        if entry is None:
            return
        with self._lock:
            self._table(table).feed(seq, entry, row_time(message.ts))

    def on_status(self, table: str, status: dict[str, Any], received: float) -> None:
        with self._lock:
            self._table(table).feed_status(status)

    def know(self, tracks: Mapping[str, Track]) -> None:
        """The games the follower's saved tracks name (a restarted floor)."""
        with self._lock:
            for table, track in tracks.items():
                if track.game is not None:
                    self._table(table).know(track.game)

    def views(self, tracks: Mapping[str, Track], now: float | None = None) -> list[dict[str, Any]]:
        """Every table's view, what needs a floorperson first (``need_order``)."""
        when = time.time() if now is None else now
        with self._lock:
            for table, track in tracks.items():
                self._table(table).know(track.game)
            views = [t.view(tracks.get(name), when) for name, t in self._tables.items()]
        return sorted(views, key=need_order)
