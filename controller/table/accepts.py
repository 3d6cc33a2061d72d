"""What a table takes now: the console commands its state allows, for the API's
``status`` (docs/api.md), so a console offers only those.

Derived from the table itself: a command the game maps to a trigger of its machine is
taken where a transition of the current state has that trigger; a command the game
takes through a handler of its own is taken where the game says so
(``Table.open_commands``). A stopped table takes only the floorperson's clear
(controller/table/core.py). ``call_floor`` is taken in every state. A command listed
may still be refused for its fields or for what the round holds (a seat without a
wager, no card drawn in error); one not listed is refused whatever its fields.
"""

from __future__ import annotations

from controller.table.core import Table
from controller.table.events import CallFloor, FloorClear
from controller.table.halts import HALTED

# Handlers that take their command by firing a trigger of the machine: taken where it is.
_FIRES = {"_wager": "wager"}


def accepts(table: Table) -> list[str]:
    """The names of the console commands ``table`` takes in its state now, sorted."""
    names = {CallFloor.name}
    if table.state == HALTED:
        names.add(FloorClear.name)
        return sorted(names)
    triggers = table.triggers_now()
    opened = table.open_commands()
    for command, handler in type(table).COMMANDS.items():
        if _FIRES.get(handler, handler) in triggers or command.name in opened:
            names.add(command.name)
    return sorted(names)
