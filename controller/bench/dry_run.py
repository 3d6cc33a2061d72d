"""A Spanish 21 scenario played once in-process on synthetic devices before any
simulator starts, so a scripted wager or decision the table refuses is named at once
(``load_scenario``)."""

from __future__ import annotations

import io
from collections import deque

from controller.bench.dealer import clear_as_the_floorperson
from controller.bench.output import JsonlJournal
from controller.bench.scenario import BenchError, Irregularity, Scenario, ScenarioError
from controller.bench.spanish21_dealer import Spanish21Dealer
from controller.rules.cards import CUT
from controller.rules.spanish21 import Spanish21Rules
from controller.table.events import ManualShuffle
from controller.table.spanish21 import CARDS_PER_DECK, Spanish21Table
from drivers import messages as m

# How the shuffler's irregularities reach the table: the dry run plays them as the
# simulated shuffler reports them.
SHUFFLER_FAULT_EVENTS: dict[str, type[m.Event]] = {
    "shuffler_jam": m.ShufflerJam,
    "shuffler_stop": m.ShufflerStopped,
    "shuffler_incomplete": m.CycleIncomplete,
}


class SyntheticDevices:
    """The dry run's devices: a display that shows everything, and a reader that
    answers as the simulated reader does (only behind an arm, blackjack yes or no)."""

    def __init__(self) -> None:
        self.target: m.PeekTarget | None = None
        self.outbox: deque[m.Event] = deque()
        self.ids = 0

    def commit(self, device: str, event_id: int) -> None:
        pass  # nothing to acknowledge

    def display(self, text: str) -> bool:
        return True

    def arm(self, target: m.PeekTarget) -> bool:
        self.target = target
        return True

    def disarm(self) -> bool:
        self.target = None
        return True

    def self_test(self) -> bool:
        self.outbox.append(m.SelfTestResult("reader", self.next_id(), True, 0))
        return True

    def insert(self, hole: str) -> None:
        target, self.target = self.target, None
        self.outbox.append(m.CardInserted("reader", self.next_id(), target is not None))
        if target is not None:
            wanted = "A" if target is m.PeekTarget.ACE else "JQK"
            self.outbox.append(m.PeekResult("reader", self.next_id(), hole[0] in wanted))

    def next_id(self) -> int:
        self.ids += 1
        return self.ids


class DryRun:
    """A Spanish 21 scenario played in-process on synthetic devices before any simulator
    starts, so a scripted wager or decision the table refuses is named at once."""

    def __init__(self, scenario: Scenario) -> None:
        assert isinstance(scenario.rules, Spanish21Rules)  # load_scenario built it so
        self.s = scenario
        self.journal = JsonlJournal(io.StringIO())
        self.devices = SyntheticDevices()
        self.table = Spanish21Table(scenario.rules, self.journal, self.devices)
        self.order = scenario.order
        self.position = 0
        self.drawn = 0  # cards (not the cutting card) out of the shoe, with injected tens
        self.card_faults = scenario.card_faults
        self.face_up = False
        self.shuffles = 0
        self.dealer = Spanish21Dealer(scenario, self.table, self.journal, self)

    def run(self) -> None:
        try:
            if self.s.uses_shuffler:
                self.feed(m.ShufflerAttached("shuffler", self.devices.next_id()))
            self.dealer.start()
            while self.table.shoes_completed < self.s.shoes:
                acted = self.dealer.act()
                delivered = bool(self.devices.outbox)
                while self.devices.outbox:
                    self.feed(self.devices.outbox.popleft())
                if not acted and not delivered:
                    raise BenchError(f"the table waits in state {self.table.state}")
            self.dealer.finish()
        except BenchError as exc:
            raise ScenarioError(f"the scenario cannot be played: {exc}") from None

    def feed(self, event: m.Event) -> None:
        self.table.handle(event)
        if isinstance(event, m.CardDrawn):
            self.drawn += 1
            self.dealer.card_seen()

    def shuffle(self) -> bool:
        if not self.s.uses_shuffler:
            self.table.handle(ManualShuffle())
            return True
        self.shuffles += 1
        fault = self.s.shuffle_fault(self.shuffles)
        event_id = self.devices.next_id()
        if fault is not None and fault.kind in SHUFFLER_FAULT_EVENTS:
            self.feed(SHUFFLER_FAULT_EVENTS[fault.kind]("shuffler", event_id))
        else:
            count = self.s.rules.decks * CARDS_PER_DECK
            delta = 0 if fault is None or fault.delta is None else fault.delta
            self.feed(m.ShuffleCompleted("shuffler", event_id, count + delta))
        return True

    def shuffle_rack(self, count: int) -> bool:
        """551.16(g): the discard rack's ``count`` cards shuffled, by hand or by the
        shuffler."""
        if not self.s.uses_shuffler:
            self.table.handle(ManualShuffle())
        else:
            self.feed(m.ShuffleCompleted("shuffler", self.devices.next_id(), count))
        return True

    def idle(self) -> bool:
        return True

    def load(self, cards: list[str]) -> bool:
        self.order = [*self.order[: self.position], *cards]
        self.feed(m.CardsLoaded("shoe", self.devices.next_id(), len(cards)))
        return True

    def draw(self) -> bool:
        if self.position >= len(self.order):
            raise BenchError("the shoe ran out")
        while self.card_faults and self.card_faults[0].at_card <= self.drawn + 1:
            fault = self.card_faults.pop(0)
            if fault.kind == "face_up":
                self.face_up = True
            else:  # as the simulated shoe: a ten next out, ahead of the order
                self.dealer.ten_added()
                self.feed(m.CardDrawn("shoe", self.devices.next_id(), "T", "S", self.face_up))
                self.face_up = False
                return True
        token = self.order[self.position]
        self.position += 1
        event_id = self.devices.next_id()
        if token == CUT:
            self.feed(m.CutCardSeen("shoe", event_id))
        else:
            self.feed(m.CardDrawn("shoe", event_id, token[0], token[1], self.face_up))
            self.face_up = False
        if self.position == len(self.order):
            self.feed(m.ShoeEmpty("shoe", self.devices.next_id()))
        return True

    def insert(self, hole: str) -> bool:
        self.devices.insert(hole)
        return False  # the reader's answer is in the outbox

    def misuse(self, fault: Irregularity, hole: str) -> bool:
        return self.insert(hole)  # not armed: the reader reports the insertion only

    def floor(self) -> bool:
        if not self.table.can_clear:
            raise BenchError("play stopped and cannot be cleared")
        clear_as_the_floorperson(self.table)
        return True
