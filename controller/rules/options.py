"""Reading Rules Submission options from a parsed TOML/JSON table, one typed value at a
time, with an error that names the key and the section that governs it."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any


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
