"""The Baccarat (58 Pa. Code ch. 545) and Midibaccarat (ch. 543) table machine.

The game's rules are the pure functions of ``controller.rules.baccarat``; this
module holds the procedure around them: shuffled cards before any card, the burn,
wagering closed by "no more bets", every card placed where the rules put it, the
cover card and the last hand, the irregularities the shoe can see, and the
controller's own result on the shoe's display.

Beside the machine's states, the table keeps what is offered seat by seat until a
player accepts: the cut (545.5(b)), the dealing shoe and with it the curator (545.7,
545.14) and the right to turn over a hand's cards (545.15(f)). The console enters each
seat's answer; the table names the seat entitled next and refuses any other. An offer
still open when the procedure moves on (the first card out of the shoe for the cut,
"no more bets" for the shoe, the end of the round for a hand's cards) closes as no
player accepting it, and the record says no answer was entered.

    shuffle_due --shuffled--> burn_due --card--> burning --card (last burn)--> wagering
    wagering --no_more_bets--> dealing --card (round complete)--> wagering | shuffle_due
    (any card found face up: discarding, then back; any fault: halted, then back)

The two chapters share their numbering except where ``_SECTIONS`` says otherwise;
comments cite chapter 545.
"""

from __future__ import annotations

import functools
from collections import Counter, deque
from decimal import Decimal
from typing import Any

from controller.rules.baccarat import (
    BETS,
    CARDS,
    COVER_CARD_FROM_BOTTOM,
    COVER_CARDS,
    LAST_HAND,
    NO_MORE_BETS,
    OFFERABLE,
    BaccaratRules,
    Hand,
    Offer,
    Settlement,
    VigorishLedger,
    WagerError,
    announcements,
    burn_count,
    collection_order,
    counterclockwise,
    curator_passes,
    cut_order,
    face_up_discard_count,
    is_natural,
    next_to_draw,
    point,
    result,
    settle,
    shoe_order,
    squeeze_seat,
    wager_amount,
)
from controller.table.core import Halt, Refusal, Table, event_name
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
from drivers import messages as m

SHUFFLE_DUE = "shuffle_due"  # no shoe in play: shuffled (new) cards are needed
BURN_DUE = "burn_due"  # shuffled; the first card is the burn card
BURNING = "burning"  # burning as many cards as the first card's face value
DISCARDING = "discarding"  # discarding the cards that follow one found face up
WAGERING = "wagering"  # wagers are taken until "no more bets"
DEALING = "dealing"  # the round's cards
STATES = (SHUFFLE_DUE, BURN_DUE, BURNING, DISCARDING, WAGERING, DEALING)
IN_PLAY = (BURN_DUE, BURNING, DISCARDING, WAGERING, DEALING)  # a shoe is in play
FACE_UP_FROM = (BURN_DUE, BURNING, WAGERING, DEALING)

SEATS = {"baccarat": 14, "midibaccarat": 9}  # 545.2(a): 10 to 14 seats; 543.2(a): at most 9
HANDS: tuple[Hand, Hand] = ("player", "banker")
# Shoe events come only from the table's own dealing shoe (545.7(a), 543.7).
SHOE_EVENTS: tuple[type[m.Event], ...] = (
    m.CardDrawn,
    m.CutCardSeen,
    m.ShoeEmpty,
    m.UnreadableCard,
    m.CardsLoaded,
)
DEALER = "dealer"  # who holds what no player accepted, in the journal

_SECTIONS: dict[str, dict[str, str]] = {
    "baccarat": {
        "seats": "545.2(a)",
        "decks": "545.3(a)",
        "new_decks": "545.3(b)",
        "shuffle": "545.5(a)",
        "cut": "545.5(b)",
        "second_cover": "545.5(d)",
        "recut": "545.5(e)",
        "burn": "545.5(f)",
        "dealing_shoe": "545.7(a)",
        "offer_shoe": "545.7(b)",
        "curator_accepts": "545.7(c)",
        "dealer_designated": "545.7(d)(1)",
        "dealer_curator": "545.7(d)(2)",
        "bets": "545.8(a)",
        "chips": "545.8(b)",
        "wagers": "545.8(c)",
        "no_more_bets": "545.9(b)",
        "squeeze": "545.9(d)",
        "cover": "545.10(e)",
        "result": "545.12(a)",
        "payment": "545.12(b)",
        "vigorish": "545.13(e)",
        "pass": "545.14(a)",
        "curator": "545.14(a)(1)",
        "pass_ordered": "545.14(a)(2)",
        "pass_offer": "545.14(b)",
        "drawn_in_error": "545.15(a)",
        "disclosed": "545.15(c)",
        "face_up": "545.15(d)",
        "too_few": "545.15(e)",
        "reveal": "545.15(f)",
    },
    "midibaccarat": {
        "seats": "543.2(a)",
        "decks": "543.3(a)",
        "new_decks": "543.3(b)",
        "shuffle": "543.5(a)",
        "cut": "543.5(c)",
        "second_cover": "543.5(e)",
        "recut": "543.5(f)",
        "burn": "543.5(g)",
        "dealing_shoe": "543.7",
        "dealer_deals": "543.9(c)",
        "bets": "543.8(a)",
        "chips": "543.8(b)",
        "wagers": "543.8(c)",
        "no_more_bets": "543.9(b)",
        "squeeze": "543.9(c)(3)",
        "cover": "543.10(e)",
        "result": "543.12(a)",
        "payment": "543.12(b)",
        "vigorish": "543.13(e)",
        "drawn_in_error": "543.14(a)",
        "disclosed": "543.14(c)",
        "face_up": "543.14(d)",
        "too_few": "543.14(e)",
        "reveal": "543.14(f)",
    },
}

