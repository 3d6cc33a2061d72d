"""A round's result as a view shows it, from the round's ``round_end`` entry (and the
Spanish 21 ``settlement`` just before it): who won, each hand's outcome, each seat's or
box's net and its commission (vigorish), in the journal's amounts."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal, InvalidOperation

from controller.tableview.hands import amount
from controller.tableview.words import outcome_words


def _decimal(value: object) -> Decimal:
    text = amount(value)
    try:
        return Decimal(text) if text is not None else Decimal(0)
    except InvalidOperation:
        return Decimal(0)


def _total(values: list[object]) -> str:
    return format(sum((_decimal(v) for v in values), Decimal(0)), "f")


def _void(entry: Mapping[str, object]) -> dict[str, object]:
    returned = entry.get("returned")
    return {
        "returned": {str(k): amount(v) for k, v in returned.items()}
        if isinstance(returned, Mapping)
        else {},
        "reason": entry.get("reason"),
        "section": entry.get("section"),
    }


def baccarat_result(entry: Mapping[str, object]) -> dict[str, object]:
    """``round_end`` of Baccarat or Midibaccarat: the winner, naturals, each seat's net
    and vigorish (545.13)."""
    winner = entry.get("result")
    seats: dict[str, object] = {}
    found = entry.get("seats")
    for seat, settled in found.items() if isinstance(found, Mapping) else ():
        if isinstance(settled, Mapping):
            seats[str(seat)] = {
                "net": amount(settled.get("net")),
                "vigorish": amount(settled.get("vigorish")),
                "vigorish_deferred": bool(settled.get("vigorish_deferred")),
            }
    result: dict[str, object] = {
        "round": entry.get("round"),
        "void": bool(entry.get("void")),
        "winner": winner,
        "words": outcome_words(str(winner)) if winner else "round void",
        "natural": bool(entry.get("natural")),
        "player_total": entry.get("player_total"),
        "banker_total": entry.get("banker_total"),
        "seats": seats,
    }
    if entry.get("void"):
        result.update(_void(entry))
    return result


def _box(settled: Mapping[str, object]) -> dict[str, object]:
    hands: list[dict[str, object]] = []
    found = settled.get("hands")
    for hand in found if isinstance(found, list) else ():
        if isinstance(hand, Mapping):
            outcome = str(hand.get("outcome"))
            hands.append(
                {
                    "cards": list(cards) if isinstance(cards := hand.get("cards"), list) else [],
                    "total": hand.get("total"),
                    "outcome": outcome,
                    "words": outcome_words(outcome),
                    "net": amount(hand.get("net")),
                }
            )
    box: dict[str, object] = {"hands": hands}
    nets: list[object] = [h["net"] for h in hands]
    for side in ("match_the_dealer_net", "insurance_net", "settled"):
        if side in settled:
            box[side] = amount(settled.get(side))
            if side != "settled":
                nets.append(settled.get(side))
    box["net"] = _total(nets)
    return box


def spanish21_result(entry: Mapping[str, object]) -> dict[str, object]:
    """``round_end`` of Spanish 21: the dealer's total, each box's hands (outcome, net),
    its side wagers' nets and its net in all."""
    boxes: dict[str, object] = {}
    found = entry.get("boxes")
    for box, settled in found.items() if isinstance(found, Mapping) else ():
        if isinstance(settled, Mapping):
            boxes[str(box)] = _box(settled)
    bonus = entry.get("others_bonus")
    result: dict[str, object] = {
        "round": entry.get("round"),
        "void": bool(entry.get("void")),
        "words": "round void" if entry.get("void") else f"dealer {entry.get('dealer_total')}",
        "dealer_total": entry.get("dealer_total"),
        "dealer_bust": isinstance(entry.get("dealer_total"), int)
        and int(str(entry.get("dealer_total"))) > 21,
        "boxes": boxes,
    }
    if isinstance(bonus, Mapping):
        result["others_bonus"] = {str(k): amount(v) for k, v in bonus.items()}
    if entry.get("void"):
        result.update(_void(entry))
    return result


def returned_result(entry: Mapping[str, object]) -> dict[str, object]:
    """``wagers_returned``: a round never dealt; its wagers handed back."""
    return {
        "round": entry.get("round"),
        "void": True,
        "words": "wagers returned",
        **_void(entry),
    }
