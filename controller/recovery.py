"""Rebuilding a table after a restart from its journal (event sourcing).

Every input a table takes, a device event or a console command, is journaled before
it is acted on (``controller.table.core``), and the table is deterministic. So
``resume`` builds a fresh table and feeds it the journaled inputs in order, with its
journal and devices switched to sinks: nothing is recorded twice and nothing reaches
a device. Each line the rebuilt table would have written is checked against the
journal's; a difference means the journal cannot be replayed, and the daemon does not
start on a guess (``RecoveryError``, one line).

Sealed cards (551.8(e), ``controller.table.seal``): a card journaled sealed is given
back to the replay by the row that released it (``opened``). One never released is
not known: the hole card of a round that was in play. The replay stands a card in for
it, one that agrees with the reader's recorded answer, and stops before anything that
would turn it over. The round then needs a floorperson (an ``interrupted_round``
halt): every card known, the clear lets play go on; the hole card not known, the
floorperson enters it as read from the layout, checked against its seal, or the clear
voids the round with the wagers returned.

``resume`` appends one ``resumed`` row describing what it found; the halt follows.
A later replay meets that row and stops the table there again in the same way.
Nothing journaled is changed.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, TypeVar, cast

from controller.journal import Row, encode
from controller.rules.spanish21 import dealer_blackjack
from controller.table import events as ev
from controller.table.core import INTERRUPTED, Halt, Table, _snake
from controller.table.events import Command, Devices, FloorClear, Journal, ReaderDevices
from controller.table.seal import Sealed, Sealer, opens
from drivers import messages as m

INPUTS = ("device", "command")
RESUMED = "resumed"
_VOLATILE = frozenset({"seal", "salt", "opened", "shown"})  # differ between runs by design

T = TypeVar("T", bound=Table)


class RecoveryError(Exception):
    """The journal cannot be replayed; the message is one line naming the row."""


# --------------------------------------------------------------------------- inputs


# Looked up in their modules: a slotted dataclass replaces the class it was made from,
# and ``__subclasses__`` may still list the one it replaced.
_EVENTS: dict[str, type[m.Event]] = {
    _snake(c.__name__): c
    for c in vars(m).values()
    if isinstance(c, type) and issubclass(c, m.Event) and c is not m.Event
}
_COMMANDS: dict[str, type[Command]] = {
    c.name: c
    for c in vars(ev).values()
    if isinstance(c, type) and issubclass(c, Command) and c is not Command
}


def openings(rows: Iterable[Row]) -> dict[str, str]:
    """Every released seal and its card; a release that does not open its seal is a
    damaged journal."""
    known: dict[str, str] = {}
    for row in rows:
        for opened in row.entry.get("opened") or ():
            seal, nonce, token = opened.get("seal"), opened.get("nonce"), opened.get("card")
            if not (isinstance(seal, str) and isinstance(nonce, str) and isinstance(token, str)):
                raise RecoveryError(f"row {row.seq}: an opened seal lacks its card or nonce")
            if not opens(seal, nonce, token):
                raise RecoveryError(f"row {row.seq}: an opened card does not match its seal")
            known[seal] = token
    return known


def _fields(cls: type[Any], entry: Mapping[str, Any], skip: Sequence[str]) -> dict[str, Any]:
    names = {f.name for f in dataclasses.fields(cls)} - set(skip)
    out = {k: v for k, v in entry.items() if k in names}
    for key in ("amount",):
        if isinstance(out.get(key), str):
            out[key] = Decimal(out[key])  # journaled exactly, as a string
    return out


def decode(row: Row, card: str | None = None) -> m.Event | Command:
    """The input a journal row records. ``card``: a sealed card's value, from its
    release or a stand-in."""
    e = row.entry
    try:
        if e["type"] == "device":
            cls = _EVENTS[e["event"]]
            if cls is m.CardDrawn:
                token = e["card"] if card is None else card
                return m.CardDrawn(
                    e["device"], e.get("event_id"), token[0], token[1], bool(e["face_up"])
                )
            return cls(
                device=e["device"],
                event_id=e.get("event_id"),
                **_fields(cls, e, ("device", "event_id")),
            )
        ccls = _COMMANDS[e["command"]]
        fields = _fields(ccls, e, ())
        if ccls is FloorClear and e.get("sealed"):
            fields["card"] = card
        return ccls(**fields)
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise RecoveryError(
            f"row {row.seq}: not an input this tablectl can replay ({exc})"
        ) from None


# --------------------------------------------------------------------------- sinks


class _Switch:
    """The table's journal and devices: sinks while the journal is replayed, the real
    ones after."""

    def __init__(self) -> None:
        self.entries: list[dict[str, object]] = []
        self.journal: Journal | None = None
        self.devices: Devices | None = None

    # Journal
    def record(self, entry: Mapping[str, object]) -> None:
        if self.journal is None:
            self.entries.append(json.loads(encode(entry)))  # as the journal would hold it
        else:
            self.journal.record(entry)

    # ReaderDevices
    def commit(self, device: str, event_id: int) -> None:
        if self.devices is not None:
            self.devices.commit(device, event_id)

    def display(self, text: str) -> bool:
        return True if self.devices is None else self.devices.display(text)

    def arm(self, target: m.PeekTarget) -> bool:
        return True if self.devices is None else cast(ReaderDevices, self.devices).arm(target)

    def disarm(self) -> bool:
        return True if self.devices is None else cast(ReaderDevices, self.devices).disarm()

    def self_test(self) -> bool:
        return True if self.devices is None else cast(ReaderDevices, self.devices).self_test()


class _ReplaySealer(Sealer):
    """Gives the replayed table the seal its journal recorded for each sealed input."""

    def __init__(self, real: Sealer) -> None:
        super().__init__()
        self._real = real
        self.next: Sealed | None = None
        self.accept = False

    def seal(self, card: str) -> Sealed:
        sealed, self.next = self.next, None
        if sealed is None:
            raise RuntimeError("the replay sealed a card the journal did not")
        return sealed

    def nonce(self, salt: str) -> str:
        return self._real.nonce(salt)

    def matches(self, sealed: Sealed, card: str) -> bool:
        # A card unknown to the replay was checked when it was entered: the journal
        # shows whether it matched.
        return self.accept if sealed.unknown else self._real.matches(sealed, card)


class _Day:
    """The gaming day during the replay: the day the journal's lines give for each
    input (a reader inspection's ``day``); an input refused because the inspection was
    not today's ran on a later day."""

    LATER = "after the last inspection"

    def __init__(self) -> None:
        self.day = ""

    def __call__(self) -> str:
        return self.day

    def follow(self, rows: Sequence[Row], at: int) -> None:
        for row in rows[at + 1 :]:
            e = row.entry
            if e.get("type") in INPUTS or e.get("type") == RESUMED:
                return
            if isinstance(e.get("day"), str):
                self.day = e["day"]
                return
            refused = e.get("type") == "refused" and e.get("command") == "no_more_bets"
            if refused and e.get("section") == "551.2(e)":
                self.day = self.LATER
                return


def _normal(value: object) -> object:
    if isinstance(value, Mapping):
        return {k: _normal(v) for k, v in value.items() if k not in _VOLATILE}
    if isinstance(value, list):
        return [_normal(v) for v in value]
    return value


# --------------------------------------------------------------------------- the round


@dataclass(frozen=True, slots=True)
class Interrupted:
    """The round the journal shows in play at the restart."""

    round: int
    cards: tuple[dict[str, object], ...]  # as dealt: to, hand, card (None: sealed)
    seal: str | None  # the hole card's seal, when it is not known
    dropped: tuple[int, ...] = ()  # inputs journaled but not acted on (rows)
    held: tuple[int, ...] = ()  # inputs held until the floorperson clears (rows)

    @property
    def halt(self) -> Halt:
        known = sum(1 for c in self.cards if c.get("card") is not None)
        detail = f"round {self.round} was in play at the restart: {known} cards known"
        if self.seal is not None:
            detail += (
                "; the hole card is sealed and not known: enter it as read from the "
                "layout, or clear to void the round"
            )
        if self.dropped:
            detail += "; the dealer's announcement is made again after the clear"
        return Halt(INTERRUPTED, None, detail, None, seal=self.seal)

    def entry(self) -> dict[str, object]:
        return {
            "round": self.round,
            "cards": list(self.cards),
            "seal": self.seal,
            "dropped": list(self.dropped),
            "held": list(self.held),
            "halt": self.halt.entry(),
        }

    @staticmethod
    def from_entry(entry: Mapping[str, Any]) -> Interrupted:
        return Interrupted(
            int(entry["round"]),
            tuple(entry["cards"]),
            entry.get("seal"),
            tuple(entry.get("dropped", ())),
            tuple(entry.get("held", ())),
        )


def _round_in_play(
    entries: Sequence[Mapping[str, Any]],
) -> tuple[int, list[dict[str, object]]] | None:
    """The round dealt and not ended at the end of ``entries``, and its cards."""
    start = None
    for i, e in enumerate(entries):
        kind = e.get("type")
        if kind == "no_more_bets":
            start = i
        elif kind in ("round_end", "deal_called_off", "shoe_end"):
            start = None
    if start is None:
        return None
    cards: list[dict[str, object]] = []
    for e in entries[start:]:
        if e.get("type") == "dealt":
            cards.append(
                {
                    "to": e.get("to", e.get("hand")),
                    "hand": e.get("hand"),
                    "card": e.get("card"),
                    **({"sealed": True} if e.get("sealed") else {}),
                }
            )
        elif e.get("type") == "reveal":
            for dealt in cards:
                if dealt.get("sealed") and dealt["to"] == "dealer":
                    dealt.update(card=e.get("card"), sealed=False)
    if not cards:
        return None  # nothing dealt: the round simply goes on
    return int(entries[start]["round"]), cards


# --------------------------------------------------------------------------- resume


def _stand_in(table: Table, rows: Sequence[Row], at: int) -> str:
    """A card to hold an unknown sealed card's place: one that gives the dealer a
    Blackjack exactly when the reader's recorded answer in this round says so."""
    blackjack = False
    for row in rows[at + 1 :]:
        kind = row.entry.get("type")
        if kind == "peek":
            blackjack = bool(row.entry.get("blackjack"))
            break
        if kind in ("round_end", "shoe_end"):
            break
    up = getattr(table, "up_card", None)
    if not isinstance(up, str):
        return "2S"
    for token in ("2S", "2H", "2D", "2C", "KS", "KH", "AS", "AH"):
        if dealer_blackjack([up, token]) == blackjack:
            return token
    return "2S"


def _reveals(item: m.Event | Command) -> bool:
    """An input that turns the hole card over when the procedure accepts it."""
    return isinstance(item, ev.DealersCard) or (isinstance(item, m.PeekResult) and item.blackjack)


def resume(
    rows: Iterable[Row],
    make_table: Callable[[Journal, ReaderDevices], T],
    *,
    journal: Journal,
    devices: Devices,
) -> tuple[T, Interrupted | None]:
    """Rebuild the table from its journal's ``rows``, then connect it to ``journal`` and
    ``devices``, record a ``resumed`` row and, if a round was in play, stop the table
    for a floorperson. ``make_table(journal, devices)`` builds a fresh table (the same
    game, rules and sealing key as the one that wrote the journal)."""
    rows = list(rows)
    known = openings(rows)
    skipped: set[int] = set()  # inputs an earlier restart did not act on, or held
    for row in rows:
        if row.entry.get("type") == RESUMED and row.entry.get("interrupted"):
            skipped.update(row.entry["interrupted"].get("dropped", ()))
            skipped.update(row.entry["interrupted"].get("held", ()))
    switch = _Switch()
    table = make_table(switch, switch)
    real_sealer = getattr(table, "sealer", None)
    replay_sealer = _ReplaySealer(real_sealer) if isinstance(real_sealer, Sealer) else None
    # The gaming day each input was taken on (551.2(e)): the one its lines recorded.
    real_day = getattr(table, "_gaming_day", None)
    day = _Day()
    if real_day is not None:
        cast(Any, table)._gaming_day = day
    if replay_sealer is not None:
        table.sealer = replay_sealer  # type: ignore[attr-defined]

    by_seq = {row.seq: row for row in rows}
    unknown: set[str] = set()
    stand_ins: dict[str, str] = {}
    segment: list[Row] = []  # the journal's rows since the last resumed
    hole_unknown: str | None = None
    stopped: list[Row] = []
    for at, row in enumerate(rows):
        e = row.entry
        kind = e.get("type")
        if kind == RESUMED:
            _check(segment, switch)
            segment = []
            if e.get("interrupted"):
                past = Interrupted.from_entry(e["interrupted"])
                held = [decode(by_seq[s]) for s in past.held]
                table.interrupt(past.halt, [h for h in held if isinstance(h, m.Event)])
            continue
        segment.append(row)
        if kind == "dealt" and e.get("to") == "dealer" and e.get("seal") in unknown:
            hole_unknown = str(e["seal"])
        elif kind in ("round_end", "shoe_end"):
            hole_unknown = None
        if kind not in INPUTS:
            continue
        if stopped:
            raise RecoveryError(
                f"row {row.seq}: the journal goes on after row {stopped[0].seq}, which "
                "would turn over a hole card it never released"
            )
        if row.seq in skipped:
            switch.entries.append(dict(e))  # journaled; acted on at the restart, or never
            continue
        card = None
        answered = at + 1 < len(rows) and rows[at + 1].entry.get("type") in ("refused", "halt")
        if e.get("sealed"):
            seal = str(e.get("seal"))
            card = known.get(seal)
            if card is None:
                if kind == "command":
                    if hole_unknown is None:
                        raise RecoveryError(
                            f"row {row.seq}: a floorperson's sealed card was never released"
                        )
                    # An entry of an unknown hole card is as unknown as the card was.
                    card = stand_ins[hole_unknown]
                else:
                    card = _stand_in(table, rows, at)
                unknown.add(seal)
                stand_ins[seal] = card
            if replay_sealer is not None:
                replay_sealer.next = Sealed(seal, str(e.get("salt")), seal in unknown)
                replay_sealer.accept = not answered  # the entry's check passed, or did not
        item = decode(row, card)
        day.follow(rows, at)
        if hole_unknown is not None and _reveals(item) and not answered:
            stopped.append(row)
            switch.entries.append(dict(e))
            continue
        table.handle(item)
    _check(segment, switch)

    if replay_sealer is not None:
        table.sealer = real_sealer  # type: ignore[attr-defined]
    if real_day is not None:
        cast(Any, table)._gaming_day = real_day
    switch.journal, switch.devices = journal, devices
    interrupted = _interrupted_still(rows)
    in_play = _round_in_play([r.entry for r in rows])
    fresh: Interrupted | None = None
    if in_play is not None and interrupted is None:
        number, cards = in_play
        kept = tuple(r.seq for r in stopped if isinstance(decode(r), m.PeekResult))
        drop = tuple(r.seq for r in stopped if r.seq not in kept)
        fresh = interrupted = Interrupted(number, tuple(cards), hole_unknown, drop, kept)
    journal.record(
        {
            "type": RESUMED,
            "rows": len(rows),
            "last_seq": rows[-1].seq if rows else 0,
            "state": table.state,
            "interrupted": None if fresh is None else fresh.entry(),
        }
    )
    if fresh is not None:
        held_events = [decode(by_seq[s]) for s in fresh.held]
        table.interrupt(fresh.halt, [h for h in held_events if isinstance(h, m.Event)])
    return table, interrupted


def _interrupted_still(rows: Sequence[Row]) -> Interrupted | None:
    """An earlier restart's interrupted round whose halt still waits for its floorperson
    when the journal ends (the replay has stopped the table for it again)."""
    waiting: Interrupted | None = None
    for row in rows:
        e = row.entry
        if e.get("type") == RESUMED:
            waiting = Interrupted.from_entry(e["interrupted"]) if e.get("interrupted") else None
        elif e.get("type") == "floor_clear" and INTERRUPTED in (e.get("causes") or ()):
            waiting = None
    return waiting


def _check(segment: Sequence[Row], switch: _Switch) -> None:
    """The replay wrote what the journal holds. It may have written more at the end: a
    restart cut the last input's lines short; those are not written again."""
    produced = switch.entries
    for i, want in enumerate(segment):
        if i >= len(produced) or _normal(produced[i]) != _normal(want.entry):
            got = "nothing" if i >= len(produced) else f"a {produced[i].get('type')} line"
            raise RecoveryError(
                f"row {want.seq}: the replay wrote {got} where the journal holds a "
                f"{want.entry.get('type')} line"
            )
    switch.entries = []


def driver_positions(rows: Iterable[Row]) -> dict[str, tuple[str, int]]:
    """Where each device's event stream stood when the journal was last written: the
    device's serial and the last event id journaled for it. A restarted driver given
    these (``resume=``) takes the events the device replays (it keeps every event
    until it is acknowledged) without repeating one the journal already holds."""
    serials: dict[str, str] = {}
    last: dict[str, int] = {}
    for row in rows:
        entry = row.entry
        if entry.get("type") != "device":
            continue
        device = str(entry["device"])
        if entry.get("event") == "device_connected":
            serial = str(entry["serial"])
            if serials.get(device) != serial:
                last.pop(device, None)  # another unit: its ids start afresh
            serials[device] = serial
        event_id = entry.get("event_id")
        if isinstance(event_id, int) and device in serials:
            last[device] = max(last.get(device, 0), event_id)
    return {device: (serials[device], last[device]) for device in last}
