"""The game registry: the one place that knows which games there are.

A game is one pure rules module (``controller.rules``), one table package
(``controller.table``) and one entry here. Everything else (the configuration, the
daemon, recovery, the bench, the diagrams, the compliance matrix, ``analyze``, the
export and the views) takes the game from this registry by its name, the value of
``[table] game`` in a table's configuration. How to add a game: docs/architecture.md.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Protocol

from controller.rules.baccarat import BaccaratRules
from controller.rules.options import RulesError
from controller.rules.spanish21 import BOXES, Spanish21Rules

# A game's table package is imported when its table is first built or its commands or
# seats are asked for: ``tablectl analyze`` and the configuration's checks need only the
# rules, not the table engine.
if TYPE_CHECKING:
    from controller.table.baccarat import BaccaratTable
    from controller.table.core import Table
    from controller.table.events import Journal, ReaderDevices
    from controller.table.seal import Sealer
    from controller.table.spanish21 import Spanish21Table

Rules = BaccaratRules | Spanish21Rules


class TableFactory(Protocol):
    """Builds a game's table. ``gaming_day`` names the gaming day in force (551.2(e);
    default: the calendar day); ``sealer`` seals the cards a game keeps face down
    (551.8(e); default: a key that dies with the process). A game that needs neither
    ignores them."""

    def __call__(
        self,
        rules: Any,
        journal: Journal,
        devices: ReaderDevices,
        *,
        gaming_day: Callable[[], str] | None = None,
        sealer: Sealer | None = None,
    ) -> Table: ...


@dataclass(frozen=True)
class Game:
    """One game the controller deals.

    ``name``: the configuration's ``[table] game``. ``title``: its name for people.
    ``regulation``: where its procedure is written. ``chapters``: the chapter numbers
    whose subsections its tests prove (docs/compliance.md). ``rules``: its Rules
    Submission options from a ``[rules]`` table (``RulesError`` naming the key and
    section). ``defaults``: its rules with every option at its default. ``table``:
    builds its table. ``reader``: the table needs a card reader device (551.2(e)); a
    game without one forbids it. ``seals_cards``: the table seals cards in its journal
    (the hole card, 551.8(e)), so the daemon keeps a sealing key. ``seats``: the places
    at the table (seats, or Spanish 21's boxes; ``places`` counts them).
    ``analysis``: ``tablectl analyze`` computes its exact odds. ``commands``: the console
    commands its table takes. ``table_class`` imports and returns its table's class:
    ``seats`` and ``commands`` are computed from it when first asked for.
    """

    name: str
    title: str
    regulation: str
    chapters: tuple[str, ...]
    rules: Callable[[Mapping[str, Any]], Rules]
    table: TableFactory
    reader: bool
    seals_cards: bool
    places: Callable[[], int]
    analysis: bool
    table_class: Callable[[], type[Table]]

    def defaults(self) -> Rules:
        return self.rules({})

    @functools.cached_property
    def seats(self) -> int:
        return self.places()

    @functools.cached_property
    def commands(self) -> frozenset[str]:
        """The console commands its table takes: its game's, a floorperson's clear, which
        every table takes (``controller.table.halts``), the dealer's call for the
        floorperson and the floorperson's acknowledgement of a shuffle alert
        (``controller.table.core``)."""
        from controller.table.events import AcknowledgeShuffleAlert, CallFloor, FloorClear

        table = self.table_class()
        names = (command.name for command in table.COMMANDS)
        always = (FloorClear.name, CallFloor.name, AcknowledgeShuffleAlert.name)
        return frozenset({*always, *names})


def _baccarat_table() -> type[BaccaratTable]:
    from controller.table.baccarat import BaccaratTable

    return BaccaratTable


def _spanish21_table() -> type[Spanish21Table]:
    from controller.table.spanish21 import Spanish21Table

    return Spanish21Table


def _baccarat_seats(name: str) -> int:
    from controller.table.baccarat import SEATS

    return SEATS[name]


def _baccarat(
    rules: Any,
    journal: Journal,
    devices: ReaderDevices,
    *,
    gaming_day: Callable[[], str] | None = None,
    sealer: Sealer | None = None,
) -> Table:
    return _baccarat_table()(rules, journal, devices)


def _spanish21(
    rules: Any,
    journal: Journal,
    devices: ReaderDevices,
    *,
    gaming_day: Callable[[], str] | None = None,
    sealer: Sealer | None = None,
) -> Table:
    table = _spanish21_table()
    return table(rules, journal, devices, gaming_day=gaming_day, sealer=sealer)


def _baccarat_family(name: str, title: str, chapter: str) -> Game:
    """Baccarat and Midibaccarat: one table and one set of rules, each chapter's own."""
    return Game(
        name=name,
        title=title,
        regulation=f"58 Pa. Code ch. {chapter}",
        chapters=(chapter,),
        rules=functools.partial(BaccaratRules.from_dict, name),
        table=_baccarat,
        reader=False,
        seals_cards=False,
        places=functools.partial(_baccarat_seats, name),
        analysis=True,
        table_class=_baccarat_table,
    )


GAMES: Final[Mapping[str, Game]] = {
    game.name: game
    for game in (
        _baccarat_family("baccarat", "Baccarat", "545"),
        _baccarat_family("midibaccarat", "Midibaccarat", "543"),
        Game(
            name="spanish21",
            title="Spanish 21",
            regulation="58 Pa. Code ch. 551 and § 635a.7",
            chapters=("551", "635a"),
            rules=Spanish21Rules.from_dict,
            table=_spanish21,
            reader=True,
            seals_cards=True,
            places=functools.partial(len, BOXES),
            analysis=False,
            table_class=_spanish21_table,
        ),
    )
}
NAMES: Final = tuple(GAMES)


class UnknownGame(RulesError):
    """A game name the registry does not hold; the message is one line naming them."""


def game(name: str) -> Game:
    """The registered game called ``name``; ``UnknownGame`` otherwise."""
    try:
        return GAMES[name]
    except KeyError:
        expected = ", ".join(repr(n) for n in NAMES[:-1]) + f" or {NAMES[-1]!r}"
        raise UnknownGame(f"unknown game {name!r}; expected {expected}") from None


def of_rules(rules: Rules) -> Game:
    """The game a set of rules is for."""
    return game(rules.game)
