"""The wagers: the basic wager, Match-the-Dealer and Insurance on each box, whose each
box's wagers are (551.14), and who may wager on the next round (551.6(k))."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import TYPE_CHECKING, Final

from controller.rules.amounts import AmountError, as_amount, check_chips, shown
from controller.rules.spanish21 import (
    BOXES,
    PlayError,
    check_insurance,
    check_match_the_dealer,
    check_player_boxes,
    insurance_net,
    match_the_dealer_net,
    match_the_dealer_order,
    may_wager,
)
from controller.table.core import Refusal
from controller.table.events import NoMoreBets, PermitWagering, Wager
from controller.table.spanish21.machine import IN_ROUND, PEEK_DUE, SHUFFLE_DUE, WAGERING
from controller.table.spanish21.part import Part
from drivers import messages as m

if TYPE_CHECKING:
    from controller.table.spanish21.table import Spanish21Table

BETS: Final = ("spanish21", "match_the_dealer", "insurance")
PLACE_BETS = "PLACE YOUR BETS"

# Where a chapter says each wager is made in chips (ruling R16: amounts are chips).
_CHIP_SECTIONS: Final[Mapping[str, str]] = {
    "spanish21": "551.6(e)",
    "match_the_dealer": "551.7(c)",
    "insurance": "551.10(b)",
}
# Why a box's wagers are its one player's: a player position has its own betting area
# (551.2(b)(2)); Match-the-Dealer and Insurance go with the player's own wager (551.7(b),
# 551.10(b)).
_OWNER_SECTIONS: Final[Mapping[str, str]] = {
    "spanish21": "551.2(b)(2)",
    "match_the_dealer": "551.7(b)",
    "insurance": "551.10(b)",
}


class Wagers(Part):
    """Each box's wagers and player, the nets of the wagers settled during the round, and
    the 551.6(k) bars and permits."""

    def __init__(self, table: Spanish21Table) -> None:
        super().__init__(table)
        self.basic: dict[int, Decimal] = {}
        self.players: dict[int, str] = {}  # whose each box's wager is (551.14)
        # 551.6(k): who wagered on the last round since the shuffle (None: no round
        # yet, anyone may wager), and who a floorperson let back in, for which round.
        self._wagered_last: frozenset[str] | None = None
        self._permitted: dict[str, int] = {}
        self.match: dict[int, Decimal] = {}
        self.insurance: dict[int, Decimal] = {}
        self.match_net: dict[int, Decimal] = {}
        self.insurance_net: dict[int, Decimal] = {}

    # ------------------------------------------------------------------ checks

    def problem(self, command: Wager) -> Refusal | None:
        """Why a wager is refused before the machine takes it; None to take it."""
        box = command.seat
        if command.bet == "insurance" and box in self._table._missed_cards.dead:
            return Refusal("551.16(h)", f"box {box}'s hand is dead: its wagers were returned")
        problem = self._form_problem(command)
        if problem is not None:
            return problem
        amount = Decimal(command.amount)
        if command.bet == "insurance":
            return self._insurance_problem(box, amount)
        if not self.open():
            return self._in_play_problem(command)
        problem = self._chips_problem(command.bet, box, amount)
        if problem is not None:
            return problem
        if command.bet == "spanish21":
            return self._boxes_problem(self.player(box, command.player), box, amount)
        if amount == 0:
            return None
        try:
            check_match_the_dealer(amount, self.basic.get(box, Decimal(0)), self._table.rules)
        except PlayError as exc:
            return Refusal("551.7(b)", str(exc))
        return None

    def _chips_problem(self, bet: str, box: int, amount: Decimal) -> Refusal | None:
        """Ruling R16: a wager is the table's chips; 0 withdraws one, before the first
        card (551.6(d)), and where there is none it is no wager at all."""
        section = _CHIP_SECTIONS[bet]
        if amount == 0:
            held = self.basic if bet == "spanish21" else self.match
            if box in held:
                return None
            return Refusal(section, f"box {box} holds no {bet} wager to withdraw (ruling R16)")
        rules = self._table.rules
        try:
            check_chips(amount, rules.chip_unit, rules.max_wager)
        except AmountError as exc:
            return Refusal(section, f"{bet} wager: {exc}")
        return None

    def _form_problem(self, command: Wager) -> Refusal | None:
        """Whether the wager names a bet, a box, an amount and a player that can wager."""
        if command.bet not in BETS:
            return Refusal("551.6(a)", f"{command.bet!r} is not one of {', '.join(BETS)}")
        if command.seat not in BOXES:
            return Refusal("551.2(b)(2)", f"box {command.seat} is not a box 1..7")
        problem = _amount_problem(command.amount, _CHIP_SECTIONS[command.bet])
        if problem is not None:
            return problem
        named = command.player
        if named is not None and (not isinstance(named, str) or not named.strip()):
            return Refusal("551.14", f"{named!r} names no player")
        owner = self.players.get(command.seat)
        if owner is not None and named is not None and named != owner:
            why = f"box {command.seat} holds {owner}'s wager"
            return Refusal(_OWNER_SECTIONS[command.bet], why)
        return None

    def _insurance_problem(self, box: int, amount: Decimal) -> Refusal | None:
        table = self._table
        if box in self.insurance:
            # 551.6(j): confirmed, it is not altered until it is settled.
            return Refusal("551.6(j)", f"box {box}'s Insurance Wager is placed already")
        if table.state != PEEK_DUE:
            return None  # refused by the machine, with the state's reason
        if box not in table._round.hands:
            return Refusal("551.10(b)", f"box {box} holds no wager this round")
        if not table._round.ace_up():
            return None  # refused by the machine: no Insurance without an ace up
        try:
            check_insurance(amount, self.basic[box], table._round.dealer[0], table.rules)
        except PlayError as exc:
            return Refusal("551.10(b)", str(exc))
        return None

    def player(self, box: int, named: str | None = None) -> str:
        """Who wagers on ``box``: the player named, else the box's player; a box's
        unnamed player is named by its number."""
        return named if named is not None else self.players.get(box, str(box))

    def _boxes_problem(self, player: str, box: int, amount: Decimal) -> Refusal | None:
        """551.14: a player wagers on adjacent boxes, no more than the Rules Submission
        allows, after a wager on ``box`` (or its withdrawal); 551.6(k): one who sat out
        the last round does not come back in unless let in."""
        mine = {b for b, p in self.players.items() if p == player}
        try:
            check_player_boxes(mine | {box} if amount else mine - {box}, self._table.rules)
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
        table = self._table
        if table.state == SHUFFLE_DUE or player in self.players.values():
            return True
        if table._round.in_round and not self.open():
            sat_out, target = True, table.round + 1  # the next round's players are this one's
        else:
            sat_out = self._wagered_last is not None and player not in self._wagered_last
            target = table.round
        readmitted = self._permitted.get(player) == target
        return may_wager(table.rules, sat_out_since_shuffle=sat_out, readmitted=readmitted)

    def open(self) -> bool:
        """551.6(a), (d), 551.7(b): wagers are taken until the round's first card."""
        return self._table.state == WAGERING or self._table._round.before_first_card(None)

    def _in_play_problem(self, command: Wager) -> Refusal | None:
        """After the round's first card no wager is made (551.6(d), refused by the
        machine); none in play is handled, removed or altered until it is settled
        (551.6(i)), a confirmed Double Down or split wager included (551.6(j))."""
        if self._table.state not in IN_ROUND:
            return None  # refused by the machine: wagering is not open
        box = command.seat
        if command.bet == "spanish21":
            return self._basic_in_play_problem(box)
        if box in self.match and box not in self.match_net:
            why = f"box {box}'s Match-the-Dealer wager is in play until it is settled"
            return Refusal("551.6(i)", why)
        return None

    def _basic_in_play_problem(self, box: int) -> Refusal | None:
        hands = self._table._round.hands.get(box, ())
        if any(h.doubled for h in hands) or len(hands) > 1:
            what = "Double Down" if any(h.doubled for h in hands) else "split"
            why = f"box {box}'s {what} wager is confirmed: nothing on it changes until settled"
            return Refusal("551.6(j)", why)
        if box in self.basic:
            why = f"box {box}'s wager is in play: it is not altered or withdrawn until settled"
            return Refusal("551.6(i)", why)
        return None

    # ------------------------------------------------------------------ 551.6(k)

    def permit(self, command: PermitWagering) -> None:
        """551.6(k)(1): a floorperson lets a barred person wager again, from the next
        round to take wagers."""
        table = self._table
        player = command.player
        refusal: Refusal | None = None
        if not table.rules.no_mid_shoe_entry:
            why = "the Rules Submission bars no one for sitting out a round"
            refusal = Refusal("551.6(k)", why)
        elif not isinstance(player, str) or not player.strip():
            refusal = Refusal("551.6(k)", f"{player!r} names no player")
        elif self._may_enter(player):
            refusal = Refusal("551.6(k)", f"{player} is not barred from the next round")
        if refusal is not None:
            table._refuse(command, refusal)
            return
        target = table.round + 1 if table._round.in_round and not self.open() else table.round
        self._permitted[player] = target
        table._record(
            {
                "type": "wagering_permitted",
                "player": player,
                "shoe": table.shoe_number,
                "round": target,
                "section": "551.6(k)(1)",
            }
        )

    def reshuffled(self) -> None:
        """551.6(k)(2): a reshuffle lets everyone wager again."""
        self._wagered_last, self._permitted = None, {}

    # ------------------------------------------------------------------ placing

    def place(self, command: Wager) -> None:
        box, amount = command.seat, Decimal(command.amount)
        player = self.player(box, command.player)
        bets = self.basic if command.bet == "spanish21" else self.match
        if amount == 0:
            bets.pop(box, None)
            if command.bet == "spanish21":
                self.match.pop(box, None)  # it goes with the basic wager (551.7(b))
                self.players.pop(box, None)
        else:
            if command.bet == "spanish21":
                self.players[box] = player
            bets[box] = amount
        entry: dict[str, object] = {
            "type": "wager",
            "round": self._table.round,
            "box": box,
            "bet": command.bet,
            "amount": amount,
        }
        if command.player is not None or player != str(box):
            entry["player"] = player  # a named player's, named or not in the command
        self._table._record(entry)

    def withdraws_the_last_wager(self, command: Wager) -> bool:
        last = set(self.basic) == {command.seat}
        return last and command.bet == "spanish21" and Decimal(command.amount) == 0

    def is_insurance(self, command: Wager) -> bool:
        return command.bet == "insurance"

    def has_wagers(self, command: NoMoreBets) -> bool:
        return bool(self.basic)

    def open_wagering(self, item: object) -> None:
        self._table._prompt(PLACE_BETS)

    # ------------------------------------------------------------------ settled in the round

    def settle_match_the_dealer(self, event: m.CardDrawn) -> None:
        """551.7(d), § 635a.7(f): right after the initial deal, before any other card and
        before the reader is used, from the dealer's right."""
        table = self._table
        up = table._round.dealer[0]
        for box in match_the_dealer_order(self.match):
            if box in table._missed_cards.dead:
                continue  # returned with the dead hand (551.16(h))
            amount = self.match[box]
            cards = table._round.hands[box][0].cards
            net = match_the_dealer_net(cards, up, amount, table.rules)
            self.match_net[box] = net
            table._record(
                {
                    "type": "match_the_dealer",
                    "round": table.round,
                    "box": box,
                    "amount": amount,
                    "net": net,
                    "section": "551.7(d)",
                }
            )

    def offer_insurance(self, event: m.CardDrawn) -> None:
        if self._table._round.ace_up():
            self._table._prompt("INSURANCE", "551.10(a)")

    def insurance_open(self, command: Wager) -> bool:
        return command.bet == "insurance" and self._table._round.ace_up()

    def place_insurance(self, command: Wager) -> None:
        amount = Decimal(command.amount)
        self.insurance[command.seat] = amount
        self._table._record(
            {
                "type": "wager",
                "round": self._table.round,
                "box": command.seat,
                "bet": "insurance",
                "amount": amount,
                "section": "551.10(b)",
            }
        )

    def settle_insurance(self) -> None:
        """551.10(d): losing Insurance is collected before any more cards."""
        table = self._table
        for box, amount in sorted(self.insurance.items()):
            net = insurance_net(amount, table._round.dealer)
            self.insurance_net[box] = net
            table._record(
                {
                    "type": "insurance",
                    "round": table.round,
                    "box": box,
                    "amount": amount,
                    "net": net,
                    "section": "551.10(d)",
                }
            )

    # ------------------------------------------------------------------ the round's end

    def return_unplayed(self, reason: str) -> None:
        """A void before the round was dealt: every wager on the layout goes back, each
        box's Match-the-Dealer with its wager (ruling R10)."""
        if self.basic:
            returned = {str(b): a + self.match.get(b, 0) for b, a in sorted(self.basic.items())}
            self._table._record(
                {
                    "type": "wagers_returned",
                    "round": self._table.round,
                    "returned": returned,
                    "reason": reason,
                }
            )
            self.basic, self.match, self.players = {}, {}, {}

    def round_over(self) -> None:
        self._wagered_last = frozenset(self.players.values())  # 551.6(k)
        self.basic, self.match, self.insurance, self.players = {}, {}, {}, {}
        self.match_net, self.insurance_net = {}, {}


def _amount_problem(value: object, section: str) -> Refusal | None:
    """Whether ``value`` is an amount at all: a whole number or a finite Decimal, not
    below 0 (ruling R16)."""
    amount = as_amount(value)
    if amount is None or amount.is_signed():
        return Refusal(section, f"{shown(value)} is not an amount (ruling R16)")
    return None
