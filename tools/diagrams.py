"""docs/state-machines.md: a Mermaid ``stateDiagram-v2`` of each game's table machine,
read from the ``transitions.Machine`` the table builds, so the page cannot drift from
the code.

    python -m tools.diagrams --write docs/state-machines.md

The games, their titles and regulations and how to build each one's table are the
registry's (``controller.games``); any failure to build a table is an error.

transitions' own Mermaid output (``transitions.extensions.diagrams``) is not used: it
needs the table to be built on a ``GraphMachine`` rather than the plain ``Machine`` of
``controller.table.core``, and it drops the order in which one trigger's transitions
out of a state are tried, which is what tells them apart.
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from transitions import Machine
from transitions.core import Condition

from controller.games import GAMES, Game
from controller.table.core import Table
from controller.table.seal import Sealer
from tools.generated import emit


# A table is built only to read its machine: nothing it records or shows goes anywhere.
class NullJournal:
    def record(self, entry: Mapping[str, object]) -> None:
        pass


class NullDevices:
    def commit(self, device: str, event_id: int) -> None:
        pass

    def display(self, text: str) -> bool:
        return True

    def arm(self, target: object) -> bool:
        return True

    def disarm(self) -> bool:
        return True

    def self_test(self) -> bool:
        return True


def _no_gaming_day() -> str:
    return ""


def build_table(game: Game) -> Table:
    """The game's table with its default rules, idle in its initial state."""
    return game.table(
        game.defaults(),
        NullJournal(),
        NullDevices(),
        gaming_day=_no_gaming_day,
        sealer=Sealer(),
    )


# --------------------------------------------------------------------------- Mermaid


def _callback_name(func: object) -> str:
    if isinstance(func, functools.partial):
        args = [str(a) for a in func.args]
        args += [f"{k}={v}" for k, v in func.keywords.items()]
        return f"{_callback_name(func.func)}({', '.join(args)})"
    name = func if isinstance(func, str) else getattr(func, "__name__", repr(func))
    return name.lstrip("_")  # the table's private helpers; the underscore says nothing here


def _conditions(conditions: Iterable[Condition]) -> str:
    parts = [("" if c.target else "not ") + _callback_name(c.func) for c in conditions]
    return f" [{' & '.join(parts)}]" if parts else ""


def mermaid(machine: Machine) -> str:
    """The machine as a ``stateDiagram-v2``: one edge per source and destination, labelled
    with each trigger that takes it and that trigger's conditions. Where one trigger has
    several transitions out of a state they are numbered in the order they are tried."""
    states = list(machine.states)
    labels: dict[tuple[str, str], list[str]] = {}
    for source in states:
        for name, event in machine.events.items():
            tried = event.transitions.get(source, [])
            for n, transition in enumerate(tried, 1):
                order = f" ({n})" if len(tried) > 1 else ""
                dest = transition.dest if transition.dest is not None else source
                label = f"{name}{order}{_conditions(transition.conditions)}"
                labels.setdefault((source, dest), []).append(label)
    lines = ["stateDiagram-v2", f"    [*] --> {machine.initial}"]
    lines += [f"    {src} --> {dst}: {' | '.join(text)}" for (src, dst), text in labels.items()]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- the page

_PREAMBLE = """\
# Table state machines

Generated from the machines the tables build (`controller/table/`) by
`python -m tools.diagrams --write docs/state-machines.md`;
`tests/tools/test_diagrams.py` fails when this file is stale. Do not edit by hand.

How to read them:

- An edge is labelled with the trigger that takes it (a device event or console
  command, routed by the table) and, in brackets, the conditions that must hold.
  Several triggers taking the same edge are separated by `|`.
- Where one trigger has several transitions out of a state, they are numbered in
  the order they are tried: the first whose conditions hold is taken, so `card (2)`
  is taken only when the conditions of `card (1)` do not hold.
- An edge back to its own state handles the trigger without changing state.
- A trigger with no transition out of the current state, or none whose conditions
  hold, is refused with the section it breaks and the refusal recorded
  (`controller/table/core.py`).
- `halted`: play stopped for a floorperson (a device lost, a fault, a foreign or
  unreadable card). `floor_clear` returns to the state play stopped in
  (`resumes_to(...)`), or ends the shoe when what stopped it ends the shoe.
"""


def render(games: Sequence[tuple[Game, Machine]]) -> str:
    """The page for these games, in order; a game whose diagram repeats an earlier one's
    says so instead of repeating it."""
    out = [_PREAMBLE]
    shown: dict[str, str] = {}
    for game, machine in games:
        diagram = mermaid(machine)
        out.append(f"## {game.title} ({game.regulation})\n")
        same = shown.get(diagram)
        if same is not None:
            out.append(
                f"The same machine as {same}: the same states, transitions and conditions.\n"
                "The games differ only in what the transitions do.\n"
            )
        else:
            shown[diagram] = game.title
            out.append(f"```mermaid\n{diagram}```\n")
    return "\n".join(out)


def build(games: Iterable[Game] = GAMES.values()) -> str:
    """The page for these games, by default every registered one."""
    return render([(game, build_table(game).machine) for game in games])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m tools.diagrams",
        description="Write the Mermaid state diagrams of every game's table machine.",
    )
    ap.add_argument("--write", type=Path, help="write here instead of stdout")
    args = ap.parse_args(argv)
    return emit(build(), args.write)


if __name__ == "__main__":
    sys.exit(main())
