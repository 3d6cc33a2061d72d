"""The bench's Baccarat and Midibaccarat dealer and players on the simulated devices:
the scenario's wagers, then seeded random ones, and the dealer's own irregularities
(545.15, 543.14) when the scenario has them."""

from __future__ import annotations

import random
from collections.abc import Mapping
from decimal import Decimal

from controller.bench.dealer import DealerConsole, cards_in
from controller.bench.scenario import DRAWN_IN_ERROR, PLAYER_THIRD_CARD, Irregularity, Scenario
from controller.journal.observed import ObservedJournal
from controller.rules.baccarat import BETS, next_to_draw
from controller.table.baccarat import BaccaratTable
from controller.table.baccarat.machine import DEALING
from controller.table.events import DisclosedCard, Need, NoMoreBets, Wager
from drivers.device import DeviceDriver
from firmware_sim.harness import SimProcess

AUTOPLAY_SEATS = 7
AUTOPLAY_AMOUNTS = (10, 25, 50, 100)
FIRST_CARDS = 4  # two to each hand before any third card
# What autoplay draws from its seeded generator, drawn the same way with less work: the
# bet by ``choices`` on the weights' running totals (45, 45, 10 -> 45, 90, 100: the
# same one ``random()`` and the same pick), the amount by ``choice`` among the amounts
# as Decimals (the same index), each seat's wager on them made once.
BET_CUM_WEIGHTS = (45, 90, 100)
AMOUNTS = tuple(Decimal(a) for a in AUTOPLAY_AMOUNTS)
SEATS = range(1, AUTOPLAY_SEATS + 1)
WAGERS = {(s, b, a): Wager(s, b, a) for s in SEATS for b in BETS for a in AMOUNTS}
NO_MORE_BETS = NoMoreBets()


