"""``resume``: the journal's inputs replayed into a fresh table, one row at a time, from
the last snapshot on."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Generic

from controller.journal import Row
from controller.recovery.follow import Follower
from controller.recovery.inputs import (
    DAEMON_ROWS,
    INPUTS,
    RESUMED,
    SNAPSHOT,
    RecoveryError,
    ReplayStop,
    Unknowable,
    decode,
    held_events,
    openings,
)
from controller.recovery.positions import follower_of
from controller.recovery.rounds import Interrupted, round_in_play, stand_in
from controller.recovery.sinks import Sinks, T
from controller.recovery.snapshots import restore_snapshot
from controller.rules import cards
from controller.rules.cards import is_stand_in
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
    """Rebuild the table from its journal's ``rows`` (all of them, or those from the last
    snapshot on), then connect it to ``journal`` and ``devices``, write what the last
    input's work had still to write, record a ``resumed`` row and, if a round is in
    play, stop the table for a floorperson. ``make_table(journal, devices,
    gaming_day=..., sealer=...)`` builds a fresh table (the same game and rules as the
    one that wrote the journal); ``sealer`` (the same sealing key) and ``gaming_day``
    are the table's after the replay, which follows the journal's instead.

    Nothing is written unless the whole replay succeeds: a journal that cannot be
    replayed raises RecoveryError (one line, naming the row) and is left as it was."""
    rows = list(rows)
    replay = _replayed(rows, make_table, sealer, gaming_day)
    table = replay.table
    replay.sinks.go_live(journal, devices)
    tail = _write_tail(replay, journal)
    table.restarted()  # at the same place as a later replay's _resumed: after the tail
    interrupted = replay.follower.waiting
    in_play = round_in_play([*(r.entry for r in replay.rows), *tail])
    fresh: Interrupted | None = None
    if (in_play is not None and interrupted is None) or replay.stopped is not None:
        number, cards = in_play or (table.round, [])
        fresh = interrupted = replay.interrupted(number, cards)
    journal.record(
        {
            "type": RESUMED,
            "rows": len(replay.rows),
            "last_seq": rows[-1].seq if rows else 0,
            "snapshot": replay.snapshot,
            "written": len(tail),
            "state": table.state,
            "interrupted": None if fresh is None else fresh.entry(),
        }
    )
    if fresh is not None:
        table.interrupt(fresh.halt, replay.held(fresh.held))
    return table, interrupted


def _write_tail(replay: _Replay[T], journal: Journal) -> list[dict[str, object]]:
    """The rest of the last input's work, what the table did before the process died,
    written in order; the prompts among it were not shown."""
    tail = replay.sinks.switch.tail
    for line in tail:
        journal.record({**line, "shown": False} if line.get("type") == "prompt" else line)
        replay.follower.fold(line)
    return tail


def _replayed(
    rows: Sequence[Row], make_table: Callable[..., T], sealer: Sealer, day: Callable[[], str]
) -> _Replay[T]:
    """The replay of ``rows``, once more with its last input not acted on when that
    input's work would place face up a card the journal never released."""
    replay = _Replay(rows, make_table, sealer, day)
    try:
        replay.run()
    except _Rerun as rerun:
        replay = _Replay(rows, make_table, sealer, day, stopped=rerun.seq)
        replay.run()
    return replay


class _Rerun(Exception):
    def __init__(self, seq: int) -> None:
        self.seq = seq


