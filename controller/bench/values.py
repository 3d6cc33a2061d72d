"""Reading one value of a scenario: each mistake a ScenarioError naming its place."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from controller.bench.scenario import ScenarioError
from controller.rules.amounts import PLAIN, AmountError, chips
from controller.rules.amounts import shown as shown_amount

SHOWN = 60  # the most of a scenario's value a message repeats, in characters


def shown(value: object) -> str:
    """``value`` as a message names it: its repr, cut to ``SHOWN`` characters. A value
    in a scenario may be a megabyte of text, or lists nested a thousand deep, whose
    repr would overflow the stack; a number is shown as an amount is (a whole number of
    thousands of digits has no repr)."""
    if isinstance(value, int | Decimal) and not isinstance(value, bool):
        return shown_amount(value)
    try:
        text = repr(value)
    except RecursionError:
        return f"a {type(value).__name__} nested too deeply"
    return text if len(text) <= SHOWN else text[: SHOWN - 3] + "..."


def whole(data: Mapping[str, Any], key: str, default: int, where: str = "") -> int:
    """``data[key]`` (or ``default``) as a whole number."""
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        at = f"{where}.{key}" if where else key
        raise ScenarioError(f"{at}: expected a whole number, got {shown(value)}")
    return value


def is_number(value: object) -> bool:
    """A JSON number: a whole or a decimal number, not true or false."""
    return not isinstance(value, bool) and isinstance(value, int | float)


class WrittenNumber(float):
    """A scenario's JSON number with a point or an exponent, and its text as written: a
    float to every reader of rates and times, its exact digits to the amounts'."""

    text: str

    def __new__(cls, text: str) -> WrittenNumber:
        number = super().__new__(cls, text)
        number.text = text
        return number

    def __repr__(self) -> str:
        return self.text  # a mistake is shown as the scenario wrote it


def amount(value: object, at: str, section: str, unit: Decimal, maximum: Decimal) -> Decimal:
    """A wager's amount at ``at``: a JSON number written plainly, a whole number of the
    table's ``unit`` chips up to its ``maximum`` (ruling R16); ScenarioError otherwise."""
    if isinstance(value, float):
        text = value.text if isinstance(value, WrittenNumber) else repr(value)
        if not PLAIN.fullmatch(text.removeprefix("-")):
            raise ScenarioError(
                f"{at}: {shown(value)} is not an amount written plainly, ruling R16 ({section})"
            )
        value = Decimal(text)
    if isinstance(value, bool) or not isinstance(value, int | Decimal) or value <= 0:
        raise ScenarioError(f"{at}: {shown(value)} is not an amount more than 0 ({section})")
    try:
        return chips(value, unit, maximum)
    except AmountError as exc:
        raise ScenarioError(f"{at}: {exc} ({section})") from None
