"""Check udev rules files as systemd-udevd reads them, and replay them on fake devices.

``python -m controller.udev_rules FILE...`` prints one ``FILE:LINE: message`` line per
problem and exits 2, or prints nothing and exits 0. It refuses what udevd would reject
or only warn about: an unknown key, an operator the key does not take, a missing or
doubled comma, a bad quote, a continuation at end of file.

:func:`evaluate` runs a parsed file against a :class:`FakeDevice` and reports what a
real device with those properties would get: symlinks, owner, group, mode, tags,
properties and sysfs attribute writes. It models only what a fake device can answer;
a rule that needs more (PROGRAM, IMPORT, substitutions...) raises :class:`NotEvaluable`.
"""

from __future__ import annotations

import argparse
import fnmatch
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path

# udevd drops a logical line this long or longer (UDEV_LINE_SIZE).
MAX_LINE_LENGTH = 16384

_WHITESPACE = " \t\n\r"
_MATCH_OPS = frozenset({"==", "!="})
# Longest first, so that "==" is not read as "=" followed by "=".
_OPERATORS = ("==", "!=", "+=", "-=", ":=", "=")
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
_MATCH_WITH_ASSIGN_OP = frozenset({"PROGRAM", "IMPORT"})
# Keys that do something besides matching; a rule with none of them has no effect.
_EFFECT_KEYS = frozenset({"IMPORT", "LABEL", "GOTO"})


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
        return self.op in _MATCH_OPS or self.key in _MATCH_WITH_ASSIGN_OP


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


class _LineError(Exception):
    """A syntax error that ends the parsing of one logical line."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.message = message


@dataclass(frozen=True, slots=True)
class _Logical:
    """A logical line joined from continued physical lines, with each character's line."""

    text: str
    lines: tuple[int, ...]
    last_line: int

    def line_at(self, index: int) -> int:
        return self.lines[index] if index < len(self.lines) else self.last_line


def parse(text: str, path: str = "<rules>") -> RulesFile:
    """Parse a rules file's text; errors carry the physical line of the offending token."""
    rules: list[Rule] = []
    errors: list[RuleError] = []
    pending: list[tuple[str, int]] = []
    physical = re.split(r"\r\n|\r|\n", text)
    if physical and physical[-1] == "":
        physical.pop()
    for number, raw in enumerate(physical, start=1):
        # As udevd does: leading blanks go, a comment line is skipped even in the middle
        # of a continuation, and a trailing backslash joins the next line with no space.
        stripped = raw.lstrip(_WHITESPACE)
        if stripped.startswith("#"):
            continue
        if stripped.endswith("\\"):
            pending.append((stripped[:-1], number))
            continue
        fragments = [*pending, (stripped, number)]
        pending = []
        logical = _Logical(
            text="".join(part for part, _ in fragments),
            lines=tuple(n for part, n in fragments for _ in part),
            last_line=number,
        )
        if not logical.text:
            continue
        if len(logical.text) >= MAX_LINE_LENGTH:
            errors.append(
                RuleError(path, number, f"line is {MAX_LINE_LENGTH} characters or longer")
            )
            continue
        rule, messages = _parse_rule(logical)
        errors.extend(RuleError(path, line, message) for line, message in messages)
        if rule is not None:
            rules.append(rule)
    if pending:
        errors.append(RuleError(path, pending[-1][1], "file ends in a line continuation"))
    errors.extend(_check_gotos(rules, path))
    errors.sort(key=lambda e: e.line)
    return RulesFile(path, tuple(rules), tuple(errors))


def check_file(path: str | Path) -> list[RuleError]:
    """The problems of a rules file; raises OSError or UnicodeDecodeError if unreadable."""
    return list(parse(Path(path).read_text(encoding="utf-8"), str(path)).errors)


def _parse_rule(logical: _Logical) -> tuple[Rule | None, list[tuple[int, str]]]:
    """The rule on one logical line, or None when it has an error."""
    messages: list[tuple[int, str]] = []
    tokens: list[Token] = []
    try:
        for token in _tokens(logical, messages):
            tokens.append(token)
            messages.extend((token.line, m) for m in _check_token(token))
    except _LineError as exc:
        messages.append((exc.line, exc.message))
        return None, messages
    if not messages and not any(t.key in _EFFECT_KEYS or not t.is_match for t in tokens):
        messages.append((logical.line_at(0), "rule has no effect: it only matches"))
    if messages:
        return None, messages
    return Rule(logical.line_at(0), tuple(tokens)), messages


