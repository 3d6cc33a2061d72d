"""Spanish 21 in the tests: the dealer that drives its table, and a state machine of a
dealer doing what the table asks among every irregularity, for hypothesis."""

from __future__ import annotations

import itertools
import json
import random
import re
from collections.abc import Iterable
from typing import Any

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from controller.rules.spanish21 import (
    Spanish21Rules,
    allowed_decisions,
    box_context,
    dealer_blackjack,
    peek_target,
)
from controller.table.events import (
    DealersCard,
    Decision,
    FloorClear,
    InspectReader,
    ManualShuffle,
    Need,
    NewDealer,
    NoMoreBets,
    Wager,
)
from controller.table.spanish21 import Spanish21Table
from drivers import messages as m
from tests.support import tables
from tests.support.tables import DAY, Ops


class Dealer(tables.Dealer):
    """Drives a table the way a dealer, a shoe and a reader would."""

    table: Spanish21Table

    def __init__(self, **rules: object) -> None:
        super().__init__()
        self.day = DAY
        self.table = Spanish21Table(
            Spanish21Rules.from_dict(rules), self.io, self.io, gaming_day=lambda: self.day
        )

    # devices
    def insert(self, armed: bool = True, blackjack: bool | None = None) -> None:
        self.event(m.CardInserted("reader", self.id(), armed))
        if blackjack is not None:
            self.event(m.PeekResult("reader", self.id(), blackjack))

    # console
    def inspect(self, ok: bool = True) -> None:
        self.do(InspectReader())
        self.event(m.SelfTestResult("reader", self.id(), ok, 0 if ok else 7))

    def open(self, burn: str = "2S") -> None:
        """Reader inspected, cards shuffled by hand and burned: wagering is open."""
        self.inspect()
        self.do(ManualShuffle())
        self.card(burn)
        assert self.need() is Need.WAGERS

    def deal(
        self,
        wagers: dict[int, int],
        tokens: Iterable[str] = (),
        match: dict[int, int] | None = None,
    ) -> None:
        for box, amount in wagers.items():
            self.do(Wager(box, "spanish21", amount))
        for box, amount in (match or {}).items():
            self.do(Wager(box, "match_the_dealer", amount))
        self.do(NoMoreBets())
        self.cards(tokens)

    def decide(self, box: int, *decisions: str) -> None:
        for decision in decisions:
            self.do(Decision(box, decision))

    def types(self) -> list[str]:
        return [str(e["type"]) for e in self.io.journal.entries]

    def last_refusal(self) -> dict[str, object]:
        return self.refusals()[-1]


def box(round_end: dict[str, object], number: int) -> dict[str, Any]:
    boxes = round_end["boxes"]
    assert isinstance(boxes, dict)
    result: dict[str, Any] = boxes[str(number)]
    return result


def prompts(d: Dealer) -> list[str]:
    """The text of every prompt the table journaled."""
    return [str(e["text"]) for e in d.io.of_type("prompt")]


# --------------------------------------------------------------------------- a state machine

UNIQUE_DECK = [r + s for r in "A23456789JQK" for s in "SHDC"]  # 48 cards, each once


class ArmingOps(Ops):
    """Also notes the dealer's up card at each arm."""

    def __init__(self) -> None:
        super().__init__()
        self.table: Spanish21Table | None = None
        self.armed_behind: list[tuple[m.PeekTarget, str | None]] = []
        self.outbox: list[m.Event] = []

    def arm(self, target: m.PeekTarget) -> bool:
        assert self.table is not None
        self.armed_behind.append((target, self.table.up_card))
        return super().arm(target)

    def self_test(self) -> bool:
        self.outbox.append(m.SelfTestResult("reader", 0, True, 0))
        return super().self_test()


