"""The console commands: who issues each (``ROLES``), and how a request builds it.

The commands themselves are discovered from ``controller.table.events`` at import
(``COMMANDS``): a command added there without a role stops the import (and its test)
instead of being silently unreachable or reachable by the wrong person.
"""

from __future__ import annotations

import dataclasses
import enum
import re
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal

from controller.api.errors import RegistryError
from controller.api.wire import Refused
from controller.table import events
from controller.table.events import Command


class Role(enum.Enum):
    """Who issues a console command, and so which socket takes it."""

    DEALER = "dealer"
    FLOOR = "floor"


# Every console command's role: the one place a command is given its socket.
ROLES: dict[str, Role] = {
    "wager": Role.DEALER,
    "player_leaves": Role.DEALER,
    "no_more_bets": Role.DEALER,
    "disclosed_card": Role.DEALER,
    "manual_shuffle": Role.DEALER,
    "decision": Role.DEALER,
    "exposed_card": Role.DEALER,
    "refuse_card": Role.DEALER,
    "dealer_overdraw": Role.DEALER,
    "missed_card": Role.DEALER,
    "card_not_dealt": Role.DEALER,
    "dealers_card": Role.DEALER,
    "new_dealer": Role.DEALER,
    "cards_spread": Role.DEALER,  # 551.5(h)
    "relinquish": Role.DEALER,
    "offer_answer": Role.DEALER,
    "call_floor": Role.DEALER,
    "floor_clear": Role.FLOOR,
    "permit_wagering": Role.FLOOR,  # 551.6(k)(1)
    "reshuffle": Role.FLOOR,  # 551.5(a), (g)
    "recut": Role.FLOOR,  # 551.5(f)
    "inspect_reader": Role.FLOOR,  # 551.2(e)
    "acknowledge_shuffle_alert": Role.FLOOR,  # the shuffle monitor's alert (issue 14)
}

# The sockets, by name, and the role whose commands each takes (None: the stream only).
SOCKETS: dict[str, Role | None] = {"dealer": Role.DEALER, "floor": Role.FLOOR, "events": None}


class _Kind(enum.Enum):
    INT = "int"
    STR = "str"
    BOOL = "bool"
    AMOUNT = "amount"  # Decimal | int: a JSON number, or a decimal string


_KINDS: dict[frozenset[object], _Kind] = {
    frozenset({int}): _Kind.INT,
    frozenset({str}): _Kind.STR,
    frozenset({bool}): _Kind.BOOL,
    frozenset({Decimal, int}): _Kind.AMOUNT,
}
_AMOUNT_TEXT = re.compile(r"-?[0-9]+(\.[0-9]+)?")


@dataclass(frozen=True, slots=True)
class FieldSpec:
    name: str
    kind: _Kind
    nullable: bool  # the type admits None: JSON null is accepted
    required: bool  # no default: the request must give it

    def describe(self) -> dict[str, object]:
        return {"type": self.kind.value, "null": self.nullable, "required": self.required}


@dataclass(frozen=True, slots=True)
class CommandSpec:
    cls: type[Command]
    role: Role
    fields: tuple[FieldSpec, ...]

    def build(self, args: Mapping[str, object]) -> Command:
        """The command from a request's ``args``; ``Refused`` names the first bad field."""
        known = {f.name for f in self.fields}
        for key in args:
            if key not in known:
                raise Refused("unknown_field", f"{self.cls.name} has no field {key!r}", field=key)
        values: dict[str, object] = {}
        for f in self.fields:
            if f.name in args:
                values[f.name] = _convert(self.cls.name, f, args[f.name])
            elif f.required:
                raise Refused(
                    "missing_field", f"{self.cls.name} needs field {f.name!r}", field=f.name
                )
        return self.cls(**values)


def discover(module: types.ModuleType, roles: Mapping[str, Role]) -> dict[str, CommandSpec]:
    """Every ``Command`` subclass defined in ``module``, by name, with its role."""
    specs: dict[str, CommandSpec] = {}
    for obj in vars(module).values():
        if not (isinstance(obj, type) and issubclass(obj, Command)) or obj is Command:
            continue
        if obj.__module__ != module.__name__:
            continue  # imported from elsewhere
        name = getattr(obj, "name", None)
        if not isinstance(name, str):
            raise RegistryError(f"{obj.__name__}: a command needs a ClassVar name")
        if name not in roles:
            raise RegistryError(f"command {name!r} ({obj.__name__}) has no role in api.ROLES")
        if name in specs:
            raise RegistryError(f"command {name!r} is defined twice")
        if not dataclasses.is_dataclass(obj):
            raise RegistryError(f"command {name!r} ({obj.__name__}) is not a dataclass")
        specs[name] = CommandSpec(obj, roles[name], _field_specs(obj))
    return specs


def _field_specs(cls: type[Command]) -> tuple[FieldSpec, ...]:
    hints = typing.get_type_hints(cls)
    out = []
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        hint = hints[f.name]
        if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
            members = typing.get_args(hint)
        else:
            members = (hint,)
        nullable = type(None) in members
        kind = _KINDS.get(frozenset(m for m in members if m is not type(None)))
        if kind is None:
            raise RegistryError(
                f"command {cls.name!r} field {f.name!r}: the API cannot build a {hint}"
            )
        required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        out.append(FieldSpec(f.name, kind, nullable, required))
    return tuple(out)


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _as_amount(value: object) -> object:
    """An amount written plainly (ruling R16): a JSON whole number, a JSON number with a
    point, or a decimal string ("12.50"). An exponent, NaN, an infinity, true or false is
    none; the table then holds a plain amount to its chips and its limits."""
    if _whole(value) or isinstance(value, Decimal):  # wire: a Decimal is written plainly
        return value
    if isinstance(value, str) and _AMOUNT_TEXT.fullmatch(value):
        return Decimal(value)
    return None


# Each kind's reading of a JSON value: the field's value, or None when it does not fit.
_READERS: dict[_Kind, Callable[[object], object]] = {
    _Kind.INT: lambda value: value if _whole(value) else None,
    _Kind.STR: lambda value: value if isinstance(value, str) else None,
    _Kind.BOOL: lambda value: value if isinstance(value, bool) else None,
    _Kind.AMOUNT: _as_amount,
}
_EXPECTED = {
    _Kind.INT: "a whole number",
    _Kind.STR: "a string",
    _Kind.BOOL: "true or false",
    _Kind.AMOUNT: (
        "an amount written plainly (a JSON number without an exponent, or a decimal string "
        'such as "12.50")'
    ),
}


def _convert(command: str, spec: FieldSpec, value: object) -> object:
    if value is None and spec.nullable:
        return None
    converted = None if value is None else _READERS[spec.kind](value)
    if converted is not None:
        return converted
    expected = _EXPECTED[spec.kind] + (" or null" if spec.nullable else "")
    # The value itself is never echoed: it may be a card (551.8(e)).
    raise Refused("bad_type", f"{command}: field {spec.name!r} must be {expected}", field=spec.name)


COMMANDS: dict[str, CommandSpec] = discover(events, ROLES)