def _tokens(logical: _Logical, messages: list[tuple[int, str]]) -> list[Token]:
    """Split a logical line into tokens; delimiter mistakes go to ``messages``."""
    text = logical.text
    end = len(text)
    tokens: list[Token] = []
    i = 0
    while True:
        commas = 0
        while i < end and (text[i] in _WHITESPACE or text[i] == ","):
            commas += text[i] == ","
            i += 1
        if i >= end:
            if commas:
                messages.append((logical.line_at(end), "stray comma at the end of the rule"))
            return tokens
        here = logical.line_at(i)
        # Parsed first: when the token itself is broken, that is the error to report.
        token, i = _token(logical, i)
        if not tokens and commas:
            messages.append((here, "stray comma before the first key"))
        elif tokens and commas == 0:
            messages.append((here, f"missing comma between {tokens[-1].key} and {token.key}"))
        elif commas > 1:
            messages.append((here, "more than one comma between two keys"))
        tokens.append(token)


def _token(logical: _Logical, start: int) -> tuple[Token, int]:
    """The token that starts at ``start``, and the index just past it."""
    text = logical.text
    end = len(text)
    i = start
    while i < end and text[i] not in _WHITESPACE + "={":
        if text[i] in "+-!:" and text[i + 1 : i + 2] == "=":
            break
        i += 1
    key = text[start:i]
    line = logical.line_at(start)
    if not key:
        raise _LineError(line, f"expected a key, found {text[start]!r}")
    if '"' in key:
        raise _LineError(line, "unbalanced quotes: a value's closing quote is missing")
    attr: str | None = None
    if i < end and text[i] == "{":
        close = text.find("}", i + 1)
        if close < 0:
            raise _LineError(line, f"{key}: '{{' is never closed by '}}'")
        attr = text[i + 1 : close]
        i = close + 1
    while i < end and text[i] in _WHITESPACE:
        i += 1
    op = next((o for o in _OPERATORS if text.startswith(o, i)), None)
    if op is None:
        raise _LineError(line, f"{key}: expected an operator (== != = += -= :=) after the key")
    i += len(op)
    while i < end and text[i] in _WHITESPACE:
        i += 1
    # Up to two prefix letters: e (C escapes in the value) and i (match ignoring case).
    prefixes = ""
    while i < end and text[i] in "ei" and text[i] not in prefixes and len(prefixes) < 2:
        prefixes += text[i]
        i += 1
    if i >= end or text[i] != '"':
        raise _LineError(line, f'{key}: the value must be in double quotes, as in {key}{op}"..."')
    quote_line = logical.line_at(i)
    i += 1
    chars: list[str] = []
    while True:
        if i >= end:
            raise _LineError(quote_line, f"{key}: unterminated quote in the value")
        c = text[i]
        if c == '"':
            i += 1
            break
        if c == "\\" and i + 1 < end and ("e" in prefixes or text[i + 1] == '"'):
            # Without the e prefix the only escape is \" for a quote.
            chars.append(text[i : i + 2] if "e" in prefixes else '"')
            i += 2
            continue
        chars.append(c)
        i += 1
    value = "".join(chars)
    if "e" in prefixes:
        value = _unescape(value, key, quote_line)
    return Token(key, attr, op, value, line, "i" in prefixes), i


_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}
_ESCAPE = re.compile(r"\\(x[0-9a-fA-F]{2}|[0-7]{3}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)", re.DOTALL)


def _unescape(raw: str, key: str, line: int) -> str:
    def one(match: re.Match[str]) -> str:
        code = match.group(1)
        if code in _ESCAPES:
            return _ESCAPES[code]
        if code in "\\\"'":
            return code
        if code[0] in "xuU":
            return chr(int(code[1:], 16))
        if code[0] in "01234567" and len(code) == 3:
            return chr(int(code, 8))
        raise _LineError(line, f"{key}: unknown escape '\\{code}' in e-prefixed value")

    return _ESCAPE.sub(one, raw)


def _describe_ops(ops: frozenset[str]) -> str:
    return ", ".join(sorted(ops, key=_OP_ORDER.__getitem__))


