"""Parsing a rules file as systemd-udevd reads it: physical lines joined into logical
ones, each split into comma-separated tokens, each token checked on its own, and
every GOTO checked for its LABEL."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from tools.udev_rules.checks import check_token
from tools.udev_rules.keys import EFFECT_KEYS, WHITESPACE
from tools.udev_rules.model import Rule, RuleError, RulesFile, Token
from tools.udev_rules.scanner import LineError, Logical, scan_token

# udevd drops a logical line this long or longer (UDEV_LINE_SIZE).
MAX_LINE_LENGTH = 16384


def parse(text: str, path: str = "<rules>") -> RulesFile:
    """Parse a rules file's text; errors carry the physical line of the offending token."""
    rules: list[Rule] = []
    errors: list[RuleError] = []
    logical_lines, dangling = _logical_lines(text)
    for logical in logical_lines:
        if not logical.text:
            continue
        if len(logical.text) >= MAX_LINE_LENGTH:
            message = f"line is {MAX_LINE_LENGTH} characters or longer"
            errors.append(RuleError(path, logical.last_line, message))
            continue
        rule, messages = _parse_rule(logical)
        errors.extend(RuleError(path, line, message) for line, message in messages)
        if rule is not None:
            rules.append(rule)
    if dangling is not None:
        errors.append(RuleError(path, dangling, "file ends in a line continuation"))
    errors.extend(_check_gotos(rules, path))
    errors.sort(key=lambda e: e.line)
    return RulesFile(path, tuple(rules), tuple(errors))


def check_file(path: str | Path) -> list[RuleError]:
    """The problems of a rules file; raises OSError or UnicodeDecodeError if unreadable."""
    return list(parse(Path(path).read_text(encoding="utf-8"), str(path)).errors)


def _logical_lines(text: str) -> tuple[list[Logical], int | None]:
    """The file's logical lines, and the physical line of the continuation it ends in
    (None when it does not)."""
    logical: list[Logical] = []
    pending: list[tuple[str, int]] = []
    physical = re.split(r"\r\n|\r|\n", text)
    if physical and physical[-1] == "":
        physical.pop()
    for number, raw in enumerate(physical, start=1):
        # As udevd does: leading blanks go, a comment line is skipped even in the middle
        # of a continuation, and a trailing backslash joins the next line with no space.
        stripped = raw.lstrip(WHITESPACE)
        if stripped.startswith("#"):
            continue
        if stripped.endswith("\\"):
            pending.append((stripped[:-1], number))
            continue
        logical.append(Logical.join([*pending, (stripped, number)], number))
        pending = []
    return logical, pending[-1][1] if pending else None


def _parse_rule(logical: Logical) -> tuple[Rule | None, list[tuple[int, str]]]:
    """The rule on one logical line, or None when it has an error."""
    messages: list[tuple[int, str]] = []
    tokens: list[Token] = []
    try:
        for token in _tokens(logical, messages):
            tokens.append(token)
            messages.extend((token.line, m) for m in check_token(token))
    except LineError as exc:
        messages.append((exc.line, exc.message))
        return None, messages
    if not messages and not any(t.key in EFFECT_KEYS or not t.is_match for t in tokens):
        messages.append((logical.line_at(0), "rule has no effect: it only matches"))
    if messages:
        return None, messages
    return Rule(logical.line_at(0), tuple(tokens)), messages


def _tokens(logical: Logical, messages: list[tuple[int, str]]) -> list[Token]:
    """Split a logical line into tokens; delimiter mistakes go to ``messages``."""
    tokens: list[Token] = []
    i = 0
    while True:
        i, commas = _skip_delimiters(logical.text, i)
        if i >= len(logical.text):
            if commas:
                end = len(logical.text)
                messages.append((logical.line_at(end), "stray comma at the end of the rule"))
            return tokens
        here = logical.line_at(i)
        # Parsed first: when the token itself is broken, that is the error to report.
        token, i = scan_token(logical, i)
        problem = _delimiter_problem(tokens, commas, token)
        if problem is not None:
            messages.append((here, problem))
        tokens.append(token)


def _skip_delimiters(text: str, i: int) -> tuple[int, int]:
    """The index past the blanks and commas at ``i``, and how many commas there were."""
    commas = 0
    while i < len(text) and (text[i] in WHITESPACE or text[i] == ","):
        commas += text[i] == ","
        i += 1
    return i, commas


def _delimiter_problem(before: Sequence[Token], commas: int, token: Token) -> str | None:
    """What is wrong with the commas between the tokens ``before`` and ``token``."""
    if not before and commas:
        return "stray comma before the first key"
    if before and commas == 0:
        return f"missing comma between {before[-1].key} and {token.key}"
    if commas > 1:
        return "more than one comma between two keys"
    return None


def _check_gotos(rules: Sequence[Rule], path: str) -> list[RuleError]:
    errors: list[RuleError] = []
    for index, rule in enumerate(rules):
        for goto in rule.assignments("GOTO"):
            if not any(later.value_of("LABEL") == goto.value for later in rules[index + 1 :]):
                errors.append(
                    RuleError(path, goto.line, f'GOTO="{goto.value}" has no LABEL after it')
                )
    return errors
