"""Doubles for what a table talks to (its journal and its devices), and the dealer that
drives a table with synthetic device events and console commands: no I/O."""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Any

from controller.table.core import Table
from controller.table.events import Need
from drivers import messages as m
from tests.support.journal import MemoryJournal

DAY = "2026-03-02"  # the gaming day a test's table is in


class Devices:
    """The devices as a table sees them: every call succeeds, and the display keeps
    what it showed."""

    def __init__(self) -> None:
        self.shown: list[str] = []

    def commit(self, device: str, event_id: int) -> None:
        pass

    def display(self, text: str) -> bool:
        self.shown.append(text)
        return True

    def arm(self, target: m.PeekTarget) -> bool:
        return True

    def disarm(self) -> bool:
        return True

    def self_test(self) -> bool:
        return True


class Ops(Devices):
    """The journal and the devices as one ordered list of what the table did; the reader
    counts its calls and answers while ``reader_connected``."""

    def __init__(self) -> None:
        super().__init__()
        self.journal = MemoryJournal()
        self.ops: list[tuple[str, object]] = []
        self.arms: list[m.PeekTarget] = []
        self.disarms = 0
        self.self_tests = 0
        self.reader_connected = True

    def record(self, entry: Any) -> None:
        self.journal.record(entry)
        self.ops.append(("record", dict(entry)))

    def commit(self, device: str, event_id: int) -> None:
        self.ops.append(("commit", (device, event_id)))

    def arm(self, target: m.PeekTarget) -> bool:
        self.arms.append(target)
        return self.reader_connected

    def disarm(self) -> bool:
        self.disarms += 1
        return self.reader_connected

    def self_test(self) -> bool:
        self.self_tests += 1
        return self.reader_connected

    def of_type(self, kind: str) -> list[dict[str, object]]:
        return self.journal.of_type(kind)


class Dealer:
    """Drives a table the way a dealer and a shoe would; each game's dealer builds its
    table on ``io``."""

    table: Table

    def __init__(self) -> None:
        self.io = Ops()
        self._ids = itertools.count(1)

    # devices
    def event(self, event: m.Event) -> None:
        self.table.handle(event)

    def id(self) -> int:
        """The next device event id."""
        return next(self._ids)

    def card(self, token: str, face_up: bool = False) -> None:
        self.event(m.CardDrawn("shoe", self.id(), token[0], token[1], face_up))

    def cards(self, tokens: Iterable[str]) -> None:
        for token in tokens:
            if token == "CUT":
                self.event(m.CutCardSeen("shoe", self.id()))
            else:
                self.card(token)

    # console
    def do(self, command: Any) -> None:
        self.table.handle(command)

    def need(self) -> Need:
        return self.table.need

    def refusals(self) -> list[dict[str, object]]:
        return self.io.of_type("refused")

    def rounds(self) -> list[dict[str, object]]:
        return self.io.of_type("round_end")