def _check_token(token: Token) -> list[str]:
    """What is wrong with one token on its own."""
    key, attr, op = token.key, token.attr, token.op
    spec = KEYS.get(key)
    if spec is None:
        hint = " (keys are upper case)" if key.upper() in KEYS else ""
        return [f"unknown key {key!r}{hint}"]
    problems: list[str] = []
    if spec.attr is AttrUse.NONE and attr is not None:
        problems.append(f"{key} takes no {{...}} attribute")
    elif spec.attr is AttrUse.REQUIRED and not attr:
        problems.append(f"{key} needs an attribute, as in {key}{{name}}")
    elif attr and spec.attr_names and attr not in spec.attr_names:
        names = ", ".join(sorted(spec.attr_names))
        problems.append(f"{key}{{{attr}}}: unknown attribute, expected one of {names}")
    if op not in spec.ops:
        if spec.ops <= _MATCH_OPS:
            kind = "a match key"
        elif not spec.ops & _MATCH_OPS:
            kind = "an assignment key"
        else:
            kind = "a key"
        problems.append(f"{key} is {kind}: it takes {_describe_ops(spec.ops)}, not {op}")
    elif token.case_insensitive and not token.is_match:
        problems.append(f"{key}: the i prefix is only for == and !=")
    problems.extend(_check_value(token))
    return problems


def _check_value(token: Token) -> list[str]:
    key, attr, value = token.key, token.attr, token.value
    if key == "TEST" and attr and not re.fullmatch(r"[0-7]{1,4}", attr):
        return [f"TEST{{{attr}}}: the attribute must be an octal mode"]
    if key == "ATTRS" and attr and attr.startswith("device/"):
        return ["ATTRS{device/...}: the device link may go away; match the parent's own attribute"]
    if key == "ATTRS" and attr and "../" in attr:
        return ["ATTRS{...}: do not climb sysfs with ../; ATTRS already searches the parents"]
    if key == "SUBSYSTEM" and value in ("bus", "class"):
        return [f'SUBSYSTEM=="{value}" is obsolete: write "subsystem"']
    if token.is_match:
        return []
    if key == "MODE" and not _has_substitution(value) and not re.fullmatch(r"[0-7]{3,4}", value):
        return [f"MODE={value!r}: expected an octal mode such as 0660"]
    if key in ("OWNER", "GROUP", "TAG", "RUN", "SECLABEL", "LABEL", "GOTO") and not value:
        return [f"{key}: empty value"]
    if key == "NAME" and value in ("", "%k"):
        return [f"NAME={value!r} has no effect"]
    return []


def _check_gotos(rules: Sequence[Rule], path: str) -> list[RuleError]:
    errors: list[RuleError] = []
    for index, rule in enumerate(rules):
        for goto in rule.assignments("GOTO"):
            if not any(later.value_of("LABEL") == goto.value for later in rules[index + 1 :]):
                errors.append(
                    RuleError(path, goto.line, f'GOTO="{goto.value}" has no LABEL after it')
                )
    return errors


def _has_substitution(value: str) -> bool:
    return "$" in value or "%" in value


# --- Replaying rules on a fake device -------------------------------------------------


@dataclass(frozen=True, slots=True)
class FakeDevice:
    """A device as udev sees it for one event. ``parents`` go from nearest to the root;
    a parent's own ``action``, ``env`` and ``parents`` are not used."""

    subsystem: str
    kernel: str
    driver: str = ""
    action: str = "add"
    attrs: Mapping[str, str] = field(default_factory=dict)
    env: Mapping[str, str] = field(default_factory=dict)
    parents: tuple[FakeDevice, ...] = ()

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> FakeDevice:
        """Build from a plain dict: subsystem, kernel, driver, action, attrs, env and
        parents (a list of dicts of subsystem, kernel, driver, attrs)."""
        unknown = set(data) - {"subsystem", "kernel", "driver", "action", "attrs", "env", "parents"}
        if unknown:
            raise ValueError(f"unknown fake-device fields: {', '.join(sorted(unknown))}")
        parents = data.get("parents", [])
        if not isinstance(parents, list) or not all(isinstance(p, Mapping) for p in parents):
            raise ValueError("parents must be a list of dicts")
        return cls(
            subsystem=_text(data, "subsystem"),
            kernel=_text(data, "kernel"),
            driver=_text(data, "driver", ""),
            action=_text(data, "action", "add"),
            attrs=_text_map(data, "attrs"),
            env=_text_map(data, "env"),
            parents=tuple(cls.from_dict(p) for p in parents),
        )


def _text(data: Mapping[str, object], name: str, default: str | None = None) -> str:
    value = data.get(name, default)
    if not isinstance(value, str):
        raise ValueError(f"fake device: {name} must be a string")
    return value


