"""Snapshots: the table's whole state in one journal row, so a restart replays only the
rows after the last one (a bounded restart, whatever the journal's length).

The daemon's table thread writes a ``snapshot`` row between two inputs, at the first
quiet moment after a shoe's end or after ``SNAPSHOT_EVERY`` rows: no round being dealt
(the journal shows no ``no_more_bets`` without its end) and no sealed card held, whose
value would otherwise stand unencrypted in the journal before its reveal (551.8(e);
``controller.table.snapshot.SealedState``), nor one the shoe in play sealed and never
released (a hole card a restart voided unread is in the shoe's counts until its end).
The row is hash-chained like any other:

    {"type": "snapshot", "game": "spanish21", "rules": "<sha256 of the rules>",
     "table": {...the table's state...}, "recovery": {...what recovery carries...}}

``recovery`` carries what a restart would otherwise read the earlier rows for
(``controller.recovery.follow``): each device's position, an earlier restart's round
still waiting for its floorperson.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Final

import structlog

from controller.journal import Row, SqliteJournal, encode
from controller.recovery.follow import Follower
from controller.recovery.inputs import SNAPSHOT, RecoveryError
from controller.recovery.positions import follower_of
from controller.table.core import Table
from controller.table.events import Journal
from controller.table.snapshot import SealedState, SnapshotError, capture, restore, value_form

SNAPSHOT_EVERY: Final = 1_000  # rows between two snapshots, at most a round more

log = structlog.get_logger("controller.recovery")


def snapshot_entry(table: Table, follower: Follower) -> dict[str, object]:
    """The snapshot row of ``table`` now; ``SealedState`` while it holds a sealed card."""
    return {
        "type": SNAPSHOT,
        "game": table.game,
        "rules": rules_digest(table),
        "table": capture(table),
        "recovery": follower.carry(),
    }


def rules_digest(table: Table) -> str:
    """The rules the table plays by, as one hash: a snapshot is restored under the rules
    it was taken under, never under others."""
    rules = value_form(getattr(table, "rules", None))
    return hashlib.sha256(encode({"rules": rules}).encode("utf-8")).hexdigest()


def restore_snapshot(table: Table, row: Row) -> None:
    """Put the state of snapshot ``row`` into ``table``, built fresh; RecoveryError (one
    line, naming the row) when it cannot be."""
    entry = row.entry
    if entry.get("game") != table.game:
        raise RecoveryError(
            f"row {row.seq}: a snapshot of a {entry.get('game')} table; this one plays {table.game}"
        )
    if entry.get("rules") != rules_digest(table):
        raise RecoveryError(
            f"row {row.seq}: the table's state was snapshotted under other rules than the "
            "configuration's: start it with the rules the journal was written under"
        )
    try:
        restore(table, entry["table"])
    except (SnapshotError, KeyError, TypeError, ValueError) as exc:
        raise RecoveryError(f"row {row.seq}: the snapshot cannot be restored ({exc})") from None


def from_last_snapshot(journal: SqliteJournal) -> list[Row]:
    """The journal's rows from its last snapshot (included) to its end, read backwards
    from the end and no further: a restart's reading does not grow with the journal.
    Every row when it has no snapshot yet."""
    back: list[Row] = []
    for row in journal.rows_backwards():
        back.append(row)
        if row.entry.get("type") == SNAPSHOT:
            break
    back.reverse()
    return back


class Snapshots:
    """When the daemon writes a snapshot. ``observe`` is a watcher of the table's
    journal (it follows every row written, the restart's own included); ``write``, from
    the table's thread between two inputs, writes one when it is due and the moment is
    quiet. ``rows``: the journal's rows from its last snapshot on, as the restart read
    them."""

    def __init__(self, rows: Sequence[Row], every: int = SNAPSHOT_EVERY) -> None:
        self.follower = follower_of(rows)
        self.every = every
        snapshot = bool(rows) and rows[0].entry.get("type") == SNAPSHOT
        self.since = len(rows) - snapshot  # rows written since the last snapshot
        self.shoe_ended = False

    def observe(self, entry: Mapping[str, object]) -> None:
        kind = entry.get("type")
        if kind == SNAPSHOT:
            self.since, self.shoe_ended = 0, False
            return
        self.follower.fold(entry)
        self.since += 1
        self.shoe_ended = self.shoe_ended or kind == "shoe_end"

    @property
    def due(self) -> bool:
        quiet = not self.follower.in_round and not self.follower.sealed
        return (self.shoe_ended or self.since >= self.every) and quiet

    def write(self, table: Table, journal: Journal) -> bool:
        """Write the table's snapshot if one is due now; whether it was written."""
        if not self.due:
            return False
        try:
            entry = snapshot_entry(table, self.follower)
        except SealedState:
            return False  # a sealed card is held: after its reveal, or at the shoe's end
        except SnapshotError as exc:
            # A state this tablectl cannot capture: restarts replay further until the
            # next try, and the table plays on.
            log.error("snapshot_failed", reason=str(exc))
            self.since, self.shoe_ended = 0, False
            return False
        journal.record(entry)
        return True
