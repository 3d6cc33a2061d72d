"""docs/state-machines.md is generated from the tables' machines."""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import pytest
from transitions import Machine

from controller.games import GAMES, Game
from controller.table.core import Table
from tests.support.paths import ROOT
from tools.diagrams import build, build_table, mermaid, render


def test_state_machines_doc_is_current() -> None:
    actual = (ROOT / "docs" / "state-machines.md").read_text(encoding="utf-8")
    assert actual == build(), "run: python -m tools.diagrams --write docs/state-machines.md"


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


def _game(title: str) -> Game:
    return dataclasses.replace(GAMES["baccarat"], title=title, regulation="test")


def test_the_page_has_each_game_of_the_registry_under_its_title() -> None:
    page = build([_game("Baccarat"), GAMES["spanish21"]])
    assert "## Baccarat (test)" in page
    assert "## Spanish 21 (58 Pa. Code ch. 551 and § 635a.7)" in page
    assert "Midibaccarat" not in page


def test_any_failure_to_build_a_table_is_an_error() -> None:
    def no_table(*args: Any, **kwargs: Any) -> Table:
        raise AttributeError("no such table")

    with pytest.raises(AttributeError):
        build([dataclasses.replace(_game("Baccarat"), table=no_table)])


def test_a_repeated_machine_is_named_not_drawn_again() -> None:
    machine = _machine()
    page = render([(_game("First"), machine), (_game("Second"), machine)])
    assert page.count("```mermaid") == 1
    assert "The same machine as First" in page


def test_baccarat_draws_every_state_and_trigger() -> None:
    machine = build_table(GAMES["baccarat"]).machine
    diagram = mermaid(machine)
    edges = [line.strip().split(": ", 1) for line in diagram.splitlines()[2:]]
    drawn_states = {s for ends, _ in edges for s in ends.split(" --> ")}
    assert drawn_states == set(machine.states)
    drawn_triggers = {part.split()[0] for _, label in edges for part in label.split(" | ")}
    assert drawn_triggers == set(machine.events)