class BaccaratConsole(DealerConsole):
    def __init__(
        self,
        scenario: Scenario,
        table: BaccaratTable,
        journal: ObservedJournal,
        sims: Mapping[str, SimProcess],
        drivers: Mapping[str, DeviceDriver],
    ) -> None:
        super().__init__(scenario, table, journal, sims, drivers)
        self.baccarat = table
        self.rng = random.Random(scenario.seed)
        self.round_faults = scenario.round_faults
        self.fired: set[tuple[str, int]] = set()  # (kind, round): one of each per round
        self.extra: Irregularity | None = None  # a card the dealer is drawing in error
        self.extra_from = 0  # the cards out of the shoe before it
        self.hands: dict[str, list[str]] = {"player": [], "banker": []}  # the round's cards
        self.hands_round = 0
        journal.watchers.append(self.observe)

    def act(self) -> bool:
        need = self.table.need
        if need is Need.SHUFFLE:
            return self.shuffle()
        if need is Need.FLOOR:
            return self.floor()
        if self.extra is not None:
            return self.draw_in_error()
        # The dealer's irregularities, looked for only while some are still to come
        # (autoplay has none).
        if need is Need.WAGERS:
            if self.round_faults and self.error_due() is not None:
                return self.draw_in_error()
            self.wagers()
            return True
        if self.round_faults:
            self.third_card_to_banker()
        return self.draw()

    def observe(self, entry: Mapping[str, object]) -> None:
        """Follow the round's cards as the table places them (its ``dealt`` lines)."""
        kind = entry.get("type")
        if kind == "dealt":
            if entry.get("round") != self.hands_round:
                self.hands = {"player": [], "banker": []}
                self.hands_round = int(str(entry.get("round")))
            self.hands[str(entry.get("hand"))].append(str(entry.get("card")))
        elif kind in ("round_end", "shoe_end"):
            self.hands = {"player": [], "banker": []}
            self.hands_round = 0

    def error_due(self) -> Irregularity | None:
        """A card the dealer draws before "no more bets" of this round: one drawn in
        error (545.15(a), 543.14(a)), or a third card dealt to the Player's Hand of the
        round just ended, which took none and whose Banker stayed (545.15(b), 543.14(b)).
        Its ``fault_injected`` line is written; ``self.extra`` holds it until it is out."""
        now = self.baccarat.round
        last = self.journal.last.get("round_end", {})
        ended = now - 1
        stayed = (
            last.get("round") == ended
            and last.get("shoe") == self.baccarat.shoe_number
            and not last.get("void")
            and len(cards_in(last.get("player"))) == 2
            and len(cards_in(last.get("banker"))) == 2
        )
        for fault in self.round_faults:
            if fault.kind == DRAWN_IN_ERROR:
                at = now
            elif stayed:
                at = ended
            else:
                continue
            if fault.at_round <= at and (fault.kind, at) not in self.fired:
                self.start_extra(fault, at)
                return fault
        return None

    def start_extra(self, fault: Irregularity, at: int) -> None:
        self.round_faults.remove(fault)
        self.fired.add((fault.kind, at))
        entry: dict[str, object] = {
            "type": "fault_injected",
            "kind": fault.kind,
            "device": "shoe",
            "at_round": fault.at_round,
            "round": at,
        }
        if fault.kind == DRAWN_IN_ERROR:
            entry["disclosed"] = fault.disclosed
        self.journal.record(entry)
        if fault.kind == DRAWN_IN_ERROR or self.baccarat.need is Need.WAGERS:
            self.extra = fault
            self.extra_from = self.cards

    def draw_in_error(self) -> bool:
        """Draw the card (the cover card does not count), then, when it was seen,
        announce it disclosed (545.15(c), 543.14(c)) so it goes to the discard."""
        if self.pending or self.unplugged is not None:
            return False
        if self.cards == self.extra_from:
            return self.draw()
        fault, self.extra = self.extra, None
        if fault is not None and fault.disclosed:
            self.command(DisclosedCard())
        return True

    def third_card_to_banker(self) -> None:
        """545.15(b), 543.14(b): the Player's Hand may not take a third card and the
        Banker's Hand must draw: the dealer deals the next card to the Player's Hand.
        The shoe cannot tell where the dealer puts it; the table places it as the rules
        do, as the Banker's third card."""
        now = self.baccarat.round
        if self.hands_round != now or (PLAYER_THIRD_CARD, now) in self.fired:
            return
        player, banker = self.hands["player"], self.hands["banker"]
        if len(player) != 2 or len(banker) != 2:
            return
        try:
            banker_draws = next_to_draw(player, banker) == "banker"
        except ValueError:
            return
        fault = self.due(PLAYER_THIRD_CARD, now)
        if banker_draws and fault is not None:
            self.start_extra(fault, now)

    def draw_ahead(self) -> int:
        """The round's first four cards in one draw: the curator deals four, to the
        Player's and the Banker's Hands alternately, whatever they are (545.9(c)); a
        third card waits for the table to have placed the four (545.10, 545.11)."""
        table = self.baccarat
        if table.state != DEALING or self.extra is not None:
            return 1
        if self.hands_round == table.round and any(self.hands.values()):
            return 1
        return FIRST_CARDS

    def due(self, kind: str, now: int) -> Irregularity | None:
        """The scenario's first ``kind`` fault due by round ``now`` and not injected yet."""
        return next((f for f in self.round_faults if f.kind == kind and f.at_round <= now), None)

    def wagers(self) -> None:
        index = self.baccarat.round - 1
        if index < len(self.s.rounds):
            script = self.s.rounds[index]
            wagers = [
                Wager(seat, bet, amount)
                for seat, bets in sorted(script.items())
                for bet, amount in bets.items()
            ]
        else:
            wagers = self.autoplay()
        handle = self.table.handle
        for wager in wagers:
            handle(wager)
        handle(NO_MORE_BETS)

    def autoplay(self) -> list[Wager]:
        """The seeded players' wagers, seat by seat: half the seats wager, on the Banker
        or the Player (45 each in 100) or on a tie (10), 10, 25, 50 or 100."""
        rng = self.rng
        random, choices, choice = rng.random, rng.choices, rng.choice
        return [
            WAGERS[seat, choices(BETS, cum_weights=BET_CUM_WEIGHTS)[0], choice(AMOUNTS)]
            for seat in SEATS
            if random() < 0.5
        ]
