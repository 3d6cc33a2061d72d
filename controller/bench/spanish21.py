"""The bench's Spanish 21 dealer on the simulated devices: the shuffles, loads and
draws of the simulated shoe and shuffler, the hole card into the simulated reader once
it shows it is armed, and the reader's irregularities when the scenario has them."""

from __future__ import annotations

import time
from collections.abc import Mapping

from controller.bench.dealer import STALL_TIMEOUT, DealerConsole
from controller.bench.scenario import READER_IRREGULARITIES, BenchError, Irregularity, Scenario
from controller.bench.spanish21_dealer import Spanish21Dealer
from controller.journal.observed import ObservedJournal
from controller.table.events import ManualShuffle
from controller.table.spanish21 import Spanish21Table
from drivers import messages as m
from drivers.device import DeviceDriver, ShufflerDriver
from firmware_sim.harness import SimProcess


class Spanish21Console(DealerConsole):
    def __init__(
        self,
        scenario: Scenario,
        table: Spanish21Table,
        journal: ObservedJournal,
        sims: Mapping[str, SimProcess],
        drivers: Mapping[str, DeviceDriver],
    ) -> None:
        super().__init__(scenario, table, journal, sims, drivers)
        self.reader_pending: set[int] = set()  # reader event ids of the last insertion
        self.armed_wait: float | None = None  # since when the dealer waits for the arm
        self.dealer = Spanish21Dealer(scenario, table, journal, self)
        self.spanish = table
        self.reader_faults = scenario.reader_faults

    def act(self) -> bool:
        if self.reader_pending:
            return False  # the dealer waits for the reader's answer to what he did
        return self.dealer.act()

    def idle(self) -> bool:
        return not self.pending

    def shuffle(self) -> bool:
        if self.pending:
            return False  # the cards loaded into the shoe are not at the table yet
        return super().shuffle()

    def shuffle_rack(self, count: int) -> bool:
        """551.16(g): the discard rack shuffled: by hand for a stacked shoe, otherwise
        by the shuffler, loaded with the rack's ``count`` cards (control ``load``)."""
        if self.pending:
            return False
        if not self.s.uses_shuffler:
            self.command(ManualShuffle())
            return True
        if not self.shuffle_requested:
            self.sims["shuffler"].control("load", count=count)
            shuffler = self.drivers["shuffler"]
            assert isinstance(shuffler, ShufflerDriver)  # SimProcess.driver picks it by kind
            shuffler.start_shuffle()
            self.shuffle_requested = True
        return False

    def load(self, cards: list[str]) -> bool:
        """The shuffled cards into the simulated shoe (control ``load``); the dealer
        waits until the table has the shoe's ``cards_loaded``."""
        reply = self.sims["shoe"].control("load", cards=cards)
        self.pending.update(reply["event_ids"])
        return False

    def ten_added(self) -> None:
        self.dealer.ten_added()

    def misuse(self, fault: Irregularity, hole: str) -> bool:
        """551.16(l): the hole card into the reader, which the table never armed behind
        this up card; the reader reports the insertion and the table stops for the
        floorperson."""
        self.record_fault(fault, up_card=self.spanish.up_card)
        reply = self.sims["reader"].control("insert", card=hole)
        self.reader_pending.update(reply["event_ids"])
        return False

    def record_fault(self, fault: Irregularity, **detail: object) -> None:
        """The reader's irregularity, or the dealer's with the reader, in this round."""
        self.journal.record(
            {
                "type": "fault_injected",
                "kind": fault.kind,
                "device": "reader",
                "at_round": fault.at_round,
                "round": self.spanish.round,
                **detail,
            }
        )

    def start(self) -> None:
        self.dealer.start()

    def finish(self) -> None:
        self.dealer.finish()

    def new_cards(self, cards: list[str]) -> None:
        self.dealer.loaded(cards)

    def saw(self, event: m.Event) -> None:
        super().saw(event)
        if event.device == "reader" and event.event_id is not None:
            self.reader_pending.discard(event.event_id)
        elif isinstance(event, m.CardDrawn) and event.event_id is not None:
            self.dealer.card_seen()

    def insert(self, hole: str) -> bool:
        if self.reader_pending:
            return False
        reader = self.sims["reader"]
        # The table's arm travels over the reader's link; the dealer waits for the
        # reader's "armed" light before inserting the card.
        if not reader.control("status").get("armed"):
            now = time.monotonic()
            if self.armed_wait is None:
                self.armed_wait = now
            elif now - self.armed_wait > STALL_TIMEOUT:
                raise BenchError(f"the reader was not armed within {STALL_TIMEOUT:.0f} s")
            self.looking = True
            return False
        self.armed_wait = None
        if self.reader_faults and self.reader_faults[0].at_round <= self.spanish.round:
            fault = self.reader_faults.pop(0)
            self.record_fault(fault)
            command = READER_IRREGULARITIES[fault.kind]
            fields = {} if fault.code is None else {"code": fault.code}
            reply = reader.control(command, **fields)
            if command != "wrong_answer":
                # The reader stops; the table halts for the repair before any insertion.
                self.reader_pending.update(reply["event_ids"])
                return False
        reply = reader.control("insert", card=hole)
        self.reader_pending.update(reply["event_ids"])
        return False
