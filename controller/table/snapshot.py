"""A table's whole state as JSON values, and the same state put back into a fresh table
built by its constructor (controller/recovery writes it to the journal as a
``snapshot`` row, so a restart replays only the rows after it).

A table's state is its own attributes, its machine's state and the attributes of each
of its components (``Table._parts``), which own their state. Captured generically:
every attribute whose value is data, through an encoder of the value types they hold
(Decimal, tuples, lists, sets, frozensets, deques, Counters, dicts with any keys,
enums, and the dataclasses of ``controller.table``, ``controller.rules`` and
``drivers.messages``). What is not data is wiring, never captured and never
replaced: the table itself, its components, its journal, devices, sealer and machine,
its rules (its configuration), anything callable, and anything that holds one of
those (Baccarat's ``Context``, a map of handlers). What a component derives from its
state, a value whose class sets ``snapshot = False`` (Baccarat's ``Coup`` over the
round's hands), is not captured either: the component makes it again from the state.
Any other value is an error, so a component given state of a new type fails loudly
instead of being lost.

Objects shared between attributes stay shared after a restore (each is encoded once,
then referred to by number), and dicts keep their order.

A table that holds a sealed card (551.8(e): a ``Sealed`` anywhere in its state) is
never captured: the card's value would stand in the journal unencrypted before its
reveal (``SealedState``).
"""

from __future__ import annotations

import collections
import dataclasses
import enum
import importlib
from collections.abc import Callable, Iterable, Mapping
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Final

from controller.table.seal import Sealed, Sealer

if TYPE_CHECKING:
    from controller.table.core import Table

FORMAT: Final = 1
# Where the dataclasses and enums a state may hold come from.
MODULES: Final = ("controller.table.", "controller.rules.", "drivers.messages.")
_SCALARS: Final = (str, int, float, bool, type(None))
_STATE: Final = "state"  # the machine's, set through the machine


class SnapshotError(Exception):
    """A state that cannot be captured or restored; the message is one line."""


class SealedState(SnapshotError):
    """The table holds a sealed card: its state is not written anywhere."""


def capture(table: Table) -> dict[str, object]:
    """The table's whole state, as JSON values."""
    encoder = _Encoder(_wiring(table))
    # Lists of pairs, not objects: the journal sorts an object's keys, and a value is
    # decoded before the references to it, in the order it was encoded.
    objects = [
        [
            name,
            [
                [attribute, encoder.value(value, f"{name}.{attribute}")]
                for attribute, value in sorted(_attributes(obj).items())
                if attribute != _STATE and not encoder.is_wiring(value)
            ],
        ]
        for name, obj in _objects(table).items()
    ]
    return {"format": FORMAT, "machine": table.state, "objects": objects}


def restore(table: Table, state: Mapping[str, Any]) -> None:
    """Put ``state`` (from ``capture``) into ``table``, built fresh by its constructor
    with the same game and rules."""
    if state.get("format") != FORMAT:
        raise SnapshotError(f"a snapshot of format {state.get('format')!r}, not {FORMAT}")
    objects = _objects(table)
    try:
        captured = {str(name): list(attributes) for name, attributes in state["objects"]}
    except (KeyError, TypeError, ValueError):
        captured = {}
    if set(captured) != set(objects):
        raise SnapshotError("the snapshot's components are not this table's")
    decoder = _Decoder()
    decoded = [
        (objects[name], [(str(a), decoder.value(v)) for a, v in attributes])
        for name, attributes in captured.items()
    ]
    for obj, attributes in decoded:
        for attribute, value in attributes:
            setattr(obj, attribute, value)
    table.machine.set_state(str(state.get("machine")), model=table)


def value_form(value: object) -> object:
    """``value`` (a rules object, say) in the form ``capture`` writes it: for comparing."""
    return _Encoder(set()).value(value, "value")


def _objects(table: Table) -> dict[str, object]:
    parts: Mapping[str, object] = table._parts
    return {"table": table, **parts}


