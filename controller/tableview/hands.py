"""The hands on a layout as the journal deals them, with their running totals by each
game's own rules (controller/rules/): a card still sealed (551.8(e)) counts for
nothing and is shown as face down, its value unknown to the view."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

from controller.rules.baccarat.points import point
from controller.rules.spanish21.hands import hand_value

FACE_DOWN = None  # a card dealt face down and not yet revealed


def amount(value: object) -> str | None:
    """An amount as the journal writes it: text (``"12.5"``); numbers (a bench's
    lines) written the same way; None stays None."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return format(Decimal(repr(value)).normalize(), "f")
    if isinstance(value, Decimal):
        return format(value.normalize(), "f")
    return str(value)


def known(cards: Sequence[str | None]) -> list[str]:
    return [c for c in cards if isinstance(c, str)]


def baccarat_hand(cards: Sequence[str | None]) -> dict[str, object]:
    """The Player's or Banker's Hand: its cards and its Point Count (545.10(a))."""
    seen = known(cards)
    return {"cards": list(cards), "total": point(seen) if seen else None}


def spanish21_hand(cards: Sequence[str | None]) -> dict[str, object]:
    """A box's hand or the dealer's: cards, total, soft, bust. With a card face down
    the total is of the cards face up only (what anyone at the table can see)."""
    seen = known(cards)
    if not seen:
        return {"cards": list(cards), "total": None, "soft": False, "bust": False}
    total, soft = hand_value(seen)
    return {"cards": list(cards), "total": total, "soft": soft, "bust": total > 21}
