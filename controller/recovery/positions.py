"""Where each device's event stream stood when the journal was last written."""

from __future__ import annotations

from collections.abc import Iterable

from controller.journal import Row
from controller.recovery.follow import Follower
from controller.recovery.inputs import SNAPSHOT


def driver_positions(rows: Iterable[Row]) -> dict[str, tuple[str, int]]:
    """Each device's serial and the last event id journaled for it in ``rows``, from the
    position the first of them carries when it is a snapshot (``Follower.positions``)."""
    return follower_of(rows).positions


def follower_of(rows: Iterable[Row]) -> Follower:
    """The follower of ``rows``: from the carry of a snapshot row among them, the last,
    then through the rows after it."""
    follower = Follower()
    for row in rows:
        if row.entry.get("type") == SNAPSHOT:
            follower = Follower(row.entry.get("recovery"))
        else:
            follower.fold(row.entry)
    return follower
