"""The Spanish 21 table machine (58 Pa. Code ch. 551 and § 635a.7).

The game's rules are the pure functions of ``controller.rules.spanish21``; this
module holds the procedure around them: shuffled cards and the burn, wagers before
the first card, the initial deal, Match-the-Dealer settled at once, Insurance and
the card reader behind an A/K/Q/J, player decisions box by box, "Dealer's Card",
the dealer's draws, the cutting card, and the irregularities the devices can see.

    shuffle_due --shuffled--> burn_due --card (burn)--> wagering
    wagering --no_more_bets--> dealing --card (hole card)--> peek_due | playing
    peek_due --inserted--> peeking --peek--> playing | wagering (dealer Blackjack)
    playing --decide, card--> playing --dealers_card--> dealer_turn | wagering
    dealer_turn --card--> wagering; after the cutting card's round: shuffle_due
    (a void round: wagering or shuffle_due; any fault: halted, then back)

The hole card (551.8(e), (h)): the table learns it from the shoe, because it
cross-checks the reader's answer against it, and keeps it to itself until the
dealer turns it over. A card that may become the hole card is recorded sealed
(``"card": null, "sealed": true``) and given by the line that places it face up,
or by the ``reveal`` line for the hole card itself.
"""

from __future__ import annotations

import datetime
import re
from collections import Counter, deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, ClassVar, Final, cast

from controller.rules.spanish21 import (
    BOXES,
    DEALER,
    DECISIONS,
    BoxRound,
    Hand,
    InitialCard,
    PlayError,
    Spanish21Rules,
    allowed_decisions,
    apply_decision,
    box_context,
    check_insurance,
    check_match_the_dealer,
    deal_card,
    dealer_blackjack,
    dealer_needs_to_draw,
    hand_value,
    initial_deal_order,
    insurance_allowed,
    insurance_net,
    match_the_dealer_net,
    match_the_dealer_order,
    next_hand,
    peek_target,
    reader_allowed,
    reader_misuse,
    settle_round,
)
from controller.rules.spanish21 import (
    Decision as DecisionName,
)
from controller.table.core import HALTED, Halt, Refusal, Table, event_name
from controller.table.events import (
    Command,
    DealersCard,
    Decision,
    FloorClear,
    InspectReader,
    Journal,
    ManualShuffle,
    Need,
    NewDealer,
    NoMoreBets,
    ReaderDevices,
    Wager,
)
from drivers import messages as m

SHUFFLE_DUE = "shuffle_due"  # no shoe in play: shuffled cards are needed
BURN_DUE = "burn_due"  # the next card is burned: a new batch or a new dealer
WAGERING = "wagering"  # wagers are taken until the round is dealt
DEALING = "dealing"  # the initial deal (551.8(d))
PEEK_DUE = "peek_due"  # A/K/Q/J up: Insurance open (ace), the reader armed
PEEKING = "peeking"  # the hole card is in the reader; its answer is on its way
PLAYING = "playing"  # decisions box by box and their cards
DEALER_TURN = "dealer_turn"  # the hole card is turned; the dealer draws
STATES = (SHUFFLE_DUE, BURN_DUE, WAGERING, DEALING, PEEK_DUE, PEEKING, PLAYING, DEALER_TURN)
IN_PLAY = STATES[1:]  # a shoe is in play
IN_ROUND = (DEALING, PEEK_DUE, PEEKING, PLAYING, DEALER_TURN)  # a round is being dealt

GAME = "spanish21"
BETS: Final = ("spanish21", "match_the_dealer", "insurance")
CARDS_PER_DECK: Final = 48  # 551.3(a): the tens removed

PLACE_BETS = "PLACE YOUR BETS"
ROUND_VOID = "ROUND VOID: WAGERS RETURNED"

_DECISION_SECTIONS: Final[Mapping[str, str]] = {
    "hit": "551.13(a)",
    "stand": "551.8(f)",
    "double": "551.11(a)",
    "split": "551.12(a)",
    "surrender": "551.9(a)",
    "rescue": "551.11(d)",
}


_CITED: Final = re.compile(r"\((\d{3}\.\d+(?:\([a-z0-9]+\))*)")  # "(551.9(a))"


def _today() -> str:
    return datetime.date.today().isoformat()


@dataclass(frozen=True, slots=True)
class Void:
    """Why a round is void, and whether the cards are reshuffled after it."""

    reason: str
    section: str | None
    reshuffle: bool


