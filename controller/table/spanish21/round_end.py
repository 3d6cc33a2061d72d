"""The round's end: settled against the dealer's hand in the order the Rules Submission
names, or void; then its cards are collected and the next round is wagered on."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING

from controller.rules.spanish21 import (
    BoxRound,
    Hand,
    HandResult,
    RoundResult,
    SideWager,
    hand_value,
    insurance_net,
    settle_round,
    settlement_steps,
    void_box,
)
from controller.table.spanish21.machine import GAME, IN_ROUND
from controller.table.spanish21.part import Part

if TYPE_CHECKING:
    from controller.table.spanish21.table import Spanish21Table

ROUND_VOID = "ROUND VOID: WAGERS RETURNED"


@dataclass(frozen=True, slots=True)
class Void:
    """Why a round is void, and whether the cards are reshuffled after it."""

    reason: str
    section: str | None
    reshuffle: bool


class RoundEnd(Part):
    """A round's settlement or its void, and the voids waiting to happen: one due as soon
    as nothing else runs, one due once a floorperson clears the table."""

    def __init__(self, table: Spanish21Table) -> None:
        super().__init__(table)
        self.void_due: Void | None = None
        self.void_on_clear: Void | None = None

    def pending(self) -> bool:
        table = self._table
        if self.void_due is not None and table.state in IN_ROUND:
            void, self.void_due = self.void_due, None
            table.void(void)
            return True
        return False

    def cleared(self) -> None:
        if self.void_on_clear is not None:
            self.void_due, self.void_on_clear = self.void_on_clear, None

    # ------------------------------------------------------------------ settled

    def end(self, item: object) -> None:
        table = self._table
        dealer = table._round.dealer
        hands = table._round.hands
        # 551.6(h): the $50 goes to each other player, once, whatever his boxes (551.14).
        players = {box: BoxRound(table._wagers.player(box), h) for box, h in hands.items()}
        result = settle_round(players, dealer)
        boxes: dict[str, object] = {
            str(box): self._settled(box, h, result.boxes[box]) for box, h in sorted(hands.items())
        }
        record: dict[str, object] = {
            "type": "round_end",
            "round": table.round,
            "game": GAME,
            "void": False,
            "dealer": list(dealer),
            "dealer_total": hand_value(dealer)[0],
            "boxes": boxes,
            "shoe": table.shoe_number,
        }
        if result.others_bonus:  # 551.6(h): $50 to each other player
            record["others_bonus"] = dict(sorted(result.others_bonus.items()))
        self._record_settlement(result)
        table._record(record)
        self.next_round()

    def _settled(
        self, box: int, hands: tuple[Hand, ...], results: tuple[HandResult, ...]
    ) -> dict[str, object]:
        wagers = self._table._wagers
        entry: dict[str, object] = {
            "hands": [
                {"cards": list(h.cards), "total": h.total, "outcome": r.outcome, "net": r.net}
                for h, r in zip(hands, results, strict=True)
            ]
        }
        if box in wagers.match:
            entry["match_the_dealer_net"] = wagers.match_net[box]
        if box in wagers.insurance:
            net = wagers.insurance_net.get(box)
            entry["insurance_net"] = (
                insurance_net(wagers.insurance[box], self._table._round.dealer)
                if net is None
                else net
            )
        return entry

    def _record_settlement(self, result: RoundResult) -> None:
        """The order the wagers left on the layout are collected and paid (§ 635a.7(p))."""
        table = self._table
        up = table._round.dealer[0]
        order = table.rules.settlement_order
        steps = settlement_steps(table._round.hands, result.boxes, up, order)
        table._record(
            {
                "type": "settlement",
                "round": table.round,
                "order": order,
                "steps": [
                    {"box": s.box, "hand": s.hand, "action": s.action, "amount": s.amount}
                    for s in steps
                ],
                "section": "635a.7(p)",
            }
        )

    # ------------------------------------------------------------------ void

    def void_reshuffles(self, void: Void) -> bool:
        return void.reshuffle or self._table._in_play.is_last_round(void)

    def void(self, void: Void) -> None:
        """Every void (551.16(a), (b), (l)(1), a restart without the hole card): the hands
        still in action dead and their stakes returned; what the procedure settled before
        stays settled (ruling R10, ``controller.rules.spanish21.voids``), Match-the-Dealer
        included (551.7(f)). Wagers of a round not yet dealt go back."""
        table = self._table
        table._reader.disarm()
        if not table._round.in_round:
            table._wagers.return_unplayed(void.reason)
            return
        dealer = table._round.dealer
        unread = table._hole_card.unread
        if table._round.hole_dealt and not unread:
            # The cards are collected in order (551.8(i)): nothing rides on the hole card.
            table._round.revealed = True
            table._record(
                {
                    "type": "reveal",
                    "round": table.round,
                    "card": dealer[1],
                    "section": "551.8(i)",
                    **table._hole_card.reveal_opened(dealer[1]),
                }
            )
        boxes: dict[str, object] = {}
        returned: dict[str, Decimal] = {}
        for box in sorted(table._wagers.basic):
            boxes[str(box)], returned[str(box)] = self._voided(box)
        table._record(
            {
                "type": "round_end",
                "round": table.round,
                "game": GAME,
                "void": True,
                # A hole card not known after a restart is collected unread.
                "dealer": [None if unread and i == 1 else c for i, c in enumerate(dealer)],
                "dealer_total": None,
                "boxes": boxes,
                "shoe": table.shoe_number,
                "returned": returned,
                "reason": void.reason,
                "section": void.section,
            }
        )
        table._prompt(ROUND_VOID, void.section)
        self.next_round()

    def _voided(self, box: int) -> tuple[dict[str, object], Decimal]:
        """A box of a void round (ruling R10): each hand as the void found it, settled
        before it or dead, and what goes back to its player."""
        table = self._table
        wagers, round_ = table._wagers, table._round
        hands = round_.hands.get(box, ())
        sides = {
            key: SideWager(placed[box], nets.get(box))
            for key, placed, nets in (
                ("match_the_dealer_net", wagers.match, wagers.match_net),
                ("insurance_net", wagers.insurance, wagers.insurance_net),
            )
            if box in placed
        }
        voided = void_box(
            hands,
            wagers.basic[box],
            table.up_card,
            sides.values(),
            peeked=round_.peeked,
            decisions_started=round_.decisions_started,
        )
        entry: dict[str, object] = {
            "hands": [
                {"cards": list(h.cards), "total": h.total, "outcome": r.outcome, "net": r.net}
                for h, r in zip(hands, voided.hands, strict=True)
            ]
        }
        for key, side in sides.items():
            entry[key] = side.net or 0
        entry.update(settled=voided.settled, returned=voided.returned)
        return entry, voided.returned

    # ------------------------------------------------------------------ the next round

    def next_round(self) -> None:
        table = self._table
        self._collect()
        table._reader.disarm()
        table._in_play.rounds_completed += 1
        table._wagers.round_over()
        table._round.clear()
        table._reader.misuse = None
        table._hole_card.forget()

    def _collect(self) -> None:
        """As a round ends, void or not: its cards go to the discard rack (551.8(i)), and
        so does an exposed card drawn in error that no player took and the dealer could
        not use (551.16(d)). A card drawn in error and never seen stays the next card
        (551.16(c))."""
        table = self._table
        table._dealer_errors.discard_exposed()
        table._rack.collect()
        table._dealer_errors.round_over()
        table._missed_cards.round_over()
        self.void_on_clear = None
        table._rack.round_state = None
