"""``BaccaratTable``: routes each input to its part or trigger, and runs the steps that
take more than one part (a card dealt, the end of a round, a void, the end of a shoe)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import ClassVar, TypeVar

from controller.rules.baccarat import BaccaratRules
from controller.table.baccarat.discards import Discards
from controller.table.baccarat.machine import (
    BURN_DUE,
    BURNING,
    DEALING,
    DISCARDING,
    IN_PLAY,
    SECTIONS,
    SHUFFLE_DUE,
    STATES,
    TRANSITIONS,
    WAGERING,
    Context,
)
from controller.table.baccarat.offers import Offers
from controller.table.baccarat.round import HANDS, Round
from controller.table.baccarat.shoe import Shoe
from controller.table.core import Refusal, Table, event_name
from controller.table.events import (
    Command,
    Devices,
    DisclosedCard,
    Journal,
    ManualShuffle,
    Need,
    NoMoreBets,
    OfferAnswer,
    PlayerLeaves,
    Recut,
    Relinquish,
    Wager,
)
from controller.table.halts import Halt
from drivers import messages as m

# Shoe events come only from the table's own dealing shoe (545.7(a), 543.7).
SHOE_EVENTS: tuple[type[m.Event], ...] = (
    m.CardDrawn,
    m.CutCardSeen,
    m.ShoeEmpty,
    m.UnreadableCard,
    m.CardsLoaded,
)

_Checked = TypeVar("_Checked", m.CardDrawn, m.CutCardSeen)


class BaccaratTable(Table):
    """One Baccarat or Midibaccarat table; ``rules.game`` says which."""

    COMMANDS: ClassVar[Mapping[type[Command], str]] = {
        Wager: "_wager",
        NoMoreBets: "no_more_bets",
        ManualShuffle: "shuffled",
        DisclosedCard: "disclosed",
        PlayerLeaves: "_player_leaves",
        Relinquish: "offers.relinquish",
        OfferAnswer: "offers.answer",
        Recut: "offers.recut",
    }
    # Each procedure event to its trigger or handler, as ``COMMANDS``.
    EVENTS: ClassVar[Mapping[type[m.Event], str]] = {
        m.CardDrawn: "_on_card",
        m.CutCardSeen: "_on_cover_card",
        m.ShoeEmpty: "shoe_empty",
        m.UnreadableCard: "_on_unreadable_card",
        m.CardsLoaded: "_on_cards_loaded",
        m.ShuffleCompleted: "_on_shuffle_completed",
        m.ShufflerJam: "_on_shuffle_failed",
        m.ShufflerStopped: "_on_shuffle_failed",
        m.CycleIncomplete: "_on_shuffle_failed",
    }

    def __init__(
        self, rules: BaccaratRules, journal: Journal, devices: Devices, *, shoe: str = "shoe"
    ) -> None:
        self.rules = rules
        self._sec = SECTIONS[rules.game]
        ctx = Context(
            rules,
            self._sec,
            self._record,
            self._prompt,
            state=lambda: self.state,
            last_prompt=lambda: self._last_prompt,
        )
        self._in_play = Shoe(ctx)
        self._discards = Discards(ctx)
        self._round = Round(ctx, self._in_play)
        self._offers = Offers(ctx, self._in_play, self._round)
        super().__init__(
            rules.game,
            journal,
            devices,
            states=STATES,
            transitions=TRANSITIONS,
            initial=SHUFFLE_DUE,
            shoe_over=SHUFFLE_DUE,
            shoe=shoe,
            parts={
                "shoe": self._in_play,
                "discards": self._discards,
                "round": self._round,
                "offers": self._offers,
            },
        )

    # ------------------------------------------------------------------ triggers
    # Bound by the machine (model_override): typed entry points, never run as written.

    def cover_card(self, event: m.CutCardSeen) -> bool:
        raise RuntimeError("bound by the state machine")

    def shoe_empty(self, event: m.ShoeEmpty) -> bool:
        raise RuntimeError("bound by the state machine")

    def disclosed(self, command: DisclosedCard) -> bool:
        raise RuntimeError("bound by the state machine")

    # ------------------------------------------------------------------ public

    @property
    def shoe_number(self) -> int:
        """The shoe in play, counted from 1 (0 before the first shuffle)."""
        return self._in_play.number

    @property
    def shoes_completed(self) -> int:
        return self._in_play.completed

    @property
    def rounds_completed(self) -> int:
        """In the shoe in play."""
        return self._in_play.rounds

    @property
    def round(self) -> int:
        """The round being wagered on or dealt, counted within the shoe."""
        return self._in_play.round

    @property
    def curator(self) -> int | None:
        """The seat of the curator, who deals the cards (545.1, 545.7(c)); None while the
        dealer calling the game deals: no player has accepted the shoe (545.7(d)), and
        always at Midibaccarat (543.9(c))."""
        return self._offers.curator

    def offered(self, what: str) -> int | None:
        """The seat ``what`` ("cut", "shoe", "player", "banker") is offered to now; None
        while it is not being offered."""
        return self._offers.offered(what)

    # ------------------------------------------------------------------ routing

    def open_commands(self) -> frozenset[str]:
        names = {"player_leaves"}  # any time: the seat's own wagers refuse it
        names.update(self._offers.open_commands())
        return frozenset(names)

    def _need(self) -> Need:
        if self.state == SHUFFLE_DUE:
            return Need.SHUFFLE
        if self.state == WAGERING:
            return Need.WAGERS
        return Need.CARD

    def _on_procedure_event(self, event: m.Event) -> None:
        if isinstance(event, SHOE_EVENTS):
            if event.device != self._shoe:
                reason = f"cards are dealt only from the table's dealing shoe, not {event.device}"
                self._refuse(event, Refusal(self._sec.dealing_shoe, reason))
                return
            if self.state == BURN_DUE:
                self._offers.cut_unanswered()
        super()._on_procedure_event(event)

    def _on_card(self, event: m.CardDrawn) -> None:
        self._checked("card", self._in_play.counted, event)

    def _on_cover_card(self, event: m.CutCardSeen) -> None:
        self._checked("cover_card", self._in_play.cover_card_out, event)

    def _checked(
        self, trigger: str, check: Callable[[_Checked], Halt | None], event: _Checked
    ) -> None:
        """Fire ``trigger`` unless ``check``, with a shoe in play, stops play instead."""
        halt = check(event) if self.state in IN_PLAY else None
        if halt is not None:
            self._stop(halt)
        else:
            self._fire(trigger, event)

    def _on_unreadable_card(self, event: m.UnreadableCard) -> Refusal | None:
        if self.state not in IN_PLAY:
            return self._refusal("card", event)
        detail = "a card left the shoe unread"
        self._stop(Halt("unreadable_card", event.device, detail, None, needs_card=True))
        return None

    def _on_cards_loaded(self, event: m.CardsLoaded) -> None:
        if self.state not in (SHUFFLE_DUE, BURN_DUE):
            detail = f"{event.count} cards loaded into the shoe during play"
            self._stop(Halt("cards_loaded", event.device, detail, self._sec.new_decks, True))

    def _on_shuffle_completed(self, event: m.ShuffleCompleted) -> Refusal | None:
        decks = self.rules.decks
        if event.card_count != decks * 52:
            reason = (
                f"the shuffler counted {event.card_count} cards; {decks} decks are {decks * 52}"
            )
            return Refusal(self._sec.decks, reason)
        self._fire("shuffled", event)
        return None

    def _on_shuffle_failed(self, event: m.Event) -> None:
        if self.state == SHUFFLE_DUE:  # a jam, stop or incomplete cycle: no shuffle
            self._record({"type": "shuffle_failed", "event": event_name(event)})
            self._prompt("SHUFFLE FAILED: SHUFFLE AGAIN", self._sec.shuffle)

    def _wager(self, command: Wager) -> Refusal | None:
        problem = self._round.wager_problem(command) if self.state == WAGERING else None
        if problem is None:
            self._fire("wager", command)
        return problem

    def _player_leaves(self, command: PlayerLeaves) -> Refusal | None:
        refusal = self._round.player_leaves(command)
        if refusal is None:
            self._offers.player_leaves(command.seat)
        return refusal

    def _pending(self) -> bool:
        if self.state == DEALING:
            early = self._discards.next_early_card()
            if early is not None:
                # 545.15(a): cards drawn in error open the hand, in the order they left
                # the shoe.
                self._guard(functools.partial(self._fire, "card"), early)
                return True
        return super()._pending()

    def _refusal(self, trigger: str, item: m.Event | Command) -> Refusal:
        sec = self._sec
        if trigger in ("card", "cover_card"):  # only without a shoe in play
            if self.shoes_completed:
                return Refusal(sec.new_decks, "the shoe has ended: new decks come first")
            return Refusal(sec.shuffle, "no card is dealt before the cards are shuffled")
        if trigger == "shuffled":
            return Refusal(sec.new_decks, "a shoe is in play: its cards change when it ends")
        if trigger in ("wager", "no_more_bets"):
            return self._wagering_refusal(trigger)
        if trigger == "disclosed":
            return Refusal(sec.disclosed, "no card drawn in error is waiting for the next hand")
        return Refusal(None, "nothing to clear: play is not stopped")

    def _wagering_refusal(self, trigger: str) -> Refusal:
        sec = self._sec
        if self.state == DEALING:
            if trigger == "wager":
                why = "no wager may be made, increased or withdrawn after 'no more bets'"
            else:
                why = "'no more bets' was announced already"
            return Refusal(sec.wagers, why)
        section, phase = {
            SHUFFLE_DUE: (sec.shuffle, "the cards are not shuffled yet"),
            BURN_DUE: (sec.burn, "the burn card comes first"),
            BURNING: (sec.burn, "the burn is not complete"),
            DISCARDING: (sec.face_up, "cards are going to the discard"),
        }[self.state]
        return Refusal(section, f"wagering is not open: {phase}")

    # ------------------------------------------------------------------ steps of more than one part

    def _deal(self, event: m.CardDrawn) -> None:
        self._offers.hand_over(self._round.deal(event))
        self._round.announce()

    def _end_round(self, event: m.CardDrawn) -> None:
        last_hand = self._in_play.is_last_hand(event)
        self._offers.round_dealt()
        outcome = self._round.end()
        self._offers.round_settled(outcome, last_hand)
        self._next_round()
        self._in_play.announce_last_hand()

    def _next_round(self) -> None:
        self._in_play.next_round()
        self._round.clear()
        self._offers.new_round()

    def _void_round(self, reason: str, section: str | None) -> None:
        self._offers.withdraw("the round is void", HANDS)
        if self._round.void(reason, section):
            self._next_round()

    def _shoe_exhausted(self, event: m.ShoeEmpty) -> None:
        self._void_round("the shoe is empty: too few cards for the round", self._sec.too_few)
        self._end_shoe("shoe_empty")

    def _end_shoe_after_last_hand(self, event: m.CardDrawn) -> None:
        self._end_shoe("last_hand")

    def _void_and_end_shoe(self, reason: str) -> None:
        if self._resume == SHUFFLE_DUE:
            return  # no shoe was in play
        self._void_round(f"floorperson: {reason}", section=None)
        self._end_shoe("floorperson")

    def _end_shoe(self, reason: str) -> None:
        self._round.collect_vigorish()
        self._in_play.end(reason, self._discards.shoe_ended())
        self._offers.shoe_ended()