PLACE_BETS = "PLACE YOUR BETS"
SHOE_ENDS = "SHOE ENDS: NEW DECKS"
ROUND_VOID = "ROUND VOID: WAGERS RETURNED"
PASS_SHOE = "PASS THE SHOE"


class BaccaratTable(Table):
    """One Baccarat or Midibaccarat table; ``rules.game`` says which."""

    def __init__(
        self, rules: BaccaratRules, journal: Journal, devices: Devices, *, shoe: str = "shoe"
    ) -> None:
        self.rules = rules
        self._sec = _SECTIONS[rules.game]
        self.shoe_number = 0
        self.shoes_completed = 0
        self.rounds_completed = 0  # in the shoe in play
        self._seen: Counter[str] = Counter()
        self._burned: list[str] = []
        self._discarded: list[str] = []
        self._cover_round: int | None = None
        self._ledger = VigorishLedger()
        self._player: list[str] = []
        self._banker: list[str] = []
        self._wagers: dict[int, dict[str, Decimal]] = {}
        self._in_round = False  # "no more bets" announced, round not ended
        self._early: deque[m.CardDrawn] = deque()  # 545.15(a): the next hand's first cards
        self._burn_left = 0
        self._discard_left = 0
        self._discard_why = "face_up"  # the irregularity the cards go to the discard for
        self._discard_resume = WAGERING
        self._discard_prompt: str | None = None
        self._cover_cards = 0  # cover cards out of the shoe in play
        self._offers: dict[str, Offer] = {}
        self._cut_rest: tuple[int, ...] = ()  # entitled to a recut (545.5(e))
        self._curator: int | None = None  # the seat dealing; None: the dealer calling the game
        self._shoe_seat: int | None = None  # the player who accepted the shoe (545.14(b))
        self._last_curator: int | None = None  # of the shoe before (545.5(b): a reshuffle)
        self._reveal: dict[Hand, int | None] = {}  # who turns over each hand (545.9(d))
        self._gave_up: dict[Hand, set[int]] = {}  # seats that relinquished it this round
        super().__init__(
            rules.game,
            journal,
            devices,
            states=STATES,
            transitions=self._transitions(),
            initial=SHUFFLE_DUE,
            shoe_over=SHUFFLE_DUE,
            shoe=shoe,
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
    def round(self) -> int:
        """The round being wagered on or dealt, counted within the shoe."""
        return self.rounds_completed + 1

    @property
    def curator(self) -> int | None:
        """The seat of the curator, who deals the cards (545.1, 545.7(c)); None while the
        dealer calling the game deals: no player has accepted the shoe (545.7(d)), and
        always at Midibaccarat (543.9(c))."""
        return self._curator

    def offered(self, what: str) -> int | None:
        """The seat ``what`` ("cut", "shoe", "player", "banker") is offered to now; None
        while it is not being offered."""
        offer = self._offers.get(what)
        return None if offer is None else offer.seat

    # ------------------------------------------------------------------ definition

    def _transitions(self) -> list[dict[str, Any]]:
        back_from_discard = [
            {
                "trigger": "card",
                "source": DISCARDING,
                "dest": state,
                "conditions": ["_discard_done", functools.partial(self._discard_returns_to, state)],
                "before": "_discard",
                "after": "_discard_ended",
            }
            for state in FACE_UP_FROM
        ]
        return [
            # 545.5(a): cards shuffled (and cut) before play.
            {"trigger": "shuffled", "source": SHUFFLE_DUE, "dest": BURN_DUE, "after": "_shuffled"},
            # 545.15(d): a card found face up is not used; as many more go to the discard.
            {
                "trigger": "card",
                "source": list(FACE_UP_FROM),
                "dest": DISCARDING,
                "conditions": ["_found_face_up", "_face_up_takes_more"],
                "before": "_discard_face_up",
            },
            {
                "trigger": "card",
                "source": list(FACE_UP_FROM),
                "dest": None,
                "conditions": "_found_face_up",
                "before": "_discard_face_up",
                "after": "_discard_ended",
            },
            *back_from_discard,
            {"trigger": "card", "source": DISCARDING, "dest": None, "before": "_discard"},
            # 545.5(f): the first card, then as many as its face value, to the discard.
            {"trigger": "card", "source": BURN_DUE, "dest": BURNING, "before": "_burn_first"},
            {
                "trigger": "card",
                "source": BURNING,
                "dest": WAGERING,
                "conditions": "_burn_done",
                "before": "_burn",
                "after": ["_offer_shoe", "_open_wagering"],
            },
            {"trigger": "card", "source": BURNING, "dest": None, "before": "_burn"},
            # 545.15(a): a card drawn before "no more bets" is the next hand's first card;
            # 545.15(c): unless it was seen, then it and one more go to the discard.
            {"trigger": "card", "source": WAGERING, "dest": None, "before": "_drawn_in_error"},
            {
                "trigger": "disclosed",
                "source": WAGERING,
                "dest": DISCARDING,
                "conditions": "_drawn_in_error_waiting",
                "before": "_discard_disclosed",
            },
            # 545.9(c), 545.10(c)-(d), 545.11: each card to the hand the rules name.
            {
                "trigger": "card",
                "source": DEALING,
                "dest": SHUFFLE_DUE,
                "conditions": ["_completes_round", "_is_last_hand"],
                "before": "_deal",
                "after": ["_end_round", "_end_shoe_after_last_hand"],
            },
            {
                "trigger": "card",
                "source": DEALING,
                "dest": WAGERING,
                "conditions": "_completes_round",
                "before": "_deal",
                "after": ["_end_round", "_open_wagering"],
            },
            {"trigger": "card", "source": DEALING, "dest": None, "before": "_deal"},
            # 545.10(e), ruling R1: the cover card's hand, then "last hand", then one more.
            {"trigger": "cover_card", "source": list(IN_PLAY), "dest": None, "before": "_cover"},
            # 545.15(e): too few cards to complete a round.
            {
                "trigger": "shoe_empty",
                "source": list(IN_PLAY),
                "dest": SHUFFLE_DUE,
                "after": "_shoe_exhausted",
            },
            {"trigger": "shoe_empty", "source": SHUFFLE_DUE, "dest": None},
            # 545.8(c): wagers only until "no more bets"; 545.9(b): then the cards.
            {"trigger": "wager", "source": WAGERING, "dest": None, "before": "_place_wager"},
            {
                "trigger": "no_more_bets",
                "source": WAGERING,
                "dest": DEALING,
                "after": "_announce_no_more_bets",
            },
        ]

    # ------------------------------------------------------------------ routing

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
                self._refuse(event, Refusal(self._sec["dealing_shoe"], reason))
                return
            if self.state == BURN_DUE and "cut" in self._offers:
                # The cards are in the shoe: nobody accepted the cut, so the dealer cut.
                self._close_offer("cut", None, "no_answer")
        if isinstance(event, m.CardDrawn):
            self._on_card(event)
        elif isinstance(event, m.CutCardSeen):
            if self.state in IN_PLAY and not self._cover_card_ok(event):
                return
            self._fire("cover_card", event)
        elif isinstance(event, m.ShoeEmpty):
            self._fire("shoe_empty", event)
        elif isinstance(event, m.UnreadableCard):
            if self.state in IN_PLAY:
                detail = "a card left the shoe unread"
                self._stop(Halt("unreadable_card", event.device, detail, None, needs_card=True))
            else:
                self._refuse(event, self._refusal("card", event))
        elif isinstance(event, m.CardsLoaded):
            if self.state not in (SHUFFLE_DUE, BURN_DUE):
                detail = f"{event.count} cards loaded into the shoe during play"
                self._stop(Halt("cards_loaded", event.device, detail, self._sec["new_decks"], True))
        elif isinstance(event, m.ShuffleCompleted):
            expected = self.rules.decks * 52
            if event.card_count != expected:
                reason = (
                    f"the shuffler counted {event.card_count} cards; "
                    f"{self.rules.decks} decks are {expected}"
                )
                self._refuse(event, Refusal(self._sec["decks"], reason))
            else:
                self._fire("shuffled", event)
        elif self.state == SHUFFLE_DUE:  # a jam, stop or incomplete cycle: no shuffle
            self._record({"type": "shuffle_failed", "event": event_name(event)})
            self._prompt("SHUFFLE FAILED: SHUFFLE AGAIN", self._sec["shuffle"])

    def _on_card(self, event: m.CardDrawn) -> None:
        if self.state in IN_PLAY:
            token = event.token
            if self._seen[token] >= self.rules.decks:
                # A card the shoe's decks cannot hold: the decks in play are not the ones
                # inspected (545.4), so a floorperson ends the shoe.
                detail = f"{token}: {self.rules.decks} decks hold only {self.rules.decks}"
                self._stop(Halt("foreign_card", event.device, detail, self._sec["decks"], True))
                return
            self._seen[token] += 1
        self._fire("card", event)

    def _on_game_command(self, command: Command) -> None:
        if isinstance(command, Wager):
            problem = self._wager_problem(command) if self.state == WAGERING else None
            if problem is not None:
                self._refuse(command, problem)
            else:
                self._fire("wager", command)
        elif isinstance(command, NoMoreBets):
            self._fire("no_more_bets", command)
        elif isinstance(command, ManualShuffle):
            self._fire("shuffled", command)
        elif isinstance(command, DisclosedCard):
            self._fire("disclosed", command)
        elif isinstance(command, PlayerLeaves):
            self._player_leaves(command)
        elif isinstance(command, Relinquish):
            self._relinquish(command)
        elif isinstance(command, OfferAnswer):
            self._answer(command)
        elif isinstance(command, Recut):
            self._recut(command)
        else:
            self._refuse(command, Refusal(None, f"{command.name} is not a {self.game} command"))

    def _pending(self) -> bool:
        if self.state == DEALING and self._early:
            # 545.15(a): cards drawn in error open the hand, in the order they left the shoe.
            self._guard(lambda e: self._fire("card", e), self._early.popleft())
            return True
        return super()._pending()

    def _refusal(self, trigger: str, item: m.Event | Command) -> Refusal:
        sec = self._sec
        if trigger in ("card", "cover_card"):  # only without a shoe in play
            if self.shoes_completed:
                return Refusal(sec["new_decks"], "the shoe has ended: new decks come first")
            return Refusal(sec["shuffle"], "no card is dealt before the cards are shuffled")
        if trigger == "shuffled":
            return Refusal(sec["new_decks"], "a shoe is in play: its cards change when it ends")
        if trigger in ("wager", "no_more_bets"):
            if self.state == DEALING:
                if trigger == "wager":
                    why = "no wager may be made, increased or withdrawn after 'no more bets'"
                else:
                    why = "'no more bets' was announced already"
                return Refusal(sec["wagers"], why)
            section, phase = {
                SHUFFLE_DUE: (sec["shuffle"], "the cards are not shuffled yet"),
                BURN_DUE: (sec["burn"], "the burn card comes first"),
                BURNING: (sec["burn"], "the burn is not complete"),
                DISCARDING: (sec["face_up"], "cards are going to the discard"),
            }[self.state]
            return Refusal(section, f"wagering is not open: {phase}")
        if trigger == "disclosed":
            return Refusal(sec["disclosed"], "no card drawn in error is waiting for the next hand")
        return Refusal(None, "nothing to clear: play is not stopped")

    # ------------------------------------------------------------------ shoe

    def _shuffled(self, item: m.ShuffleCompleted | ManualShuffle) -> None:
        self.shoe_number += 1
        entry: dict[str, object] = {"type": "shuffled", "shoe": self.shoe_number}
        if isinstance(item, m.ShuffleCompleted):
            entry.update(how="shuffler", cards=item.card_count)
        else:
            entry["how"] = "manual"
        self._record(entry)
        # 545.5(b): a reshuffle's cut is offered first to the last curator.
        self._open_offer("cut", cut_order(self._seats, self._last_curator), self._sec["cut"])
        self._prompt("BURN CARD", self._sec["burn"])

    def _burn_first(self, event: m.CardDrawn) -> None:
        self._burn_left = burn_count(event.token) + 1
        self._burn(event)
        more = f"{self._burn_left} MORE CARD{'S' if self._burn_left > 1 else ''}"
        self._prompt(f"BURN {more}", self._sec["burn"])

    def _burn_done(self, event: m.CardDrawn) -> bool:
        return self._burn_left == 1

    def _burn(self, event: m.CardDrawn) -> None:
        self._burn_left -= 1
        self._burned.append(event.token)
        self._record({"type": "burn", "card": event.token, "section": self._sec["burn"]})

    def _cover(self, event: m.CutCardSeen) -> None:
        if self._cover_round is not None:
            # The other cover card (545.5(d), 543.5(e)) changes nothing: the last hand is set.
            self._record({"type": "cover_card", "round": self.round, "first": False})
            return
        # Ruling R1: out of the shoe before or as the first card of a hand, it appeared
        # during that hand.
        self._cover_round = self.round
        self._record(
            {
                "type": "cover_card",
                "round": self.round,
                "first": True,
                "section": self._sec["cover"],
            }
        )

    def _cover_card_ok(self, event: m.CutCardSeen) -> bool:
        """Two cover cards to a shoe (545.3(a)), the one that ends it at least 14 cards
        above the bottom of the stack (545.5(d)); False when play stops instead."""
        self._cover_cards += 1
        if self._cover_cards > COVER_CARDS:
            detail = f"cover card {self._cover_cards} out of the shoe: a shoe holds {COVER_CARDS}"
            self._stop(Halt("extra_cover_card", event.device, detail, self._sec["decks"], True))
            return False
        left = self.rules.decks * 52 - sum(self._seen.values())
        if self._cover_cards == 1 and left < COVER_CARD_FROM_BOTTOM:
            self._record(
                {
                    "type": "irregularity",
                    "card": "CUT",
                    "section": self._sec["second_cover"],
                    "reason": f"the cover card came out with {left} cards left in the shoe, "
                    f"not at least {COVER_CARD_FROM_BOTTOM}",
                }
            )
        return True

    def _shoe_exhausted(self, event: m.ShoeEmpty) -> None:
        self._void_round("the shoe is empty: too few cards for the round", self._sec["too_few"])
        self._end_shoe("shoe_empty")

    def _end_shoe_after_last_hand(self, event: m.CardDrawn) -> None:
        self._end_shoe("last_hand")

    def _void_and_end_shoe(self, reason: str) -> None:
        if self._resume == SHUFFLE_DUE:
            return  # no shoe was in play
        self._void_round(f"floorperson: {reason}", section=None)
        self._end_shoe("floorperson")

    def _player_leaves(self, command: PlayerLeaves) -> None:
        if command.seat in self._wagers:
            # Chips still on the layout: withdrawn first (before "no more bets") or
            # settled first (in the round being dealt).
            self._refuse(command, Refusal(None, f"seat {command.seat} still has wagers down"))
            return
        owed, self._ledger = self._ledger.collect(command.seat)
        if owed:  # 545.13(e): collected when the player leaves, if before a new shoe
            self._record(
                {
                    "type": "vigorish_collected",
                    "owed": {str(command.seat): owed},
                    "section": self._sec["vigorish"],
                }
            )
        if command.seat == self._last_curator:
            self._last_curator = None  # 545.5(b): the cut then starts at the highest seat
        if command.seat == self._shoe_seat and "shoe" not in self._offers:
            self._pass_shoe(compulsory=False, section=self._sec["pass_offer"])

    def _end_shoe(self, reason: str) -> None:
        owed, self._ledger = self._ledger.collect_all()
        if owed:  # 545.13(e): deferred vigorish is collected before a new shoe
            self._record(
                {
                    "type": "vigorish_collected",
                    "owed": {str(seat): amount for seat, amount in owed},
                    "section": self._sec["vigorish"],
                }
            )
        self._discarded += [e.token for e in self._early]
        self._early.clear()
        self._record(
            {
                "type": "shoe_end",
                "shoe": self.shoe_number,
                "rounds": self.rounds_completed,
                "burned": self._burned,
                "discarded": self._discarded,
                "reason": reason,
            }
        )
        self._prompt(SHOE_ENDS, self._sec["new_decks"])
        self._withdraw_offers("the shoe ended")
        self._last_curator = self._curator  # None: the dealer; the cut starts at the top seat
        self._curator = self._shoe_seat = None
        self.shoes_completed += 1
        self.rounds_completed = 0
        self._seen = Counter()
        self._burned = []
        self._discarded = []
        self._cover_round = None
        self._cover_cards = 0

    # ------------------------------------------------------------------ face up (545.15(d))

    def _found_face_up(self, event: m.CardDrawn) -> bool:
        return event.face_up

    def _face_up_takes_more(self, event: m.CardDrawn) -> bool:
        return face_up_discard_count(event.token) > 0

    def _discard_face_up(self, event: m.CardDrawn) -> None:
        more = face_up_discard_count(event.token)
        self._discarded.append(event.token)
        self._record(
            {
                "type": "irregularity",
                "card": event.token,
                "section": self._sec["face_up"],
                "reason": f"card found face up in the shoe: not used; {more} more to the discard",
            }
        )
        self._discard_left, self._discard_why = more, "face_up"
        self._discard_resume = self.state
        self._discard_prompt = self._last_prompt
        text = f"FACE UP: DISCARD {more} MORE" if more else "FACE UP CARD TO THE DISCARD"
        self._prompt(text, self._sec["face_up"])

    def _discard_done(self, event: m.CardDrawn) -> bool:
        more = face_up_discard_count(event.token) if event.face_up else 0
        return self._discard_left - 1 + more == 0

    def _discard_returns_to(self, state: str, event: m.CardDrawn) -> bool:
        return self._discard_resume == state

    def _discard(self, event: m.CardDrawn) -> None:
        self._discard_left -= 1
        if event.face_up:  # found face up as well: it takes its own count with it
            self._discard_left += face_up_discard_count(event.token)
        self._discarded.append(event.token)
        self._record(
            {
                "type": "discard",
                "card": event.token,
                "face_up": event.face_up,
                "section": self._sec[self._discard_why],
            }
        )

    def _discard_ended(self, event: m.CardDrawn) -> None:
        if self._discard_prompt is not None:
            self._prompt(self._discard_prompt)

    # ------------------------------------------------------------------ wagers

    def _wager_problem(self, command: Wager) -> Refusal | None:
        seats = SEATS[self.game]
        if not 1 <= command.seat <= seats:
            return Refusal(self._sec["seats"], f"seat {command.seat} is not a seat 1..{seats}")
        if command.bet not in BETS:
            return Refusal(self._sec["bets"], f"{command.bet!r} is not player, banker or tie")
        if command.amount == 0:
            return None  # a withdrawal
        try:
            wager_amount(command.bet, command.amount)
        except WagerError as exc:
            return Refusal(self._sec["chips"], str(exc))
        return None

    def _place_wager(self, command: Wager) -> None:
        bets = self._wagers.setdefault(command.seat, {})
        if command.amount == 0:
            bets.pop(command.bet, None)
            if not bets:
                del self._wagers[command.seat]
            amount = Decimal(0)
        else:
            amount = wager_amount(command.bet, command.amount)
            bets[command.bet] = amount
        self._record(
            {
                "type": "wager",
                "round": self.round,
                "seat": command.seat,
                "bet": command.bet,
                "amount": amount,
            }
        )

    def _open_wagering(self, event: m.CardDrawn) -> None:
        self._prompt(f"{LAST_HAND}: {PLACE_BETS}" if self._is_last_hand(event) else PLACE_BETS)

    def _announce_no_more_bets(self, command: NoMoreBets) -> None:
        if "shoe" in self._offers:  # 545.7(d)(2): nobody took the shoe, the dealer deals
            self._close_offer("shoe", None, "no_answer")
        if self.rules.dealing == "players_reveal":
            # 545.9(d)(2)-(7): the wagers are final, so is who turns over each hand.
            self._reveal = {hand: squeeze_seat(self._wagers, hand) for hand in HANDS}
            self._gave_up = {hand: set() for hand in HANDS}
        self._in_round = True
        self._record({"type": "no_more_bets", "round": self.round})
        self._prompt(NO_MORE_BETS, self._sec["no_more_bets"])
        if self.game == "baccarat":
            self._prompt(CARDS, "545.9(b)")  # the dealer calling the game tells the curator

    # ------------------------------------------------------------------ the round

    def _drawn_in_error(self, event: m.CardDrawn) -> None:
        self._early.append(event)
        self._record(
            {
                "type": "irregularity",
                "card": event.token,
                "section": self._sec["drawn_in_error"],
                "reason": (
                    f"card drawn before 'no more bets': card {len(self._early)} of the next hand"
                ),
            }
        )

    def _drawn_in_error_waiting(self, command: DisclosedCard) -> bool:
        return bool(self._early)

    def _discard_disclosed(self, command: DisclosedCard) -> None:
        token = self._early.pop().token  # the last card drawn in error is the one seen
        self._discarded.append(token)
        self._record(
            {
                "type": "irregularity",
                "card": token,
                "section": self._sec["disclosed"],
                "reason": "card drawn in error was disclosed: it and one more card, face down, "
                "to the discard",
            }
        )
        self._discard_left, self._discard_why = 1, "disclosed"
        self._discard_resume = WAGERING
        self._discard_prompt = self._last_prompt
        self._prompt("DISCARD 1 MORE FACE DOWN", self._sec["disclosed"])

    def _next_hand(self) -> Hand:
        hand = next_to_draw(self._player, self._banker)
        if hand is None:
            raise RuntimeError("a card was routed to a complete round")
        return hand

    def _completes_round(self, event: m.CardDrawn) -> bool:
        if self._next_hand() == "player":
            return next_to_draw([*self._player, event.token], self._banker) is None
        return next_to_draw(self._player, [*self._banker, event.token]) is None

    def _is_last_hand(self, event: m.CardDrawn) -> bool:
        """Whether the round wagered on or dealt is the one after the cover card's."""
        return self._cover_round is not None and self.round == self._cover_round + 1

    def _deal(self, event: m.CardDrawn) -> None:
        hand = self._next_hand()
        cards = self._player if hand == "player" else self._banker
        cards.append(event.token)
        self._record({"type": "dealt", "round": self.round, "hand": hand, "card": event.token})
        if self.rules.dealing == "players_reveal" and len(cards) >= 2 and len(self._banker) >= 2:
            self._hand_over(hand if len(cards) == 3 else None)
        for line in announcements(self._player, self._banker):
            self._prompt(line)

    def _hand_over(self, third_to: Hand | None) -> None:
        """Under the players-reveal option the hands, then each third card, go face down
        to the highest wager on them (545.9(d), 543.9(c)(3)); None: both initial hands.
        A hand whose right to turn it over is being offered waits for the answer."""
        for hand in (third_to,) if third_to else HANDS:
            if hand not in self._offers:
                self._hand_to(hand, self._sec["squeeze"])

    def _hand_to(self, hand: Hand, section: str, show: bool = True) -> None:
        seat = self._reveal[hand]
        self._record({"type": "cards_handed", "round": self.round, "hand": hand, "seat": seat})
        if show:
            name = hand.upper()
            self._prompt(f"{name} TO SEAT {seat}" if seat else f"{name} FACE UP", section)

    def _end_round(self, event: m.CardDrawn) -> None:
        for hand in HANDS:
            if hand in self._offers:  # offered "for the remainder of that round" only
                self._close_offer(hand, None, "no_answer", show=False)
        player, banker = self._player, self._banker
        outcome = result(player, banker)
        entry: dict[str, object] = {
            "type": "round_end",
            "round": self.round,
            "game": self.game,
            "void": False,
            "player": player,
            "banker": banker,
            "player_total": point(player),
            "banker_total": point(banker),
            "result": outcome,
            "natural": is_natural(player[:2]) or is_natural(banker[:2]),
            "shoe": self.shoe_number,
        }
        seats: dict[str, object] = {}
        settled: dict[int, Settlement] = {}
        for seat, bets in sorted(self._wagers.items()):
            settled[seat] = s = settle(bets, outcome, self.rules)
            if s.vigorish_deferred:
                self._ledger = self._ledger.mark(seat, s.vigorish)
            seats[str(seat)] = {
                "net": s.net,
                "vigorish": s.vigorish,
                "vigorish_deferred": s.vigorish_deferred,
            }
        if seats:
            entry["seats"] = seats
        self._record(entry)
        if settled:
            collect, pay = collection_order(settled)
            self._record(
                {
                    "type": "settlement",
                    "round": self.round,
                    "collect": list(collect),
                    "pay": list(pay),
                    "section": self._sec["payment"],
                }
            )
        if self.game == "baccarat" and curator_passes(outcome):
            self._prompt(PASS_SHOE, self._sec["curator"])
            if not self._is_last_hand(event) and "shoe" not in self._offers:
                self._pass_shoe(compulsory=True, section=self._sec["curator"])
        ended = self.round
        self._next_round()
        if self._cover_round == ended:
            self._record({"type": "last_hand", "round": self.round, "section": self._sec["cover"]})
            self._prompt(LAST_HAND, self._sec["cover"])

    def _void_round(self, reason: str, section: str | None) -> None:
        """545.15(e): a round that cannot be completed is void, its wagers returned.
        Wagers taken for a round not yet dealt are returned as well."""
        returned = {str(seat): dict(bets) for seat, bets in sorted(self._wagers.items()) if bets}
        self._withdraw_offers("the round is void", HANDS)
        if self._in_round:
            player, banker = self._player, self._banker
            entry: dict[str, object] = {
                "type": "round_end",
                "round": self.round,
                "game": self.game,
                "void": True,
                "player": player,
                "banker": banker,
                "player_total": None,
                "banker_total": None,
                "result": None,
                "natural": is_natural(player[:2]) or is_natural(banker[:2]),
                "shoe": self.shoe_number,
                "returned": returned,
                "reason": reason,
                "section": section,
            }
            self._record(entry)
            self._prompt(ROUND_VOID, section)
            self._next_round()
        elif returned:
            self._record(
                {
                    "type": "wagers_returned",
                    "round": self.round,
                    "returned": returned,
                    "reason": reason,
                }
            )
            self._wagers = {}

    def _next_round(self) -> None:
        self.rounds_completed += 1
        self._player = []
        self._banker = []
        self._wagers = {}
        self._in_round = False
        self._reveal = {}
        self._gave_up = {}

    # ------------------------------------------------------------------ offers

    @property
    def _seats(self) -> int:
        return SEATS[self.game]

    def _holder(self, seat: int | None) -> int | str:
        return DEALER if seat is None else seat

    def _open_offer(self, what: str, order: tuple[int, ...], section: str) -> None:
        self._offers[what] = Offer(order, section)
        self._offer_next(what)

    def _offer_next(self, what: str) -> None:
        offer = self._offers[what]
        if offer.seat is None:
            self._close_offer(what, None, "none_accepted")
        else:
            self._record(
                {"type": "offer", "what": what, "seat": offer.seat, "section": offer.section}
            )

    def _close_offer(
        self, what: str, seat: int | None, how: str, *, dealer: bool = False, show: bool = True
    ) -> None:
        """``seat`` accepted ``what`` (None: no player did); ``dealer``: the seat that
        accepted the shoe designated the dealer calling the game as the curator."""
        offer = self._offers.pop(what)
        sec = self._sec
        if what == "cut":
            # 545.5(b): no player accepts, the dealer cuts; 545.5(e): a recut goes on
            # from the next seat after the one that cut.
            section = sec["cut"]
            self._cut_rest = offer.after() if seat is not None else ()
            holder = self._holder(seat)
        elif what == "shoe":
            if seat is None:
                section = sec["dealer_curator"]
            elif dealer:
                section = sec["dealer_designated"]
            else:
                section = sec["curator_accepts"]
            self._shoe_seat = seat
            self._curator = None if dealer else seat
            holder = self._holder(self._curator)
        else:
            hand: Hand = "player" if what == "player" else "banker"
            section = sec["reveal"]
            self._reveal[hand] = seat
            holder = self._holder(seat)
        entry: dict[str, object] = {
            "type": "offer_closed",
            "what": what,
            "holder": holder,
            "how": how,
            "section": section,
        }
        if dealer:
            entry["designated_by"] = seat
        self._record(entry)
        if what in HANDS and len(self._banker) >= 2:
            # The hand's cards are on the layout: they go to the new holder.
            self._hand_to("player" if what == "player" else "banker", section, show)

    def _withdraw_offers(self, reason: str, whats: tuple[str, ...] = OFFERABLE) -> None:
        for what in whats:
            if self._offers.pop(what, None) is not None:
                self._record({"type": "offer_withdrawn", "what": what, "reason": reason})

    def _offer_shoe(self, event: m.CardDrawn) -> None:
        """545.7(b): the shuffled cards are in the shoe; it is offered from seat one."""
        if self.game == "baccarat":
            self._curator = self._shoe_seat = None
            self._open_offer("shoe", shoe_order(self._seats), self._sec["offer_shoe"])

    def _pass_shoe(self, *, compulsory: bool, section: str) -> None:
        """The curator gives the shoe up (545.14(a)); it is offered from the seat to the
        previous curator's right (545.14(b)), the dealer's right if no player had it."""
        self._record(
            {
                "type": "relinquished",
                "what": "shoe",
                "seat": self._shoe_seat,
                "compulsory": compulsory,
                "section": section,
            }
        )
        previous, self._curator = self._shoe_seat, None
        order = counterclockwise(self._seats, previous)
        self._open_offer("shoe", order, self._sec["pass_offer"])

    def _relinquish(self, command: Relinquish) -> None:
        problem = self._relinquish_problem(command)
        if problem is not None:
            self._refuse(command, problem)
        elif command.what == "shoe":
            sec = self._sec["pass_ordered"] if command.compulsory else self._sec["pass"]
            self._pass_shoe(compulsory=command.compulsory, section=sec)
        else:
            hand: Hand = "player" if command.what == "player" else "banker"
            seat = self._reveal[hand]
            assert seat is not None  # _relinquish_problem refuses a hand nobody holds
            self._gave_up[hand].add(seat)
            section = self._sec["reveal"]
            self._record(
                {
                    "type": "relinquished",
                    "what": hand,
                    "seat": seat,
                    "compulsory": command.compulsory,
                    "section": section,
                }
            )
            # To the right of the previous player, then counterclockwise; a seat that gave
            # the right up this round is not offered it again.
            order = counterclockwise(self._seats, seat)
            self._open_offer(hand, tuple(s for s in order if s not in self._gave_up[hand]), section)

    def _relinquish_problem(self, command: Relinquish) -> Refusal | None:
        sec = self._sec
        if command.what == "shoe":
            if self.game != "baccarat":
                return Refusal(sec["dealer_deals"], "the dealer deals Midibaccarat: no curator")
            if self.state != WAGERING:
                return Refusal(
                    sec["pass"], "the shoe is passed between rounds, while wagers are taken"
                )
            if "shoe" in self._offers:
                return Refusal(sec["pass_offer"], "the shoe is being offered already")
            return None
        if command.what not in HANDS:
            return Refusal(None, f"{command.what!r} is not shoe, player or banker")
        hand: Hand = "player" if command.what == "player" else "banker"
        if self.rules.dealing != "players_reveal":
            return Refusal(sec["squeeze"], "the dealer turns the cards over at this table")
        if not self._in_round:
            why = "no round is being dealt"
        elif hand in self._offers:
            why = "it is being offered already"
        elif self._reveal[hand] is None:
            why = "no player holds it"
        else:
            return None
        return Refusal(sec["reveal"], f"the right to turn over the {hand} hand: {why}")

    def _answer(self, command: OfferAnswer) -> None:
        offer = self._offers.get(command.what)
        if command.what not in OFFERABLE:
            self._refuse(
                command, Refusal(None, f"{command.what!r} is not cut, shoe, player or banker")
            )
        elif offer is None:
            self._refuse(command, self._nothing_offered(command.what))
        elif command.seat != offer.seat:
            why = f"the {command.what} is offered to seat {offer.seat} now"
            self._refuse(command, Refusal(offer.section, why))
        elif command.answer == "decline":
            self._offers[command.what] = offer.declined()
            self._offer_next(command.what)
        elif command.answer == "accept":
            self._close_offer(command.what, command.seat, "accepted")
        elif command.answer == "dealer" and command.what == "shoe":
            self._close_offer("shoe", command.seat, "designated_dealer", dealer=True)
        else:
            answers = "accept, decline or dealer" if command.what == "shoe" else "accept or decline"
            self._refuse(command, Refusal(offer.section, f"answer {answers}"))

    def _nothing_offered(self, what: str) -> Refusal:
        sec = self._sec
        if what == "cut":
            return Refusal(sec["cut"], "the stack is not being offered for the cut")
        if what == "shoe":
            if self.game != "baccarat":
                return Refusal(sec["dealer_deals"], "the dealer deals Midibaccarat: no curator")
            return Refusal(sec["offer_shoe"], "the shoe is not being offered")
        return Refusal(sec["reveal"], f"the right to turn over the {what} hand is not offered")

    def _recut(self, command: Recut) -> None:
        """545.5(e): a floorperson requires a recut after the cut and before the cards go
        in the shoe; the next person entitled to cut recuts (the dealer, when none is)."""
        section = self._sec["recut"]
        if self.state != BURN_DUE:
            why = (
                "the cards are in the dealing shoe already"
                if self.state in IN_PLAY
                else "no cards are shuffled"
            )
            self._refuse(command, Refusal(section, f"no recut: {why}"))
        elif "cut" in self._offers:
            self._refuse(command, Refusal(section, "no recut: the cards are not cut yet"))
        else:
            self._record({"type": "recut", "section": section})
            self._open_offer("cut", self._cut_rest, section)
