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
from dataclasses import dataclass
from typing import Any

from transitions import Machine, MachineError


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


@dataclass(frozen=True, slots=True)
class _Step:
    """One transition of a trigger from one state, as ``Transition.execute`` runs it:
    its prepare callbacks, its conditions (each a callable and the result it must
    equal), its before callbacks, the state change, its after callbacks. A name is the
    model's method, bound once when the table's triggers are made (``bound``)."""

    prepare: tuple[Any, ...]
    conditions: tuple[tuple[Any, bool], ...]
    before: tuple[Any, ...]
    dest: str | None
    after: tuple[Any, ...]

    def names(self) -> list[str]:
        """The callbacks and conditions named, not given as callables."""
        funcs = (*self.prepare, *(c for c, _ in self.conditions), *self.before, *self.after)
        return [f for f in funcs if isinstance(f, str)]

    def bound(self, model: object) -> _Step:
        """The step with each name the model's method it names."""

        def of(func: Any) -> Any:
            return getattr(model, func) if isinstance(func, str) else func

        def each(funcs: tuple[Any, ...]) -> tuple[Any, ...]:
            return tuple(map(of, funcs))

        conditions = tuple((of(c), target) for c, target in self.conditions)
        return _Step(each(self.prepare), conditions, each(self.before), self.dest, each(self.after))

    def run(self, model: Any, args: tuple[Any, ...]) -> bool:
        for func in self.prepare:
            func(*args)
        for func, target in self.conditions:
            if func(*args) != target:
                return False
        for func in self.before:
            func(*args)
        if self.dest is not None:
            model.state = self.dest  # as ``Machine.set_state``
        for func in self.after:
            func(*args)
        return True


class Triggers:
    """The machine's triggers, fired without its per-call machinery (event data,
    partials, queue, logging) where that adds nothing: no machine, state, enter or exit
    callback, no queue, no ignored trigger, every name a method of the model. The same
    transitions, in the same order, with the same callbacks; otherwise the machine's own
    trigger runs."""

    def __init__(self, machine: Machine, model: Any) -> None:
        self._machine = machine
        self._model = model
        self._steps = _steps(machine, model) if _plain(machine) else None

    def fire(self, trigger: str, *args: Any) -> bool:
        """As ``model.<trigger>(*args)``: True once a transition ran, False when none
        of the current state's conditions held; ``MachineError`` from a state that
        has none."""
        if self._steps is None:
            done: bool = getattr(self._model, trigger)(*args)
            return done
        state = self._model.state
        steps = self._steps[trigger].get(state)
        if steps is None:
            name = self._machine.name
            raise MachineError(f"{name}Can't trigger event {trigger} from state {state}!")
        return any(step.run(self._model, args) for step in steps)


def _plain(machine: Machine) -> bool:
    """Whether the machine's triggers do nothing but run their transitions."""
    hooks = (
        machine.prepare_event,
        machine.before_state_change,
        machine.after_state_change,
        machine.finalize_event,
        machine.on_exception,
        machine.on_final,
    )
    direct = not (machine.has_queue or machine.send_event or machine.ignore_invalid_triggers)
    return (
        direct and not any(hooks) and machine.model_attribute == "state" and _plain_states(machine)
    )


def _plain_states(machine: Machine) -> bool:
    """Whether no state has a callback of its own or ignores a trigger."""
    return all(
        not (s.on_enter or s.on_exit or s.final)
        and s.ignore_invalid_triggers is None
        and s.value == s.name
        for s in machine.states.values()
    )


def _steps(machine: Machine, model: object) -> dict[str, dict[str, tuple[_Step, ...]]] | None:
    """Each trigger's transitions from each state; None if a name is not a method."""
    steps = {
        trigger: {
            source: tuple(_step(t) for t in transitions)
            for source, transitions in event.transitions.items()
        }
        for trigger, event in machine.events.items()
    }
    names = [name for by_source in steps.values() for name in _names(by_source)]
    return (
        _bound_steps(steps, model)
        if all(callable(getattr(model, n, None)) for n in names)
        else None
    )


def _bound_steps(
    steps: dict[str, dict[str, tuple[_Step, ...]]], model: object
) -> dict[str, dict[str, tuple[_Step, ...]]]:
    """The steps with their names bound to the model's methods."""
    return {
        trigger: {
            source: tuple(step.bound(model) for step in found) for source, found in by.items()
        }
        for trigger, by in steps.items()
    }


def _names(by_source: dict[str, tuple[_Step, ...]]) -> list[str]:
    return [name for found in by_source.values() for step in found for name in step.names()]


def _step(transition: Any) -> _Step:
    return _Step(
        tuple(transition.prepare),
        tuple((c.func, c.target) for c in transition.conditions),
        tuple(transition.before),
        transition.dest or None,
        tuple(transition.after),
    )
