"""The Spanish 21 table: its components, how it routes the devices' events and the
console's commands to them, and the hooks of ``controller.table.core.Table``."""

from __future__ import annotations

import datetime
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from controller.rules.cards import is_stand_in
from controller.rules.spanish21 import Hand, Spanish21Rules
from controller.table.core import Refusal, Table
from controller.table.events import (
    CardNotDealt,
    CardsSpread,
    Command,
    DealerOverdraw,
    DealersCard,
    Decision,
    ExposedCard,
    FloorClear,
    InspectReader,
    Journal,
    ManualShuffle,
    MissedCard,
    Need,
    NewDealer,
    NoMoreBets,
    PermitWagering,
    ReaderDevices,
    Recut,
    RefuseCard,
    Reshuffle,
    Wager,
)
from controller.table.halts import Halt
from controller.table.seal import Sealer
from controller.table.spanish21.dealer_errors import DealerErrors
from controller.table.spanish21.hole_card import HoleCard
from controller.table.spanish21.machine import (
    GAME,
    PEEK_DUE,
    PEEKING,
    PLAYING,
    RACK_SHUFFLE_DUE,
    SHUFFLE_DUE,
    STATES,
    TRANSITIONS,
    WAGERING,
)
from controller.table.spanish21.missed_cards import MissedCards
from controller.table.spanish21.rack import Rack
from controller.table.spanish21.reader import Reader
from controller.table.spanish21.refusals import refusal
from controller.table.spanish21.round import Round
from controller.table.spanish21.round_end import RoundEnd, Void
from controller.table.spanish21.shoe import ShoeInPlay
from controller.table.spanish21.wagers import Wagers
from drivers import messages as m

# What the table waits for in the states where that depends on nothing else.
_NEEDS: Mapping[str, Need] = {
    SHUFFLE_DUE: Need.SHUFFLE,
    RACK_SHUFFLE_DUE: Need.SHUFFLE,
    PEEKING: Need.DEVICE,
}


def _today() -> str:
    return datetime.date.today().isoformat()


