"""Amounts are chips (ruling R16), at every game's table.

A wager is placed in chips (545.8(b), 543.8(b), 551.6(e)): a positive amount in whole
units of the table's chip unit, no larger than the table's maximum wager. The chapters
leave both to the certificate holder, as 551.7(b)(2) does for Match-the-Dealer, so
each game's Rules Submission options carry ``chip_unit`` and ``max_wager``.

Money is ``Decimal`` in currency units. Every amount the table takes is bounded by
``CEILING``, so no payout or sum of payouts leaves ``Decimal``'s exact range (an
amount of ``1.5E+999999999`` once overflowed it at settlement).
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Final

CENT: Final = Decimal("0.01")  # options are whole cents, as 545.13(d), 543.13(d) count money
CEILING: Final = Decimal(10) ** 9  # above any table's limit; payouts stay exact below it
DEFAULT_CHIP_UNIT: Final = Decimal(1)
DEFAULT_MAX_WAGER: Final = Decimal(10_000)

# An amount as a person writes it: digits, and a point with digits after it. No sign,
# exponent, NaN or infinity.
PLAIN: Final = re.compile(r"[0-9]+(\.[0-9]+)?")


class AmountError(ValueError):
    """An amount that is not a wager of the table's chips; the message says why."""


def shown(value: object) -> str:
    """``value`` short enough for one line: a thousand digits are not read out."""
    if isinstance(value, int) and not isinstance(value, bool):
        value = Decimal(value)  # str() of a huge int fails (int_max_str_digits)
    if isinstance(value, Decimal):
        # Positional, as a person writes it, unless the exponent is too far out to print.
        small = value.is_finite() and abs(value.adjusted()) <= 24
        text = format(value, "f") if small else str(value)
    else:
        text = repr(value)
    return text if len(text) <= 24 else f"{text[:12]}...{text[-6:]} ({len(text)} characters)"


def as_amount(value: object) -> Decimal | None:
    """``value`` as an exact amount: a whole number or a finite ``Decimal``; None for
    anything else (true or false, a float, text, NaN, an infinity)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return Decimal(value)
    if isinstance(value, Decimal) and value.is_finite():
        return value
    return None


def check_chips(amount: Decimal, unit: Decimal, maximum: Decimal) -> None:
    """AmountError unless ``amount`` is a wager of chips: more than 0, no larger than
    ``maximum``, in whole units of ``unit`` (ruling R16)."""
    if amount.is_signed() or amount == 0:
        raise AmountError(f"{shown(amount)} is not an amount more than 0 (ruling R16)")
    if amount > maximum:
        raise AmountError(
            f"{shown(amount)} is over the table's maximum wager of {maximum} (ruling R16)"
        )
    # Bounded by ``maximum`` first, so the remainder is exact.
    if amount % unit != 0:
        raise AmountError(
            f"{shown(amount)} is not a whole number of the table's {unit} chips (ruling R16)"
        )


def chips(value: object, unit: Decimal, maximum: Decimal) -> Decimal:
    """``value`` as a wager of chips (``check_chips``); AmountError otherwise."""
    amount = as_amount(value)
    if amount is None:
        raise AmountError(f"{shown(value)} is not an amount (ruling R16)")
    check_chips(amount, unit, maximum)
    return amount
