"""The table's triggers fired directly (controller/table/machine.py ``Triggers``): the
same transitions, in the same order, with the same callbacks as the machine's own
trigger, and the machine's own trigger wherever it would do more."""

from __future__ import annotations

from typing import Any

import pytest
from transitions import MachineError

from controller.games import GAMES, NAMES, Game
from controller.table.machine import Triggers, build_machine
from controller.table.seal import Sealer
from tests.support.journal import MemoryJournal
from tests.support.tables import Devices


class _Model:
    """A model whose every callback notes its call, and whose ``ok`` says whether the
    condition named holds."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[Any, ...]]] = []
        self.ok: dict[str, bool] = {}

    def go(self, *args: Any) -> bool:
        raise RuntimeError("bound by the state machine")

    def __getattr__(self, name: str) -> Any:
        if name.startswith("c_"):
            return lambda *args: self.calls.append((name, args)) or self.ok.get(name, True)
        if name.startswith("f_"):
            return lambda *args: self.calls.append((name, args))
        raise AttributeError(name)


_TRANSITIONS = [
    {"trigger": "go", "source": "a", "dest": "b", "conditions": ["c_one", "c_two"],
     "prepare": "f_prepare", "before": "f_before1", "after": ["f_after1", "f_after2"]},
    {"trigger": "go", "source": "a", "dest": None, "unless": "c_three",
     "before": "f_before2", "after": "f_after3"},
    {"trigger": "go", "source": "a", "dest": "c", "before": "f_before3"},
    {"trigger": "go", "source": "b", "dest": "a", "after": "f_after4"},
]  # fmt: skip


def _outcome(ok: dict[str, bool], state: str, direct: bool) -> tuple[object, ...]:
    model = _Model()
    machine = build_machine(
        model, {}, states=["a", "b", "c"], transitions=_TRANSITIONS, initial=state, name="t"
    )
    model.ok = ok
    triggers = Triggers(machine, model)
    try:
        done: object = triggers.fire("go", 7) if direct else model.go(7)
    except MachineError as exc:
        done = str(exc)
    return done, model.state, model.calls


@pytest.mark.parametrize("state", ["a", "b", "c"])
@pytest.mark.parametrize(
    "ok",
    [{}, {"c_one": False}, {"c_two": False}, {"c_three": True}, {"c_one": False, "c_three": True}],
)
def test_a_trigger_fired_directly_does_what_the_machine_does(
    ok: dict[str, bool], state: str
) -> None:
    assert _outcome(ok, state, direct=True) == _outcome(ok, state, direct=False)


@pytest.mark.parametrize("entry", GAMES.values(), ids=NAMES)
def test_every_game_fires_its_triggers_directly(entry: Game) -> None:
    table = entry.table(entry.defaults(), MemoryJournal(), Devices(), sealer=Sealer())
    assert table._triggers._steps is not None


def test_a_machine_with_hooks_of_its_own_fires_through_the_machine() -> None:
    model = _Model()
    machine = build_machine(
        model, {}, states=["a", "b", "c"], transitions=_TRANSITIONS, initial="a", name="t"
    )
    machine.after_state_change = ["f_hook"]
    triggers = Triggers(machine, model)
    assert triggers._steps is None
    assert triggers.fire("go", 1) is True
    assert ("f_hook", (1,)) in model.calls