def _attributes(obj: object) -> dict[str, object]:
    found = dict(vars(obj)) if hasattr(obj, "__dict__") else {}
    for cls in type(obj).__mro__:
        for slot in getattr(cls, "__slots__", ()):
            if hasattr(obj, slot):
                found[slot] = getattr(obj, slot)
    return found


def _wiring(table: Table) -> set[int]:
    """What every table is wired to, by identity: never state."""
    wired: list[object] = [table, *table._parts.values(), table.machine, table._triggers]
    wired += [table._journal, table._devices, getattr(table, "rules", None)]
    return {id(obj) for obj in wired if obj is not None}


class _Encoder:
    def __init__(self, wiring: set[int]) -> None:
        self._wiring = wiring
        self._ids: dict[int, int] = {}
        self._keep: list[object] = []  # what is numbered stays alive, so ids stay unique

    def is_wiring(self, value: object) -> bool:
        if id(value) in self._wiring or isinstance(value, Sealer) or _is_code(value):
            return True
        if isinstance(value, Mapping) and value:
            return any(self._wired(v) for v in value.values())
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            return any(self._wired(getattr(value, f.name)) for f in dataclasses.fields(value))
        return False

    def _wired(self, value: object) -> bool:
        return id(value) in self._wiring or _is_code(value)

    def value(self, value: object, where: str) -> object:
        if isinstance(value, enum.Enum):  # before the scalars: a str or int enum stays one
            return {"$": "enum", "t": _allowed_name(type(value), where), "v": value.name}
        if isinstance(value, _SCALARS):
            return value
        if isinstance(value, Decimal):
            return {"$": "decimal", "v": str(value)}
        if isinstance(value, Sealed):
            raise SealedState(f"{where}: the table holds a sealed card (551.8(e))")
        number = self._ids.get(id(value))
        if number is not None:
            return {"$ref": number}
        number = self._ids[id(value)] = len(self._ids)
        self._keep.append(value)
        encoded = self._container(value, where)
        encoded["id"] = number
        return encoded

    def _container(self, value: Any, where: str) -> dict[str, object]:
        def each(items: Iterable[object]) -> list[object]:
            return [self.value(item, where) for item in items]

        if type(value) in (dict, collections.Counter):
            kind = "counter" if type(value) is collections.Counter else "dict"
            pairs = [[self.value(k, where), self.value(v, where)] for k, v in value.items()]
            return {"$": kind, "v": pairs}
        if type(value) is collections.deque:
            return {"$": "deque", "v": each(value), "max": value.maxlen}
        sequence = _SEQUENCES.get(type(value))
        if sequence in ("set", "frozenset"):
            # In one order, whatever order the set was built in: the same state, the
            # same snapshot.
            return {"$": sequence, "v": each(sorted(value, key=repr))}
        if sequence is not None:
            return {"$": sequence, "v": each(value)}
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            return self._dataclass(value, where)
        raise SnapshotError(f"{where}: a {type(value).__name__} is not a state this table keeps")

    def _dataclass(self, value: Any, where: str) -> dict[str, object]:
        name = _allowed_name(type(value), where)
        fields = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
        extra = set(getattr(value, "__dict__", {})) - set(fields)
        if extra:
            raise SnapshotError(f"{where}: {name} holds {sorted(extra)} beside its fields")
        return {
            "$": "dataclass",
            "t": name,
            "v": [[k, self.value(v, where)] for k, v in fields.items()],
        }


_SEQUENCES: Final[Mapping[type, str]] = {
    list: "list",
    tuple: "tuple",
    set: "set",
    frozenset: "frozenset",
}


def _is_code(value: object) -> bool:
    if getattr(type(value), "snapshot", True) is False:
        return True  # derived from the state, and made again from it
    return callable(value)  # functions, methods, partials, classes: wiring, never state


def _allowed_name(cls: type, where: str) -> str:
    if not cls.__module__.startswith(MODULES):
        raise SnapshotError(f"{where}: a {cls.__name__} is not a state this table keeps")
    return f"{cls.__module__}:{cls.__qualname__}"