class Spanish21Table(Table):
    """One Spanish 21 table: the shoe, the card reader and, if attached, a shuffler.

    ``gaming_day`` names the current gaming day; the reader is inspected once in each
    (551.2(e)). Its boundary is the certificate holder's, so the host supplies it;
    without one it is the calendar day. ``sealer`` seals the cards that may become the
    hole card (551.8(e)); without one, a key that dies with the process.
    """

    procedure_events = (*Table.procedure_events, m.CardInserted, m.PeekResult, m.SelfTestResult)

    STATES: ClassVar[tuple[str, ...]] = STATES
    TRANSITIONS: ClassVar[tuple[dict[str, Any], ...]] = TRANSITIONS

    # Each console command the game takes: the trigger it fires, or the component's
    # method ("part.method") that handles it. ``CHECKS`` may refuse a command first.
    COMMANDS: ClassVar[Mapping[type[Command], str]] = {
        Wager: "wager",
        Decision: "decide",
        ManualShuffle: "shuffled",
        Reshuffle: "reshuffle",
        Recut: "recut",
        CardsSpread: "cards_spread",
        PermitWagering: "wagers.permit",
        NoMoreBets: "no_more_bets",
        DealersCard: "dealers_card",
        NewDealer: "new_dealer",
        InspectReader: "reader.inspect",
        # 551.16(c)-(f), (h), (i): the dealer's errors, as the dealer declares them.
        ExposedCard: "exposed_card",
        RefuseCard: "refuse_card",
        DealerOverdraw: "dealer_overdraw",
        MissedCard: "missed_cards.declare",
        CardNotDealt: "card_not_dealt",
    }
    CHECKS: ClassVar[Mapping[type[Command], str]] = {
        Wager: "wagers.problem",
        Decision: "round.decision_problem",
        ManualShuffle: "in_play.manual_shuffle_problem",
        ExposedCard: "dealer_errors.exposed_problem",
        RefuseCard: "dealer_errors.refuse_card_problem",
        DealerOverdraw: "dealer_errors.overdraw_problem",
        CardNotDealt: "dealer_errors.card_not_dealt_problem",
    }
    # Each procedure event: the trigger it fires, or the component's method for it.
    EVENTS: ClassVar[Mapping[type[m.Event], str]] = {
        m.CardDrawn: "in_play.on_card",
        m.CutCardSeen: "cutting_card",
        m.ShoeEmpty: "in_play.ran_empty",
        m.UnreadableCard: "in_play.unreadable",
        m.CardsLoaded: "in_play.loaded",
        m.ShuffleCompleted: "in_play.shuffle_completed",
        m.ShufflerJam: "in_play.shuffle_failed",
        m.ShufflerStopped: "in_play.shuffle_failed",
        m.CycleIncomplete: "in_play.shuffle_failed",
        m.CardInserted: "reader.on_inserted",
        m.PeekResult: "reader.on_peek",
        m.SelfTestResult: "reader.on_self_test",
    }

    def __init__(
        self,
        rules: Spanish21Rules,
        journal: Journal,
        devices: ReaderDevices,
        *,
        shoe: str = "shoe",
        reader: str = "reader",
        gaming_day: Callable[[], str] | None = None,
        sealer: Sealer | None = None,
    ) -> None:
        self.rules = rules
        self.sealer = sealer or Sealer()
        self._gaming_day = gaming_day or _today
        self._in_play = ShoeInPlay(self)
        self._hole_card = HoleCard(self)
        self._reader = Reader(self, devices, reader)
        self._wagers = Wagers(self)
        self._round = Round(self)
        self._round_end = RoundEnd(self)
        self._rack = Rack(self)
        self._dealer_errors = DealerErrors(self)
        self._missed_cards = MissedCards(self)
        super().__init__(
            GAME,
            journal,
            devices,
            states=STATES,
            transitions=self.TRANSITIONS,
            initial=SHUFFLE_DUE,
            shoe_over=SHUFFLE_DUE,
            shoe=shoe,
            parts={
                "in_play": self._in_play,
                "hole_card": self._hole_card,
                "reader": self._reader,
                "wagers": self._wagers,
                "round": self._round,
                "round_end": self._round_end,
                "rack": self._rack,
                "dealer_errors": self._dealer_errors,
                "missed_cards": self._missed_cards,
            },
        )

    # ------------------------------------------------------------------ triggers
    # Bound by the machine (model_override): typed entry points, never run as written.

    def cutting_card(self, event: m.CutCardSeen) -> bool:
        raise RuntimeError("bound by the state machine")

    def new_dealer(self, command: NewDealer) -> bool:
        raise RuntimeError("bound by the state machine")

    def recut(self, command: Recut) -> bool:
        raise RuntimeError("bound by the state machine")

    def reshuffle(self, command: Reshuffle) -> bool:
        raise RuntimeError("bound by the state machine")

    def cards_spread(self, command: CardsSpread) -> bool:
        raise RuntimeError("bound by the state machine")

    def inserted(self, event: m.CardInserted) -> bool:
        raise RuntimeError("bound by the state machine")

    def reader_failed(self, item: object) -> bool:
        raise RuntimeError("bound by the state machine")

    def peek(self, event: m.PeekResult) -> bool:
        raise RuntimeError("bound by the state machine")

    def decide(self, command: Decision) -> bool:
        raise RuntimeError("bound by the state machine")

    def dealers_card(self, command: DealersCard) -> bool:
        raise RuntimeError("bound by the state machine")

    def void(self, void: Void) -> bool:
        raise RuntimeError("bound by the state machine")

    def shoe_ran_out(self, item: object) -> bool:
        raise RuntimeError("bound by the state machine")

    def exposed_card(self, command: ExposedCard) -> bool:
        raise RuntimeError("bound by the state machine")

    def refuse_card(self, command: RefuseCard) -> bool:
        raise RuntimeError("bound by the state machine")

    def dealer_overdraw(self, command: DealerOverdraw) -> bool:
        raise RuntimeError("bound by the state machine")

    def missed_card(self, command: MissedCard) -> bool:
        raise RuntimeError("bound by the state machine")

    def card_not_dealt(self, command: CardNotDealt) -> bool:
        raise RuntimeError("bound by the state machine")

    # ------------------------------------------------------------------ public

    @property
    def shoe_number(self) -> int:
        return self._in_play.shoe_number

    @property
    def shoes_completed(self) -> int:
        return self._in_play.shoes_completed

    @property
    def rounds_completed(self) -> int:
        """The rounds completed in the shoe in play."""
        return self._in_play.rounds_completed

    @property
    def round(self) -> int:
        """The round being wagered on or dealt, counted within the shoe."""
        return self.rounds_completed + 1

    @property
    def up_card(self) -> str | None:
        """The dealer's face-up card of the round in play, once dealt."""
        dealer = self._round.dealer
        return dealer[0] if dealer else None

    @property
    def hole_dealt(self) -> bool:
        """Whether the hole card lies face down on the layout (never what it is)."""
        return self._round.hole_dealt

    @property
    def insurance_open(self) -> bool:
        """Insurance may be wagered now: an ace up, the hole card not yet in the reader."""
        return self.state == PEEK_DUE and self._round.ace_up()

    @property
    def turn(self) -> tuple[int, int] | None:
        """The box and hand (from 0) in play: box by box from box 1 (551.8(f), ruling
        R2), a split box's hands from the dealer's left (551.12(b)); a box whose
        requested card was not dealt comes after all the others (551.16(i)). None when
        every hand is complete."""
        return self._round.turn

    @property
    def rescuable(self) -> tuple[int, int] | None:
        """The doubled hand whose Double Down Wager may still be taken back (551.11(d)):
        the dealer has not moved on from its box."""
        return self._round.rescuable

    def hands_of(self, box: int) -> tuple[Hand, ...]:
        """A box's hands in the round in play (none when it holds no wager)."""
        return self._round.hands.get(box, ())

    # ------------------------------------------------------------------ Table's hooks

    def _need(self) -> Need:
        state = self.state
        if state == WAGERING:
            return self._reader.need_to_deal()
        if state == PEEK_DUE:
            return self._reader.need_to_peek()
        if state == PLAYING:
            return self._round.need()
        return _NEEDS.get(state, Need.CARD)  # burn_due, dealing, dealer_turn: a card

    def open_commands(self) -> frozenset[str]:
        # The floorperson's: any time play is not stopped, the handler judges the rest.
        names = {"permit_wagering", "inspect_reader"}
        if "missed_card" in self.triggers_now():
            names.add("missed_card")  # 551.16(f), (h): through its handler
        return frozenset(names)

    def decisions(self) -> dict[str, object] | None:
        return self._round.decisions()

    def restarted(self) -> None:
        self._reader.restarted()

    def _on_device_fault(self, event: m.DeviceFault) -> None:
        if event.device == self._reader.name:
            # Any fault the reader reports is a malfunction: 551.16(m) applies.
            self._reader.down(
                "reader_malfunction", f"fault code {event.code}, detail {event.detail}"
            )
        else:
            super()._on_device_fault(event)

    def _on_other_event(self, event: m.Event) -> None:
        if isinstance(event, m.ShufflerAttached | m.ShufflerRemoved):
            self._in_play.shuffler_attached = isinstance(event, m.ShufflerAttached)
        elif isinstance(event, m.ReaderMalfunction):
            self._reader.down("reader_malfunction", f"the reader reports code {event.code}")
        elif isinstance(event, m.ReaderTamper):
            self._reader.down("reader_tamper", "the reader reports tampering")

    def _pending(self) -> bool:
        return (
            self._round_end.pending()
            or self._reader.pending()
            or self._in_play.pending()
            or self._rack.pending()
            or super()._pending()
        )

    def _refusal(self, trigger: str, item: m.Event | Command) -> Refusal:
        return refusal(self, trigger, item)

    def _void_and_end_shoe(self, reason: str) -> None:
        self._in_play.void_and_end(reason)

    def _cleared(self, command: FloorClear) -> None:
        entered = self._held[0] if self._held else None
        super()._cleared(command)
        self._hole_card.follow_entry(command, entered)
        self._reader.cleared()
        self._round_end.cleared()

    def _entered_card(self, text: str) -> str:
        if is_stand_in(text) and self.sealer.takes_stand_ins:
            return text  # a replay's entry of a card its journal never released
        return super()._entered_card(text)

    def _entered_problem(self, halt: Halt, token: str) -> Refusal | None:
        return self._hole_card.entered_problem(halt, token)

    def _clear_interrupted(self, command: FloorClear, halt: Halt) -> None:
        """A round in play when the table restarted. Every card known: it goes on from
        the rebuilt state. The hole card sealed and not known: the floorperson's card,
        checked against the seal, completes it; without one the round is void, all
        hands dead and the wagers returned (proposed ruling: no subsection covers a
        lost record; as 551.16(l)(1) does when the hole card cannot be relied on)."""
        if halt.seal is None:
            return
        if command.card is not None and self._hole_card.sealed is not None:
            self._hole_card.enter(command, command.card)
            return
        # The peek answer held for after the clear has no round to answer for.
        self._held = deque(e for e in self._held if not isinstance(e, m.PeekResult))
        self._round_end.void_due = Void(
            "the table restarted in the round and the hole card is not known",
            None,
            reshuffle=False,
        )

    def _card_fields(self, event: m.CardDrawn) -> dict[str, object]:
        sealed = self._hole_card.card_fields(event)
        return super()._card_fields(event) if sealed is None else sealed

    def _command_fields(self, command: Command) -> dict[str, object]:
        fields = super()._command_fields(command)
        if isinstance(command, FloorClear) and command.card is not None:
            fields.update(self._hole_card.entry_fields(command, command.card))
        return fields