def _text_map(data: Mapping[str, object], name: str) -> dict[str, str]:
    value = data.get(name, {})
    if not isinstance(value, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise ValueError(f"fake device: {name} must map strings to strings")
    return dict(value)


@dataclass(frozen=True, slots=True)
class AttributeWrite:
    """A sysfs attribute that udevd would write, on the device it belongs to."""

    subsystem: str
    kernel: str
    attribute: str
    value: str


@dataclass
class Outcome:
    """What the rules give one device event. ``matched`` holds each matching rule's line."""

    matched: list[int] = field(default_factory=list)
    symlinks: list[str] = field(default_factory=list)
    owner: str | None = None
    group: str | None = None
    mode: str | None = None
    tags: set[str] = field(default_factory=set)
    env: dict[str, str] = field(default_factory=dict)
    attribute_writes: list[AttributeWrite] = field(default_factory=list)
    # Keys assigned with := that later rules may no longer change.
    final: set[str] = field(default_factory=set)

    @property
    def device_links(self) -> list[str]:
        return [f"/dev/{link}" for link in self.symlinks]


class NotEvaluable(Exception):
    """A rule needs something a fake device cannot answer (a program, a substitution...)."""


_SELF_MATCH_KEYS = frozenset(
    {"ACTION", "KERNEL", "SUBSYSTEM", "DRIVER", "ATTR", "ENV", "TAG", "SYMLINK"}
)
_PARENT_MATCH_KEYS = frozenset({"KERNELS", "SUBSYSTEMS", "DRIVERS", "ATTRS"})
_ASSIGN_KEYS = frozenset({"SYMLINK", "OWNER", "GROUP", "MODE", "TAG", "ENV", "ATTR"})


def evaluate(rules: RulesFile, device: FakeDevice) -> Outcome:
    """Run every rule in order on ``device``, as udevd does for one event."""
    if rules.errors:
        raise ValueError(f"{rules.path} has errors; check it first")
    outcome = Outcome(env=dict(device.env))
    chain = (device, *device.parents)
    index = 0
    while index < len(rules.rules):
        rule = rules.rules[index]
        index += 1
        if not _rule_matches(rules.path, rule, chain, outcome):
            continue
        outcome.matched.append(rule.line)
        for token in rule.tokens:
            if not token.is_match and token.key not in ("LABEL", "GOTO"):
                _assign(rules.path, token, chain, outcome)
        goto = rule.value_of("GOTO")
        if goto is not None:
            # parse() has checked that a LABEL of that name follows.
            index = next(
                n
                for n in range(index, len(rules.rules))
                if rules.rules[n].value_of("LABEL") == goto
            )
    return outcome


def _rule_matches(path: str, rule: Rule, chain: tuple[FakeDevice, ...], outcome: Outcome) -> bool:
    matches = [t for t in rule.tokens if t.is_match]
    unsupported = [
        t for t in matches if t.key not in _SELF_MATCH_KEYS and t.key not in _PARENT_MATCH_KEYS
    ]
    own = [t for t in matches if t.key in _SELF_MATCH_KEYS]
    if not all(_own_token_matches(path, t, chain, outcome) for t in own):
        return False
    # All the parent keys of a rule must hold on one and the same device of the chain,
    # which may be the event device itself.
    parent_tokens = [t for t in matches if t.key in _PARENT_MATCH_KEYS]
    if parent_tokens and not any(
        all(_parent_token_matches(path, t, chain, n) for t in parent_tokens)
        for n in range(len(chain))
    ):
        return False
    if unsupported:
        raise NotEvaluable(
            f"{path}:{unsupported[0].line}: {unsupported[0].key} needs a real device"
        )
    return True


def _own_token_matches(
    path: str, token: Token, chain: tuple[FakeDevice, ...], outcome: Outcome
) -> bool:
    device = chain[0]
    if token.key == "ATTR":
        value = _sysattr(path, token, chain, 0)
        return value is not None and _test(token, [value])
    values: list[str]
    if token.key == "ACTION":
        values = [device.action]
    elif token.key == "KERNEL":
        values = [device.kernel]
    elif token.key == "SUBSYSTEM":
        values = [device.subsystem]
    elif token.key == "DRIVER":
        values = [device.driver]
    elif token.key == "ENV":
        values = [outcome.env.get(token.attr or "", "")]
    elif token.key == "SYMLINK":  # any one of the links so far, without /dev/
        values = list(outcome.symlinks)
    else:  # TAG: any one of the device's tags
        values = sorted(outcome.tags)
    return _test(token, values)


def _parent_token_matches(
    path: str, token: Token, chain: tuple[FakeDevice, ...], index: int
) -> bool:
    node = chain[index]
    if token.key == "ATTRS":
        value = _sysattr(path, token, chain, index)
        return value is not None and _test(token, [value])
    if token.key == "KERNELS":
        return _test(token, [node.kernel])
    if token.key == "SUBSYSTEMS":
        return _test(token, [node.subsystem])
    return _test(token, [node.driver])


def _sysattr(path: str, token: Token, chain: tuple[FakeDevice, ...], index: int) -> str | None:
    """The attribute's value with trailing blanks dropped, or None if the file is absent."""
    target, name = _attribute_target(path, token, chain, index)
    value = target.attrs.get(name) if target is not None else None
    return value.rstrip(_WHITESPACE) if value is not None else None


def _attribute_target(
    path: str, token: Token, chain: tuple[FakeDevice, ...], index: int
) -> tuple[FakeDevice | None, str]:
    """Resolve leading ``device/`` links: each one is a step to the parent."""
    name = token.attr or ""
    if name.startswith("["):
        raise NotEvaluable(f"{path}:{token.line}: {token.key}{{{name}}} needs a real sysfs")
    while name.startswith("device/"):
        name = name[len("device/") :]
        index += 1
    return (chain[index] if index < len(chain) else None), name


def _test(token: Token, values: Sequence[str]) -> bool:
    """Whether the pattern matches any of ``values`` (an empty list reads as one empty
    string), negated for !=. Alternatives split on |, each a shell glob."""
    fold: Callable[[str], str] = str.lower if token.case_insensitive else str
    patterns = [fold(p) for p in token.value.split("|")]
    candidates = [fold(v) for v in values] or [""]
    found = any(fnmatch.fnmatchcase(v, p) for v in candidates for p in patterns)
    return found if token.op == "==" else not found


def _assign(path: str, token: Token, chain: tuple[FakeDevice, ...], outcome: Outcome) -> None:
    key, op, value = token.key, token.op, token.value
    if key not in _ASSIGN_KEYS:
        raise NotEvaluable(f"{path}:{token.line}: {key} assignment needs a real device")
    if _has_substitution(value):
        raise NotEvaluable(f"{path}:{token.line}: {key}: substitutions need a real device")
    if key == "ENV":
        name = token.attr or ""
        old = outcome.env.get(name)
        if op == "+=" and old:
            outcome.env[name] = f"{old} {value}"
        elif value:
            outcome.env[name] = value
        else:
            outcome.env.pop(name, None)
        return
    if key == "ATTR":
        target, name = _attribute_target(path, token, chain, 0)
        if target is None:
            raise NotEvaluable(f"{path}:{token.line}: ATTR{{{token.attr}}}: no such parent")
        outcome.attribute_writes.append(
            AttributeWrite(target.subsystem, target.kernel, name, value)
        )
        return
    if key == "TAG":
        if op == "=":
            outcome.tags.clear()
        if op == "-=":
            outcome.tags.discard(value)
        else:
            outcome.tags.add(value)
        return
    if key in outcome.final:
        return
    if op == ":=":
        outcome.final.add(key)
    if key == "SYMLINK":
        links = value.split()
        if op in ("=", ":="):
            outcome.symlinks = links
        elif op == "+=":
            outcome.symlinks += [link for link in links if link not in outcome.symlinks]
        else:
            outcome.symlinks = [link for link in outcome.symlinks if link not in links]
    elif key == "OWNER":
        outcome.owner = value
    elif key == "GROUP":
        outcome.group = value
    else:
        outcome.mode = value


# --- Command line ---------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m controller.udev_rules",
        description="Check udev rules files: one FILE:LINE: message per problem, exit 2.",
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help="a udev .rules file")
    args = parser.parse_args(argv)
    status = 0
    for name in args.files:
        try:
            errors = check_file(name)
        except OSError as exc:
            print(f"{name}: cannot read: {exc.strerror or exc}")
            status = 2
            continue
        except UnicodeDecodeError as exc:
            print(f"{name}: not UTF-8 text (byte {exc.start})")
            status = 2
            continue
        for error in errors:
            print(error)
            status = 2
    return status


if __name__ == "__main__":
    sys.exit(main())
