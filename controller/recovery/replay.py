"""``resume``: the journal's inputs replayed into a fresh table, one row at a time."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from controller.journal import Row
from controller.recovery.inputs import INPUTS, RESUMED, RecoveryError, decode, held_events, openings
from controller.recovery.rounds import (
    Interrupted,
    interrupted_still,
    reveals,
    round_in_play,
    stand_in,
)
from controller.recovery.sinks import Sinks, T
from controller.table.core import Table
from controller.table.events import Devices, Journal
from controller.table.seal import Sealed, Sealer
from drivers import messages as m


def resume(
    rows: Iterable[Row],
    make_table: Callable[..., T],
    *,
    journal: Journal,
    devices: Devices,
    sealer: Sealer,
    gaming_day: Callable[[], str],
) -> tuple[T, Interrupted | None]:
    """Rebuild the table from its journal's ``rows``, then connect it to ``journal`` and
    ``devices``, record a ``resumed`` row and, if a round was in play, stop the table
    for a floorperson. ``make_table(journal, devices, gaming_day=..., sealer=...)``
    builds a fresh table (the same game and rules as the one that wrote the journal);
    ``sealer`` (the same sealing key) and ``gaming_day`` are the table's after the
    replay, which follows the journal's instead."""
    replay = _Replay(list(rows), Sinks(sealer, gaming_day))
    table = replay.sinks.table(make_table)
    replay.run(table)
    replay.sinks.go_live(journal, devices)
    interrupted = interrupted_still(replay.rows)
    in_play = round_in_play([r.entry for r in replay.rows])
    fresh: Interrupted | None = None
    if in_play is not None and interrupted is None:
        fresh = interrupted = replay.interrupted(*in_play)
    journal.record(
        {
            "type": RESUMED,
            "rows": len(replay.rows),
            "last_seq": replay.rows[-1].seq if replay.rows else 0,
            "state": table.state,
            "interrupted": None if fresh is None else fresh.entry(),
        }
    )
    if fresh is not None:
        table.interrupt(fresh.halt, held_events(replay.by_seq, fresh.held))
    return table, interrupted


class _Replay:
    """One pass of the journal's rows into the table built on ``sinks``: each input
    handled, each line it writes checked against the journal's."""

    def __init__(self, rows: Sequence[Row], sinks: Sinks) -> None:
        self.rows = rows
        self.by_seq = {row.seq: row for row in rows}
        self.sinks = sinks
        self._known = openings(rows)
        self._skipped = _skipped(rows)
        self._unknown: set[str] = set()  # seals whose card the journal never released
        self._stand_ins: dict[str, str] = {}
        self._segment: list[Row] = []  # the journal's rows since the last resumed
        self._hole_unknown: str | None = None  # the hole card's seal, when not known
        self._stopped: list[Row] = []  # inputs that would turn such a hole card over

    def run(self, table: Table) -> None:
        for at, row in enumerate(self.rows):
            if row.entry.get("type") == RESUMED:
                self._resumed(table, row)
            else:
                self._segment.append(row)
                self._follow_hole(row)
                if row.entry.get("type") in INPUTS:
                    self._input(table, at, row)
        self.sinks.switch.check(self._segment)

    def interrupted(self, number: int, cards: list[dict[str, object]]) -> Interrupted:
        """Round ``number``, in play: the reader's answers the replay stopped at are
        held until the clear, the other inputs it stopped at dropped."""
        kept = tuple(r.seq for r in self._stopped if isinstance(decode(r), m.PeekResult))
        drop = tuple(r.seq for r in self._stopped if r.seq not in kept)
        return Interrupted(number, tuple(cards), self._hole_unknown, drop, kept)

    def _resumed(self, table: Table, row: Row) -> None:
        """An earlier restart's row: what came before it is checked, and its halt
        stops the table again."""
        self.sinks.switch.check(self._segment)
        self._segment = []
        if row.entry.get("interrupted"):
            past = Interrupted.from_entry(row.entry["interrupted"])
            table.interrupt(past.halt, held_events(self.by_seq, past.held))

    def _follow_hole(self, row: Row) -> None:
        e = row.entry
        kind = e.get("type")
        if kind == "dealt" and e.get("to") == "dealer" and e.get("seal") in self._unknown:
            self._hole_unknown = str(e["seal"])
        elif kind in ("round_end", "shoe_end"):
            self._hole_unknown = None

    def _input(self, table: Table, at: int, row: Row) -> None:
        e = row.entry
        if self._stopped:
            raise RecoveryError(
                f"row {row.seq}: the journal goes on after row {self._stopped[0].seq}, which "
                "would turn over a hole card it never released"
            )
        if row.seq in self._skipped:
            self.sinks.switch.skip(e)  # journaled; acted on at the restart, or never
            return
        following = self.rows[at + 1].entry.get("type") if at + 1 < len(self.rows) else None
        answered = following in ("refused", "halt")
        card = self._card(table, at, row, answered) if e.get("sealed") else None
        item = decode(row, card)
        self.sinks.day.follow(self.rows, at)
        if self._hole_unknown is not None and reveals(item) and not answered:
            self._stopped.append(row)
            self.sinks.switch.skip(e)
            return
        table.handle(item)

    def _card(self, table: Table, at: int, row: Row, answered: bool) -> str:
        """The sealed card of input ``row``: as released, else a stand-in. The replay's
        sealer is given the seal the journal recorded for it."""
        seal = str(row.entry.get("seal"))
        card = self._known.get(seal)
        if card is None:
            card = self._stand_in(table, at, row)
            self._unknown.add(seal)
            self._stand_ins[seal] = card
        self.sinks.sealer.next = Sealed(seal, str(row.entry.get("salt")), seal in self._unknown)
        self.sinks.sealer.accept = not answered  # the entry's check passed, or did not
        return card

    def _stand_in(self, table: Table, at: int, row: Row) -> str:
        if row.entry.get("type") != "command":
            return stand_in(table, self.rows, at)
        if self._hole_unknown is None:
            raise RecoveryError(f"row {row.seq}: a floorperson's sealed card was never released")
        # An entry of an unknown hole card is as unknown as the card was.
        return self._stand_ins[self._hole_unknown]


def _skipped(rows: Iterable[Row]) -> set[int]:
    """The inputs an earlier restart did not act on, or held."""
    skipped: set[int] = set()
    for row in rows:
        if row.entry.get("type") == RESUMED and row.entry.get("interrupted"):
            skipped.update(row.entry["interrupted"].get("dropped", ()))
            skipped.update(row.entry["interrupted"].get("held", ()))
    return skipped
