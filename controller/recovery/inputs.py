"""The journal's inputs: which rows are inputs, the input each records, and the sealed
cards the journal released (551.8(e))."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from decimal import Decimal
from typing import Any

from controller.journal import Row
from controller.table import events as ev
from controller.table.core import event_type_name
from controller.table.events import Command, FloorClear
from controller.table.seal import opens
from drivers import messages as m

INPUTS = ("device", "command")
# The daemon's own rows, never a table's output: a journal's header (its row 1), a
# restart's account of what it found, the table's state at a snapshot, and the shuffle
# monitor's alert on a shoe (controller/daemon/shuffles.py), written between inputs.
JOURNAL = "journal"
RESUMED = "resumed"
SNAPSHOT = "snapshot"
SHUFFLE_ALERT = "shuffle_alert"
DAEMON_ROWS = (JOURNAL, RESUMED, SNAPSHOT, SHUFFLE_ALERT)


class RecoveryError(Exception):
    """The journal cannot be replayed; the message is one line naming the row."""


class ReplayStop(BaseException):
    """Raised inside the replayed table, past its own guard (which would record a bug
    as an ``internal_error`` line): the replay cannot follow the journal. ``seq``: the
    row, when the raiser knows it."""

    def __init__(self, message: str, seq: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.seq = seq


class Unknowable(ReplayStop):
    """What the replay would write depends on what the journal does not hold: a sealed
    card it never released placed face up, shown or checked, or the gaming day of the
    last input. The last input is then not acted on (``controller.recovery.replay``)."""


# Looked up in their modules: a slotted dataclass replaces the class it was made from,
# and ``__subclasses__`` may still list the one it replaced.
_EVENTS: dict[str, type[m.Event]] = {
    event_type_name(c): c
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


LATER_DAY = "after the last inspection"


def gaming_day_in(entry: Mapping[str, Any]) -> str | None:
    """The gaming day a line shows its input was taken on: a reader inspection's
    ``day``; an input refused because the inspection was not today's ran on a later
    day (551.2(e)). None: the line does not tell."""
    if isinstance(entry.get("day"), str):
        return str(entry["day"])
    refused = entry.get("type") == "refused" and entry.get("command") == "no_more_bets"
    return LATER_DAY if refused and entry.get("section") == "551.2(e)" else None


def held_events(
    rows: Mapping[int, Row], seqs: Iterable[int], card_of: Callable[[Row], str | None]
) -> list[m.Event]:
    """The device events among the inputs at ``seqs``: those held until the clear. A
    sealed card's value is ``card_of`` its row."""
    decoded = [decode(rows[seq], card_of(rows[seq])) for seq in seqs]
    return [item for item in decoded if isinstance(item, m.Event)]
