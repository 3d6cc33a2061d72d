"""The bench's dealer and floorperson on simulated devices, whatever the game: the
cards drawn from the simulated shoe, the shuffles asked of the simulated shuffler, the
faults injected when the scenario has them, and the floorperson's clear once a faulted
device is back. Each game's dealer (``controller.bench.baccarat``,
``controller.bench.spanish21``) says what to do for each need of its table."""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Final

from controller.bench.scenario import (
    SHUFFLER_FAULTS,
    BenchError,
    Irregularity,
    Scenario,
    Unplug,
    next_shoe,
    with_cut,
)
from controller.journal.observed import ObservedJournal
from controller.rules.cards import CUT
from controller.shuffle.orders import shoe_orders
from controller.table.events import Command, FloorClear, ManualShuffle, Need
from drivers import messages as m
from drivers.device import DeviceDriver, ShufflerDriver
from firmware_sim.harness import SimProcess

if TYPE_CHECKING:  # each game's table is imported by its own console
    from controller.table.baccarat import BaccaratTable
    from controller.table.spanish21 import Spanish21Table

STALL_TIMEOUT: Final = 10.0  # no event for this long while one is awaited: the bench gives up
POLL_INTERVAL: Final = 0.002  # how often the dealer looks at the reader's "armed" light
SHUFFLE_ENDS = (m.ShuffleCompleted, m.ShufflerJam, m.ShufflerStopped, m.CycleIncomplete)
# In ``pending``: a draw sent to the simulated shoe whose reply (its event ids, or the
# shoe's refusal) is not read yet (``DealerConsole.draw``). The dealer's next step reads
# it (waiting for it), before deciding anything: what he decides is what he would decide
# had he waited for the reply at the draw, as he did, but the table's thread does not
# wait for the simulator between the draw and the table's next input.
POSTED: Final = -1  # no event id: the simulators count theirs from 1
REPLY_WAIT: Final = 0.05  # a draw's reply and no event yet: the dealer looks again then


def clear_as_the_floorperson(table: BaccaratTable | Spanish21Table) -> None:
    """The bench's floorperson clears a stopped table, recording the device's repair
    where one is needed (551.16(m))."""
    table.handle(FloorClear(repair="repaired" if table.repair_needed else None))


def cards_in(value: object) -> list[object]:
    """A journal entry's list of cards; none when the entry has no list there."""
    return value if isinstance(value, list) else []


