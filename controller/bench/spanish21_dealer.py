"""The bench's Spanish 21 dealer and players, whatever devices they play on: what they
do for each need of the table, the hole card known from the shoe's order as the
dealer's hand holds it (551.8(e)), and the discard rack followed by the table's record
(551.16(g))."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Protocol

from controller.bench.dealer import cards_in
from controller.bench.scenario import (
    BenchError,
    Irregularity,
    Scenario,
    ScenarioError,
    Scripted,
    continuous_batch,
    rack_order,
)
from controller.bench.spanish21_players import Spanish21Players, basic_strategy
from controller.journal.observed import ObservedJournal
from controller.rules.cards import CUT
from controller.rules.spanish21 import allowed_decisions, box_context, reader_allowed
from controller.table.events import (
    Command,
    DealersCard,
    Decision,
    InspectReader,
    Need,
    NoMoreBets,
    Wager,
)
from controller.table.spanish21 import (
    DEALER_TURN,
    PEEK_DUE,
    PLAYING,
    RACK_BURN_DUE,
    RACK_SHUFFLE_DUE,
    Spanish21Table,
)


class World(Protocol):
    """The physical side of the dealer's work: the simulators, or the dry run's
    synthetic devices. Each returns True when it did something, False to wait."""

    def shuffle(self) -> bool: ...

    def shuffle_rack(self, count: int) -> bool: ...

    def load(self, cards: list[str]) -> bool: ...

    def idle(self) -> bool: ...

    def draw(self) -> bool: ...

    def insert(self, hole: str) -> bool: ...

    def misuse(self, fault: Irregularity, hole: str) -> bool: ...

    def floor(self) -> bool: ...


class DiscardRack:
    """551.16(g): the discard rack's cards (551.2(f)) as the table's record puts them
    there, and the reshuffled rack the dealer still has to load into the shoe."""

    def __init__(self, scenario: Scenario) -> None:
        self.s = scenario
        self.cards: list[str] = []
        self.reload: list[str] | None = None

    def observe(self, entry: Mapping[str, object]) -> None:
        """Burn cards, cards found face up, cards sent to the rack, and each round's
        cards as it ends; when the table has the rack reshuffled, shuffle those cards
        for the shoe."""
        kind = entry.get("type")
        if _to_the_rack(entry):
            self.cards.append(str(entry.get("card")))
        elif kind == "round_end":
            self.cards += _round_cards(entry)
        elif kind == "rack_shuffled":
            if len(self.cards) != entry.get("cards"):
                raise BenchError(
                    f"the dealer's discard rack holds {len(self.cards)} cards; the table "
                    f"counts {entry.get('cards')}"
                )
            shoe, round_ = int(str(entry.get("shoe"))), int(str(entry.get("round")))
            self.reload = rack_order(self.s, self.cards, shoe, round_)
            self.cards = []
        elif kind in ("shuffled", "shoe_end"):
            self.cards = []


def _to_the_rack(entry: Mapping[str, object]) -> bool:
    """A burn card, a card found face up (551.16(a)) or one the table sends to the rack."""
    kind = entry.get("type")
    return kind == "burn" or (
        kind == "irregularity"
        and (entry.get("section") == "551.16(a)" or entry.get("to") == "discard_rack")
    )


def _round_cards(entry: Mapping[str, object]) -> list[str]:
    """The cards of a round that ended: the dealer's, then each box's hands'."""
    cards = [str(c) for c in cards_in(entry.get("dealer"))]
    boxes = entry.get("boxes")
    for box in boxes.values() if isinstance(boxes, dict) else ():
        for hand in box.get("hands", ()):
            cards += [str(c) for c in cards_in(hand.get("cards"))]
    return cards