class _Replay(Generic[T]):
    """One pass of the journal's rows into a fresh table: each input handled, each line
    it writes checked against the journal's."""

    def __init__(
        self,
        rows: Sequence[Row],
        make_table: Callable[..., T],
        sealer: Sealer,
        day: Callable[[], str],
        *,
        stopped: int | None = None,
    ) -> None:
        start = _last_snapshot(rows)
        self.snapshot = None if start is None else rows[start].seq
        self.rows = rows[0 if start is None else start + 1 :]  # the rows replayed
        self.follower: Follower = follower_of(rows)
        self.by_seq = {row.seq: row for row in self.rows}
        self.sinks = Sinks(self.rows, 0, sealer, day)
        self.table: T = self.sinks.table(make_table)
        if start is not None:
            restore_snapshot(self.table, rows[start])
            # The day the inputs before the snapshot were taken on, as the journal gave it.
            self.sinks.day.day = Follower(rows[start].entry.get("recovery")).day
        self.stopped = stopped  # the last input, not acted on: its work is not knowable
        self._last_input = _last_input(self.rows)
        self._known = openings(self.rows)
        self._skipped = _skipped(self.rows)
        # Seals whose card the journal never released, and the value the replay gave each:
        # read from the seal under the table's key, or a stand-in without it.
        self._unknown: dict[str, str] = {}
        self._hole_unknown: str | None = None  # the hole card's seal, when not known

    def run(self) -> None:
        for at, row in enumerate(self.rows):
            kind = row.entry.get("type")
            self._follow_hole(row)
            if kind in DAEMON_ROWS or kind in INPUTS:
                self._reached(at)
            if kind == RESUMED:
                self._resumed(row)
            elif kind in INPUTS:
                self._input(at, row)
        self._reached(len(self.rows))

    def interrupted(self, number: int, cards: list[dict[str, object]]) -> Interrupted:
        """Round ``number``, in play: a device event the replay did not act on is held
        until the clear (its device will not send it again), a command dropped (the
        dealer gives it again)."""
        dropped: tuple[int, ...] = ()
        held: tuple[int, ...] = ()
        if self.stopped is not None:
            if self.by_seq[self.stopped].entry.get("type") == "device":
                held = (self.stopped,)
            else:
                dropped = (self.stopped,)
        return Interrupted(number, tuple(cards), self._hole_unknown, dropped, held)

    def held(self, seqs: Iterable[int]) -> list[m.Event]:
        """The device events at ``seqs``, held until the floorperson clears."""
        return held_events(self.by_seq, seqs, self._value)

    def _value(self, row: Row) -> str | None:
        """A sealed input's card, as this replay knows it: released, read from its seal,
        or a stand-in; None for an input that seals none."""
        if not row.entry.get("sealed"):
            return None
        seal, salt = str(row.entry.get("seal")), str(row.entry.get("salt"))
        known = self._known.get(seal) or self._unknown.get(seal)
        return known or self.sinks.sealer.read(seal, salt) or cards.stand_in("2")

    def _reached(self, at: int) -> None:
        try:
            self.sinks.switch.reached(at)
        except ReplayStop as stop:
            raise RecoveryError(f"row {stop.seq}: {stop.message}") from None

    def _resumed(self, row: Row) -> None:
        """An earlier restart's row: what the restart forgot is forgotten again, and its
        halt stops the table again."""
        self.table.restarted()
        if row.entry.get("interrupted"):
            past = Interrupted.from_entry(row.entry["interrupted"])
            self.table.interrupt(past.halt, self.held(past.held))

    def _follow_hole(self, row: Row) -> None:
        e = row.entry
        kind = e.get("type")
        if kind == "dealt" and e.get("to") == "dealer" and e.get("seal") in self._unknown:
            self._hole_unknown = str(e["seal"])
        elif kind in ("round_end", "shoe_end"):
            self._hole_unknown = None

    def _input(self, at: int, row: Row) -> None:
        following = self.rows[at + 1].entry.get("type") if at + 1 < len(self.rows) else None
        if self._not_acted_on(row, following):
            self.sinks.switch.skip()
            return
        try:
            self._handle(at, row, following in ("refused", "halt"))
        except Unknowable:
            if at != self._last_input or self.stopped is not None:
                raise RecoveryError(
                    f"row {row.seq}: the replay would place face up a card the journal "
                    "never released"
                ) from None
            raise _Rerun(row.seq) from None
        except ReplayStop as stop:
            raise RecoveryError(f"row {stop.seq or row.seq}: {stop.message}") from None

    def _not_acted_on(self, row: Row, following: object) -> bool:
        """An input journaled and acted on at the restart, or never; or a floorperson's
        entry refused and never released: what was entered is not known, and a refusal
        changes nothing but the journal, which holds it."""
        if row.seq in self._skipped or row.seq == self.stopped:
            return True
        unknown = row.entry.get("sealed") and str(row.entry.get("seal")) not in self._known
        return bool(unknown) and row.entry.get("type") == "command" and following == "refused"

    def _handle(self, at: int, row: Row, answered: bool) -> None:
        """Input ``row`` handled by the table; any error of the table's own, past its
        guard, is the row's."""
        try:
            card = self._card(at, row, answered) if row.entry.get("sealed") else None
            item = decode(row, card)
            if (
                self._stood_in(self._hole_unknown)
                and isinstance(item, m.PeekResult)
                and (at + 1 == len(self.rows))
            ):
                # Whether the reader agreed with the hole card is in the lines the
                # process did not write, and the card is not known.
                raise Unknowable("the reader's answer on a hole card the journal never released")
            self.sinks.day.follow(self.rows, at)
            # Who gave a command is part of its line: the replay writes it again.
            login = row.entry.get("login")
            self.table.handle(item, login=login if isinstance(login, str) else None)
        except RecoveryError:
            raise
        except Exception as exc:
            raise RecoveryError(
                f"row {row.seq}: the replay failed on this input ({type(exc).__name__}: {exc})"
            ) from None

    def _stood_in(self, seal: str | None) -> bool:
        """Whether the card under ``seal`` has a stand-in in the replay (its key lost)."""
        return seal is not None and _is_stood_in(self._unknown.get(seal))

    def _card(self, at: int, row: Row, answered: bool) -> str:
        """The sealed card of input ``row``: as released, else a stand-in. The replay's
        sealer is given the seal the journal recorded for it."""
        seal, salt = str(row.entry.get("seal")), str(row.entry.get("salt"))
        card = self._known.get(seal)
        if card is None:
            # Never released: its value is read from its seal, for the replay alone, so the
            # table counts and checks it as it did; the procedure still treats it as not
            # known (551.8(e): it is entered by the floorperson, or its round voided).
            card = self.sinks.sealer.read(seal, salt) or self._stand_in(at, row)
            self._unknown[seal] = card
            self.sinks.switch.unreleased.add(card)
        self.sinks.sealer.next = Sealed(seal, salt, seal in self._unknown)
        self.sinks.sealer.accept = not answered  # the entry's check passed, or did not
        return card

    def _stand_in(self, at: int, row: Row) -> str:
        if row.entry.get("type") == "command" and not self.table.needs_card:
            if self._hole_unknown is None:
                raise RecoveryError(
                    f"row {row.seq}: a floorperson's sealed card was never released"
                )
            # An entry of an unknown hole card is as unknown as the card was.
            return self._unknown[self._hole_unknown]
        # A card out of the shoe, or the floorperson's reading of one it could not read.
        return stand_in(self.table, self.rows, at)


def _is_stood_in(card: str | None) -> bool:
    return card is not None and is_stand_in(card)


def _last_snapshot(rows: Sequence[Row]) -> int | None:
    for at in range(len(rows) - 1, -1, -1):
        if rows[at].entry.get("type") == SNAPSHOT:
            return at
    return None


def _last_input(rows: Sequence[Row]) -> int | None:
    """The last input's place, when no earlier restart's row follows it: the only input
    whose work may run past the journal's end."""
    for at in range(len(rows) - 1, -1, -1):
        kind = rows[at].entry.get("type")
        if kind in INPUTS:
            return at
        if kind in DAEMON_ROWS:
            return None
    return None


def _skipped(rows: Iterable[Row]) -> set[int]:
    """The inputs an earlier restart did not act on, or held."""
    skipped: set[int] = set()
    for row in rows:
        if row.entry.get("type") == RESUMED and row.entry.get("interrupted"):
            skipped.update(row.entry["interrupted"].get("dropped", ()))
            skipped.update(row.entry["interrupted"].get("held", ()))
    return skipped
