"""What the rebuilt table is given instead of its journal, devices, sealer and gaming
day: objects that follow the journal while it is replayed, and are the real ones after
(``Sinks.go_live``). The table is built with them, once; nothing is swapped inside it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar, cast

from controller.journal import Row, encode
from controller.recovery.inputs import INPUTS, RESUMED, RecoveryError
from controller.table.core import Table
from controller.table.events import Devices, Journal, ReaderDevices
from controller.table.seal import Sealed, Sealer
from drivers import messages as m

_VOLATILE = frozenset({"seal", "salt", "opened", "shown"})  # differ between runs by design

T = TypeVar("T", bound=Table)


class Switch:
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

    def skip(self, entry: Mapping[str, object]) -> None:
        """An input the replay does not act on: its line stands as the journal holds it."""
        self.entries.append(dict(entry))

    def check(self, segment: Sequence[Row]) -> None:
        """The replay wrote what the journal holds. It may have written more at the end: a
        restart cut the last input's lines short; those are not written again."""
        produced = self.entries
        for i, want in enumerate(segment):
            if i >= len(produced) or _normal(produced[i]) != _normal(want.entry):
                got = "nothing" if i >= len(produced) else f"a {produced[i].get('type')} line"
                raise RecoveryError(
                    f"row {want.seq}: the replay wrote {got} where the journal holds a "
                    f"{want.entry.get('type')} line"
                )
        self.entries = []


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

    def seal(self, card: str) -> Sealed:
        if self.live:
            return self._real.seal(card)
        sealed, self.next = self.next, None
        if sealed is None:
            raise RuntimeError("the replay sealed a card the journal did not")
        return sealed

    def nonce(self, salt: str) -> str:
        return self._real.nonce(salt)

    def matches(self, sealed: Sealed, card: str) -> bool:
        # A card unknown to the replay was checked when it was entered: the journal
        # shows whether it matched.
        if not self.live and sealed.unknown:
            return self.accept
        return self._real.matches(sealed, card)

    def opening(self, sealed: Sealed, card: str) -> dict[str, str]:
        return self._real.opening(sealed, card)


class ReplayDay:
    """The gaming day during the replay: the day the journal's lines give for each
    input (a reader inspection's ``day``); an input refused because the inspection was
    not today's ran on a later day. The real gaming day once live."""

    LATER = "after the last inspection"

    def __init__(self, real: Callable[[], str]) -> None:
        self._real = real
        self.live = False
        self.day = ""

    def __call__(self) -> str:
        return self._real() if self.live else self.day

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


class Sinks:
    """The switching journal and devices, sealer and gaming day of one rebuilt table."""

    def __init__(self, sealer: Sealer, gaming_day: Callable[[], str]) -> None:
        self.switch = Switch()
        self.sealer = ReplaySealer(sealer)
        # The gaming day each input was taken on (551.2(e)): the one its lines recorded.
        self.day = ReplayDay(gaming_day)

    def table(self, make_table: Callable[..., T]) -> T:
        return make_table(self.switch, self.switch, gaming_day=self.day, sealer=self.sealer)

    def go_live(self, journal: Journal, devices: Devices) -> None:
        self.switch.journal, self.switch.devices = journal, devices
        self.sealer.live = self.day.live = True
