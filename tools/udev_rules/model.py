"""A parsed rules file: its rules, their tokens, and the problems found in it."""

from __future__ import annotations

from dataclasses import dataclass

from tools.udev_rules.keys import MATCH_OPS, MATCH_WITH_ASSIGN_OP


@dataclass(frozen=True, slots=True)
class Token:
    """One ``KEY{attr} OP "value"`` pair; ``line`` is the physical line it starts on."""

    key: str
    attr: str | None
    op: str
    value: str
    line: int
    case_insensitive: bool = False

    @property
    def is_match(self) -> bool:
        return self.op in MATCH_OPS or self.key in MATCH_WITH_ASSIGN_OP


@dataclass(frozen=True, slots=True)
class Rule:
    """One logical line; ``line`` is the physical line it starts on."""

    line: int
    tokens: tuple[Token, ...]

    def assignments(self, key: str) -> list[Token]:
        return [t for t in self.tokens if t.key == key and not t.is_match]

    def value_of(self, key: str) -> str | None:
        found = self.assignments(key)
        return found[0].value if found else None


@dataclass(frozen=True, slots=True)
class RuleError:
    path: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


@dataclass(frozen=True, slots=True)
class RulesFile:
    path: str
    rules: tuple[Rule, ...]
    errors: tuple[RuleError, ...]