class Spanish21Table(Table):
    """One Spanish 21 table: the shoe, the card reader and, if attached, a shuffler.

    ``gaming_day`` names the current gaming day; the reader is inspected once in each
    (551.2(e)). Its boundary is the certificate holder's, so the host supplies it.
    """

    procedure_events = (*Table.procedure_events, m.CardInserted, m.PeekResult, m.SelfTestResult)

    STATES: ClassVar[tuple[str, ...]] = STATES
    TRANSITIONS: ClassVar[tuple[dict[str, Any], ...]] = (
        # 551.5(a), § 635a.5: shuffled and cut cards before play.
        {"trigger": "shuffled", "source": SHUFFLE_DUE, "dest": BURN_DUE, "after": "_shuffled"},
        # 551.8(c), § 635a.7(c): the first card of a new batch, and one for each new
        # dealer, goes to the discard rack.
        {
            "trigger": "card",
            "source": BURN_DUE,
            "dest": WAGERING,
            "before": "_burn",
            "after": "_open_wagering",
        },
        {"trigger": "new_dealer", "source": WAGERING, "dest": BURN_DUE, "after": "_new_dealer"},
        # 551.6(a), (d), 551.7(b): wagers before the first card of the round.
        {
            "trigger": "wager",
            "source": WAGERING,
            "dest": None,
            "unless": "_is_insurance",
            "before": "_place_wager",
        },
        {
            "trigger": "no_more_bets",
            "source": WAGERING,
            "dest": DEALING,
            "conditions": ["_has_wagers", "_reader_inspected_today"],
            "after": "_start_round",
        },
        # 551.16(c): a card drawn in error, unseen, is used as the next card.
        {
            "trigger": "card",
            "source": [WAGERING, PEEK_DUE, PEEKING],
            "dest": None,
            "before": "_drawn_in_error",
        },
        {
            "trigger": "card",
            "source": PLAYING,
            "dest": None,
            "unless": "_card_expected",
            "before": "_drawn_in_error",
        },
        # 551.8(d), § 635a.7(e): the initial deal. With the hole card, Match-the-Dealer
        # is settled before any other card and before the reader is used (551.7(d)).
        {
            "trigger": "card",
            "source": DEALING,
            "dest": PEEK_DUE,
            "conditions": ["_is_hole_card", "_reader_needed"],
            "before": "_deal_initial",
            "after": ["_settle_match_the_dealer", "_offer_peek"],
        },
        {
            "trigger": "card",
            "source": DEALING,
            "dest": PLAYING,
            "conditions": "_is_hole_card",
            "before": "_deal_initial",
            "after": ["_settle_match_the_dealer", "_start_decisions"],
        },
        {"trigger": "card", "source": DEALING, "dest": None, "before": "_deal_initial"},
        # 551.10(a), (b): Insurance against an ace, until the hole card goes in the reader.
        {
            "trigger": "wager",
            "source": PEEK_DUE,
            "dest": None,
            "conditions": "_insurance_open",
            "before": "_place_insurance",
        },
        # 551.8(e), § 635a.7(g): the peek; an answer the shoe's reading of the hole card
        # contradicts is a malfunction (551.16(m)), and the peek is done again.
        {
            "trigger": "inserted",
            "source": PEEK_DUE,
            "dest": PEEKING,
            "conditions": "_reader_armed",
            "after": "_hole_card_in_reader",
        },
        {"trigger": "reader_failed", "source": PEEKING, "dest": PEEK_DUE},
        {
            "trigger": "peek",
            "source": PEEKING,
            "dest": SHUFFLE_DUE,
            "conditions": ["_reader_agrees", "_dealer_blackjack", "_is_last_round"],
            "after": ["_peeked_blackjack", "_end_round", "_end_shoe_after_round"],
        },
        {
            "trigger": "peek",
            "source": PEEKING,
            "dest": WAGERING,
            "conditions": ["_reader_agrees", "_dealer_blackjack"],
            "after": ["_peeked_blackjack", "_end_round", "_open_wagering"],
        },
        {
            "trigger": "peek",
            "source": PEEKING,
            "dest": PLAYING,
            "conditions": "_reader_agrees",
            "after": ["_peeked_no_blackjack", "_start_decisions"],
        },
        # 551.8(f)-(g), 551.9, 551.11-551.13: decisions box by box, and their cards.
        {"trigger": "decide", "source": PLAYING, "dest": None, "before": "_apply_decision"},
        {"trigger": "card", "source": PLAYING, "dest": None, "before": "_deal_to_player"},
        # 551.8(h): "Dealer's Card" once every decision is made; the dealer draws only
        # while a result depends on it (551.13(b)-(c), § 635a.7(l)-(m), ruling R7).
        {
            "trigger": "dealers_card",
            "source": PLAYING,
            "dest": SHUFFLE_DUE,
            "conditions": ["_all_decided", "_dealer_stands", "_is_last_round"],
            "after": ["_reveal", "_end_round", "_end_shoe_after_round"],
        },
        {
            "trigger": "dealers_card",
            "source": PLAYING,
            "dest": WAGERING,
            "conditions": ["_all_decided", "_dealer_stands"],
            "after": ["_reveal", "_end_round", "_open_wagering"],
        },
        {
            "trigger": "dealers_card",
            "source": PLAYING,
            "dest": DEALER_TURN,
            "conditions": "_all_decided",
            "after": "_reveal",
        },
        {
            "trigger": "card",
            "source": DEALER_TURN,
            "dest": SHUFFLE_DUE,
            "conditions": ["_dealer_done_with", "_is_last_round"],
            "before": "_deal_to_dealer",
            "after": ["_end_round", "_end_shoe_after_round"],
        },
        {
            "trigger": "card",
            "source": DEALER_TURN,
            "dest": WAGERING,
            "conditions": "_dealer_done_with",
            "before": "_deal_to_dealer",
            "after": ["_end_round", "_open_wagering"],
        },
        {"trigger": "card", "source": DEALER_TURN, "dest": None, "before": "_deal_to_dealer"},
        # 551.8(j), § 635a.7(d): the round the cutting card appears in is completed, then
        # the cards are collected and reshuffled.
        {"trigger": "cutting_card", "source": list(IN_PLAY), "dest": None, "before": "_cut"},
        # A void round: a second card found face up (551.16(a)) reshuffles; the reader
        # used behind another up card (551.16(l)(1)) plays on with the same shoe.
        {
            "trigger": "void",
            "source": list(IN_PLAY),
            "dest": SHUFFLE_DUE,
            "conditions": "_void_reshuffles",
            "after": ["_void_round", "_end_shoe_after_void"],
        },
        {
            "trigger": "void",
            "source": list(IN_ROUND),
            "dest": WAGERING,
            "after": ["_void_round", "_open_wagering"],
        },
    )

    def __init__(
        self,
        rules: Spanish21Rules,
        journal: Journal,
        devices: ReaderDevices,
        *,
        shoe: str = "shoe",
        reader: str = "reader",
        gaming_day: Callable[[], str] = _today,
    ) -> None:
        self.rules = rules
        self._reader_devices = devices
        self._reader = reader
        self._gaming_day = gaming_day
        self.shoe_number = 0
        self.shoes_completed = 0
        self.rounds_completed = 0  # in the shoe in play
        # The shoe in play.
        self._seen: Counter[str] = Counter()
        self._burned: list[str] = []
        self._discarded: list[str] = []  # found face up; drawn in error and never used
        self._removed: list[str] = []  # tens, torn up by the floorperson (551.16(b))
        self._face_ups = 0
        self._tens = 0
        self._decks_removed = False
        self._cut_seen = False
        self._early: deque[m.CardDrawn] = deque()  # 551.16(c): the next cards to use
        self._shoe_empty = False
        self._burn_reason = "new batch"
        # The devices.
        self._shuffler_attached = False
        self._inspected_day: str | None = None  # 551.2(e)
        self._inspecting = False
        self._armed = False
        self._misuse: str | None = None  # 551.16(l): what follows the floorperson's clear
        self._void_due: Void | None = None
        # The round.
        self._wagers: dict[int, Decimal] = {}
        self._match: dict[int, Decimal] = {}
        self._insurance: dict[int, Decimal] = {}
        self._match_net: dict[int, Decimal] = {}
        self._insurance_net: dict[int, Decimal] = {}
        self._in_round = False
        self._order: tuple[InitialCard, ...] = ()
        self._slot = 0
        self._hands: dict[int, tuple[Hand, ...]] = {}
        self._dealer: list[str] = []
        self._peeked = False
        self._revealed = False
        self._acting: int | None = None  # the box the dealer is with (rescue, 551.11(d))
        super().__init__(
            GAME,
            journal,
            devices,
            states=STATES,
            transitions=[dict(t) for t in self.TRANSITIONS],
            initial=SHUFFLE_DUE,
            shoe_over=SHUFFLE_DUE,
            shoe=shoe,
        )

    # ------------------------------------------------------------------ triggers
    # Bound by the machine (model_override): typed entry points, never run as written.

    def cutting_card(self, event: m.CutCardSeen) -> bool:
        raise RuntimeError("bound by the state machine")

    def new_dealer(self, command: NewDealer) -> bool:
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

    # ------------------------------------------------------------------ public

    @property
    def round(self) -> int:
        """The round being wagered on or dealt, counted within the shoe."""
        return self.rounds_completed + 1

    @property
    def up_card(self) -> str | None:
        """The dealer's face-up card of the round in play, once dealt."""
        return self._dealer[0] if self._dealer else None

    @property
    def hole_dealt(self) -> bool:
        """Whether the hole card lies face down on the layout (never what it is)."""
        return len(self._dealer) >= 2 and not self._revealed

    @property
    def insurance_open(self) -> bool:
        """Insurance may be wagered now: an ace up, the hole card not yet in the reader."""
        return self.state == PEEK_DUE and self._ace_up()

    @property
    def turn(self) -> tuple[int, int] | None:
        """The box and hand (from 0) in play: box by box from box 1 (551.8(f), ruling
        R2), a split box's hands from the dealer's left (551.12(b)); None when every
        hand is complete."""
        for box in sorted(self._hands):
            index = next_hand(self._hands[box])
            if index is not None:
                return box, index
        return None

    @property
    def rescuable(self) -> tuple[int, int] | None:
        """The doubled hand whose Double Down Wager may still be taken back (551.11(d)):
        the dealer has not moved on from its box."""
        if self.state != PLAYING or self._acting is None:
            return None
        hands = self._hands[self._acting]
        for index, hand in enumerate(hands):
            ctx = box_context(hands, index, up_card=self._dealer[0], peeked=self._peeked)
            if "rescue" in allowed_decisions(hand, ctx):
                return self._acting, index
        return None

    def hands_of(self, box: int) -> tuple[Hand, ...]:
        """A box's hands in the round in play (none when it holds no wager)."""
        return self._hands.get(box, ())

    # ------------------------------------------------------------------ routing

    def _need(self) -> Need:
        state = self.state
        if state == SHUFFLE_DUE:
            return Need.SHUFFLE
        if state == WAGERING:
            if self._inspected_day == self._gaming_day():
                return Need.WAGERS
            return Need.DEVICE if self._inspecting else Need.INSPECTION
        if state == PEEK_DUE:
            if self._armed:
                return Need.PEEK
            if self._inspected_day is None and not self._inspecting:
                return Need.INSPECTION  # a repaired reader is inspected before its next use
            return Need.DEVICE
        if state == PEEKING:
            return Need.DEVICE
        if state == PLAYING:
            turn = self.turn
            if turn is None:
                return Need.REVEAL
            box, index = turn
            return Need.CARD if self._hands[box][index].needs_card else Need.DECISION
        return Need.CARD  # burn_due, dealing, dealer_turn

    def _on_procedure_event(self, event: m.Event) -> None:
        if isinstance(event, m.CardDrawn):
            self._on_card(event)
        elif isinstance(event, m.CutCardSeen):
            self._fire("cutting_card", event)
        elif isinstance(event, m.ShoeEmpty):
            self._shoe_empty = True
        elif isinstance(event, m.UnreadableCard):
            if self.state in IN_PLAY:
                detail = "a card left the shoe unread"
                self._stop(Halt("unreadable_card", event.device, detail, None, needs_card=True))
            else:
                self._refuse(event, self._refusal("card", event))
        elif isinstance(event, m.CardsLoaded):
            if self.state not in (SHUFFLE_DUE, BURN_DUE):
                detail = f"{event.count} cards loaded into the shoe during play"
                self._stop(Halt("cards_loaded", event.device, detail, "551.8(j)", True))
        elif isinstance(event, m.ShuffleCompleted):
            expected = self.rules.decks * CARDS_PER_DECK
            if event.card_count != expected:
                reason = (
                    f"the shuffler counted {event.card_count} cards; "
                    f"{self.rules.decks} Spanish decks are {expected}"
                )
                self._refuse(event, Refusal("551.3(a)", reason))
            else:
                self._fire("shuffled", event)
        elif isinstance(event, m.CardInserted):
            self._on_inserted(event)
        elif isinstance(event, m.PeekResult):
            self._on_peek(event)
        elif isinstance(event, m.SelfTestResult):
            self._on_self_test(event)
        elif self.state == SHUFFLE_DUE:
            # 551.16(j): a jam, a stop or an incomplete cycle: the cards are reshuffled.
            self._record({"type": "shuffle_failed", "event": event_name(event)})
            self._prompt("SHUFFLE FAILED: SHUFFLE AGAIN", "551.16(j)")

    def _on_device_fault(self, event: m.DeviceFault) -> None:
        if event.device == self._reader:
            # Any fault the reader reports is a malfunction: 551.16(m) applies.
            self._reader_down(
                "reader_malfunction", f"fault code {event.code}, detail {event.detail}"
            )
        else:
            super()._on_device_fault(event)

    def _on_other_event(self, event: m.Event) -> None:
        if isinstance(event, m.ShufflerAttached | m.ShufflerRemoved):
            self._shuffler_attached = isinstance(event, m.ShufflerAttached)
        elif isinstance(event, m.ReaderMalfunction):
            self._reader_down("reader_malfunction", f"the reader reports code {event.code}")
        elif isinstance(event, m.ReaderTamper):
            self._reader_down("reader_tamper", "the reader reports tampering")

    def _on_card(self, event: m.CardDrawn) -> None:
        if self.state not in IN_PLAY:
            self._fire("card", event)  # refused: no shoe in play
        elif event.face_up:
            self._found_face_up(event)
        elif event.rank == "T":
            self._found_ten(event)
        elif self._seen[event.token] >= self.rules.decks:
            # A card the decks cannot hold: they are not the decks inspected (551.4).
            detail = f"more {event.token} than {self.rules.decks} decks hold"
            self._stop(Halt("foreign_card", event.device, detail, "551.3(a)", ends_shoe=True))
        else:
            self._seen[event.token] += 1
            self._fire("card", event)

    def _on_game_command(self, command: Command) -> None:
        if isinstance(command, Wager):
            problem = self._wager_problem(command)
            if problem is not None:
                self._refuse(command, problem)
            else:
                self._fire("wager", command)
        elif isinstance(command, Decision):
            problem = self._decision_problem(command)
            if problem is not None:
                self._refuse(command, problem)
            else:
                self._fire("decide", command)
        elif isinstance(command, ManualShuffle):
            if self._shuffler_attached:
                why = "an automated shuffler is attached: it is removed before any other shuffle"
                self._refuse(command, Refusal("551.16(k)", why))
            else:
                self._fire("shuffled", command)
        elif isinstance(command, NoMoreBets):
            self._fire("no_more_bets", command)
        elif isinstance(command, DealersCard):
            self._fire("dealers_card", command)
        elif isinstance(command, NewDealer):
            self._fire("new_dealer", command)
        elif isinstance(command, InspectReader):
            self._inspect(command)
        else:
            self._refuse(command, Refusal(None, f"{command.name} is not a {GAME} command"))

    def _pending(self) -> bool:
        if self._void_due is not None and self.state in IN_ROUND:
            void, self._void_due = self._void_due, None
            self.void(void)
            return True
        if self.state == PEEK_DUE and not self._armed and self._inspected_day is not None:
            self._arm()
            return True
        if self._early and self._need() is Need.CARD:
            event = self._early.popleft()
            self._guard(lambda e: self._fire("card", e), event)
            return True
        if self._shoe_empty and self._need() is Need.CARD and not self._held:
            # 551.16(g) asks for the discards to be reshuffled and the round completed;
            # until the table can take a mid-round shuffle, a floorperson ends the shoe.
            detail = "the shoe is empty and the round needs another card"
            self._stop(Halt("shoe_empty", self._shoe, detail, "551.16(g)", ends_shoe=True))
            return True
        return super()._pending()

    def _refusal(self, trigger: str, item: m.Event | Command) -> Refusal:
        state = self.state
        if trigger in ("card", "cutting_card", "shuffled"):
            if state == SHUFFLE_DUE:
                if self.shoes_completed:
                    return Refusal("551.8(j)", "the shoe has ended: the cards are reshuffled first")
                return Refusal("551.5(a)", "no card is dealt before the cards are shuffled")
            return Refusal("551.8(j)", "a shoe is in play: it is reshuffled after its cutting card")
        if trigger == "wager":
            if isinstance(item, Wager) and item.bet == "insurance":
                why = "Insurance is offered only against an ace up card, before the peek"
                return Refusal("551.10(a)", why)
            if state in IN_ROUND:
                return Refusal("551.6(d)", "no wager after the first card of the round")
            return Refusal("551.6(a)", f"wagering is not open ({state})")
        if trigger == "no_more_bets":
            if state != WAGERING:
                return Refusal("551.6(d)", "no round is open for wagers")
            if not self._wagers:
                return Refusal("551.8(d)(1)", "no box holds a wager")
            return Refusal("551.2(e)", "the floorperson has not inspected the card reader today")
        if trigger == "new_dealer":
            return Refusal("551.8(c)", "a new dealer takes over between rounds")
        if trigger == "inserted":
            return Refusal("551.8(e)", "the table did not arm the reader for this peek")
        if trigger == "peek":
            return Refusal("551.8(e)", "no hole card is in the reader")
        if trigger == "decide":
            if state in (PEEK_DUE, PEEKING):
                # Ruling R9: with a card reader the peek precedes every decision.
                return Refusal("551.8(e)", "the hole card goes into the card reader first")
            return Refusal("551.8(f)", "no player decision is due")
        if trigger == "dealers_card":
            if state == PLAYING:
                return Refusal("551.8(h)", "a player's decision or card is still due")
            return Refusal("551.8(h)", "no round is waiting for the dealer's card")
        return Refusal(None, "nothing to clear: play is not stopped")

    # ------------------------------------------------------------------ records

    def _card_fields(self, event: m.CardDrawn) -> dict[str, object]:
        if self._may_be_hole_card(event):
            return {"card": None, "sealed": True, "face_up": False}
        return super()._card_fields(event)

    def _command_fields(self, command: Command) -> dict[str, object]:
        fields = super()._command_fields(command)
        if isinstance(command, FloorClear) and command.card is not None:
            # The floorperson's reading of an unread card: it may be the hole card.
            fields.update(card=None, sealed=True)
        return fields

    def _may_be_hole_card(self, event: m.CardDrawn) -> bool:
        """Whether this card, just out of the shoe, may end up as the hole card: it is
        then recorded sealed until it is placed face up or revealed (551.8(e))."""
        if event.face_up or event.rank == "T":
            return False  # never used in the game (551.16(a), (b))
        if self.state == HALTED:
            # Held until a floorperson clears, so its place is not known yet; with no
            # shoe in play it is refused then, never used.
            return self._resume != SHUFFLE_DUE
        if self._early:
            return True  # its place is not known yet
        if self.state == DEALING:
            slot = self._order[self._slot]
            return slot.to == DEALER and not slot.face_up
        if self.state == PLAYING:
            return not self._card_expected(event)
        return self.state in (WAGERING, PEEK_DUE, PEEKING)  # drawn in error (551.16(c))

    # ------------------------------------------------------------------ shoe

    def _shuffled(self, item: m.ShuffleCompleted | ManualShuffle) -> None:
        self.shoe_number += 1
        entry: dict[str, object] = {"type": "shuffled", "shoe": self.shoe_number}
        if isinstance(item, m.ShuffleCompleted):
            entry.update(how="shuffler", cards=item.card_count)
        else:
            entry["how"] = "manual"
        self._record(entry)
        self._burn_reason = "new batch"
        self._prompt("BURN CARD", "551.8(c)")

    def _new_dealer(self, command: NewDealer) -> None:
        self._burn_reason = "new dealer"
        self._prompt("NEW DEALER: BURN CARD", "551.8(c)")

    def _burn(self, event: m.CardDrawn) -> None:
        self._burned.append(event.token)
        self._record(
            {
                "type": "burn",
                "card": event.token,
                "reason": self._burn_reason,
                "section": "551.8(c)",
            }
        )

    def _cut(self, event: m.CutCardSeen) -> None:
        first = not self._cut_seen
        self._cut_seen = True
        self._record(
            {"type": "cutting_card", "round": self.round, "first": first, "section": "551.8(j)"}
        )
        if first:
            self._prompt("CUTTING CARD: LAST ROUND", "551.8(j)")

    def _is_last_round(self, item: object) -> bool:
        return self._cut_seen

    def _end_shoe_after_round(self, item: object) -> None:
        self._end_shoe("cutting_card")  # 551.8(j)(1)-(3): collect, then reshuffle

    def _end_shoe_after_void(self, void: Void) -> None:
        self._end_shoe("face_up" if self._face_ups > 1 else "cutting_card")

    def _void_and_end_shoe(self, reason: str) -> None:
        if self._resume == SHUFFLE_DUE:
            return  # no shoe was in play
        if self._decks_removed:
            void = Void("a second 10 was found in the shoe", "551.16(b)", reshuffle=True)
        else:
            void = Void(f"floorperson: {reason}", None, reshuffle=True)
        self._void_round(void)
        # Cards that left the shoe while play was stopped go to the discard rack with it.
        for event in [e for e in self._held if isinstance(e, m.CardDrawn)]:
            self._held.remove(event)
            self._discarded.append(event.token)
        self._end_shoe("decks_removed" if self._decks_removed else "floorperson")

    def _end_shoe(self, reason: str) -> None:
        self._discarded += [e.token for e in self._early]
        self._early.clear()
        self._record(
            {
                "type": "shoe_end",
                "shoe": self.shoe_number,
                "rounds": self.rounds_completed,
                "burned": self._burned,
                "discarded": self._discarded,
                "removed": self._removed,
                "reason": reason,
            }
        )
        self._prompt("NEW DECKS" if self._decks_removed else "RESHUFFLE", "551.8(j)")
        self.shoes_completed += 1
        self.rounds_completed = 0
        self._seen = Counter()
        self._burned = []
        self._discarded = []
        self._removed = []
        self._face_ups = 0
        self._tens = 0
        self._decks_removed = False
        self._cut_seen = False
        self._shoe_empty = False

    # ------------------------------------------------------------------ irregularities

    def _found_face_up(self, event: m.CardDrawn) -> None:
        """551.16(a): not used, to the discard rack; a second in the shoe voids the round
        and the cards are reshuffled (ruling proposed: counted per shoe)."""
        self._face_ups += 1
        self._discarded.append(event.token)
        second = self._face_ups > 1
        reason = "card found face up in the shoe: not used, to the discard rack"
        if second:
            reason += "; the second in this shoe: the round is void and the cards reshuffled"
        self._record(
            {"type": "irregularity", "card": event.token, "section": "551.16(a)", "reason": reason}
        )
        if second:
            self.void(Void("a second card found face up", "551.16(a)", reshuffle=True))
        else:
            self._prompt("FACE UP CARD TO THE DISCARD", "551.16(a)")

    def _found_ten(self, event: m.CardDrawn) -> None:
        """551.16(b): a 10 is not used; a floorperson removes it and tears it in half. A
        second in the shoe voids the round and the decks are removed from play."""
        self._tens += 1
        self._removed.append(event.token)
        second = self._tens > 1
        self._decks_removed = second
        reason = "a 10 in a Spanish 21 shoe: not used, removed and torn in half by a floorperson"
        if second:
            reason += "; the second in this shoe: the round is void and the decks removed"
        self._record(
            {"type": "irregularity", "card": event.token, "section": "551.16(b)", "reason": reason}
        )
        self._stop(Halt("ten_found", event.device, reason, "551.16(b)", ends_shoe=second))

    def _drawn_in_error(self, event: m.CardDrawn) -> None:
        self._early.append(event)
        self._record(
            {
                "type": "irregularity",
                "card": None,
                "sealed": True,
                "section": "551.16(c)",
                "reason": f"card drawn in error: used as the next card ({len(self._early)} held)",
            }
        )

    # ------------------------------------------------------------------ wagers

    def _wager_problem(self, command: Wager) -> Refusal | None:
        if command.bet not in BETS:
            return Refusal("551.6(a)", f"{command.bet!r} is not one of {', '.join(BETS)}")
        if command.seat not in BOXES:
            return Refusal("551.2(b)(2)", f"box {command.seat} is not a box 1..7")
        try:
            amount = Decimal(command.amount)
        except (TypeError, ValueError, ArithmeticError):
            return Refusal("551.6(e)", f"{command.amount!r} is not an amount")
        if not amount.is_finite() or amount < 0:
            return Refusal("551.6(e)", f"{command.amount} is not an amount")
        box = command.seat
        if command.bet == "insurance":
            if self.state != PEEK_DUE:
                return None  # refused by the machine, with the state's reason
            if box not in self._hands:
                return Refusal("551.10(b)", f"box {box} holds no wager this round")
            if box in self._insurance:
                return Refusal("551.10(b)", f"box {box} is insured already")
            if not self._ace_up():
                return None  # refused by the machine: no Insurance without an ace up
            try:
                check_insurance(amount, self._wagers[box], self._dealer[0], self.rules)
            except PlayError as exc:
                return Refusal("551.10(b)", str(exc))
            return None
        if self.state != WAGERING or amount == 0:
            return None
        if command.bet == "match_the_dealer":
            try:
                check_match_the_dealer(amount, self._wagers.get(box, Decimal(0)), self.rules)
            except PlayError as exc:
                return Refusal("551.7(b)", str(exc))
        return None

    def _place_wager(self, command: Wager) -> None:
        box, amount = command.seat, Decimal(command.amount)
        bets = self._wagers if command.bet == "spanish21" else self._match
        if amount == 0:
            bets.pop(box, None)
            if command.bet == "spanish21":
                self._match.pop(box, None)  # it goes with the basic wager (551.7(b))
        else:
            bets[box] = amount
        self._record(
            {"type": "wager", "round": self.round, "box": box, "bet": command.bet, "amount": amount}
        )

    def _is_insurance(self, command: Wager) -> bool:
        return command.bet == "insurance"

    def _has_wagers(self, command: NoMoreBets) -> bool:
        return bool(self._wagers)

    def _open_wagering(self, item: object) -> None:
        self._prompt(PLACE_BETS)

    # ------------------------------------------------------------------ the initial deal

    def _reader_inspected_today(self, command: NoMoreBets) -> bool:
        return self._inspected_day == self._gaming_day()

    def _start_round(self, command: NoMoreBets) -> None:
        self._in_round = True
        self._order = initial_deal_order(self._wagers)
        self._slot = 0
        self._record({"type": "no_more_bets", "round": self.round, "section": "551.6(d)"})

    def _is_hole_card(self, event: m.CardDrawn) -> bool:
        return self._slot == len(self._order) - 1

    def _reader_needed(self, event: m.CardDrawn) -> bool:
        return reader_allowed(self._dealer[0])

    def _deal_initial(self, event: m.CardDrawn) -> None:
        slot = self._order[self._slot]
        self._slot += 1
        entry: dict[str, object] = {"type": "dealt", "round": self.round}
        if slot.to == DEALER:
            self._dealer.append(event.token)
            entry["to"] = DEALER
        else:
            box = slot.to
            held = self._hands[box][0].cards if box in self._hands else ()
            self._hands[box] = (Hand((*held, event.token), self._wagers[box]),)
            entry.update(to=box, hand=1)
        if slot.face_up:
            entry.update(card=event.token, face_up=True)
        else:
            entry.update(card=None, sealed=True, face_up=False)  # 551.8(e): the hole card
        self._record(entry)

    def _settle_match_the_dealer(self, event: m.CardDrawn) -> None:
        """551.7(d), § 635a.7(f): right after the initial deal, before any other card and
        before the reader is used, from the dealer's right."""
        up = self._dealer[0]
        for box in match_the_dealer_order(self._match):
            amount = self._match[box]
            net = match_the_dealer_net(self._hands[box][0].cards, up, amount, self.rules)
            self._match_net[box] = net
            self._record(
                {
                    "type": "match_the_dealer",
                    "round": self.round,
                    "box": box,
                    "amount": amount,
                    "net": net,
                    "section": "551.7(d)",
                }
            )

    # ------------------------------------------------------------------ the reader

    def _ace_up(self) -> bool:
        return bool(self._dealer) and insurance_allowed(self._dealer[0])

    def _offer_peek(self, event: m.CardDrawn) -> None:
        if self._ace_up():
            self._prompt("INSURANCE", "551.10(a)")

    def _insurance_open(self, command: Wager) -> bool:
        return command.bet == "insurance" and self._ace_up()

    def _place_insurance(self, command: Wager) -> None:
        amount = Decimal(command.amount)
        self._insurance[command.seat] = amount
        self._record(
            {
                "type": "wager",
                "round": self.round,
                "box": command.seat,
                "bet": "insurance",
                "amount": amount,
                "section": "551.10(b)",
            }
        )

    def _arm(self) -> None:
        """Arm the reader for this hole card: only behind an A, K, Q or J (551.8(e))."""
        target = peek_target(self._dealer[0])
        if not self._reader_devices.arm(target):
            detail = "the reader could not be armed"
            self._stop(Halt("reader_not_armed", self._reader, detail, "551.8(e)"))
            return
        self._armed = True
        self._record(
            {
                "type": "reader_armed",
                "round": self.round,
                "target": target.name.lower(),
                "section": "551.8(e)",
            }
        )
        self._prompt("INSERT HOLE CARD IN READER", "551.8(e)")

    def _disarm(self) -> None:
        if self._armed:
            self._armed = False
            self._reader_devices.disarm()

    def _reader_armed(self, event: m.CardInserted) -> bool:
        return self._armed

    def _on_inserted(self, event: m.CardInserted) -> None:
        hole_down = self.state in IN_ROUND and self.hole_dealt
        if hole_down and not reader_allowed(self._dealer[0]):
            self._reader_misused()
        elif event.armed:
            self._fire("inserted", event)
        else:
            why = "the reader was not armed, so it read nothing: insert the hole card again"
            self._refuse(event, Refusal("551.8(e)", why))

    def _hole_card_in_reader(self, event: m.CardInserted) -> None:
        self._armed = False  # one peek per arm
        if self._insurance:
            self._record({"type": "insurance_closed", "round": self.round, "section": "551.10(b)"})

    def _on_peek(self, event: m.PeekResult) -> None:
        if self.state == PEEKING and not self._reader_agrees(event):
            detail = "the reader's answer disagrees with the shoe's reading of the hole card"
            self._reader_down("reader_malfunction", detail)
        else:
            self._fire("peek", event)

    def _reader_agrees(self, event: m.PeekResult) -> bool:
        return event.blackjack == dealer_blackjack(self._dealer)

    def _dealer_blackjack(self, event: m.PeekResult) -> bool:
        return event.blackjack

    def _peeked_blackjack(self, event: m.PeekResult) -> None:
        self._peeked = True
        self._record(
            {"type": "peek", "round": self.round, "blackjack": True, "section": "551.8(e)"}
        )
        self._prompt("DEALER BLACKJACK", "551.8(e)")
        self._reveal(event)

    def _peeked_no_blackjack(self, event: m.PeekResult) -> None:
        self._peeked = True
        self._record(
            {"type": "peek", "round": self.round, "blackjack": False, "section": "551.8(e)"}
        )
        # 551.10(d): losing Insurance is collected before any more cards.
        for box, amount in sorted(self._insurance.items()):
            net = insurance_net(amount, self._dealer)
            self._insurance_net[box] = net
            self._record(
                {
                    "type": "insurance",
                    "round": self.round,
                    "box": box,
                    "amount": amount,
                    "net": net,
                    "section": "551.10(d)",
                }
            )
        self._prompt("NO DEALER BLACKJACK", "551.8(e)")

    def _reader_misused(self) -> None:
        """551.16(l): the hole card went into the reader behind another up card. The
        floorperson is called; the clear voids the round or lets play go on."""
        self._misuse = reader_misuse(self._dealer[0], self.rules)
        follows = "all hands dead, wagers returned" if self._misuse == "void" else "play goes on"
        self._record(
            {
                "type": "irregularity",
                "card": None,
                "section": "551.16(l)",
                "reason": f"the hole card was put in the reader behind a {self._dealer[0]}: "
                f"{follows}",
            }
        )
        detail = f"reader used behind a {self._dealer[0]} up card: {follows}"
        self._stop(Halt("reader_misuse", self._reader, detail, "551.16(l)"))

    def _reader_down(self, cause: str, detail: str) -> None:
        """551.16(m): no dealing until a floorperson records the repair or replacement;
        the reader is inspected again before its next use (551.2(e))."""
        self._armed = False
        self._inspected_day = None
        self._inspecting = False
        if self.state == PEEKING:
            self.reader_failed(None)
        elif self.state == HALTED and self._resume == PEEKING:
            self._resume = PEEK_DUE  # the peek is done again after the repair
        self._stop(Halt(cause, self._reader, detail, "551.16(m)", needs_repair=True))

    def _cleared(self, command: FloorClear) -> None:
        misuse, self._misuse = self._misuse, None
        super()._cleared(command)
        if misuse == "void":  # 551.16(l)(1)
            self._void_due = Void(
                "the reader was used behind another up card and lets players learn the hole card",
                "551.16(l)(1)",
                reshuffle=False,
            )
        elif misuse == "continue":  # 551.16(l)(2)
            self._record({"type": "play_continues", "round": self.round, "section": "551.16(l)(2)"})

    def _inspect(self, command: InspectReader) -> None:
        if self._inspecting:
            self._refuse(command, Refusal("551.2(e)", "the reader's self-test is running"))
        elif not self._reader_devices.self_test():
            self._refuse(command, Refusal("551.2(e)", "the card reader is not connected"))
        else:
            self._inspecting = True
            self._record(
                {"type": "reader_inspection", "day": self._gaming_day(), "section": "551.2(e)"}
            )

    def _on_self_test(self, event: m.SelfTestResult) -> None:
        if not self._inspecting:
            return  # not asked for: recorded as an input, nothing follows
        self._inspecting = False
        if event.ok:
            self._inspected_day = self._gaming_day()
            self._record(
                {"type": "reader_inspected", "day": self._inspected_day, "section": "551.2(e)"}
            )
        else:
            detail = f"the reader failed its self-test (code {event.code})"
            self._reader_down("reader_malfunction", detail)

    # ------------------------------------------------------------------ decisions

    def _start_decisions(self, item: object) -> None:
        self._acting = None
        for box, hands in sorted(self._hands.items()):
            if hands[0].blackjack:
                self._prompt(f"BOX {box}: BLACKJACK", "635a.7(h)(1)")
        self._prompt_turn()

    def _prompt_turn(self) -> None:
        turn = self.turn
        if turn is None:
            self._prompt("DEALER'S CARD", "551.8(h)")
            return
        box, index = turn
        hands = self._hands[box]
        if not hands[index].needs_card:
            name = f"BOX {box}" if len(hands) == 1 else f"BOX {box} HAND {index + 1}"
            self._prompt(f"{name}: {hands[index].total}", "551.8(f)")

    def _decision_problem(self, command: Decision) -> Refusal | None:
        if self.state != PLAYING:
            return None  # refused by the machine, with the state's reason
        if command.decision not in DECISIONS:
            why = f"{command.decision!r} is not one of {', '.join(DECISIONS)}"
            return Refusal("551.8(f)", why)
        try:
            self._decided(command)
        except PlayError as exc:
            cited = _CITED.search(str(exc))
            section = cited.group(1) if cited else _DECISION_SECTIONS[command.decision]
            return Refusal(section, str(exc))
        return None

    def _decided(self, command: Decision) -> tuple[int, tuple[Hand, ...]]:
        """The hand a decision is for and the box's hands after it; PlayError if the
        procedure does not allow it now."""
        box, decision = command.box, cast(DecisionName, command.decision)
        hands = self._hands.get(box)
        if hands is None:
            raise PlayError(f"box {box} holds no hand this round")
        if decision == "rescue":
            if box != self._acting:
                raise PlayError("the dealer has moved on from this box (551.11(d))")
            doubled = [i for i, h in enumerate(hands) if h.doubled and not h.needs_card]
            index = doubled[-1] if doubled else 0
        else:
            turn = self.turn
            open_hand = next_hand(hands)
            if open_hand is None:
                index = len(hands) - 1  # the box is complete: the rules say why
            elif turn is None or turn[0] != box:
                in_turn = "no box" if turn is None else f"box {turn[0]}"
                raise PlayError(f"{in_turn} is in turn: box by box from the left (551.8(f))")
            else:
                index = open_hand
        new = apply_decision(hands, index, decision, up_card=self._dealer[0], peeked=self._peeked)
        return index, new

    def _apply_decision(self, command: Decision) -> None:
        index, self._hands[command.box] = self._decided(command)
        self._acting = command.box
        self._record(
            {
                "type": "decision",
                "round": self.round,
                "box": command.box,
                "hand": index + 1,
                "decision": command.decision,
                "section": _DECISION_SECTIONS[command.decision],
            }
        )
        self._prompt_turn()

    def _card_expected(self, event: m.CardDrawn) -> bool:
        return self._need() is Need.CARD

    def _deal_to_player(self, event: m.CardDrawn) -> None:
        turn = self.turn
        if turn is None:
            raise RuntimeError("a card was routed to a round with no hand waiting")
        box, index = turn
        self._hands[box] = deal_card(self._hands[box], event.token)
        self._acting = box
        self._record(
            {
                "type": "dealt",
                "round": self.round,
                "to": box,
                "hand": index + 1,
                "card": event.token,
                "face_up": True,
                "section": "551.8(g)",
            }
        )
        self._prompt_turn()

    def _all_decided(self, command: DealersCard) -> bool:
        return self.turn is None

    def _every_hand(self) -> list[Hand]:
        return [h for hands in self._hands.values() for h in hands]

    def _dealer_stands(self, command: DealersCard) -> bool:
        return not dealer_needs_to_draw(self._dealer, self._every_hand())

    # ------------------------------------------------------------------ the dealer

    def _reveal(self, item: object) -> None:
        """551.8(h): "Dealer's Card", and the hole card is turned face up."""
        self._revealed = True
        self._acting = None
        self._record(
            {"type": "reveal", "round": self.round, "card": self._dealer[1], "section": "551.8(h)"}
        )
        self._prompt(f"DEALER {hand_value(self._dealer)[0]}", "551.8(h)")

    def _dealer_done_with(self, event: m.CardDrawn) -> bool:
        return not dealer_needs_to_draw([*self._dealer, event.token], self._every_hand())

    def _deal_to_dealer(self, event: m.CardDrawn) -> None:
        self._dealer.append(event.token)
        self._record(
            {
                "type": "dealt",
                "round": self.round,
                "to": DEALER,
                "card": event.token,
                "face_up": True,
                "section": "551.13(b)",
            }
        )
        self._prompt(f"DEALER {hand_value(self._dealer)[0]}", "551.8(h)")

    # ------------------------------------------------------------------ the round's end

    def _end_round(self, item: object) -> None:
        result = settle_round(
            {box: BoxRound(str(box), hands) for box, hands in self._hands.items()}, self._dealer
        )
        boxes: dict[str, object] = {}
        for box, hands in sorted(self._hands.items()):
            entry: dict[str, object] = {
                "hands": [
                    {"cards": list(h.cards), "total": h.total, "outcome": r.outcome, "net": r.net}
                    for h, r in zip(hands, result.boxes[box], strict=True)
                ]
            }
            if box in self._match:
                entry["match_the_dealer_net"] = self._match_net[box]
            if box in self._insurance:
                net = self._insurance_net.get(box)
                entry["insurance_net"] = (
                    insurance_net(self._insurance[box], self._dealer) if net is None else net
                )
            boxes[str(box)] = entry
        record: dict[str, object] = {
            "type": "round_end",
            "round": self.round,
            "game": GAME,
            "void": False,
            "dealer": list(self._dealer),
            "dealer_total": hand_value(self._dealer)[0],
            "boxes": boxes,
            "shoe": self.shoe_number,
        }
        if result.others_bonus:  # 551.6(h): $50 to each other player
            record["others_bonus"] = dict(sorted(result.others_bonus.items()))
        self._record(record)
        self._next_round()

    def _void_reshuffles(self, void: Void) -> bool:
        return void.reshuffle or self._cut_seen

    def _void_round(self, void: Void) -> None:
        """All hands dead and the wagers still riding returned; Match-the-Dealer wagers
        already settled stand (551.7(f)). Wagers of a round not yet dealt go back."""
        self._disarm()
        if not self._in_round:
            if self._wagers:
                self._record(
                    {
                        "type": "wagers_returned",
                        "round": self.round,
                        "returned": {str(b): a for b, a in sorted(self._wagers.items())},
                        "reason": void.reason,
                    }
                )
                self._wagers, self._match = {}, {}
            return
        if self.hole_dealt:
            # The cards are collected in order (551.8(i)): nothing rides on the hole card.
            self._revealed = True
            self._record(
                {
                    "type": "reveal",
                    "round": self.round,
                    "card": self._dealer[1],
                    "section": "551.8(i)",
                }
            )
        boxes: dict[str, object] = {}
        returned: dict[str, Decimal] = {}
        for box in sorted(self._wagers):
            hands = self._hands.get(box, ())
            entry: dict[str, object] = {
                "hands": [
                    {
                        "cards": list(h.cards),
                        "total": hand_value(h.cards)[0],
                        "outcome": "dead",
                        "net": 0,
                    }
                    for h in hands
                ]
            }
            back = sum((h.stake for h in hands), Decimal(0)) or self._wagers[box]
            if box in self._match:
                settled = self._match_net.get(box)
                entry["match_the_dealer_net"] = 0 if settled is None else settled
                back += self._match[box] if settled is None else 0
            if box in self._insurance:
                settled = self._insurance_net.get(box)
                entry["insurance_net"] = 0 if settled is None else settled
                back += self._insurance[box] if settled is None else 0
            boxes[str(box)] = entry
            returned[str(box)] = back
        self._record(
            {
                "type": "round_end",
                "round": self.round,
                "game": GAME,
                "void": True,
                "dealer": list(self._dealer),
                "dealer_total": None,
                "boxes": boxes,
                "shoe": self.shoe_number,
                "returned": returned,
                "reason": void.reason,
                "section": void.section,
            }
        )
        self._prompt(ROUND_VOID, void.section)
        self._next_round()

    def _next_round(self) -> None:
        self._disarm()
        self.rounds_completed += 1
        self._in_round = False
        self._wagers, self._match, self._insurance = {}, {}, {}
        self._match_net, self._insurance_net = {}, {}
        self._order, self._slot = (), 0
        self._hands, self._dealer = {}, []
        self._peeked = self._revealed = False
        self._acting = None
        self._misuse = None