class Spanish21Machine(RuleBasedStateMachine):
    """A dealer doing what the table asks, interleaved with every irregularity the
    devices can report and with commands the procedure may not allow. Each shoe holds
    every card once, so a card's token names that one card."""

    def __init__(self) -> None:
        super().__init__()
        self.d = Dealer()
        self.ops = ArmingOps()
        self.d.io = self.ops
        self.d.table = Spanish21Table(
            Spanish21Rules(), self.ops, self.ops, gaming_day=lambda: self.d.day
        )
        self.ops.table = self.d.table
        self.shoe: list[str] = []
        self.drawn: list[str] = []  # the cards out of the shoe in play
        self.shoe_start = 0  # where its lines begin
        self.shoes_checked = 0
        self.shuffles = 0
        self.tens = itertools.cycle(["TS", "TH", "TD", "TC"])
        self.secret: str | None = None
        self.secret_scanned = 0

    @property
    def table(self) -> Spanish21Table:
        return self.d.table

    @property
    def entries(self) -> list[dict[str, object]]:
        return self.ops.journal.entries

    def deliver(self) -> None:
        """The reader's self-test answers; and a new shoe for every shuffle the table
        took, whichever rule gave it."""
        while self.ops.outbox:
            self.ops.outbox.pop(0)
            self.d.event(m.SelfTestResult("reader", self.d.id(), True, 0))
        self.every_card_out_of_the_shoe_is_accounted_for_once()  # the shoe before this one
        shuffles = self.ops.of_type("shuffled")
        if len(shuffles) > self.shuffles:
            self.shuffles = len(shuffles)
            self.shoe = self.rng.sample(UNIQUE_DECK, len(UNIQUE_DECK))
            self.shoe.insert(len(self.shoe) - self.rng.randint(6, 20), "CUT")
            self.drawn = []
            self.shoe_start = self.entries.index(shuffles[-1])

    def draw(self, face_up: bool = False) -> None:
        if not self.shoe or self.table.state in ("shuffle_due", "halted"):
            return
        token = self.shoe.pop(0)
        if token == "CUT":
            self.d.event(m.CutCardSeen("shoe", self.d.id()))
        else:
            self.drawn.append(token)
            self.d.card(token, face_up)
        if not self.shoe:
            self.d.event(m.ShoeEmpty("shoe", self.d.id()))

    @initialize(seed=st.integers(0, 2**32 - 1))
    def begin(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.d.do(InspectReader())
        self.deliver()

    @rule(data=st.data(), steps=st.integers(1, 20))
    def advance(self, data: st.DataObject, steps: int) -> None:
        """What the table needs, done right, for a few steps."""
        for _ in range(steps):
            self.step(data)
            # Several steps may start and end a round or a shoe: check each one.
            self.the_hole_card_appears_nowhere_before_it_is_revealed()
            self.every_card_out_of_the_shoe_is_accounted_for_once()

    def step(self, data: st.DataObject) -> None:
        table = self.table
        need = table.need
        if need is Need.SHUFFLE:
            self.d.do(ManualShuffle())
        elif need is Need.INSPECTION:
            self.d.do(InspectReader())
        elif need is Need.WAGERS:
            boxes = data.draw(st.sets(st.integers(1, 7), min_size=1, max_size=3))
            for b in sorted(boxes):
                self.d.do(Wager(b, "spanish21", 10))
                if data.draw(st.booleans()):
                    self.d.do(Wager(b, "match_the_dealer", 5))
            self.d.do(NoMoreBets())
        elif need is Need.PEEK:
            if table.insurance_open and data.draw(st.booleans()):
                self.d.do(Wager(min(table_boxes(table)), "insurance", 5))
            self.insert(truthful=True)
        elif need is Need.DECISION:
            turn = table.turn
            up = table.up_card
            assert turn is not None and up is not None
            hands = table.hands_of(turn[0])
            ctx = box_context(hands, turn[1], up_card=up, peeked=True)
            allowed = sorted(allowed_decisions(hands[turn[1]], ctx))
            self.d.decide(turn[0], data.draw(st.sampled_from(allowed)))
        elif need is Need.REVEAL:
            self.d.do(DealersCard())
        elif need is Need.CARD:
            self.draw()
        elif need is Need.FLOOR and table.can_clear:
            self.d.do(FloorClear(repair="repaired" if table.repair_needed else None))
        self.deliver()

    def insert(self, truthful: bool) -> None:
        self.d.event(m.CardInserted("reader", self.d.id(), True))
        # The reader looks at the card itself: the test reads the table's own record of it.
        dealer = self.table._round.dealer
        answer = dealer_blackjack(dealer)
        self.d.event(m.PeekResult("reader", self.d.id(), answer if truthful else not answer))

    @rule()
    def wrong_answer(self) -> None:
        if self.table.need is Need.PEEK:
            self.insert(truthful=False)

    @rule()
    def rescue(self) -> None:
        if self.table.rescuable is not None:
            self.d.decide(self.table.rescuable[0], "rescue")

    @rule(face_up=st.booleans())
    def stray_card(self, face_up: bool) -> None:
        """A card out of the shoe when none is due, or found face up (551.16(a), (c))."""
        self.draw(face_up)

    @rule()
    def ten(self) -> None:
        if self.table.state not in ("shuffle_due", "halted"):
            token = next(self.tens)
            self.drawn.append(token)
            self.d.card(token)

    @rule(armed=st.booleans())
    def reader_used(self, armed: bool) -> None:
        self.d.event(m.CardInserted("reader", self.d.id(), armed))

    @rule(tamper=st.booleans())
    def reader_breaks(self, tamper: bool) -> None:
        trouble = m.ReaderTamper("reader", self.d.id()) if tamper else None
        self.d.event(trouble or m.ReaderMalfunction("reader", self.d.id(), 3))

    @rule(
        command=st.one_of(
            st.builds(
                Decision,
                st.integers(0, 8),
                st.sampled_from(["hit", "stand", "double", "split", "surrender", "rescue", "x"]),
            ),
            st.builds(
                Wager,
                st.integers(0, 8),
                st.sampled_from(["spanish21", "match_the_dealer", "insurance", "tie"]),
                st.integers(-5, 60),
            ),
            st.sampled_from(
                [NoMoreBets(), DealersCard(), NewDealer(), ManualShuffle(), InspectReader()]
            ),
            st.builds(FloorClear, st.none(), st.sampled_from([None, "repaired", "fixed"])),
        )
    )
    def any_command(self, command: Any) -> None:
        """A console command whether or not the procedure allows it now."""
        self.d.do(command)
        self.deliver()

    @invariant()
    def nothing_breaks_the_table(self) -> None:
        assert not self.ops.of_type("internal_error")

    @invariant()
    def the_reader_is_armed_only_behind_an_ace_king_queen_or_jack(self) -> None:
        for target, up in self.ops.armed_behind:
            assert up is not None and up[0] in "AKQJ" and target.name == peek_target(up).name

    def secret_search_start(self) -> int:
        """The first journal entry that may name this shoe's hole card by mistake."""
        return self.shoe_start

    @invariant()
    def the_hole_card_appears_nowhere_before_it_is_revealed(self) -> None:
        table = self.table
        if self.secret is None and table.hole_dealt:
            self.secret = table._round.dealer[1]  # the test's ground truth
            self.secret_scanned = self.secret_search_start()
        if self.secret is None:
            return
        for i in range(self.secret_scanned, len(self.entries)):
            entry = self.entries[i]
            if entry["type"] == "reveal" and entry["card"] == self.secret:
                self.secret = None
                break
            assert not re.search(rf"\b{self.secret}\b", json.dumps(entry, default=str)), entry
        self.secret_scanned = len(self.entries)

    @invariant()
    def every_card_out_of_the_shoe_is_accounted_for_once(self) -> None:
        ends = self.ops.of_type("shoe_end")
        if len(ends) == self.shoes_checked:
            return
        self.shoes_checked = len(ends)
        end: Any = ends[-1]
        used = [str(c) for key in ("burned", "discarded", "removed") for c in end[key]]
        for line in self.entries[self.shoe_start :]:
            if line["type"] == "round_end":
                done: Any = line
                used += [str(c) for c in done["dealer"]]
                for b in done["boxes"].values():
                    used += [str(c) for h in b["hands"] for c in h["cards"]]
        assert sorted(used) == sorted(self.drawn)


def table_boxes(table: Spanish21Table) -> list[int]:
    return [b for b in range(1, 8) if table.hands_of(b)]
