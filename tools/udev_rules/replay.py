"""Replaying parsed rules on a fake device, as udevd runs them for one event."""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from tools.udev_rules.keys import WHITESPACE, has_substitution
from tools.udev_rules.model import Rule, RulesFile, Token


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

    def set_env(self, name: str, op: str, value: str) -> None:
        old = self.env.get(name)
        if op == "+=" and old:
            self.env[name] = f"{old} {value}"
        elif value:
            self.env[name] = value
        else:
            self.env.pop(name, None)

    def set_tag(self, op: str, value: str) -> None:
        if op == "=":
            self.tags.clear()
        if op == "-=":
            self.tags.discard(value)
        else:
            self.tags.add(value)

    def set_once(self, key: str, op: str, value: str) -> None:
        """SYMLINK, OWNER, GROUP or MODE: after a := assignment, later ones do nothing."""
        if key in self.final:
            return
        if op == ":=":
            self.final.add(key)
        if key == "SYMLINK":
            self._set_symlinks(op, value.split())
        elif key == "OWNER":
            self.owner = value
        elif key == "GROUP":
            self.group = value
        else:
            self.mode = value

    def _set_symlinks(self, op: str, links: list[str]) -> None:
        if op in ("=", ":="):
            self.symlinks = links
        elif op == "+=":
            self.symlinks += [link for link in links if link not in self.symlinks]
        else:
            self.symlinks = [link for link in self.symlinks if link not in links]


class NotEvaluable(Exception):
    """A rule needs something a fake device cannot answer (a program, a substitution...)."""


# The values a match key tests on the event device (ATTR aside: see _sysattr).
_OWN_VALUES: Mapping[str, Callable[[FakeDevice, Token, Outcome], list[str]]] = {
    "ACTION": lambda device, token, outcome: [device.action],
    "KERNEL": lambda device, token, outcome: [device.kernel],
    "SUBSYSTEM": lambda device, token, outcome: [device.subsystem],
    "DRIVER": lambda device, token, outcome: [device.driver],
    "ENV": lambda device, token, outcome: [outcome.env.get(token.attr or "", "")],
    # Any one of the links so far, without /dev/.
    "SYMLINK": lambda device, token, outcome: list(outcome.symlinks),
    # Any one of the device's tags.
    "TAG": lambda device, token, outcome: sorted(outcome.tags),
}
# The value a parent match key tests on one device of the chain (ATTRS aside).
_PARENT_VALUES: Mapping[str, Callable[[FakeDevice], str]] = {
    "KERNELS": lambda node: node.kernel,
    "SUBSYSTEMS": lambda node: node.subsystem,
    "DRIVERS": lambda node: node.driver,
}
_SCOPES = {
    **dict.fromkeys((*_OWN_VALUES, "ATTR"), "own"),
    **dict.fromkeys((*_PARENT_VALUES, "ATTRS"), "parent"),
}
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


def _match_tokens(rule: Rule) -> dict[str, list[Token]]:
    """A rule's match tokens by scope: on the event device ("own"), on one device of
    the chain ("parent"), and those a fake device cannot answer ("other")."""
    scopes: dict[str, list[Token]] = {"own": [], "parent": [], "other": []}
    for token in rule.tokens:
        if token.is_match:
            scopes[_SCOPES.get(token.key, "other")].append(token)
    return scopes


def _rule_matches(path: str, rule: Rule, chain: tuple[FakeDevice, ...], outcome: Outcome) -> bool:
    scopes = _match_tokens(rule)
    if not all(_own_token_matches(path, t, chain, outcome) for t in scopes["own"]):
        return False
    # All the parent keys of a rule must hold on one and the same device of the chain,
    # which may be the event device itself.
    parent_tokens = scopes["parent"]
    if parent_tokens and not any(
        all(_parent_token_matches(path, t, chain, n) for t in parent_tokens)
        for n in range(len(chain))
    ):
        return False
    unsupported = scopes["other"]
    if unsupported:
        raise NotEvaluable(
            f"{path}:{unsupported[0].line}: {unsupported[0].key} needs a real device"
        )
    return True


def _own_token_matches(
    path: str, token: Token, chain: tuple[FakeDevice, ...], outcome: Outcome
) -> bool:
    if token.key == "ATTR":
        value = _sysattr(path, token, chain, 0)
        return value is not None and _test(token, [value])
    return _test(token, _OWN_VALUES[token.key](chain[0], token, outcome))


def _parent_token_matches(
    path: str, token: Token, chain: tuple[FakeDevice, ...], index: int
) -> bool:
    if token.key == "ATTRS":
        value = _sysattr(path, token, chain, index)
        return value is not None and _test(token, [value])
    return _test(token, [_PARENT_VALUES[token.key](chain[index])])


def _sysattr(path: str, token: Token, chain: tuple[FakeDevice, ...], index: int) -> str | None:
    """The attribute's value with trailing blanks dropped, or None if the file is absent."""
    target, name = _attribute_target(path, token, chain, index)
    value = target.attrs.get(name) if target is not None else None
    return value.rstrip(WHITESPACE) if value is not None else None


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
    if has_substitution(value):
        raise NotEvaluable(f"{path}:{token.line}: {key}: substitutions need a real device")
    if key == "ENV":
        outcome.set_env(token.attr or "", op, value)
    elif key == "ATTR":
        target, name = _attribute_target(path, token, chain, 0)
        if target is None:
            raise NotEvaluable(f"{path}:{token.line}: ATTR{{{token.attr}}}: no such parent")
        outcome.attribute_writes.append(
            AttributeWrite(target.subsystem, target.kernel, name, value)
        )
    elif key == "TAG":
        outcome.set_tag(op, value)
    else:
        outcome.set_once(key, op, value)
