"""docs/state-machines.md is generated from the tables' machines."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest
from transitions import Machine

from controller.diagrams import TABLES, GameTable, build, build_table, machine_of, mermaid, render
from controller.rules.baccarat import BaccaratRules

ROOT = Path(__file__).resolve().parent.parent


def test_state_machines_doc_is_current() -> None:
    actual = (ROOT / "docs" / "state-machines.md").read_text(encoding="utf-8")
    assert actual == build(), "run: python -m controller.diagrams --write docs/state-machines.md"


class _Model:
    def _ready(self) -> bool:
        return True

    def _busy(self) -> bool:
        return False

    def _is(self, what: str) -> bool:
        return True


def _machine() -> Machine:
    model = _Model()
    return Machine(
        model=model,
        states=["idle", "open", "closed"],
        initial="idle",
        auto_transitions=False,
        transitions=[
            {"trigger": "go", "source": "idle", "dest": "open", "conditions": "_ready"},
            {
                "trigger": "go",
                "source": "idle",
                "dest": "closed",
                "conditions": functools.partial(model._is, "late"),
                "unless": "_busy",
            },
            {"trigger": "go", "source": "idle", "dest": None},
            {"trigger": "poke", "source": "idle", "dest": None},
            {"trigger": "shut", "source": "open", "dest": "closed"},
        ],
    )


def test_diagram_numbers_alternatives_and_shows_conditions() -> None:
    assert mermaid(_machine()) == (
        "stateDiagram-v2\n"
        "    [*] --> idle\n"
        "    idle --> open: go (1) [ready]\n"
        "    idle --> closed: go (2) [is(late) & not busy]\n"
        "    idle --> idle: go (3) | poke\n"
        "    open --> closed: shut\n"
    )


def _game(
    title: str, module: str = "controller.table.baccarat", cls: str = "BaccaratTable"
) -> GameTable:
    return GameTable(title, "test", module, cls, BaccaratRules)


def test_a_table_not_written_yet_is_left_off() -> None:
    missing = _game("Faro", module="controller.table.faro_not_written")
    assert build_table(missing) is None
    page = build([_game("Baccarat"), missing])
    assert "## Baccarat (test)" in page
    assert "Faro" not in page


def test_any_other_failure_to_build_a_table_is_an_error() -> None:
    with pytest.raises(AttributeError):
        build([_game("Baccarat", cls="NoSuchTable")])


def test_a_repeated_machine_is_named_not_drawn_again() -> None:
    machine = _machine()
    page = render([(_game("First"), machine), (_game("Second"), machine)])
    assert page.count("```mermaid") == 1
    assert "The same machine as First" in page


def test_baccarat_draws_every_state_and_trigger() -> None:
    table = build_table(TABLES[0])
    assert table is not None
    machine = machine_of(table)
    diagram = mermaid(machine)
    edges = [line.strip().split(": ", 1) for line in diagram.splitlines()[2:]]
    drawn_states = {s for ends, _ in edges for s in ends.split(" --> ")}
    assert drawn_states == set(machine.states)
    drawn_triggers = {part.split()[0] for _, label in edges for part in label.split(" | ")}
    assert drawn_triggers == set(machine.events)
