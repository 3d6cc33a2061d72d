"""What the rebuilt table is given instead of its journal, devices, sealer and gaming
day: objects that follow the journal while it is replayed, and are the real ones after
(``Sinks.go_live``). The table is built with them, once; nothing is swapped inside it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar, cast

from controller.journal import Row, encode
from controller.recovery.inputs import (
    DAEMON_ROWS,
    INPUTS,
    RESUMED,
    ReplayStop,
    Unknowable,
    gaming_day_in,
)
from controller.rules.cards import deck, is_stand_in
from controller.table.core import Table
from controller.table.events import Devices, Journal, ReaderDevices
from controller.table.seal import Sealed, Sealer
from drivers import messages as m

_EVERY_CARD = tuple(deck())  # 52: whatever a shoe might hold
_VOLATILE = frozenset({"seal", "salt", "opened", "shown"})  # differ between runs by design

T = TypeVar("T", bound=Table)


class Switch:
    """The table's journal and devices: sinks while the journal is replayed, the real
    ones after.

    While replaying, each line the table writes is checked at once against the
    journal's next row (``rows[cursor]``), so a replay that goes astray stops at the
    first row it gets wrong. Lines past the journal's end are the rest of the last
    input's work, which the process did not live to write (``tail``). Lines that run
    into an earlier restart's ``resumed`` row were cut short by that restart, which
    did not write them (tablectl before the tail was written): the table did that work,
    and the journal goes on from there."""

    def __init__(self, rows: Sequence[Row], cursor: int = 0) -> None:
        self.rows = rows
        self.cursor = cursor
        self.tail: list[dict[str, object]] = []
        self.unreleased: set[str] = set()  # the replay's values of cards never released
        self.journal: Journal | None = None
        self.devices: Devices | None = None

    # Journal
    def record(self, entry: Mapping[str, object]) -> None:
        if self.journal is not None:
            self.journal.record(entry)
            return
        line = json.loads(encode(entry))  # as the journal would hold it
        if self.cursor >= len(self.rows):
            if line.get("type") == "internal_error" or _shows(line, self.unreleased):
                # Work that needs a card the journal never released (its value or its
                # stand-in would show, or trip the table's checks): not acted on, never
                # written.
                raise Unknowable("the last input's work needs a card the journal never released")
            if gaming_day_in(line) is not None:
                # The day this input was taken on is in no line the journal holds.
                raise Unknowable("the last input's gaming day is not in the journal")
            self.tail.append(line)
            return
        want = self.rows[self.cursor]
        if want.entry.get("type") == RESUMED:
            return
        if _normal(line) != _normal(want.entry):
            raise ReplayStop(
                f"the replay wrote {_described(line)} where the journal holds "
                f"a {want.entry.get('type')} line",
                want.seq,
            )
        self.cursor += 1

    def reached(self, at: int) -> None:
        """The replay is at row ``at`` (an input or the daemon's row): every row before it
        was written by the replay."""
        if self.cursor < at:
            want = self.rows[self.cursor]
            raise ReplayStop(
                f"the replay wrote nothing where the journal holds a {want.entry.get('type')} line",
                want.seq,
            )
        daemons = at < len(self.rows) and self.rows[at].entry.get("type") in DAEMON_ROWS
        self.cursor = at + 1 if daemons else at

    def skip(self) -> None:
        """The input at the cursor is not acted on: it, and whatever lines of its work the
        journal holds before the next input, stand as the journal holds them."""
        self.cursor += 1
        while self.cursor < len(self.rows) and not _starts_work(self.rows[self.cursor]):
            self.cursor += 1

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


def _shows(value: object, cards: set[str]) -> bool:
    """Whether ``value`` shows a stand-in or one of ``cards`` anywhere (the detail of a
    halt names a card too)."""
    if isinstance(value, str):
        return is_stand_in(value) or any(_names(value, card) for card in cards)
    if isinstance(value, Mapping):
        return any(_shows(v, cards) for v in value.values())
    if isinstance(value, list):
        return any(_shows(v, cards) for v in value)
    return False


def _names(text: str, card: str) -> bool:
    """Whether ``text`` names ``card`` as a word ("more 6S than ..."), not as letters
    inside one ("READER" holds no AD)."""
    return re.search(rf"(?<![0-9A-Za-z]){card}(?![0-9A-Za-z])", text) is not None


def _starts_work(row: Row) -> bool:
    kind = row.entry.get("type")
    return kind in INPUTS or kind in DAEMON_ROWS


def _described(line: Mapping[str, object]) -> str:
    kind = line.get("type")
    if kind == "internal_error":  # the table's own error, as its guard recorded it
        return f"an internal_error line ({line.get('detail')})"
    return f"a {kind} line"


def _normal(value: object) -> object:
    if isinstance(value, Mapping):
        return {k: _normal(v) for k, v in value.items() if k not in _VOLATILE}
    if isinstance(value, list):
        return [_normal(v) for v in value]
    return value


class ReplaySealer(Sealer):
    """Gives the replayed table the seal its journal recorded for each sealed input;
    the real sealer once live."""

    def __init__(self, real: Sealer) -> None:
        super().__init__()
        self._real = real
        self.live = False
        self.next: Sealed | None = None
        self.accept = False

    @property
    def takes_stand_ins(self) -> bool:  # type: ignore[override]
        return not self.live

    def seal(self, card: str) -> Sealed:
        if self.live:
            return self._real.seal(card)
        sealed, self.next = self.next, None
        if sealed is None:
            raise ReplayStop("the replay sealed a card the journal did not")
        return sealed

    def nonce(self, salt: str) -> str:
        return self._real.nonce(salt)

    def read(self, seal: str, salt: str) -> str | None:
        """The card ``seal`` commits to, tried card by card under the table's key (as
        the running table knew it); None when the key does not open it (lost)."""
        sealed = Sealed(seal, salt)
        return next((c for c in _EVERY_CARD if self._real.matches(sealed, c)), None)

    def matches(self, sealed: Sealed, card: str) -> bool:
        # A card unknown to the replay was checked when it was entered: the journal
        # shows whether it matched.
        if not self.live and sealed.unknown:
            return self.accept
        return self._real.matches(sealed, card)

    def opening(self, sealed: Sealed, card: str) -> dict[str, str]:
        if not self.live and sealed.unknown:
            raise Unknowable("the replay would place face up a card the journal never released")
        return self._real.opening(sealed, card)


class ReplayDay:
    """The gaming day during the replay: the day the journal's lines give for each
    input (``gaming_day_in``). The real gaming day once live."""

    def __init__(self, real: Callable[[], str]) -> None:
        self._real = real
        self.live = False
        self.day = ""

    def __call__(self) -> str:
        return self._real() if self.live else self.day

    def follow(self, rows: Sequence[Row], at: int) -> None:
        # By index: a slice would copy the rest of the journal for every input replayed.
        for i in range(at + 1, len(rows)):
            row = rows[i]
            if _starts_work(row):
                return
            day = gaming_day_in(row.entry)
            if day is not None:
                self.day = day
                return


class Sinks:
    """The switching journal and devices, sealer and gaming day of one rebuilt table."""

    def __init__(
        self, rows: Sequence[Row], cursor: int, sealer: Sealer, gaming_day: Callable[[], str]
    ) -> None:
        self.switch = Switch(rows, cursor)
        self.sealer = ReplaySealer(sealer)
        # The gaming day each input was taken on (551.2(e)): the one its lines recorded.
        self.day = ReplayDay(gaming_day)

    def table(self, make_table: Callable[..., T]) -> T:
        return make_table(self.switch, self.switch, gaming_day=self.day, sealer=self.sealer)

    def go_live(self, journal: Journal, devices: Devices) -> None:
        self.switch.journal, self.switch.devices = journal, devices
        self.sealer.live = self.day.live = True
