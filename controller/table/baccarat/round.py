"""The round wagered on and dealt: its wagers, its cards, its result and settlement,
the vigorish owed, and its void."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import ClassVar

from controller.rules.amounts import AmountError, as_amount, check_chips, shown
from controller.rules.baccarat import (
    BETS,
    CARDS,
    LAST_HAND,
    NO_MORE_BETS,
    Coup,
    Hand,
    Outcome,
    Settlement,
    VigorishLedger,
    announcements,
    collection_order,
    is_natural,
    settle,
    vigorish_collected,
)
from controller.table.baccarat.machine import Context
from controller.table.baccarat.shoe import Shoe
from controller.table.core import Refusal
from controller.table.events import NoMoreBets, PlayerLeaves, Wager
from drivers import messages as m

HANDS: tuple[Hand, Hand] = ("player", "banker")
PLACE_BETS = "PLACE YOUR BETS"
ROUND_VOID = "ROUND VOID: WAGERS RETURNED"


class Announced(dict[tuple[object, ...], tuple[str, ...]]):
    """What the dealer announces at each stage of a deal that a round has reached; made
    again from the hands, never part of a snapshot (controller/table/snapshot.py)."""

    snapshot: ClassVar[bool] = False


class Round:
    """Wagers until "no more bets" (545.8), the hands dealt (545.9-545.11), the result
    announced, collected and paid (545.12), the vigorish (545.13) and a void (545.15(e))."""

    def __init__(self, ctx: Context, shoe: Shoe) -> None:
        self._ctx = ctx
        self._shoe = shoe
        self._coup = Coup()  # the hands' cards, dealt into by the rules
        self._player: list[str] = self._coup.player
        self._banker: list[str] = self._coup.banker
        self._wagers: dict[int, dict[str, Decimal]] = {}
        self._in_round = False  # "no more bets" announced, round not ended
        self._ledger = VigorishLedger()
        self._announcements = Announced()  # at each stage of a deal (``_announced``)

    @property
    def wagers(self) -> Mapping[int, Mapping[str, Decimal]]:
        return self._wagers

    @property
    def in_round(self) -> bool:
        """Whether the round is being dealt: "no more bets" was announced."""
        return self._in_round

    @property
    def hands_on_layout(self) -> bool:
        """Whether both hands have their first two cards."""
        return len(self._banker) >= 2

    # ------------------------------------------------------------------ wagers

    def open_wagering(self, event: m.CardDrawn) -> None:
        last = self._shoe.is_last_hand(event)
        self._ctx.prompt(f"{LAST_HAND}: {PLACE_BETS}" if last else PLACE_BETS)

    def wager_problem(self, command: Wager) -> Refusal | None:
        sec, seats = self._ctx.sec, self._ctx.seats
        if not 1 <= command.seat <= seats:
            return Refusal(sec.seats, f"seat {command.seat} is not a seat 1..{seats}")
        if command.bet not in BETS:
            return Refusal(sec.bets, f"{command.bet!r} is not player, banker or tie")
        return self._chips_problem(command)

    def _chips_problem(self, command: Wager) -> Refusal | None:
        """Ruling R16: a wager is the table's chips (545.8(b)); 0 withdraws one before
        "no more bets" (545.8(c)), and where there is none it is no wager at all."""
        section, rules = self._ctx.sec.chips, self._ctx.rules
        amount = as_amount(command.amount)
        if amount is None or amount.is_signed():
            return Refusal(section, f"{shown(command.amount)} is not an amount (ruling R16)")
        if amount == 0:
            if command.bet in self._wagers.get(command.seat, {}):
                return None  # a withdrawal
            why = f"seat {command.seat} holds no {command.bet} wager to withdraw (ruling R16)"
            return Refusal(section, why)
        try:
            check_chips(amount, rules.chip_unit, rules.max_wager)
        except AmountError as exc:
            return Refusal(section, f"{command.bet} wager: {exc}")
        return None

    def place_wager(self, command: Wager) -> None:
        bets = self._wagers.setdefault(command.seat, {})
        if command.amount == 0:
            bets.pop(command.bet, None)
            if not bets:
                del self._wagers[command.seat]
            amount = Decimal(0)
        else:
            amount = Decimal(command.amount)
            bets[command.bet] = amount
        self._ctx.record(
            {
                "type": "wager",
                "round": self._shoe.round,
                "seat": command.seat,
                "bet": command.bet,
                "amount": amount,
            }
        )

    def no_more_bets(self, command: NoMoreBets) -> None:
        self._in_round = True
        self._ctx.record({"type": "no_more_bets", "round": self._shoe.round})
        self._ctx.prompt(NO_MORE_BETS, self._ctx.sec.no_more_bets)
        curatorship = self._ctx.sec.curatorship
        if curatorship is not None:  # the dealer calling the game tells the curator
            self._ctx.prompt(CARDS, curatorship.cards)

    def player_leaves(self, command: PlayerLeaves) -> Refusal | None:
        if command.seat in self._wagers:
            # Chips still on the layout: withdrawn first (before "no more bets") or
            # settled first (in the round being dealt).
            return Refusal(None, f"seat {command.seat} still has wagers down")
        owed, self._ledger = self._ledger.collect(command.seat)
        if owed:  # 545.13(e): collected when the player leaves, if before a new shoe
            self._vigorish_collected({command.seat: owed})
        return None

    def collect_vigorish(self) -> None:
        owed, self._ledger = self._ledger.collect_all()
        if owed:  # 545.13(e): deferred vigorish is collected before a new shoe
            self._vigorish_collected(dict(owed))

    def _vigorish_collected(self, owed: Mapping[int, Decimal]) -> None:
        """The markers' exact amounts owed, and what is collected on each: the whole
        amount rounded once, as it is collected (545.13(d), ruling R11)."""
        rules = self._ctx.rules
        self._ctx.record(
            {
                "type": "vigorish_collected",
                "owed": {str(seat): amount for seat, amount in owed.items()},
                "collected": {
                    str(seat): vigorish_collected(amount, rules) for seat, amount in owed.items()
                },
                "section": self._ctx.sec.vigorish,
            }
        )

    # ------------------------------------------------------------------ the cards

    def _dealt(self) -> Coup:
        """The round's coup: over the hands the round holds, which a restored snapshot
        replaces (it keeps the hands, not the coup)."""
        coup = self._coup
        if coup.player is not self._player or coup.banker is not self._banker:
            coup = self._coup = Coup.of(self._player, self._banker)
        return coup

    def _next_hand(self) -> Hand:
        hand = self._dealt().due
        if hand is None:
            raise RuntimeError("a card was routed to a complete round")
        return hand

    def completes_round(self, event: m.CardDrawn) -> bool:
        self._next_hand()
        return self._coup.would_complete(event.token)

    def deal(self, event: m.CardDrawn) -> tuple[Hand, ...]:
        """The card to the hand the rules name; the hands whose cards go now to the
        players who turn them over: under the players-reveal option the hands, then each
        third card, go face down to the highest wager on them (545.9(d), 543.9(c)(3))."""
        hand = self._next_hand()
        self._coup.add(event.token)
        cards = self._player if hand == "player" else self._banker
        self._ctx.record(
            {"type": "dealt", "round": self._shoe.round, "hand": hand, "card": event.token}
        )
        if self._ctx.rules.dealing != "players_reveal" or len(cards) < 2 or len(self._banker) < 2:
            return ()
        return (hand,) if len(cards) == 3 else HANDS

    def announce(self) -> None:
        for line in self._announced():
            self._ctx.prompt(line)

    def _announced(self) -> tuple[str, ...]:
        """``announcements`` of the hands, asked once for each stage of the deal this
        table reaches: they read no more of the hands than the cards out on each side,
        the hand due and the Point Counts (a third card means neither hand was a
        natural), which the round's coup keeps (tests/table/test_baccarat_announced.py)."""
        coup = self._dealt()
        key = (len(self._player), len(self._banker), coup.due, coup.player_total, coup.banker_total)
        lines = self._announcements.get(key)
        if lines is None:
            lines = self._announcements[key] = announcements(self._player, self._banker)
        return lines

    # ------------------------------------------------------------------ the end

    def end(self) -> Outcome:
        """545.12: the result, each seat's wagers settled, collected then paid."""
        outcome = self._dealt().outcome
        entry = self._end_entry(outcome)
        settled = self._settled(outcome)
        if settled:
            entry["seats"] = {
                str(seat): {
                    "net": s.net,
                    "vigorish": s.vigorish,
                    "vigorish_deferred": s.vigorish_deferred,
                }
                for seat, s in settled.items()
            }
        self._ctx.record(entry)
        if settled:
            collect, pay = collection_order(settled)
            self._ctx.record(
                {
                    "type": "settlement",
                    "round": self._shoe.round,
                    "collect": list(collect),
                    "pay": list(pay),
                    "section": self._ctx.sec.payment,
                }
            )
        return outcome

    def _settled(self, outcome: Outcome) -> dict[int, Settlement]:
        settled: dict[int, Settlement] = {}
        for seat, bets in sorted(self._wagers.items()):
            settled[seat] = s = settle(bets, outcome, self._ctx.rules)
            if s.vigorish_deferred:
                self._ledger = self._ledger.mark(seat, s.vigorish)
        return settled

    def void(self, reason: str, section: str | None) -> bool:
        """545.15(e): a round that cannot be completed is void, its wagers returned.
        Wagers taken for a round not yet dealt are returned as well. True: a round
        being dealt was void."""
        returned = {str(seat): dict(bets) for seat, bets in sorted(self._wagers.items()) if bets}
        if self._in_round:
            entry = self._end_entry(None)
            entry.update(returned=returned, reason=reason, section=section)
            self._ctx.record(entry)
            self._ctx.prompt(ROUND_VOID, section)
            return True
        if returned:
            self._ctx.record(
                {
                    "type": "wagers_returned",
                    "round": self._shoe.round,
                    "returned": returned,
                    "reason": reason,
                }
            )
            self._wagers = {}
        return False

    def _end_entry(self, outcome: Outcome | None) -> dict[str, object]:
        """The round's ``round_end`` record; ``outcome`` None: the round is void."""
        player, banker = self._player, self._banker
        void = outcome is None
        return {
            "type": "round_end",
            "round": self._shoe.round,
            "game": self._ctx.rules.game,
            "void": void,
            "player": player,
            "banker": banker,
            "player_total": None if void else self._coup.player_total,
            "banker_total": None if void else self._coup.banker_total,
            "result": outcome,
            "natural": is_natural(player[:2]) or is_natural(banker[:2]),
            "shoe": self._shoe.number,
        }

    def clear(self) -> None:
        """The next round: no cards, no wagers."""
        self._coup = Coup()
        self._player = self._coup.player
        self._banker = self._coup.banker
        self._wagers = {}
        self._in_round = False
