"""What is wrong with one token on its own: its key, attribute, operator and value."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from tools.udev_rules.keys import KEYS, AttrUse, KeySpec, has_substitution
from tools.udev_rules.model import Token


def check_token(token: Token) -> list[str]:
    spec = KEYS.get(token.key)
    if spec is None:
        hint = " (keys are upper case)" if token.key.upper() in KEYS else ""
        return [f"unknown key {token.key!r}{hint}"]
    found = (_attribute_problem(token, spec), _operator_problem(token, spec), _value_problem(token))
    return [problem for problem in found if problem is not None]


def _attribute_problem(token: Token, spec: KeySpec) -> str | None:
    key, attr = token.key, token.attr
    if spec.attr is AttrUse.NONE and attr is not None:
        return f"{key} takes no {{...}} attribute"
    if spec.attr is AttrUse.REQUIRED and not attr:
        return f"{key} needs an attribute, as in {key}{{name}}"
    if attr and spec.attr_names and attr not in spec.attr_names:
        names = ", ".join(sorted(spec.attr_names))
        return f"{key}{{{attr}}}: unknown attribute, expected one of {names}"
    return None


def _operator_problem(token: Token, spec: KeySpec) -> str | None:
    if token.op not in spec.ops:
        return f"{token.key} is {spec.role}: it takes {spec.describe_ops()}, not {token.op}"
    if token.case_insensitive and not token.is_match:
        return f"{token.key}: the i prefix is only for == and !="
    return None


def _value_problem(token: Token) -> str | None:
    check = _VALUE_CHECKS.get(token.key)
    return check(token) if check is not None else None


def _test_mode(token: Token) -> str | None:
    if token.attr and not re.fullmatch(r"[0-7]{1,4}", token.attr):
        return f"TEST{{{token.attr}}}: the attribute must be an octal mode"
    return None


def _attrs_path(token: Token) -> str | None:
    attr = token.attr or ""
    if attr.startswith("device/"):
        return "ATTRS{device/...}: the device link may go away; match the parent's own attribute"
    if "../" in attr:
        return "ATTRS{...}: do not climb sysfs with ../; ATTRS already searches the parents"
    return None


def _subsystem(token: Token) -> str | None:
    if token.value in ("bus", "class"):
        return f'SUBSYSTEM=="{token.value}" is obsolete: write "subsystem"'
    return None


# The checks below are of assigned values; a match may compare with anything.


def _mode(token: Token) -> str | None:
    value = token.value
    if token.is_match or has_substitution(value) or re.fullmatch(r"[0-7]{3,4}", value):
        return None
    return f"MODE={value!r}: expected an octal mode such as 0660"


def _not_empty(token: Token) -> str | None:
    return f"{token.key}: empty value" if not token.is_match and not token.value else None


def _name(token: Token) -> str | None:
    if not token.is_match and token.value in ("", "%k"):
        return f"NAME={token.value!r} has no effect"
    return None


_VALUE_CHECKS: Mapping[str, Callable[[Token], str | None]] = {
    "TEST": _test_mode,
    "ATTRS": _attrs_path,
    "SUBSYSTEM": _subsystem,
    "MODE": _mode,
    "NAME": _name,
    **dict.fromkeys(("OWNER", "GROUP", "TAG", "RUN", "SECLABEL", "LABEL", "GOTO"), _not_empty),
}
