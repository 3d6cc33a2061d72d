"""The vocabulary of udev rules as udev(7) defines it: blanks, operators and keys."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum

WHITESPACE = " \t\n\r"
MATCH_OPS = frozenset({"==", "!="})
# Longest first, so that "==" is not read as "=" followed by "=".
OPERATORS = ("==", "!=", "+=", "-=", ":=", "=")
_OP_ORDER = {op: n for n, op in enumerate(("==", "!=", "=", "+=", "-=", ":="))}


class AttrUse(Enum):
    """Whether a key takes a ``{...}`` attribute, as in ``ATTRS{serial}``."""

    NONE = "none"
    REQUIRED = "required"
    OPTIONAL = "optional"


@dataclass(frozen=True, slots=True)
class KeySpec:
    ops: frozenset[str]
    attr: AttrUse = AttrUse.NONE
    # The attribute names the key accepts; empty when any name will do.
    attr_names: frozenset[str] = frozenset()

    @property
    def role(self) -> str:
        if self.ops <= MATCH_OPS:
            return "a match key"
        if not self.ops & MATCH_OPS:
            return "an assignment key"
        return "a key"

    def describe_ops(self) -> str:
        return ", ".join(sorted(self.ops, key=_OP_ORDER.__getitem__))


def _spec(ops: str, attr: AttrUse = AttrUse.NONE, names: str = "") -> KeySpec:
    return KeySpec(frozenset(ops.split()), attr, frozenset(names.split()))


_M = "== !="

# The keys of udev(7). Where udevd accepts an operator with a warning and substitutes
# another (GROUP+= taken as GROUP=, ENV:= as ENV=...), the operator is refused here.
KEYS: Mapping[str, KeySpec] = {
    # Match keys.
    "ACTION": _spec(_M),
    "DEVPATH": _spec(_M),
    "KERNEL": _spec(_M),
    "SUBSYSTEM": _spec(_M),
    "DRIVER": _spec(_M),
    "KERNELS": _spec(_M),
    "SUBSYSTEMS": _spec(_M),
    "DRIVERS": _spec(_M),
    "ATTRS": _spec(_M, AttrUse.REQUIRED),
    "TAGS": _spec(_M),
    "RESULT": _spec(_M),
    "CONST": _spec(_M, AttrUse.REQUIRED, "arch virt"),
    "TEST": _spec(_M, AttrUse.OPTIONAL),
    # Matches that run something; udevd reads their customary "=" as "==".
    "PROGRAM": _spec(_M + " ="),
    "IMPORT": _spec(_M + " =", AttrUse.REQUIRED, "program builtin file db cmdline parent"),
    # Keys that match with ==/!= and assign with the others.
    "SYMLINK": _spec(_M + " = += -= :="),
    "NAME": _spec(_M + " = :="),
    "ENV": _spec(_M + " = +=", AttrUse.REQUIRED),
    "TAG": _spec(_M + " = += -="),
    "ATTR": _spec(_M + " =", AttrUse.REQUIRED),
    "SYSCTL": _spec(_M + " =", AttrUse.REQUIRED),
    # Assignment keys.
    "OWNER": _spec("= :="),
    "GROUP": _spec("= :="),
    "MODE": _spec("= :="),
    "OPTIONS": _spec("= += :="),
    "SECLABEL": _spec("= +=", AttrUse.REQUIRED),
    "RUN": _spec("= += :=", AttrUse.OPTIONAL, "program builtin"),
    "LABEL": _spec("="),
    "GOTO": _spec("="),
}

# Keys whose "=" is still a match (see KEYS).
MATCH_WITH_ASSIGN_OP = frozenset({"PROGRAM", "IMPORT"})
# Keys that do something besides matching; a rule with none of them has no effect.
EFFECT_KEYS = frozenset({"IMPORT", "LABEL", "GOTO"})


def has_substitution(value: str) -> bool:
    return "$" in value or "%" in value
