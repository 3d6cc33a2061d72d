"""The game registry (controller/games.py): every game is complete, and everything
that asks which games there are gets the same answer from it."""

from __future__ import annotations

import pytest

from controller.api import ROLES
from controller.games import GAMES, NAMES, Game, UnknownGame, game, of_rules
from controller.table.core import Table
from controller.table.events import Need
from controller.table.seal import Sealer
from tests.support.journal import MemoryJournal
from tests.support.paths import REGULATIONS
from tests.support.tables import Devices
from tools.compliance import subsections


def _chapters_in_the_regulations() -> set[str]:
    texts = [p.read_text(encoding="utf-8") for p in sorted(REGULATIONS.glob("*.txt"))]
    return {sub.ident.split(".")[0] for text in texts for sub in subsections(text)}


@pytest.mark.parametrize("entry", GAMES.values(), ids=NAMES)
def test_each_game_is_complete(entry: Game) -> None:
    assert entry.name in NAMES and game(entry.name) is entry
    assert entry.title and entry.regulation.startswith("58 Pa. Code")
    assert set(entry.chapters) <= _chapters_in_the_regulations()
    assert entry.seats > 0
    rules = entry.defaults()
    assert of_rules(rules) is entry


@pytest.mark.parametrize("entry", GAMES.values(), ids=NAMES)
def test_each_game_builds_its_table_with_its_default_rules(entry: Game) -> None:
    journal = MemoryJournal()
    table = entry.table(entry.defaults(), journal, Devices(), sealer=Sealer())
    assert isinstance(table, Table)
    assert table.game == entry.name
    assert table.need is Need.SHUFFLE  # every game starts wanting shuffled cards
    assert (table.shoe_number, table.round) == (0, 1)
    assert journal.entries == []


@pytest.mark.parametrize("entry", GAMES.values(), ids=NAMES)
def test_every_command_a_game_takes_has_its_socket(entry: Game) -> None:
    assert "floor_clear" in entry.commands
    assert entry.commands <= set(ROLES)


def test_every_command_with_a_socket_belongs_to_a_game() -> None:
    assert set(ROLES) == set().union(*(g.commands for g in GAMES.values()))


def test_an_unknown_game_is_one_line_naming_the_games() -> None:
    with pytest.raises(UnknownGame) as caught:
        game("poker")
    assert str(caught.value) == (
        "unknown game 'poker'; expected 'baccarat', 'midibaccarat' or 'spanish21'"
    )
