"""What is offered seat by seat until a player accepts: the cut (545.5(b)) and its
recut (545.5(e)), the dealing shoe and with it the curator (545.7, 545.14), and the
right to turn over a hand's cards (545.9(d), 545.15(f)).

The console enters each seat's answer; the table names the seat entitled next and
refuses any other. An offer still open when the procedure moves on (the first card out
of the shoe for the cut, "no more bets" for the shoe, the end of the round for a hand's
cards) closes as no player accepting it, and the record says no answer was entered.
"""

from __future__ import annotations

from controller.rules.baccarat import (
    OFFERABLE,
    Hand,
    Offer,
    Outcome,
    counterclockwise,
    curator_passes,
    cut_order,
    shoe_order,
    squeeze_seat,
)
from controller.table.baccarat.machine import BURN_DUE, IN_PLAY, WAGERING, Context, Curatorship
from controller.table.baccarat.round import HANDS, Round
from controller.table.baccarat.shoe import Shoe
from controller.table.core import Refusal
from controller.table.events import (
    ManualShuffle,
    NoMoreBets,
    OfferAnswer,
    Recut,
    Relinquish,
)
from drivers import messages as m

DEALER = "dealer"  # who holds what no player accepted, in the journal
PASS_SHOE = "PASS THE SHOE"


def _hand(what: str) -> Hand:
    return "player" if what == "player" else "banker"


def _holder(seat: int | None) -> int | str:
    return DEALER if seat is None else seat


