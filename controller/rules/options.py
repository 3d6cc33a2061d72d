"""Reading Rules Submission options from a parsed TOML/JSON table, one typed value at a
time, with an error that names the key and the section that governs it."""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from decimal import Decimal
from typing import Any, overload

from controller.rules.amounts import CEILING, CENT, PLAIN, as_amount, shown


class RulesError(ValueError):
    """A Rules Submission option that is unknown, mistyped or forbidden by the chapter."""


def check_keys(d: Mapping[str, Any], keys: Collection[str]) -> None:
    """RulesError unless ``d`` is a table of options, each one of ``keys``."""
    if not isinstance(d, Mapping):
        raise RulesError(f"rules: expected a table of options, got {type(d).__name__}")
    for key in d:
        if key not in keys:
            raise RulesError(
                f"rules.{key}: unknown option; expected one of {', '.join(keys)} "
                "(Rules Submission, 521.2)"
            )


def whole(d: Mapping[str, Any], key: str, default: int, section: str) -> int:
    v = d.get(key, default)
    if not isinstance(v, int) or isinstance(v, bool):
        raise RulesError(f"rules.{key}: expected a whole number, got {v!r} ({section})")
    return v


def text(d: Mapping[str, Any], key: str, default: str, section: str) -> str:
    v = d.get(key, default)
    if not isinstance(v, str):
        raise RulesError(f"rules.{key}: expected a string, got {v!r} ({section})")
    return v


def flag(d: Mapping[str, Any], key: str, default: bool, section: str) -> bool:
    v = d.get(key, default)
    if not isinstance(v, bool):
        raise RulesError(f"rules.{key}: expected true or false, got {v!r} ({section})")
    return v


@overload
def money(d: Mapping[str, Any], key: str, default: Decimal, section: str) -> Decimal: ...
@overload
def money(d: Mapping[str, Any], key: str, default: None, section: str) -> Decimal | None: ...
def money(d: Mapping[str, Any], key: str, default: Decimal | None, section: str) -> Decimal | None:
    """An amount: a whole number, a decimal number or a decimal string ("2.50"), more
    than 0, in whole cents and at most ``CEILING`` (ruling R16)."""
    if key not in d:
        return default
    value = d[key]
    amount = _option_amount(value)
    if amount is None:
        raise RulesError(
            f'rules.{key}: expected an amount such as 100 or "2.50", got {shown(value)} ({section})'
        )
    check_money(key, amount, section)
    return amount


def _option_amount(value: object) -> Decimal | None:
    """An option's value as an exact amount, or None: text must be a plain decimal."""
    if isinstance(value, str):
        return Decimal(value) if PLAIN.fullmatch(value) else None
    if isinstance(value, float) and math.isfinite(value):
        # repr() first: a TOML float 0.1 means one tenth, not its binary neighbour.
        return Decimal(repr(value))
    return as_amount(value)


def check_money(key: str, amount: Decimal, section: str) -> None:
    """RulesError unless ``amount`` is more than 0, in whole cents, at most ``CEILING``."""
    if amount <= 0 or amount > CEILING or amount % CENT != 0:
        raise RulesError(
            f"rules.{key}: {shown(amount)} is not an amount of chips: more than 0, in whole "
            f"cents, at most {CEILING:,} by ruling R16 ({section})"
        )


def check_table_limits(
    chip_unit: Decimal, max_wager: Decimal, unit_section: str, max_section: str
) -> None:
    """RulesError unless the table's smallest chip and its maximum wager are each a sane
    amount and the maximum is a whole number of chips (ruling R16)."""
    check_money("chip_unit", chip_unit, unit_section)
    check_money("max_wager", max_wager, max_section)
    if chip_unit > max_wager:
        raise RulesError(
            f"rules.chip_unit: {chip_unit} is more than the maximum wager {max_wager} "
            f"by ruling R16 ({unit_section})"
        )
    if max_wager % chip_unit != 0:
        raise RulesError(
            f"rules.max_wager: {max_wager} is not a whole number of {chip_unit} chips "
            f"by ruling R16 ({max_section})"
        )
