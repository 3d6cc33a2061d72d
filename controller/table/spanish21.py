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
    dealing | playing | dealer_turn --shoe_ran_out--> rack_shuffle_due --shuffled-->
        rack_burn_due --card (burn)--> back; the shoe ends after that round (551.16(g))
    (a void round: wagering or shuffle_due; any fault: halted, then back)

The dealer's errors the shoe cannot see are declared at the console and handled in
place (551.16(c)-(f), (h), (i)): an exposed card offered and refused, the dealer's
extra card on 17, places missed in the initial deal, a requested card not dealt.

The hole card (551.8(e), (h)): the table learns it from the shoe, because it
cross-checks the reader's answer against it, and keeps it to itself until the
dealer turns it over. A card that may become the hole card is recorded sealed
(``"card": null, "sealed": true`` and a ``seal``, see ``controller.table.seal``) and
released by the line that places it face up, or by the ``reveal`` line for the hole
card itself: that line's ``opened`` gives the card and the seal's nonce.
"""

from __future__ import annotations

import datetime
import re
from collections import Counter, deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any, ClassVar, Final, cast

from controller.rules.cards import CardError
from controller.rules.cards import card as parse_card
from controller.rules.spanish21 import (
    BOXES,
    DEALER,
    DECISIONS,
    BoxRound,
    Hand,
    InitialCard,
    Place,
    PlayError,
    RoundResult,
    Spanish21Rules,
    allowed_decisions,
    apply_decision,
    box_context,
    check_insurance,
    check_match_the_dealer,
    check_player_boxes,
    dead_boxes,
    deal_card,
    dealer_blackjack,
    dealer_needs_to_draw,
    hand_value,
    initial_deal_order,
    insurance_allowed,
    insurance_net,
    match_the_dealer_net,
    match_the_dealer_order,
    may_wager,
    next_hand,
    peek_target,
    reader_allowed,
    reader_misuse,
    settle_round,
    settlement_steps,
)
from controller.rules.spanish21 import (
    Decision as DecisionName,
)
from controller.table.core import HALTED, Halt, Refusal, Table, event_name
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
from controller.table.seal import Sealed, Sealer
from drivers import messages as m

SHUFFLE_DUE = "shuffle_due"  # no shoe in play: shuffled cards are needed
BURN_DUE = "burn_due"  # the next card is burned: a new batch or a new dealer
WAGERING = "wagering"  # wagers are taken until the round is dealt
DEALING = "dealing"  # the initial deal (551.8(d))
PEEK_DUE = "peek_due"  # A/K/Q/J up: Insurance open (ace), the reader armed
PEEKING = "peeking"  # the hole card is in the reader; its answer is on its way
PLAYING = "playing"  # decisions box by box and their cards
DEALER_TURN = "dealer_turn"  # the hole card is turned; the dealer draws
# 551.16(g): the shoe ran out mid-round; the discard rack is shuffled and cut, then burned.
RACK_SHUFFLE_DUE = "rack_shuffle_due"
RACK_BURN_DUE = "rack_burn_due"
STATES = (
    SHUFFLE_DUE,
    BURN_DUE,
    WAGERING,
    DEALING,
    PEEK_DUE,
    PEEKING,
    PLAYING,
    DEALER_TURN,
    RACK_SHUFFLE_DUE,
    RACK_BURN_DUE,
)
IN_PLAY = STATES[1:]  # a shoe is in play
# A round is being dealt.
IN_ROUND = (DEALING, PEEK_DUE, PEEKING, PLAYING, DEALER_TURN, RACK_SHUFFLE_DUE, RACK_BURN_DUE)
DRAWS = (DEALING, PLAYING, DEALER_TURN)  # a round's states that take cards from the shoe

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

# Why a box's wagers are its one player's: a player position has its own betting area
# (551.2(b)(2)); Match-the-Dealer and Insurance go with the player's own wager (551.7(b),
# 551.10(b)).
_OWNER_SECTIONS: Final[Mapping[str, str]] = {
    "spanish21": "551.2(b)(2)",
    "match_the_dealer": "551.7(b)",
    "insurance": "551.10(b)",
}


_CITED: Final = re.compile(r"\((\d{3}\.\d+(?:\([a-z0-9]+\))*)")  # "(551.9(a))"


def _today() -> str:
    return datetime.date.today().isoformat()


def _amount(value: object) -> Decimal | None:
    """A console amount as a finite Decimal; None if it is none."""
    if isinstance(value, bool) or not isinstance(value, Decimal | int | float | str):
        return None
    try:
        amount = Decimal(str(value) if isinstance(value, float) else value)
    except ArithmeticError:
        return None
    return amount if amount.is_finite() else None


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
        # 551.15: a continuous shuffling device confirms its shuffled cards before each
        # round, in lieu of 551.5's shuffle and cut; no batch goes in the shoe, so no burn.
        {
            "trigger": "shuffled",
            "source": SHUFFLE_DUE,
            "dest": WAGERING,
            "conditions": "_continuous",
            "after": ["_shuffled", "_open_wagering"],
        },
        # 551.5(a), § 635a.5: shuffled and cut cards before play.
        {"trigger": "shuffled", "source": SHUFFLE_DUE, "dest": BURN_DUE, "after": "_shuffled"},
        # 551.5(f): a floorperson may have the cut done again before any card is dealt.
        {
            "trigger": "recut",
            "source": [BURN_DUE, WAGERING],
            "dest": BURN_DUE,
            "conditions": "_nothing_dealt",
            "unless": "_continuous",
            "after": "_recut",
        },
        # 551.5(a), (g): a floorperson may have the cards reshuffled after any round.
        {
            "trigger": "reshuffle",
            "source": [BURN_DUE, WAGERING],
            "dest": SHUFFLE_DUE,
            "conditions": "_round_played",
            "after": "_reshuffle_required",
        },
        # 551.5(h): with no gaming activity the cards come out of the shoe and are
        # spread for inspection; they are shuffled again before play.
        {
            "trigger": "cards_spread",
            "source": [BURN_DUE, WAGERING],
            "dest": SHUFFLE_DUE,
            "conditions": "_no_gaming_activity",
            "after": "_spread",
        },
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
        # The deal is called, but its first card is not out: wagers are still taken,
        # and the round is off if its last wager is withdrawn (551.8(d)(1)).
        {
            "trigger": "wager",
            "source": DEALING,
            "dest": WAGERING,
            "conditions": ["_before_first_card", "_withdraws_the_last_wager"],
            "unless": "_is_insurance",
            "before": "_place_wager",
            "after": "_call_off_deal",
        },
        {
            "trigger": "wager",
            "source": DEALING,
            "dest": None,
            "conditions": "_before_first_card",
            "unless": "_is_insurance",
            "before": ["_place_wager", "_order_deal"],
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
        # the cards are collected and reshuffled. A continuous shuffling device's cards
        # carry no cutting card (551.15).
        {
            "trigger": "cutting_card",
            "source": list(IN_PLAY),
            "dest": None,
            "unless": "_continuous",
            "before": "_cut",
        },
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
        # 551.16(g): too few cards to complete the round. The discard rack is shuffled
        # and cut (551.5), its first card burned, and the round completed; the shoe
        # ends after it.
        {
            "trigger": "shoe_ran_out",
            "source": list(DRAWS),
            "dest": RACK_SHUFFLE_DUE,
            "before": "_shoe_ran_out",
        },
        {
            "trigger": "shuffled",
            "source": RACK_SHUFFLE_DUE,
            "dest": RACK_BURN_DUE,
            "after": "_rack_shuffled",
        },
        *(
            {
                "trigger": "card",
                "source": RACK_BURN_DUE,
                "dest": state,
                "conditions": f"_resumes_{state}",
                "before": "_burn",
                "after": "_round_resumes",
            }
            for state in DRAWS
        ),
        # 551.16(c)-(f), (h), (i): the dealer's errors, as the dealer declares them.
        {
            "trigger": "exposed_card",
            "source": [PEEK_DUE, PEEKING, PLAYING],
            "dest": None,
            "before": "_expose",
        },
        {"trigger": "refuse_card", "source": PLAYING, "dest": None, "before": "_refuse_card"},
        {
            "trigger": "dealer_overdraw",
            "source": WAGERING,
            "dest": None,
            "before": "_discard_overdraw",
        },
        {"trigger": "missed_card", "source": DEALING, "dest": None, "before": "_missed_card"},
        {
            "trigger": "card_not_dealt",
            "source": PLAYING,
            "dest": None,
            "before": "_card_not_dealt",
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
        sealer: Sealer | None = None,
    ) -> None:
        self.rules = rules
        self.sealer = sealer or Sealer()
        # Sealed cards not yet released, by the input (event or command) that brought
        # them; the hole card's seal once it is dealt; a floorperson's entry of it.
        self._seals: dict[int, tuple[object, Sealed]] = {}
        self._discarded_held: list[m.CardDrawn] = []
        self._hole: Sealed | None = None
        self._hole_entered: Sealed | None = None
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
        self._players: dict[int, str] = {}  # whose each box's wager is (551.14)
        # 551.6(k): who wagered on the last round since the shuffle (None: no round
        # yet, anyone may wager), and who a floorperson let back in, for which round.
        self._wagered_last: frozenset[str] | None = None
        self._permitted: dict[str, int] = {}
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
        # The discard rack (551.2(f)) and 551.16(g).
        self._rack: list[str] = []  # the cards in it now
        self._rack_reshuffled = False  # 551.16(g) done: the shoe ends after this round
        self._round_state: str | None = None  # where the round stood when the shoe ran out
        self._prompt_before_rack: str | None = None
        # The dealer's errors (551.16(c)-(i)).
        self._exposed: list[m.CardDrawn] = []  # held cards the players saw (551.16(d))
        self._initial: list[str] = []  # the initial deal's cards out of the shoe, in order
        self._passed_over: set[Place] = set()  # places missed (551.16(f), (h))
        self._second_later: set[int] = set()  # 551.16(h): one-card boxes taking the option
        self._dead: frozenset[int] = frozenset()  # 551.16(h): boxes dealt out of the round
        self._deferred: list[int] = []  # 551.16(i): boxes whose card comes after the others'
        self._void_on_clear: Void | None = None
        self._last_dealer: list[str] = []  # the last round's dealer hand (551.16(e))
        self._held_at_end: list[m.CardDrawn] = []  # held as the last round ended (551.16(e))
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
        R2), a split box's hands from the dealer's left (551.12(b)); a box whose
        requested card was not dealt comes after all the others (551.16(i)). None when
        every hand is complete."""
        boxes = [b for b in sorted(self._hands) if b not in self._deferred]
        for box in [*boxes, *self._deferred]:
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
        if state in (SHUFFLE_DUE, RACK_SHUFFLE_DUE):
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
            # The shuffled cards (the discard rack's, 551.16(g)) go into the shoe.
            if self.state not in (SHUFFLE_DUE, BURN_DUE, RACK_SHUFFLE_DUE, RACK_BURN_DUE):
                detail = f"{event.count} cards loaded into the shoe during play"
                self._stop(Halt("cards_loaded", event.device, detail, "551.8(j)", True))
        elif isinstance(event, m.ShuffleCompleted) and self.state == RACK_SHUFFLE_DUE:
            self._rack_shuffle_completed(event)
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
        elif self.state in (SHUFFLE_DUE, RACK_SHUFFLE_DUE):
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
        if self._on_dealer_error(command):
            return
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
            elif self.rules.continuous_shuffler:
                why = "this table's cards are shuffled by its continuous shuffling device"
                self._refuse(command, Refusal("551.15", why))
            else:
                self._fire("shuffled", command)
        elif isinstance(command, Reshuffle):
            self._fire("reshuffle", command)
        elif isinstance(command, Recut):
            self._fire("recut", command)
        elif isinstance(command, CardsSpread):
            self._fire("cards_spread", command)
        elif isinstance(command, PermitWagering):
            self._permit(command)
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
            if self.state in DRAWS and len(self._rack) >= 2:
                self.shoe_ran_out(None)  # 551.16(g): the discard rack completes the round
            else:
                # Reading (proposed ruling): 551.16(g) needs a round in play and a rack
                # that holds a card to burn and one to deal; without them a floorperson
                # ends the shoe.
                detail = "the shoe is empty and the discard rack cannot complete the round"
                self._stop(Halt("shoe_empty", self._shoe, detail, "551.16(g)", ends_shoe=True))
            return True
        return super()._pending()

    def _refusal(self, trigger: str, item: m.Event | Command) -> Refusal:
        state = self.state
        mine = self._dealer_error_refusal(trigger, item)
        if mine is not None:
            return mine
        if trigger in ("card", "cutting_card", "shuffled") and self.rules.continuous_shuffler:
            if trigger == "cutting_card":
                return Refusal("551.15", "a continuous shuffling device deals no cutting card")
            if state == SHUFFLE_DUE:
                why = "the cards are back in the device: it confirms its shuffle first"
                return Refusal("551.15", why)
            why = "the device's cards are in play: they go back to it after the round"
            return Refusal("551.15", why)
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
        if trigger == "recut":
            if self.rules.continuous_shuffler:
                return Refusal("551.15", "a continuous shuffling device's cards are not cut")
            if state in (BURN_DUE, WAGERING):
                return Refusal("551.5(f)", "a card of this shoe has been dealt: too late to recut")
            return Refusal("551.5(f)", "no cut cards are waiting to be dealt")
        if trigger == "reshuffle":
            if state == SHUFFLE_DUE:
                return Refusal("551.5(g)", "the cards are to be shuffled already")
            if state in (BURN_DUE, WAGERING):
                return Refusal("551.5(g)", "no round has been played since the cards were shuffled")
            return Refusal("551.5(g)", "a reshuffle follows a round: this one is still in play")
        if trigger == "cards_spread":
            if state == SHUFFLE_DUE:
                return Refusal("551.5(h)", "the cards are to be shuffled already")
            if state in (BURN_DUE, WAGERING):
                return Refusal("551.5(h)", "wagers are on the layout: there is gaming activity")
            return Refusal("551.5(h)", "a round is in play")
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
            sealed = self._seal(event, event.token)
            return {"card": None, "sealed": True, "face_up": False, **sealed.fields()}
        return super()._card_fields(event)

    def _command_fields(self, command: Command) -> dict[str, object]:
        fields = super()._command_fields(command)
        if isinstance(command, FloorClear) and command.card is not None:
            # The floorperson's reading of an unread card: it may be the hole card.
            try:
                token = parse_card(command.card)
            except CardError:
                token = str(command.card)
            fields.update(card=None, sealed=True, **self._seal(command, token).fields())
        return fields

    def _seal(self, item: object, token: str) -> Sealed:
        """The seal of the card ``item`` brought: one per input, whichever line shows it."""
        held = self._seals.get(id(item))
        if held is None:
            held = (item, self.sealer.seal(token))  # the item is kept: its id stays its own
            self._seals[id(item)] = held
        return held[1]

    def _opened(self, *events: m.CardDrawn) -> dict[str, object]:
        """The ``opened`` field releasing these cards' seals, as they are placed face up
        or leave the layout; empty for cards that were never sealed."""
        opened: list[dict[str, str]] = []
        for event in events:
            held = self._seals.pop(id(event), None)
            if held is not None:
                opened.append(self._open(held[1], event.token))
        return {"opened": opened} if opened else {}

    def _open(self, sealed: Sealed, token: str) -> dict[str, str]:
        if sealed.unknown:
            # A stand-in for a card sealed before a restart: never shown as a card.
            raise RuntimeError("a card sealed before the restart cannot be placed face up unread")
        return self.sealer.opening(sealed, token)

    def _hole_opened(self) -> dict[str, object]:
        """The ``opened`` field of the hole card's reveal (551.8(h))."""
        hole = [s for s in (self._hole, self._hole_entered) if s is not None]
        self._hole = self._hole_entered = None
        return {"opened": [self._open(s, self._dealer[1]) for s in hole]} if hole else {}

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
        if self.rules.continuous_shuffler:
            entry["section"] = "551.15"
        self._record(entry)
        # 551.6(k)(2): a reshuffle lets everyone wager again.
        self._wagered_last, self._permitted = None, {}
        self._burn_reason = "new batch"
        if not self.rules.continuous_shuffler:
            self._prompt("BURN CARD", "551.8(c)")

    def _new_dealer(self, command: NewDealer) -> None:
        self._burn_reason = "new dealer"
        self._prompt("NEW DEALER: BURN CARD", "551.8(c)")

    def _burn(self, event: m.CardDrawn) -> None:
        self._burned.append(event.token)
        self._rack.append(event.token)
        rack = self.state == RACK_BURN_DUE  # 551.16(g): drawn face down, to the discard rack
        self._record(
            {
                "type": "burn",
                "card": event.token,
                "reason": "discard rack reshuffled" if rack else self._burn_reason,
                "section": "551.16(g)" if rack else "551.8(c)",
                **self._opened(event),
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
        # 551.15: a continuous shuffling device takes the cards back after every round;
        # 551.16(g): the discard rack's cards complete one round, then the shoe ends.
        return self._cut_seen or self.rules.continuous_shuffler or self._rack_reshuffled

    def _end_shoe_after_round(self, item: object) -> None:
        # 551.8(j)(1)-(3): collect, then reshuffle; or back to the device (551.15).
        if self._rack_reshuffled:
            self._end_shoe("shoe_empty")  # 551.16(g): the round is completed
        else:
            self._end_shoe("continuous_shuffler" if self._continuous(item) else "cutting_card")

    def _end_shoe_after_void(self, void: Void) -> None:
        if self._face_ups > 1:
            self._end_shoe("face_up")
        else:
            self._end_shoe("continuous_shuffler" if self._continuous(void) else "cutting_card")

    def _continuous(self, item: object) -> bool:
        return self.rules.continuous_shuffler

    def _recut(self, command: Recut) -> None:
        """551.5(f): the cards are cut again by the next player entitled to cut; the
        recut stack goes back in the shoe as a batch, and its first card is burned."""
        self._record({"type": "recut", "shoe": self.shoe_number, "section": "551.5(f)"})
        self._burn_reason = "recut"
        self._prompt("RECUT: BURN CARD", "551.5(f)")

    def _nothing_dealt(self, command: Recut) -> bool:
        """No card of the shoe has been dealt: only the burn card has left it (551.8(c))."""
        return self.rounds_completed == 0 and not self._in_round and not self._early

    def _no_gaming_activity(self, command: CardsSpread) -> bool:
        return not self._wagers and not self._early

    def _spread(self, command: CardsSpread) -> None:
        """551.5(h): the cards are out of the shoe and spread; the shoe is over."""
        self._record({"type": "cards_spread", "shoe": self.shoe_number, "section": "551.5(h)"})
        self._end_shoe("no_gaming_activity")

    def _round_played(self, command: Reshuffle) -> bool:
        return self.rounds_completed > 0

    def _reshuffle_required(self, command: Reshuffle) -> None:
        """551.5(a), (g): the floorperson has the cards reshuffled after this round. Wagers
        already placed for the next round stay on the layout for it."""
        self._record(
            {
                "type": "reshuffle_required",
                "shoe": self.shoe_number,
                "rounds": self.rounds_completed,
                "section": "551.5(g)",
            }
        )
        self._end_shoe("reshuffle")

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
            self._discarded_held.append(event)
        self._end_shoe("decks_removed" if self._decks_removed else "floorperson")

    def _end_shoe(self, reason: str) -> None:
        self._discarded += [e.token for e in self._early]
        opened = self._opened(*self._early, *self._discarded_held)
        self._early.clear()
        self._discarded_held = []
        self._record(
            {
                "type": "shoe_end",
                "shoe": self.shoe_number,
                "rounds": self.rounds_completed,
                "burned": self._burned,
                "discarded": self._discarded,
                "removed": self._removed,
                "reason": reason,
                **opened,
            }
        )
        self._seals.clear()  # what is left was refused, never used
        if self.rules.continuous_shuffler and not self._decks_removed:
            self._prompt("CARDS TO THE SHUFFLER", "551.15")
        else:
            section = "551.5(g)" if reason == "reshuffle" else "551.8(j)"
            self._prompt("NEW DECKS" if self._decks_removed else "RESHUFFLE", section)
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
        self._rack, self._rack_reshuffled, self._exposed = [], False, []
        self._last_dealer, self._held_at_end = [], []

    # ------------------------------------------------------------------ irregularities

    def _found_face_up(self, event: m.CardDrawn) -> None:
        """551.16(a): not used, to the discard rack; a second in the shoe voids the round
        and the cards are reshuffled (ruling proposed: counted per shoe)."""
        self._face_ups += 1
        self._discarded.append(event.token)
        self._rack.append(event.token)
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
        named = command.player
        if named is not None and (not isinstance(named, str) or not named.strip()):
            return Refusal("551.14", f"{named!r} names no player")
        box = command.seat
        owner = self._players.get(box)
        if owner is not None and named is not None and named != owner:
            return Refusal(_OWNER_SECTIONS[command.bet], f"box {box} holds {owner}'s wager")
        if command.bet == "insurance":
            if box in self._insurance:
                # 551.6(j): confirmed, it is not altered until it is settled.
                return Refusal("551.6(j)", f"box {box}'s Insurance Wager is placed already")
            if self.state != PEEK_DUE:
                return None  # refused by the machine, with the state's reason
            if box not in self._hands:
                return Refusal("551.10(b)", f"box {box} holds no wager this round")
            if not self._ace_up():
                return None  # refused by the machine: no Insurance without an ace up
            try:
                check_insurance(amount, self._wagers[box], self._dealer[0], self.rules)
            except PlayError as exc:
                return Refusal("551.10(b)", str(exc))
            return None
        if not self._wagers_open():
            return self._in_play_problem(command)
        if command.bet == "spanish21":
            return self._boxes_problem(self._player(box, named), box, amount)
        if amount == 0:
            return None
        try:
            check_match_the_dealer(amount, self._wagers.get(box, Decimal(0)), self.rules)
        except PlayError as exc:
            return Refusal("551.7(b)", str(exc))
        return None

    def _player(self, box: int, named: str | None = None) -> str:
        """Who wagers on ``box``: the player named, else the box's player; a box's
        unnamed player is named by its number."""
        return named if named is not None else self._players.get(box, str(box))

    def _boxes_problem(self, player: str, box: int, amount: Decimal) -> Refusal | None:
        """551.14: a player wagers on adjacent boxes, no more than the Rules Submission
        allows, after a wager on ``box`` (or its withdrawal); 551.6(k): one who sat out
        the last round does not come back in unless let in."""
        mine = {b for b, p in self._players.items() if p == player}
        try:
            check_player_boxes(mine | {box} if amount else mine - {box}, self.rules)
        except PlayError as exc:
            return Refusal("551.14", f"{player}: {exc}")
        if amount and not mine and not self._may_enter(player):
            why = (
                f"{player} did not wager on the last round: no wager until a floorperson "
                "permits it or the cards are reshuffled"
            )
            return Refusal("551.6(k)", why)
        return None

    def _may_enter(self, player: str) -> bool:
        """551.6(k): whether ``player`` may wager on the next round to take wagers: he
        wagers on the round before it, a floorperson let him in for it, or the cards
        are reshuffled before it."""
        if self.state == SHUFFLE_DUE or player in self._players.values():
            return True
        if self._in_round and not self._wagers_open():
            sat_out, target = True, self.round + 1  # the next round's players are this one's
        else:
            sat_out = self._wagered_last is not None and player not in self._wagered_last
            target = self.round
        readmitted = self._permitted.get(player) == target
        return may_wager(self.rules, sat_out_since_shuffle=sat_out, readmitted=readmitted)

    def _permit(self, command: PermitWagering) -> None:
        """551.6(k)(1): a floorperson lets a barred person wager again, from the next
        round to take wagers."""
        player = command.player
        refusal: Refusal | None = None
        if not self.rules.no_mid_shoe_entry:
            why = "the Rules Submission bars no one for sitting out a round"
            refusal = Refusal("551.6(k)", why)
        elif not isinstance(player, str) or not player.strip():
            refusal = Refusal("551.6(k)", f"{player!r} names no player")
        elif self._may_enter(player):
            refusal = Refusal("551.6(k)", f"{player} is not barred from the next round")
        if refusal is not None:
            self._refuse(command, refusal)
            return
        target = self.round + 1 if self._in_round and not self._wagers_open() else self.round
        self._permitted[player] = target
        self._record(
            {
                "type": "wagering_permitted",
                "player": player,
                "shoe": self.shoe_number,
                "round": target,
                "section": "551.6(k)(1)",
            }
        )

    def _wagers_open(self) -> bool:
        """551.6(a), (d), 551.7(b): wagers are taken until the round's first card."""
        return self.state == WAGERING or self._before_first_card(None)

    def _before_first_card(self, item: object) -> bool:
        return self.state == DEALING and self._slot == 0

    def _in_play_problem(self, command: Wager) -> Refusal | None:
        """After the round's first card no wager is made (551.6(d), refused by the
        machine); none in play is handled, removed or altered until it is settled
        (551.6(i)), a confirmed Double Down or split wager included (551.6(j))."""
        if self.state not in IN_ROUND:
            return None  # refused by the machine: wagering is not open
        box = command.seat
        if command.bet == "spanish21":
            hands = self._hands.get(box, ())
            if any(h.doubled for h in hands) or len(hands) > 1:
                what = "Double Down" if any(h.doubled for h in hands) else "split"
                why = f"box {box}'s {what} wager is confirmed: nothing on it changes until settled"
                return Refusal("551.6(j)", why)
            if box in self._wagers:
                why = f"box {box}'s wager is in play: it is not altered or withdrawn until settled"
                return Refusal("551.6(i)", why)
        elif box in self._match and box not in self._match_net:
            why = f"box {box}'s Match-the-Dealer wager is in play until it is settled"
            return Refusal("551.6(i)", why)
        return None

    def _place_wager(self, command: Wager) -> None:
        box, amount = command.seat, Decimal(command.amount)
        player = self._player(box, command.player)
        bets = self._wagers if command.bet == "spanish21" else self._match
        if amount == 0:
            bets.pop(box, None)
            if command.bet == "spanish21":
                self._match.pop(box, None)  # it goes with the basic wager (551.7(b))
                self._players.pop(box, None)
        else:
            if command.bet == "spanish21":
                self._players[box] = player
            bets[box] = amount
        entry: dict[str, object] = {
            "type": "wager",
            "round": self.round,
            "box": box,
            "bet": command.bet,
            "amount": amount,
        }
        if command.player is not None or player != str(box):
            entry["player"] = player  # a named player's, named or not in the command
        self._record(entry)

    def _withdraws_the_last_wager(self, command: Wager) -> bool:
        last = set(self._wagers) == {command.seat}
        return last and command.bet == "spanish21" and Decimal(command.amount) == 0

    def _order_deal(self, command: Wager) -> None:
        self._order = initial_deal_order(self._wagers)

    def _call_off_deal(self, command: Wager) -> None:
        """The round's last wager is withdrawn before its first card: no round to deal
        (551.8(d)(1)), and wagering is open again."""
        self._in_round = False
        self._order = ()
        self._record({"type": "deal_called_off", "round": self.round, "section": "551.8(d)(1)"})
        self._open_wagering(command)

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
        self._initial.append(event.token)
        self._place_initial(slot, event.token)
        entry: dict[str, object] = {"type": "dealt", "round": self.round}
        if slot.to == DEALER:
            entry["to"] = DEALER
        else:
            entry.update(to=slot.to, hand=1)
        if slot.face_up:
            entry.update(card=event.token, face_up=True, **self._opened(event))
        else:
            held = self._seals.pop(id(event), None)
            self._hole = None if held is None else held[1]
            entry.update(card=None, sealed=True, face_up=False)  # 551.8(e): the hole card
            if self._hole is not None:
                entry.update(self._hole.fields())
        self._record(entry)

    def _place_initial(self, slot: InitialCard, token: str) -> None:
        if slot.to == DEALER:
            self._dealer.append(token)
        else:
            box = slot.to
            held = self._hands[box][0].cards if box in self._hands else ()
            dead = box in self._dead  # 551.16(h)
            self._hands[box] = (Hand((*held, token), self._wagers[box], dead=dead),)

    def _settle_match_the_dealer(self, event: m.CardDrawn) -> None:
        """551.7(d), § 635a.7(f): right after the initial deal, before any other card and
        before the reader is used, from the dealer's right."""
        up = self._dealer[0]
        for box in match_the_dealer_order(self._match):
            if box in self._dead:
                continue  # returned with the dead hand (551.16(h))
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
        if not self._reader_devices.arm(m.PeekTarget[target.name]):
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
        entered = self._held[0] if self._held else None
        super()._cleared(command)
        if self._held and self._held[0] is not entered and id(command) in self._seals:
            # The floorperson's reading of an unread card: sealed until placed face up.
            self._seals[id(self._held[0])] = (self._held[0], self._seals.pop(id(command))[1])
        if misuse == "void":  # 551.16(l)(1)
            self._void_due = Void(
                "the reader was used behind another up card and lets players learn the hole card",
                "551.16(l)(1)",
                reshuffle=False,
            )
        elif misuse == "continue":  # 551.16(l)(2)
            self._record({"type": "play_continues", "round": self.round, "section": "551.16(l)(2)"})
        if self._void_on_clear is not None:
            self._void_due, self._void_on_clear = self._void_on_clear, None

    def _entered_problem(self, halt: Halt, token: str) -> Refusal | None:
        hole = self._hole
        if hole is None or hole.seal != halt.seal:
            return Refusal("551.8(e)", "no sealed hole card is waiting to be entered")
        if not self.sealer.matches(hole, token):
            why = (
                "the card entered does not match the hole card's seal: enter it as read "
                "from the layout, or clear without a card to void the round"
            )
            return Refusal("551.8(e)", why)
        return None

    def _clear_interrupted(self, command: FloorClear, halt: Halt) -> None:
        """A round in play when the table restarted. Every card known: it goes on from
        the rebuilt state. The hole card sealed and not known: the floorperson's card,
        checked against the seal, completes it; without one the round is void, all
        hands dead and the wagers returned (proposed ruling: no subsection covers a
        lost record; as 551.16(l)(1) does when the hole card cannot be relied on)."""
        if halt.seal is None:
            return
        hole = self._hole
        if command.card is not None and hole is not None:
            token = parse_card(command.card)
            entered = self._seals.pop(id(command), None)
            self._hole_entered = None if entered is None else entered[1]
            if hole.unknown:
                stand_in = self._dealer[1]
                self._seen[stand_in] -= 1
                self._seen[token] += 1
                self._dealer[1] = token
                # Known now, unless this is a replay of an entry never released.
                unknown = self._hole_entered is not None and self._hole_entered.unknown
                self._hole = replace(hole, unknown=unknown)
            return
        # The peek answer held for after the clear has no round to answer for.
        self._held = deque(e for e in self._held if not isinstance(e, m.PeekResult))
        self._void_due = Void(
            "the table restarted in the round and the hole card is not known",
            None,
            reshuffle=False,
        )

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
        if command.amount is not None:
            if command.decision != "double":
                return Refusal("551.11(a)", "an amount goes only with a double down")
            amount = _amount(command.amount)
            if amount is None:
                return Refusal("551.11(a)", f"{command.amount!r} is not an amount")
        refused = any(h.refused for h in self._hands.get(command.box, ()))
        if refused and command.decision != "rescue":
            why = f"box {command.box} refused the exposed card: no more cards this round"
            return Refusal("551.16(d)", why)
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
        # 551.11(a): a double down for at most the original wager, by default all of it.
        double = None if command.amount is None else _amount(command.amount)
        new = apply_decision(
            hands,
            index,
            decision,
            up_card=self._dealer[0],
            peeked=self._peeked,
            double_amount=double,
        )
        return index, new

    def _apply_decision(self, command: Decision) -> None:
        index, self._hands[command.box] = self._decided(command)
        self._acting = command.box
        entry: dict[str, object] = {
            "type": "decision",
            "round": self.round,
            "box": command.box,
            "hand": index + 1,
            "decision": command.decision,
            "section": _DECISION_SECTIONS[command.decision],
        }
        if command.decision == "double":
            entry["amount"] = self._hands[command.box][index].double_wager
        self._record(entry)
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
                **self._opened(event),
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
            {
                "type": "reveal",
                "round": self.round,
                "card": self._dealer[1],
                "section": "551.8(h)",
                **self._hole_opened(),
            }
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
                **self._opened(event),
            }
        )
        self._prompt(f"DEALER {hand_value(self._dealer)[0]}", "551.8(h)")

    # ------------------------------------------------------------------ the round's end

    def _end_round(self, item: object) -> None:
        # 551.6(h): the $50 goes to each other player, once, whatever his boxes (551.14).
        players = {box: BoxRound(self._player(box), hands) for box, hands in self._hands.items()}
        result = settle_round(players, self._dealer)
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
        self._record_settlement(result)
        self._record(record)
        self._next_round()

    def _record_settlement(self, result: RoundResult) -> None:
        """The order the wagers left on the layout are collected and paid (§ 635a.7(p))."""
        up = self._dealer[0]
        steps = settlement_steps(self._hands, result.boxes, up, self.rules.settlement_order)
        self._record(
            {
                "type": "settlement",
                "round": self.round,
                "order": self.rules.settlement_order,
                "steps": [
                    {"box": s.box, "hand": s.hand, "action": s.action, "amount": s.amount}
                    for s in steps
                ],
                "section": "635a.7(p)",
            }
        )

    def _void_reshuffles(self, void: Void) -> bool:
        return void.reshuffle or self._is_last_round(void)

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
                self._wagers, self._match, self._players = {}, {}, {}
            return
        unread = self._hole is not None and self._hole.unknown
        if self.hole_dealt and not unread:
            # The cards are collected in order (551.8(i)): nothing rides on the hole card.
            self._revealed = True
            self._record(
                {
                    "type": "reveal",
                    "round": self.round,
                    "card": self._dealer[1],
                    "section": "551.8(i)",
                    **self._hole_opened(),
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
                # A hole card not known after a restart is collected unread.
                "dealer": [None if unread and i == 1 else c for i, c in enumerate(self._dealer)],
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
        self._collect_round()
        self._disarm()
        self.rounds_completed += 1
        self._in_round = False
        self._wagered_last = frozenset(self._players.values())  # 551.6(k)
        self._wagers, self._match, self._insurance, self._players = {}, {}, {}, {}
        self._match_net, self._insurance_net = {}, {}
        self._order, self._slot = (), 0
        self._hands, self._dealer = {}, []
        self._peeked = self._revealed = False
        self._acting = None
        self._misuse = None
        self._hole = self._hole_entered = None

    def _collect_round(self) -> None:
        """As a round ends, void or not: its cards go to the discard rack (551.8(i)), and
        so does an exposed card drawn in error that no player took and the dealer could
        not use (551.16(d)). A card drawn in error and never seen stays the next card
        (551.16(c))."""
        for event in [e for e in self._early if self._is_exposed(e)]:
            self._discard(event.token)
            reason = "exposed card drawn in error, refused by the players and not used by the "
            self._record(
                {
                    "type": "irregularity",
                    "round": self.round,
                    "card": event.token,
                    "to": "discard_rack",
                    "section": "551.16(d)",
                    "reason": reason + "dealer: to the discard rack",
                }
            )
        self._early = deque(e for e in self._early if not self._is_exposed(e))
        self._exposed = []
        self._rack += self._dealer
        self._rack += [c for hands in self._hands.values() for h in hands for c in h.cards]
        self._last_dealer = list(self._dealer) if self._dealer_complete() else []
        self._held_at_end = list(self._early)
        self._initial, self._passed_over, self._second_later = [], set(), set()
        self._dead, self._deferred = frozenset(), []
        self._void_on_clear = self._round_state = None

    def _discard(self, token: str) -> None:
        self._discarded.append(token)
        self._rack.append(token)

    # ------------------------------------------------------------------ 551.16(g)

    def _shoe_ran_out(self, item: object) -> None:
        """551.16(g): too few cards left in the shoe to complete the round. The round's
        cards stay on the layout: only the discard rack's cards are shuffled."""
        self._round_state = self.state
        self._prompt_before_rack = self._last_prompt
        self._record(
            {
                "type": "irregularity",
                "round": self.round,
                "card": None,
                "section": "551.16(g)",
                "reason": "too few cards in the shoe to complete the round: the discard "
                "rack is shuffled and cut, its first card burned, and the round completed",
                "rack": len(self._rack),
            }
        )
        self._prompt("SHOE EMPTY: SHUFFLE THE DISCARDS", "551.16(g)")

    def _rack_shuffle_completed(self, event: m.ShuffleCompleted) -> None:
        if event.card_count != len(self._rack):
            reason = (
                f"the shuffler counted {event.card_count} cards; "
                f"the discard rack holds {len(self._rack)}"
            )
            self._refuse(event, Refusal("551.16(g)", reason))
        else:
            self._fire("shuffled", event)

    def _rack_shuffled(self, item: m.ShuffleCompleted | ManualShuffle) -> None:
        """551.16(g), 551.5: the discard rack's cards, shuffled and cut, are the shoe now;
        the shoe ends after this round."""
        self._record(
            {
                "type": "rack_shuffled",
                "shoe": self.shoe_number,
                "round": self.round,
                "cards": len(self._rack),
                "how": "shuffler" if isinstance(item, m.ShuffleCompleted) else "manual",
                "section": "551.16(g)",
            }
        )
        self._seen -= Counter(self._rack)  # back in the shoe
        self._rack = []
        self._rack_reshuffled = True
        self._shoe_empty = False
        self._prompt("BURN CARD", "551.16(g)")

    def _resumes_dealing(self, event: m.CardDrawn) -> bool:
        return self._round_state == DEALING

    def _resumes_playing(self, event: m.CardDrawn) -> bool:
        return self._round_state == PLAYING

    def _resumes_dealer_turn(self, event: m.CardDrawn) -> bool:
        return self._round_state == DEALER_TURN

    def _round_resumes(self, event: m.CardDrawn) -> None:
        self._round_state = None
        if self._prompt_before_rack is not None:
            self._prompt(self._prompt_before_rack)  # what the dealer was doing

    # ------------------------------------------------------------------ the dealer's errors

    def _on_dealer_error(self, command: Command) -> bool:
        """A dealer's error declared at the console (551.16(c)-(i)); False for any other
        command. The shoe reads every card and the table places each by the procedure,
        so a card drawn when none is due is held as the next card on its own (551.16(c)),
        and what the shoe cannot see is declared."""
        trigger: str
        problem: Refusal | None
        if isinstance(command, ExposedCard):
            trigger, problem = "exposed_card", self._exposed_problem()
        elif isinstance(command, RefuseCard):
            trigger, problem = "refuse_card", self._refuse_card_problem(command)
        elif isinstance(command, DealerOverdraw):
            trigger, problem = "dealer_overdraw", self._overdraw_problem()
        elif isinstance(command, MissedCard):
            trigger, problem = "missed_card", self._missed_card_problem(command)
        elif isinstance(command, CardNotDealt):
            trigger, problem = "card_not_dealt", self._card_not_dealt_problem(command)
        elif (
            isinstance(command, Wager) and command.bet == "insurance" and command.seat in self._dead
        ):
            why = f"box {command.seat}'s hand is dead: its wagers were returned"
            self._refuse(command, Refusal("551.16(h)", why))
            return True
        else:
            return False
        if problem is not None:
            self._refuse(command, problem)
        elif isinstance(command, MissedCard) and self.state == DEALING and self._too_late(command):
            self._missed_too_late(command)
        else:
            self._fire(trigger, command)
        return True

    def _dealer_error_refusal(self, trigger: str, item: m.Event | Command) -> Refusal | None:
        """Why a trigger is refused while the discard rack is reshuffled (551.16(g)), or
        why a dealer's error cannot be declared in this state."""
        ours = trigger not in ("wager", "floor_clear")
        if self.state == RACK_SHUFFLE_DUE and ours:
            why = "the shoe ran out in the round: the discard rack is shuffled and cut first"
            return Refusal("551.16(g)", why)
        if self.state == RACK_BURN_DUE and ours:
            return Refusal("551.16(g)", "the reshuffled discard rack's first card is burned first")
        if trigger == "exposed_card":
            why = "551.16(d) applies once each player has his initial two cards, in the round"
            return Refusal("551.16(d)", why)
        if trigger == "refuse_card":
            return Refusal("551.16(d)", "no exposed card is being offered")
        if trigger == "dealer_overdraw":
            why = "the dealer's extra card is declared after his round, before the next is dealt"
            return Refusal("551.16(e)", why)
        if trigger == "missed_card":
            dealer = isinstance(item, MissedCard) and item.box is None
            why = "a missed card is declared during the initial deal"
            return Refusal("551.16(f)" if dealer else "551.16(h)", why)
        if trigger == "card_not_dealt":
            return Refusal("551.16(i)", "no player is waiting for a card he requested")
        return None

    def _is_exposed(self, event: m.CardDrawn) -> bool:
        return any(e is event for e in self._exposed)

    # 551.16(d): a card drawn in error and exposed.

    def _exposed_problem(self) -> Refusal | None:
        if self.state not in (PEEK_DUE, PEEKING, PLAYING):
            return None  # refused by the machine, with the state's reason
        if not self._early:
            return Refusal("551.16(d)", "no card drawn in error is waiting to be used")
        if self._is_exposed(self._early[-1]):
            return Refusal("551.16(d)", "the card drawn in error is declared exposed already")
        return None

    def _expose(self, command: ExposedCard) -> None:
        """The players saw the last card drawn in error: it is no secret now. It is dealt
        as the next card: to the players in turn, who may refuse it, then the dealer."""
        event = self._early[-1]
        self._exposed.append(event)
        self._record(
            {
                "type": "irregularity",
                "round": self.round,
                "card": event.token,
                "section": "551.16(d)",
                "reason": "card drawn in error and exposed: offered as the next card, to "
                "the players in turn, then the dealer",
                **self._opened(event),
            }
        )
        self._prompt(f"EXPOSED CARD {event.token}: OFFER IT", "551.16(d)")
        if self.state == PLAYING:
            self._prompt_turn()

    def _refuse_card_problem(self, command: RefuseCard) -> Refusal | None:
        if self.state != PLAYING:
            return None
        if not (self._early and self._is_exposed(self._early[0])):
            return Refusal("551.16(d)", "no exposed card is being offered")
        turn = self.turn
        if turn is None or turn[0] != command.box:
            to = "the dealer" if turn is None else f"box {turn[0]}"
            return Refusal("551.16(d)", f"the exposed card is offered to {to}, in turn")
        return None

    def _refuse_card(self, command: RefuseCard) -> None:
        """The player refuses the exposed card: none of the box's hands takes another card
        this round. The card is offered on, to the next player, then the dealer."""
        box = command.box
        self._hands[box] = tuple(
            h if h.finished else replace(h, refused=True, drawing=False) for h in self._hands[box]
        )
        self._record(
            {
                "type": "irregularity",
                "round": self.round,
                "box": box,
                "card": self._early[0].token,
                "section": "551.16(d)",
                "reason": "the player refused the exposed card: no more cards this round",
            }
        )
        self._prompt_turn()

    # 551.16(e): the dealer on 17 draws for himself.

    def _dealer_complete(self) -> bool:
        """Whether the dealer's hand was played out: a Blackjack, or drawn until no
        result depended on it (551.13(b), (c))."""
        if len(self._dealer) < 2 or not self._revealed:
            return False
        if dealer_blackjack(self._dealer):
            return True
        hands = self._every_hand()
        return all(h.finished for h in hands) and not dealer_needs_to_draw(self._dealer, hands)

    def _overdraw_problem(self) -> Refusal | None:
        if self.state != WAGERING:
            return None
        if not self._early or any(e is self._early[-1] for e in self._held_at_end):
            return Refusal("551.16(e)", "no card has left the shoe since the round ended")
        if not self._last_dealer:
            return Refusal("551.16(e)", "the last round ended before the dealer's hand did")
        total = hand_value(self._last_dealer)[0]
        if total < 17:
            why = (
                f"the dealer stood on {total}, not 17 or more: the card is used as the "
                "next card (551.16(c))"
            )
            return Refusal("551.16(e)", why)
        return None

    def _discard_overdraw(self, command: DealerOverdraw) -> None:
        event = self._early.pop()
        self._discard(event.token)
        total = hand_value(self._last_dealer)[0]
        self._record(
            {
                "type": "irregularity",
                "round": self.rounds_completed,
                "card": event.token,
                "to": "discard_rack",
                "section": "551.16(e)",
                "reason": f"the dealer had {total} and drew a card for himself: to the "
                "discard rack",
                **self._opened(event),
            }
        )
        self._prompt("DEALER'S EXTRA CARD TO THE DISCARD RACK", "551.16(e)")
        self._open_wagering(command)

    # 551.16(f), (h): places the dealer passed over in the initial deal.

    def _missed_place(self, command: MissedCard) -> Place:
        return (DEALER if command.box is None else command.box, command.card)

    def _missed_card_problem(self, command: MissedCard) -> Refusal | None:
        if self.state != DEALING:
            return None
        section = "551.16(f)" if command.box is None else "551.16(h)"
        if isinstance(command.card, bool) or command.card not in (1, 2):
            why = f"card {command.card!r}: 1 for the first card of the deal, 2 for the second"
            return Refusal(section, why)
        if command.box is not None and (
            isinstance(command.box, bool) or command.box not in self._wagers
        ):
            return Refusal(section, f"box {command.box} holds no wager this round")
        place = self._missed_place(command)
        if place in self._passed_over:
            return Refusal(section, "that card is declared missed already")
        at = next(i for i, s in enumerate(self._order) if (s.to, s.nth) == place)
        drawn = len(self._initial)
        if place == (DEALER, 2):
            if at != drawn:
                why = "the dealer's second card is the last of the deal (551.8(d)(4)): not due yet"
                return Refusal(section, why)
        elif at >= drawn:
            why = "the next card is that card: it is dealt now, not missed"
            return Refusal(section, why if at == drawn else "the deal has not reached that card")
        return None

    def _corrected(
        self, command: MissedCard
    ) -> tuple[tuple[InitialCard, ...], set[Place], set[int]]:
        """The deal as it now goes on: the order, the places missed, the boxes taking a
        later second card."""
        passed = {*self._passed_over, self._missed_place(command)}
        later = set(self._second_later)
        if command.box is not None and command.late:
            later.add(command.box)
        order = initial_deal_order(self._wagers, passed_over=passed, second_card_later=later)
        return order, passed, later

    def _too_late(self, command: MissedCard) -> bool:
        """Whether the corrected deal would put the dealer's hole card among the cards
        already out of the shoe, each recorded face up as a player's or the up card."""
        return len(self._initial) >= len(self._corrected(command)[0])

    def _missed_too_late(self, command: MissedCard) -> None:
        """Reading (proposed ruling): the dealer dealt his own second card before the
        miss was declared, so the table took the hole card for a face-up card and
        recorded it. The deal cannot be put right without that record showing the hole
        card: play stops, and the floorperson's clear voids the round."""
        section = "551.16(f)" if command.box is None else "551.16(h)"
        self._record(
            {
                "type": "irregularity",
                "round": self.round,
                "box": DEALER if command.box is None else command.box,
                "missed": command.card,
                "card": None,
                "section": section,
                "reason": "missed card declared after the dealer dealt his own second card: "
                "the deal cannot be corrected; the round is void",
            }
        )
        why = "the missed card was declared after the dealer's own second card"
        self._void_on_clear = Void(why, section, reshuffle=False)
        self._stop(Halt("missed_card_late", None, why, section))

    def _missed_card(self, command: MissedCard) -> None:
        """The cards out of the shoe are placed again as the corrected deal has them (each
        one face up); the deal goes on in that order."""
        section = "551.16(f)" if command.box is None else "551.16(h)"
        drawn = len(self._initial)
        before = [s.to for s in self._order[:drawn]]
        was_dead = self._dead
        self._order, self._passed_over, self._second_later = self._corrected(command)
        self._dead = dead_boxes(self._wagers, self._passed_over, self._second_later)
        self._hands, self._dealer = {}, []
        for slot, token in zip(self._order[:drawn], self._initial, strict=True):
            self._place_initial(slot, token)
        for box in self._dead - was_dead:
            if box not in self._hands:
                self._hands[box] = (Hand((), self._wagers[box], dead=True),)
            if box in self._match:
                self._match_net[box] = Decimal(0)  # returned with the hand
        moved = [
            {"card": token, "from": old, "to": new}
            for token, old, new in zip(
                self._initial, before, [s.to for s in self._order], strict=False
            )
            if old != new
        ]
        entry: dict[str, object] = {
            "type": "irregularity",
            "round": self.round,
            "box": DEALER if command.box is None else command.box,
            "missed": command.card,
            "card": None,
            "section": section,
            "reason": self._missed_reason(command),
            "reassigned": moved,
        }
        if command.box is not None:
            entry["late"] = command.late
        self._record(entry)
        if all(b in self._dead for b in self._wagers):
            self._void_due = Void("the dealer dealt no live hand", section, reshuffle=False)
            return
        nxt = self._order[drawn]
        to = "DEALER" if nxt.to == DEALER else f"BOX {nxt.to}"
        self._prompt(f"MISSED CARD: NEXT CARD TO {to}", section)

    def _missed_reason(self, command: MissedCard) -> str:
        if command.box is None:
            if command.card == 2:
                return "the dealer missed his second card: it is the next card"
            return (
                "the dealer missed his first card: the players' first two cards are dealt, "
                "then his own"
            )
        box = command.box
        if all((box, nth) in self._passed_over for nth in (1, 2)):
            return (
                f"box {box} was dealt no card: the hand is dead, its wagers returned; the "
                "player is dealt in on the next round"
            )
        if box in self._dead:
            return (
                f"box {box} was dealt one card and its player declines a later second card: "
                "the hand is dead, its wagers returned"
            )
        return (
            f"box {box} was dealt one card: at its player's option the second comes after "
            "every other player's second card"
        )

    # 551.16(i): a requested card not dealt.

    def _card_not_dealt_problem(self, command: CardNotDealt) -> Refusal | None:
        if self.state != PLAYING:
            return None
        turn = self.turn
        hands = self._hands.get(command.box, ())
        waiting = (
            turn is not None
            and turn[0] == command.box
            and hands[turn[1]].drawing
            and len(hands[turn[1]].cards) >= 2
        )
        if not waiting:
            why = f"box {command.box} is not waiting for a card its player requested"
            return Refusal("551.16(i)", why)
        if command.late and not any(
            next_hand(h) is not None for b, h in self._hands.items() if b != command.box
        ):
            why = "every other player has his additional cards: the card is dealt now"
            return Refusal("551.16(i)", why)
        return None

    def _card_not_dealt(self, command: CardNotDealt) -> None:
        box = command.box
        turn = self.turn
        if turn is None:
            raise RuntimeError("a card not dealt with no hand in turn")
        index = turn[1]
        hands = self._hands[box]
        if command.late:
            self._deferred.append(box)
            reason = (
                "the requested card was not dealt: it comes after every other player's "
                "additional cards, before the hole card is turned"
            )
        else:
            dead = replace(hands[index], dead=True, drawing=False)
            self._hands[box] = (*hands[:index], dead, *hands[index + 1 :])
            reason = "the requested card was not dealt: the hand is dead, its wager returned"
        self._record(
            {
                "type": "irregularity",
                "round": self.round,
                "box": box,
                "hand": index + 1,
                "card": None,
                "late": command.late,
                "section": "551.16(i)",
                "reason": reason,
            }
        )
        self._prompt_turn()