class Spanish21Dealer:
    """What the bench's dealer and players do for each need of a Spanish 21 table."""

    def __init__(
        self, scenario: Scenario, table: Spanish21Table, journal: ObservedJournal, world: World
    ) -> None:
        self.s = scenario
        self.table = table
        self.journal = journal
        self.world = world
        self.players = Spanish21Players(scenario)
        self.cards = [t for t in scenario.order if t != CUT]  # the shoe's cards, in order
        self.cards_seen = 0
        self.rack = DiscardRack(scenario)
        self.batch = 0  # 551.15: the continuous shuffler's batches loaded so far
        journal.watchers.append(self.rack.observe)
        self.hole: str | None = None
        self.insured = True
        self.misuse = scenario.misuse_faults
        self.misused_round = 0

    def start(self) -> None:
        if self.table.need is not Need.FLOOR:  # a table resumed on a stopped round waits
            self.command(InspectReader())  # 551.2(e): the floorperson, at the start of day

    def ten_added(self) -> None:
        """A ten the dealer will find next in the shoe: it is in his hands' count."""
        self.cards.insert(self.cards_seen, "TS")

    def loaded(self, cards: list[str]) -> None:
        """``cards`` are the shoe now, in the order they leave it; any left go back."""
        self.cards = [*self.cards[: self.cards_seen], *cards]

    def card_seen(self) -> None:
        """A card out of the shoe reached the table."""
        self.cards_seen += 1
        self.track_hole()

    def track_hole(self) -> None:
        # The dealer draws one card at a time and waits until the table has it, so a
        # hole card just dealt is the last card drawn: the dealer knows it from the
        # shoe's order, as his hand holds it, never from the table (551.8(e)).
        if not self.table.hole_dealt:
            self.hole = None
        elif self.hole is None:
            self.hole = self.cards[self.cards_seen - 1]

    def held_hole(self) -> str:
        if self.hole is None:
            raise BenchError("the dealer lost track of the hole card")
        return self.hole

    def act(self) -> bool:
        need = self.table.need
        if need is Need.FLOOR:
            done = self.world.floor()
            self.track_hole()  # held cards ran
            return done
        first = self.out_of_turn()
        if first is not None:
            return first
        if need is Need.SHUFFLE:
            return self.shuffle()
        if self.table.state == RACK_BURN_DUE:
            if not self.world.idle():
                return False  # the shoe's last events are on their way
            if self.rack.reload is not None:
                cards, self.rack.reload = self.rack.reload, None
                self.loaded(cards)  # 551.16(g): the reshuffled rack into the shoe
                return self.world.load(cards)
        return self.meet(need)

    def out_of_turn(self) -> bool | None:
        """What comes before the table's need, if anything: the scripted Insurance once
        the up card is known, the scenario's misuse of the reader, a scripted Rescue."""
        table = self.table
        if not self.insured and table.state in (PEEK_DUE, PLAYING, DEALER_TURN):
            self.insure()
            return True
        if self.misuse_due():
            hole = self.held_hole()
            self.misused_round = table.round
            return self.world.misuse(self.misuse.pop(0), hole)
        rescue = table.rescuable
        if rescue is not None and self.players.next_is_rescue(rescue[0]):
            self.decide(rescue[0])
            return True
        return None

    def shuffle(self) -> bool:
        """The shuffle the table needs: the discard rack's (551.16(g)), a continuous
        shuffling device's next batch into the shoe (551.15), or the shoe's."""
        if self.table.state == RACK_SHUFFLE_DUE:
            return self.world.shuffle_rack(len(self.rack.cards))
        if self.s.continuous:
            if not self.world.idle():
                return False  # the shoe's last events are on their way
            if self.batch <= self.table.shoes_completed:
                # 551.15: the device's cards go into the shoe, then it confirms its shuffle.
                cards = continuous_batch(self.s, self.batch)
                self.batch += 1
                self.loaded(cards)
                return self.world.load(cards)
        return self.world.shuffle()

    def meet(self, need: Need) -> bool:
        """What the dealer or the players do for the table's ``need`` in a round."""
        if need is Need.INSPECTION:
            self.command(InspectReader())
            return True
        if need is Need.WAGERS:
            self.open_round()
            return True
        if need is Need.PEEK:
            return self.world.insert(self.held_hole())
        if need is Need.DECISION:
            turn = self.table.turn
            assert turn is not None  # Need.DECISION names a hand in play
            self.left_over(turn[0])
            self.decide(turn[0])
            return True
        if need is Need.REVEAL:
            self.left_over(None)
            self.command(DealersCard())
            return True
        if need is Need.CARD:
            return self.world.draw()
        return False  # a device's answer is on its way

    def misuse_due(self) -> bool:
        """551.16(l): the scenario has the dealer put the hole card in the reader behind
        a 2-9 up card, in the first such round from ``at_round`` on, before any decision
        (the first thing the dealer does once the round is in play)."""
        table = self.table
        up = table.up_card
        return (
            bool(self.misuse)
            and table.state == PLAYING
            and table.round >= self.misuse[0].at_round
            and table.round != self.misused_round
            and table.hole_dealt
            and up is not None
            and not reader_allowed(up)
        )

    def open_round(self) -> None:
        self.finish()
        script = self.players.next_round()
        self.insured = not script.insurance
        where = self.players.where
        named = script.players
        for box, amount in sorted(script.wagers.items()):
            wager = Wager(box, "spanish21", amount, named.get(box))
            self.command(wager, where("wagers", box))
        for box, amount in sorted(script.match_the_dealer.items()):
            wager = Wager(box, "match_the_dealer", amount, named.get(box))
            self.command(wager, where("match_the_dealer", box))
        self.command(NoMoreBets(), where(""))

    def left_over(self, before: int | None) -> None:
        """The table has moved past the boxes before ``before`` (all of them: None). A
        decision scripted for one is put to the table all the same, so the scenario's
        error is the table's own refusal, with its reason."""
        for box in sorted(self.players.left):
            if (before is None or box < before) and self.players.left[box]:
                self.decide(box)

    def insure(self) -> None:
        """The scripted Insurance, once the up card is known: offered only against an
        ace (551.10(a)), so the table refuses it otherwise and the scenario is bad."""
        self.insured = True
        script = self.players.script
        for box, amount in sorted(script.insurance.items()):
            where = self.players.where("insurance", box)
            self.command(Wager(box, "insurance", amount, script.players.get(box)), where)

    def decide(self, box: int) -> None:
        table = self.table
        taken = self.players.take(box)
        if taken is not None:
            scripted, where = taken
            self.command(Decision(box, scripted.decision, scripted.amount), where)
            return
        turn = table.turn
        up = table.up_card
        assert turn is not None and up is not None  # only asked for the hand in play
        hands = table.hands_of(box)
        ctx = box_context(hands, turn[1], up_card=up, peeked=True)
        decision = basic_strategy(hands[turn[1]], up, allowed_decisions(hands[turn[1]], ctx))
        self.command(Decision(box, decision))

    def command(self, command: Command, where: str | None = None) -> None:
        """Issue ``command``; a refusal is a bad scenario where the scenario asked for
        it (``where`` names it), and the bench's own failure otherwise."""
        refused = self.journal.counts["refused"]
        self.table.handle(command)
        last = self.journal.last_refusal
        if self.journal.counts["refused"] == refused or last.get("command") != command.name:
            return
        reason, section = str(last.get("reason")), last.get("section")
        if section and str(section) not in reason:
            reason += f" ({section})"
        if where is None:
            raise BenchError(f"the table refused the bench's {command.name}: {reason}")
        at = f"round {self.players.index + 1}"
        if isinstance(command, Decision):
            amount = None if command.amount is None else Decimal(command.amount)
            what = f"{at}, box {command.box}: {Scripted(command.decision, amount)}"
        elif isinstance(command, Wager):
            what = f"{at}, box {command.seat}: {command.bet} wager of {command.amount}"
            if command.player is not None:
                what += f" by {command.player}"
        else:
            what = f"{at}: {command.name}"
        raise ScenarioError(f"{where}: {what} refused: {reason}")

    def finish(self) -> None:
        last = self.journal.last.get("round_end", {})
        if last.get("void") and last.get("round") == self.players.index + 1:
            return  # a void round's hands are dead: its decisions left over are dropped
        if self.players.scripted:
            unused = self.players.unused()
            if unused is not None:
                raise ScenarioError(unused)
