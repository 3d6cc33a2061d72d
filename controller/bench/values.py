"""Reading one value of a scenario: each mistake a ScenarioError naming its place."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from controller.bench.scenario import ScenarioError

SHOWN = 60  # the most of a scenario's value a message repeats, in characters


def shown(value: object) -> str:
    """``value`` as a message names it: its repr, cut to ``SHOWN`` characters. A value
    in a scenario may be a megabyte of text, or lists nested a thousand deep, whose
    repr would overflow the stack."""
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
