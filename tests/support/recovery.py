"""A table journaling to a real SQLite file, driven through one Spanish 21 round as a
dealer would, to crash, restart and export; and a Baccarat table's hand card by card."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from controller.journal import SqliteJournal
from controller.recovery import Snapshots, from_last_snapshot, resume
from controller.rules.baccarat import BaccaratRules
from controller.rules.spanish21 import Spanish21Rules
from controller.table.baccarat import BaccaratTable
from controller.table.events import (
    DealersCard,
    Decision,
    InspectReader,
    Journal,
    ManualShuffle,
    NoMoreBets,
    ReaderDevices,
    Wager,
)
from controller.table.seal import Sealer
from controller.table.spanish21 import Spanish21Table
from drivers import messages as m
from tests.support.journal import MemoryJournal
from tests.support.tables import DAY, Devices

KEY = bytes(range(32))  # the table's sealing key, kept outside the journal


def spanish21(
    journal: Journal,
    devices: ReaderDevices,
    *,
    gaming_day: Callable[[], str] = lambda: DAY,
    sealer: Sealer | None = None,
) -> Spanish21Table:
    return Spanish21Table(
        Spanish21Rules.from_dict({}),
        journal,
        devices,
        gaming_day=gaming_day,
        sealer=sealer or Sealer(KEY),
    )


def resumed(
    rows: Iterable[Any],
    make: Callable[..., Any] = spanish21,
    journal: Journal | None = None,
) -> Any:
    """``resume`` of ``rows`` into a table ``make`` builds, with this module's key and
    day, writing to ``journal`` (by default, a list)."""
    return resume(
        rows,
        make,
        journal=MemoryJournal() if journal is None else journal,
        devices=Devices(),
        sealer=Sealer(KEY),
        gaming_day=lambda: DAY,
    )


class Run:
    """A Spanish 21 table writing a real SQLite journal, driven as a dealer would."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.journal = SqliteJournal(path)
        self.devices = Devices()
        self.table = spanish21(self.journal, self.devices)
        self.ids = itertools.count(1)

    def handle(self, item: m.Event | Any) -> None:
        self.table.handle(item)

    def card(self, *tokens: str) -> None:
        for token in tokens:
            self.handle(m.CardDrawn("shoe", next(self.ids), token[0], token[1], False))

    def open(self) -> None:
        self.handle(InspectReader())
        self.handle(m.SelfTestResult("reader", next(self.ids), True, 0))
        self.handle(ManualShuffle())
        self.card("2S")

    def peek(self, blackjack: bool) -> None:
        self.handle(m.CardInserted("reader", next(self.ids), True))
        self.handle(m.PeekResult("reader", next(self.ids), blackjack))

    def snapshot(self) -> int:
        """Write the table's snapshot, as the daemon's table thread does between two
        inputs when one is due (here: now); its row's number."""
        snapshots = Snapshots(from_last_snapshot(self.journal), every=0)
        assert snapshots.write(self.table, self.journal), "not a moment for a snapshot"
        return self.journal.last_seq

    def crash(self) -> None:
        """The process dies: the table is gone, the journal file stays."""
        self.journal.close()

    def restart(self, key: bytes | None = KEY, day: str = DAY) -> Any:
        self.journal = SqliteJournal(self.path)
        self.devices = Devices()
        self.table, interrupted = resume(
            self.journal.rows(),
            spanish21,
            journal=self.journal,
            devices=self.devices,
            sealer=Sealer(key) if key else Sealer(),  # no key: a random one, as a table draws
            gaming_day=lambda: day,
        )
        return interrupted

    def rows(self) -> list[dict[str, Any]]:
        return [r.entry for r in self.journal.rows()]

    def of_type(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in self.rows() if e.get("type") == kind]


class Crash(BaseException):
    """The process dying between two journal rows."""


class CrashAfter:
    """A journal that dies right after it records an entry ``when`` picks (its first)."""

    def __init__(self, journal: SqliteJournal, when: Callable[[dict[str, Any]], bool]) -> None:
        self.journal, self.when = journal, when

    def record(self, entry: Any) -> None:
        self.journal.record(entry)
        if self.when(dict(entry)):
            raise Crash


def command(name: str) -> Callable[[dict[str, Any]], bool]:
    """The input row of console command ``name``."""
    return lambda entry: entry.get("command") == name and entry.get("type") == "command"


def script() -> list[tuple[str, Any]]:
    """The round as steps: box 1 splits its 8s and stands on each hand, box 2 doubles;
    an ace up, so the reader peeks: no Blackjack; the dealer draws to soft 16."""
    return [
        ("wager", Wager(1, "spanish21", 10)),
        ("wager", Wager(2, "spanish21", 10)),
        ("deal", NoMoreBets()),
        *[("card", c) for c in ("8C", "9H", "AD", "8D", "4S")],
        ("hole", "5C"),
        ("peek", False),
        ("decide", Decision(1, "split")),
        ("card", "3S"),
        ("decide", Decision(1, "stand")),
        ("card", "KD"),
        ("decide", Decision(1, "stand")),
        ("decide", Decision(2, "double")),
        ("card", "7H"),
        ("reveal", DealersCard()),
        ("card", "5D"),  # the dealer's soft 21
    ]


def play(run: Run, steps: Iterable[tuple[str, Any]]) -> None:
    for kind, value in steps:
        if kind in ("card", "hole"):
            run.card(value)
        elif kind == "peek":
            run.peek(value)
        else:
            run.handle(value)


def baccarat(game: str) -> Any:
    """A factory of ``game`` tables with the default rules, as ``resume`` takes one."""

    def make(journal: Journal, devices: ReaderDevices, **_: object) -> BaccaratTable:
        return BaccaratTable(BaccaratRules.from_dict(game, {}), journal, devices)

    return make


def baccarat_hand(run_journal: Journal, devices: Devices, game: str) -> tuple[BaccaratTable, Any]:
    """A ``game`` table on ``run_journal``, and how to draw it a card by its token."""
    table = baccarat(game)(run_journal, devices)
    ids = itertools.count(1)

    def card(token: str) -> None:
        table.handle(m.CardDrawn("shoe", next(ids), token[0], token[1], False))

    return table, card
