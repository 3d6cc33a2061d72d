"""A table's one ``transitions.Machine``, built once from its transitions as data.

A transition names its callbacks and conditions as the ``transitions`` library does,
by the model's method names, or by a part's, a component of the table that owns its
own state: ``"offers.close"`` is the method ``close`` of the part named ``"offers"``,
and ``("discards.returns_to", state)`` is that method with ``state`` as its first
argument. A part's methods are bound as the machine is built; the model's own names
are left to the machine, which looks them up on the model each time it runs them.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from transitions import Machine


class _QuietOverride(logging.Filter):
    """transitions warns for every helper (``is_*``, ``may_*``) that ``model_override``
    leaves unbound on purpose; that is the policy working, not a problem."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "due to model override policy" not in record.getMessage()


logging.getLogger("transitions.core").addFilter(_QuietOverride())

# The keys of a transition that name callbacks or conditions.
_CALLBACK_KEYS = ("prepare", "conditions", "unless", "before", "after")


def build_machine(
    model: object,
    parts: Mapping[str, object],
    *,
    states: Iterable[str],
    transitions: Iterable[Mapping[str, Any]],
    initial: str,
    name: str,
) -> Machine:
    """The machine of ``model``: its triggers are the typed stubs the model defines
    (``model_override``), and no ``to_*`` transitions are added."""
    return Machine(
        model=model,
        states=list(states),
        initial=initial,
        transitions=[_bound(t, model, parts) for t in transitions],
        auto_transitions=False,
        model_override=True,
        name=name,
    )


def bound_method(model: object, parts: Mapping[str, object], name: str) -> Callable[..., Any]:
    """The model's method ``name``, or a part's (``"part.method"``)."""
    part, _, attribute = name.rpartition(".")
    found: Callable[..., Any] = getattr(parts[part] if part else model, attribute)
    return found


def _bound(
    transition: Mapping[str, Any], model: object, parts: Mapping[str, object]
) -> dict[str, Any]:
    bound = dict(transition)
    for key in _CALLBACK_KEYS:
        if key in bound:
            value = bound[key]
            if isinstance(value, list):
                bound[key] = [_callback(v, model, parts) for v in value]
            else:
                bound[key] = _callback(value, model, parts)
    return bound


def _callback(spec: Any, model: object, parts: Mapping[str, object]) -> Any:
    if isinstance(spec, tuple):
        name, *args = spec
        return functools.partial(bound_method(model, parts, name), *args)
    if isinstance(spec, str) and "." in spec:
        return bound_method(model, parts, spec)
    return spec