class DealerConsole(ABC):
    """The dealer and floorperson of one scenario run, on the thread that owns the table:
    the bench's (controller/bench/runner.py), or the daemon's simulated console, which
    hands each event to the table itself, then to ``saw``, and calls ``step``."""

    def __init__(
        self,
        scenario: Scenario,
        table: BaccaratTable | Spanish21Table,
        journal: ObservedJournal,
        sims: Mapping[str, SimProcess],
        drivers: Mapping[str, DeviceDriver],
    ) -> None:
        self.s = scenario
        self.table = table
        self.journal = journal
        self.sims = sims
        self.drivers = drivers
        self.pending: set[int] = set()  # shoe event ids of the last draw not yet handled
        self.cards = 0
        self.cards_left = 0  # real cards in the shoe, as its last load reported them
        self.bursts = True  # cards drawn several at once where the procedure allows
        self.unplugs = list(scenario.unplugs)
        self.card_faults = scenario.card_faults
        self.unplugged: str | None = None  # until the table has seen the device go
        self.replug_at = 0.0  # no event need come from an unplugged device before this
        self.shuffle_requested = False  # until the shuffler reports the shuffle's end
        self.shuffles = 0  # shuffles asked of the shuffler, failed ones included
        self.looking = False  # at a device's light, rather than waiting for an event
        self.early: set[int] = set()  # shoe events seen before the posted draw's reply
        # The first shoe's cards are the simulator's own. A table rebuilt from its
        # journal (`tablectl run --simulate` started again on its work directory) has
        # played shoes already: the simulator's shoe is the one after them, not the
        # first, or the console would load one shoe after another, each into the
        # simulated shoe, until it had loaded as many as the table had played.
        self.shoes_loaded = 1 + table.shoes_completed
        # A chained scenario's shoe in play, in the order its cards leave it: the next
        # shoe is the shuffler's order of it (a table rebuilt from its journal starts
        # the chain again from the scenario's first shoe).
        self.shoe_order = [t for t in scenario.order if t != CUT] if scenario.chained else []
        # And its journal entries, from which the shoe's discard rack is read as
        # ``tablectl shuffle-report`` reads it (``rack_order``).
        self.shoe_rows: list[Mapping[str, object]] = []
        if scenario.chained:
            journal.watchers.append(self.shoe_rows.append)

    @abstractmethod
    def act(self) -> bool:
        """Do the next thing the table needs; False when that means waiting."""

    def start(self) -> None:  # noqa: B027 - only Spanish 21 has a start of day
        """What the floorperson does once the devices are connected."""

    def finish(self) -> None:  # noqa: B027 - only Spanish 21 checks its script
        """After the last round."""

    def pace(self, ms: int) -> None:
        """The daemon's dealer at a pace (``--pace-ms``) draws one card an action, as
        a dealer does; at 0, and at the bench, as many as ``draw_ahead`` allows."""
        self.bursts = ms == 0

    @property
    def polling(self) -> bool:
        """Looking at a device's light, or a draw's reply not read and none of its
        events seen yet (a draw refused brings none: the next step reads the refusal)."""
        return self.looking or (POSTED in self.pending and not self.early)

    @property
    def poll_interval(self) -> float:
        return POLL_INTERVAL if self.looking else REPLY_WAIT

    def handle(self, event: m.Event) -> None:
        self.table.handle(event)
        self.saw(event)

    def saw(self, event: m.Event) -> None:
        """The table has handled ``event``: what the dealer waited for may be done."""
        if event.device == "shoe" and event.event_id is not None:
            if POSTED in self.pending:
                self.early.add(event.event_id)  # for ``drawn``
            else:
                self.pending.discard(event.event_id)
            if isinstance(event, m.CardDrawn):
                self.cards += 1
                self.cards_left -= 1
            elif isinstance(event, m.CardsLoaded):
                self.cards_left = event.count
        elif event.device == "shuffler" and isinstance(event, SHUFFLE_ENDS):
            # Completed, or jammed, stopped or cut short (551.16(j)): a table that still
            # needs shuffled cards gets another shuffle.
            self.shuffle_requested = False

    def step(self) -> bool:
        self.looking = False
        if POSTED in self.pending:
            self.drawn()
        if self.unplugged is not None:
            if self.table.need is not Need.FLOOR:
                return False  # the device's loss is still on its way to the table
            self.unplugged = None
        return self.act()

    def floor(self) -> bool:
        if not self.table.can_clear:
            return False  # the device is not back yet
        clear_as_the_floorperson(self.table)
        return True

    def draw(self) -> bool:
        if self.pending:
            return False
        if self.unplugs and self.unplugs[0].at_card == self.cards + 1:
            self.unplug(self.unplugs.pop(0))
            return False
        count = self.draw_ahead()
        while self.card_faults and self.card_faults[0].at_card <= self.cards + 1:
            self.inject_card(self.card_faults.pop(0))
            count = 1  # the card the fault is aimed at, on its own
        # Its reply is read by the next step (``drawn``), before the dealer decides
        # anything: nothing depends on it before then.
        self.sims["shoe"].post("draw", count=self.clipped(count))
        self.pending.add(POSTED)
        return False

    def drawn(self) -> None:
        """The posted draw's reply: its event ids not seen yet pending, or the shoe's
        refusal raised (SimError), as when the dealer drew."""
        reply = self.sims["shoe"].answer()
        assert reply is not None  # posted by ``draw``
        self.pending.discard(POSTED)
        self.pending.update(set(reply["event_ids"]) - self.early)
        self.early.clear()

    def draw_ahead(self) -> int:
        """How many cards the dealer draws now before the table has placed the first:
        one, unless the game's procedure fixes the next ones whatever they are."""
        return 1

    def clipped(self, count: int) -> int:
        """``count``, but never past the card before the next one a fault or an unplug is
        aimed at (drawn on its own after its fault), nor past the real cards the shoe
        reported loaded, and one at a time where the simulators inject faults at
        random."""
        if count == 1 or self.s.rates or not self.bursts:
            return 1
        count = min(count, self.cards_left)
        aimed = [f.at_card for f in self.card_faults] + [u.at_card for u in self.unplugs]
        if aimed:
            count = min(count, min(aimed) - self.cards - 1)
        return max(1, count)

    def shuffle(self) -> bool:
        if not self.s.continuous and self.table.shoes_completed >= self.shoes_loaded:
            return self.load_next_shoe()
        if not self.s.uses_shuffler:
            self.table.handle(ManualShuffle())  # the stacked shoe is the lab's shuffle
            return True
        if not self.shuffle_requested:
            self.shuffles += 1
            fault = self.s.shuffle_fault(self.shuffles)
            if fault is not None:
                self.inject_shuffle(fault)
            shuffler = self.drivers["shuffler"]
            assert isinstance(shuffler, ShufflerDriver)  # SimProcess.driver picks it by kind
            shuffler.start_shuffle()
            self.shuffle_requested = True
        return False

    def load_next_shoe(self) -> bool:
        """The shoe after the ones played (the bench stops before; the daemon's console
        plays on): the next seeded shoe's cards into the simulated shoe, to be shuffled
        once the table has them."""
        if self.pending:
            return False
        cards = self.chained_shoe() if self.s.chained else next_shoe(self.s, self.shoes_loaded)
        self.shoes_loaded += 1
        self.new_cards([t for t in cards if t != CUT])
        reply = self.sims["shoe"].control("load", cards=cards)
        self.pending.update(reply["event_ids"])
        return False

    def chained_shoe(self) -> list[str]:
        """The simulated shuffler's order of the shoe just played (``rack_order``), the
        cutting card where the scenario puts it."""
        reply = self.sims["shuffler"].control("order", cards=self.rack_order())
        self.shoe_order = list(reply["cards"])
        return with_cut(self.shoe_order, self.s.cut_at)

    def rack_order(self) -> list[str]:
        """The shuffler's input: the shoe just played's discard rack as the journal
        gives it (``controller.shuffle.orders``, the input ``tablectl shuffle-report``
        pairs with the next shoe), then the cards never dealt, in the order they lay in
        the shoe; the order the cards left the shoe when the journal gives no rack that,
        with them, holds the shoe's cards (docs/shuffle-monitor.md)."""
        rows, self.shoe_rows[:] = list(enumerate(map(dict, self.shoe_rows), 1)), []
        try:
            played = shoe_orders(rows)[-1]
        except (ValueError, IndexError):
            return self.shoe_order
        dealt = sum(1 for c in played.dealt if c != CUT)
        rest = self.shoe_order[dealt:]
        if played.rack is None or Counter(played.rack) + Counter(rest) != Counter(self.shoe_order):
            return self.shoe_order
        return [*played.rack, *rest]

    def new_cards(self, cards: list[str]) -> None:  # noqa: B027 - only Spanish 21 tracks its cards
        """``cards`` are the shoe now, in the order they leave it."""

    def inject_shuffle(self, fault: Irregularity) -> None:
        """The shuffler's irregularity at the shuffle about to be asked for: it jams,
        stops part way, does not complete its cycle, or miscounts the cards."""
        entry: dict[str, object] = {
            "type": "fault_injected",
            "kind": fault.kind,
            "device": "shuffler",
            "at_shuffle": fault.at_shuffle,
        }
        fields: dict[str, object] = {}
        if fault.delta is not None:
            entry["delta"] = fields["delta"] = fault.delta
        self.journal.record(entry)
        self.sims["shuffler"].control(SHUFFLER_FAULTS[fault.kind], **fields)

    def command(self, command: Command) -> None:
        """Issue the bench's own ``command``; a refusal is the bench's failure."""
        refused = self.journal.counts["refused"]
        self.table.handle(command)
        if self.journal.counts["refused"] != refused:
            reason = self.journal.last_refusal.get("reason")
            raise BenchError(f"the table refused the bench's {command.name}: {reason}")

    def inject_card(self, fault: Irregularity) -> None:
        """The shoe's irregularity at the next card: a ten put in ahead of it, or the
        card itself coming out face up."""
        self.journal.record(
            {
                "type": "fault_injected",
                "kind": fault.kind,
                "device": "shoe",
                "at_card": fault.at_card,
            }
        )
        self.sims["shoe"].control(fault.kind)
        if fault.kind == "ten":
            self.ten_added()

    def ten_added(self) -> None:  # noqa: B027 - only Spanish 21 tracks its cards
        """A ten is next out of the shoe, ahead of the scenario's order."""

    def unplug(self, fault: Unplug) -> None:
        self.journal.record(
            {
                "type": "fault_injected",
                "kind": "unplug",
                "device": fault.device,
                "at_card": fault.at_card,
                "duration_ms": fault.duration_ms,
            }
        )
        self.sims[fault.device].control("unplug", duration_ms=fault.duration_ms)
        self.unplugged = fault.device
        self.replug_at = time.monotonic() + fault.duration_ms / 1000