def _allowed_class(name: object) -> type:
    module, _, qualname = str(name).partition(":")
    if not module.startswith(MODULES) or not qualname:
        raise SnapshotError(f"a snapshot names {name!r}, not a type a table keeps")
    try:
        found: Any = importlib.import_module(module)
        for part in qualname.split("."):
            found = getattr(found, part)
    except (ImportError, AttributeError):
        raise SnapshotError(f"a snapshot names {name!r}, which this tablectl lacks") from None
    if not isinstance(found, type):
        raise SnapshotError(f"a snapshot names {name!r}, not a type a table keeps")
    return found


class _Decoder:
    def __init__(self) -> None:
        self._made: dict[int, object] = {}

    def value(self, value: object) -> object:
        if isinstance(value, _SCALARS):
            return value
        if not isinstance(value, Mapping):
            raise SnapshotError(f"a snapshot holds {type(value).__name__} where a value was")
        if "$ref" in value:
            try:
                return self._made[int(value["$ref"])]
            except (KeyError, TypeError, ValueError):
                raise SnapshotError(f"a snapshot refers to {value['$ref']!r} before it") from None
        kind = value.get("$")
        if kind == "decimal":
            return Decimal(str(value.get("v")))
        if kind == "enum":
            cls = _allowed_class(value.get("t"))
            if not issubclass(cls, enum.Enum):
                raise SnapshotError(f"a snapshot names {value.get('t')!r} as an enum")
            return cls[str(value.get("v"))]
        build = self._BUILDERS.get(str(kind))
        if build is None:
            raise SnapshotError(f"a snapshot holds a value of kind {kind!r}")
        return build(self, value)

    def _made_as(self, value: Mapping[str, Any], made: object) -> object:
        self._made[int(value["id"])] = made
        return made

    def _items(self, value: Mapping[str, Any]) -> list[object]:
        return [self.value(item) for item in value["v"]]

    def _list(self, value: Mapping[str, Any]) -> object:
        made: list[object] = []
        self._made_as(value, made)
        made.extend(self._items(value))
        return made

    def _set(self, value: Mapping[str, Any]) -> object:
        made: set[object] = set()
        self._made_as(value, made)
        made.update(self._items(value))
        return made

    def _deque(self, value: Mapping[str, Any]) -> object:
        made: collections.deque[object] = collections.deque(maxlen=value.get("max"))
        self._made_as(value, made)
        made.extend(self._items(value))
        return made

    def _dict(self, value: Mapping[str, Any]) -> object:
        made: dict[Any, Any] = collections.Counter() if value["$"] == "counter" else {}
        self._made_as(value, made)
        for key, item in value["v"]:
            made[self.value(key)] = self.value(item)
        return made

    def _tuple(self, value: Mapping[str, Any]) -> object:
        return self._made_as(value, tuple(self._items(value)))

    def _frozenset(self, value: Mapping[str, Any]) -> object:
        return self._made_as(value, frozenset(self._items(value)))

    def _dataclass(self, value: Mapping[str, Any]) -> object:
        cls = _allowed_class(value.get("t"))
        if not dataclasses.is_dataclass(cls):
            raise SnapshotError(f"a snapshot names {value.get('t')!r} as a dataclass")
        made = object.__new__(cls)
        frozen = cls.__dataclass_params__.frozen  # type: ignore[attr-defined]
        if not frozen:
            self._made_as(value, made)
        fields = {f.name for f in dataclasses.fields(cls)}
        given = [(str(name), item) for name, item in value["v"]]
        if {name for name, _ in given} != fields:
            raise SnapshotError(f"a snapshot's {value.get('t')} has other fields than this one")
        for name, item in given:
            object.__setattr__(made, name, self.value(item))
        return self._made_as(value, made) if frozen else made

    _BUILDERS: Final[Mapping[str, Callable[[_Decoder, Mapping[str, Any]], object]]] = {
        "list": _list,
        "set": _set,
        "deque": _deque,
        "dict": _dict,
        "counter": _dict,
        "tuple": _tuple,
        "frozenset": _frozenset,
        "dataclass": _dataclass,
    }