class Offers:
    """The offers open, who holds the shoe and who turns over each hand's cards."""

    def __init__(self, ctx: Context, shoe: Shoe, round_: Round) -> None:
        self._ctx = ctx
        self._sec = ctx.sec
        self._shoe = shoe
        self._round = round_
        self._open: dict[str, Offer] = {}
        self._cut_rest: tuple[int, ...] = ()  # entitled to a recut (545.5(e))
        self.curator: int | None = None  # the seat dealing; None: the dealer calling the game
        self._shoe_seat: int | None = None  # the player who accepted the shoe (545.14(b))
        self._last_curator: int | None = None  # of the shoe before (545.5(b): a reshuffle)
        self._reveal: dict[Hand, int | None] = {}  # who turns over each hand (545.9(d))
        self._gave_up: dict[Hand, set[int]] = {}  # seats that relinquished it this round

    def offered(self, what: str) -> int | None:
        offer = self._open.get(what)
        return None if offer is None else offer.seat

    # ------------------------------------------------------------------ the cut

    def offer_cut(self, item: m.ShuffleCompleted | ManualShuffle) -> None:
        """545.5(b): a reshuffle's cut is offered first to the last curator."""
        self._offer("cut", cut_order(self._ctx.seats, self._last_curator), self._sec.cut)

    def cut_unanswered(self) -> None:
        """The cards are in the shoe: nobody accepted the cut, so the dealer cut."""
        if "cut" in self._open:
            self._close("cut", None, "no_answer")

    def recut(self, command: Recut) -> Refusal | None:
        """545.5(e): a floorperson requires a recut after the cut and before the cards go
        in the shoe; the next person entitled to cut recuts (the dealer, when none is)."""
        section, state = self._sec.recut, self._ctx.state()
        if state != BURN_DUE:
            why = (
                "the cards are in the dealing shoe already"
                if state in IN_PLAY
                else "no cards are shuffled"
            )
            return Refusal(section, f"no recut: {why}")
        if "cut" in self._open:
            return Refusal(section, "no recut: the cards are not cut yet")
        self._ctx.record({"type": "recut", "section": section})
        self._offer("cut", self._cut_rest, section)
        return None

    # ------------------------------------------------------------------ the shoe

    def offer_shoe(self, event: m.CardDrawn) -> None:
        """545.7(b): the shuffled cards are in the shoe; it is offered from seat one."""
        curatorship = self._sec.curatorship
        if curatorship is not None:
            self.curator = self._shoe_seat = None
            self._offer("shoe", shoe_order(self._ctx.seats), curatorship.offer_shoe)

    def _pass_shoe(self, curatorship: Curatorship, *, compulsory: bool, section: str) -> None:
        """The curator gives the shoe up (545.14(a)); it is offered from the seat to the
        previous curator's right (545.14(b)), the dealer's right if no player had it."""
        self._ctx.record(
            {
                "type": "relinquished",
                "what": "shoe",
                "seat": self._shoe_seat,
                "compulsory": compulsory,
                "section": section,
            }
        )
        previous, self.curator = self._shoe_seat, None
        order = counterclockwise(self._ctx.seats, previous)
        self._offer("shoe", order, curatorship.pass_offer)

    def _no_curator(self) -> Refusal:
        return Refusal(self._sec.dealer_deals, "the dealer deals Midibaccarat: no curator")

    # ------------------------------------------------------------------ the round

    def no_more_bets(self, command: NoMoreBets) -> None:
        if "shoe" in self._open:  # 545.7(d)(2): nobody took the shoe, the dealer deals
            self._close("shoe", None, "no_answer")
        if self._ctx.rules.dealing == "players_reveal":
            # 545.9(d)(2)-(7): the wagers are final, so is who turns over each hand.
            self._reveal = {hand: squeeze_seat(self._round.wagers, hand) for hand in HANDS}
            self._gave_up = {hand: set() for hand in HANDS}

    def hand_over(self, hands: tuple[Hand, ...]) -> None:
        """The cards of ``hands`` go face down to who turns them over (545.9(d)); a hand
        whose right to turn it over is being offered waits for the answer."""
        for hand in hands:
            if hand not in self._open:
                self._hand_to(hand, self._sec.squeeze)

    def _hand_to(self, hand: Hand, section: str, show: bool = True) -> None:
        seat = self._reveal[hand]
        self._ctx.record(
            {"type": "cards_handed", "round": self._shoe.round, "hand": hand, "seat": seat}
        )
        if show:
            name = hand.upper()
            self._ctx.prompt(f"{name} TO SEAT {seat}" if seat else f"{name} FACE UP", section)

    def round_dealt(self) -> None:
        for hand in HANDS:
            if hand in self._open:  # offered "for the remainder of that round" only
                self._close(hand, None, "no_answer", show=False)

    def round_settled(self, outcome: Outcome, last_hand: bool) -> None:
        """545.14(a)(1): the curator passes the shoe whenever the Banker's Hand loses."""
        curatorship = self._sec.curatorship
        if curatorship is not None and curator_passes(outcome):
            self._ctx.prompt(PASS_SHOE, curatorship.banker_loses)
            if not last_hand and "shoe" not in self._open:
                section = curatorship.banker_loses
                self._pass_shoe(curatorship, compulsory=True, section=section)

    def new_round(self) -> None:
        self._reveal = {}
        self._gave_up = {}

    def player_leaves(self, seat: int) -> None:
        if seat == self._last_curator:
            self._last_curator = None  # 545.5(b): the cut then starts at the highest seat
        curatorship = self._sec.curatorship
        if curatorship is not None and seat == self._shoe_seat and "shoe" not in self._open:
            self._pass_shoe(curatorship, compulsory=False, section=curatorship.pass_offer)

    def withdraw(self, reason: str, whats: tuple[str, ...] = OFFERABLE) -> None:
        for what in whats:
            if self._open.pop(what, None) is not None:
                self._ctx.record({"type": "offer_withdrawn", "what": what, "reason": reason})

    def shoe_ended(self) -> None:
        self.withdraw("the shoe ended")
        self._last_curator = self.curator  # None: the dealer; the cut starts at the top seat
        self.curator = self._shoe_seat = None

    # ------------------------------------------------------------------ relinquishing

    def open_commands(self) -> set[str]:
        """The offers' commands the procedure takes now: an answer to what is offered,
        a recut before the cards go in the shoe (545.5(e)), a right given up where the
        game has it (545.14, 545.15(f))."""
        names: set[str] = set()
        state = self._ctx.state()
        if self._open:
            names.add("offer_answer")
        if state == BURN_DUE:
            names.add("recut")
        curator = self._sec.curatorship is not None and state == WAGERING
        reveal = self._ctx.rules.dealing == "players_reveal" and self._round.in_round
        if curator or reveal:
            names.add("relinquish")
        return names

    def relinquish(self, command: Relinquish) -> Refusal | None:
        if command.what == "shoe":
            return self._relinquish_shoe(command)
        if command.what not in HANDS:
            return Refusal(None, f"{command.what!r} is not shoe, player or banker")
        hand = _hand(command.what)
        problem = self._hand_problem(hand)
        if problem is not None:
            return problem
        seat = self._reveal[hand]
        assert seat is not None  # _hand_problem refuses a hand nobody holds
        self._gave_up[hand].add(seat)
        section = self._sec.reveal
        self._ctx.record(
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
        order = counterclockwise(self._ctx.seats, seat)
        self._offer(hand, tuple(s for s in order if s not in self._gave_up[hand]), section)
        return None

    def _relinquish_shoe(self, command: Relinquish) -> Refusal | None:
        curatorship = self._sec.curatorship
        if curatorship is None:
            return self._no_curator()
        if self._ctx.state() != WAGERING:
            why = "the shoe is passed between rounds, while wagers are taken"
            return Refusal(curatorship.passes, why)
        if "shoe" in self._open:
            return Refusal(curatorship.pass_offer, "the shoe is being offered already")
        ordered = command.compulsory
        section = curatorship.pass_ordered if ordered else curatorship.passes
        self._pass_shoe(curatorship, compulsory=ordered, section=section)
        return None

    def _hand_problem(self, hand: Hand) -> Refusal | None:
        if self._ctx.rules.dealing != "players_reveal":
            return Refusal(self._sec.squeeze, "the dealer turns the cards over at this table")
        if not self._round.in_round:
            why = "no round is being dealt"
        elif hand in self._open:
            why = "it is being offered already"
        elif self._reveal[hand] is None:
            why = "no player holds it"
        else:
            return None
        return Refusal(self._sec.reveal, f"the right to turn over the {hand} hand: {why}")

    # ------------------------------------------------------------------ answers

    def answer(self, command: OfferAnswer) -> Refusal | None:
        if command.what not in OFFERABLE:
            return Refusal(None, f"{command.what!r} is not cut, shoe, player or banker")
        offer = self._open.get(command.what)
        if offer is None:
            return self._nothing_offered(command.what)
        if command.seat != offer.seat:
            why = f"the {command.what} is offered to seat {offer.seat} now"
            return Refusal(offer.section, why)
        if command.answer == "decline":
            self._open[command.what] = offer.declined()
            self._offer_next(command.what)
        elif command.answer == "accept":
            self._close(command.what, command.seat, "accepted")
        elif command.answer == "dealer" and command.what == "shoe":
            self._close("shoe", command.seat, "designated_dealer", dealer=True)
        else:
            answers = "accept, decline or dealer" if command.what == "shoe" else "accept or decline"
            return Refusal(offer.section, f"answer {answers}")
        return None

    def _nothing_offered(self, what: str) -> Refusal:
        if what == "cut":
            return Refusal(self._sec.cut, "the stack is not being offered for the cut")
        if what == "shoe":
            curatorship = self._sec.curatorship
            if curatorship is None:
                return self._no_curator()
            return Refusal(curatorship.offer_shoe, "the shoe is not being offered")
        return Refusal(self._sec.reveal, f"the right to turn over the {what} hand is not offered")

    # ------------------------------------------------------------------ offering

    def _offer(self, what: str, order: tuple[int, ...], section: str) -> None:
        self._open[what] = Offer(order, section)
        self._offer_next(what)

    def _offer_next(self, what: str) -> None:
        offer = self._open[what]
        if offer.seat is None:
            self._close(what, None, "none_accepted")
        else:
            self._ctx.record(
                {"type": "offer", "what": what, "seat": offer.seat, "section": offer.section}
            )

    def _close(
        self, what: str, seat: int | None, how: str, *, dealer: bool = False, show: bool = True
    ) -> None:
        """``seat`` accepted ``what`` (None: no player did); ``dealer``: the seat that
        accepted the shoe designated the dealer calling the game as the curator."""
        offer = self._open.pop(what)
        if what == "cut":
            section, holder = self._cut_closed(offer, seat)
        elif what == "shoe":
            section, holder = self._shoe_closed(seat, dealer)
        else:
            section, holder = self._sec.reveal, _holder(seat)
            self._reveal[_hand(what)] = seat
        entry: dict[str, object] = {
            "type": "offer_closed",
            "what": what,
            "holder": holder,
            "how": how,
            "section": section,
        }
        if dealer:
            entry["designated_by"] = seat
        self._ctx.record(entry)
        if what in HANDS and self._round.hands_on_layout:
            # The hand's cards are on the layout: they go to the new holder.
            self._hand_to(_hand(what), section, show)

    def _cut_closed(self, offer: Offer, seat: int | None) -> tuple[str, int | str]:
        # 545.5(b): no player accepts, the dealer cuts; 545.5(e): a recut goes on from
        # the next seat after the one that cut.
        self._cut_rest = offer.after() if seat is not None else ()
        return self._sec.cut, _holder(seat)

    def _shoe_closed(self, seat: int | None, dealer: bool) -> tuple[str, int | str]:
        curatorship = self._sec.curatorship
        assert curatorship is not None  # only a chapter with a curator offers the shoe
        if seat is None:
            section = curatorship.dealer_curator
        elif dealer:
            section = curatorship.dealer_designated
        else:
            section = curatorship.curator_accepts
        self._shoe_seat = seat
        self.curator = None if dealer else seat
        return section, _holder(self.curator)
