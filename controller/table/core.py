"""What every table does, whatever its game: inputs recorded before anything else,
device health, stopping for a floorperson, refusals, the shoe's display.

A game subclasses ``Table`` with its states and transitions; ``Table`` adds the
``halted`` state and its ``halt`` / ``floor_clear`` transitions
(``controller.table.halts``), builds the one ``transitions.Machine`` of the table
(``controller.table.machine``), and owns the order of work for each input:

1. the input is written to the journal (a device event before it is committed to
   its device, so the device keeps it until it is durably recorded);
2. it is routed to a trigger; a trigger the procedure does not allow in the
   current state is refused with the section it breaks, and the refusal recorded;
3. events held while play was stopped run once a floorperson clears the table.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from abc import abstractmethod
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

import structlog
from transitions import Machine, MachineError

from controller.table.events import (
    AcknowledgeShuffleAlert,
    CallFloor,
    Command,
    Devices,
    FloorClear,
    Journal,
    ManualShuffle,
    Need,
    NoMoreBets,
    Wager,
)
from controller.table.halts import (
    HALTED,
    HEALTH_EVENTS,
    Halt,
    Halting,
)
from controller.table.machine import Triggers, bound_method, build_machine
from drivers import messages as m

log = structlog.get_logger("controller.table")

_Item = TypeVar("_Item", m.Event, Command)

# Events that carry the procedure forward: held while play is stopped, then run in order.
PROCEDURE_EVENTS: tuple[type[m.Event], ...] = (
    m.CardDrawn,
    m.CutCardSeen,
    m.ShoeEmpty,
    m.UnreadableCard,
    m.CardsLoaded,
    m.ShuffleCompleted,
    m.ShufflerJam,
    m.ShufflerStopped,
    m.CycleIncomplete,
)


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why an input is refused. ``section`` is None where the rule is the controller's
    own fail-safe (a stopped table) rather than a regulation."""

    section: str | None
    reason: str


# Takes one input: returns why it is refused, or None once it is done.
Handler = Callable[[Any], Refusal | None]


def event_name(event: m.Event) -> str:
    """How the journal names a device event (``CardDrawn`` -> ``card_drawn``)."""
    return event_type_name(type(event))


def event_type_name(kind: type[m.Event]) -> str:
    """How the journal names a kind of device event."""
    return _snake(kind.__name__)


@functools.cache
def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _event_fields(event: m.Event) -> dict[str, object]:
    """How a device event is named in a record."""
    fields: dict[str, object] = {"device": event.device, "event": event_name(event)}
    if event.event_id is not None:
        fields["event_id"] = event.event_id
    return fields


class Table(Halting):
    """One table's state machine, owned by the single thread that calls ``handle``."""

    # Events that carry the procedure forward, held while play is stopped; a game with
    # more devices adds theirs.
    procedure_events: ClassVar[tuple[type[m.Event], ...]] = PROCEDURE_EVENTS
    # The console commands the game takes, each to the trigger it fires or to the
    # ``Handler`` that takes it, named as the machine's callbacks are; ``CHECKS`` may
    # refuse a command (a ``Handler`` returning the refusal) before it goes on; the
    # procedure events the game takes, each to its trigger or ``Handler``, likewise.
    COMMANDS: ClassVar[Mapping[type[Command], str]] = {}
    CHECKS: ClassVar[Mapping[type[Command], str]] = {}
    EVENTS: ClassVar[Mapping[type[m.Event], str]] = {}

    def __init__(
        self,
        game: str,
        journal: Journal,
        devices: Devices,
        *,
        states: Sequence[str],
        transitions: Iterable[dict[str, Any]],
        initial: str,
        shoe_over: str,
        shoe: str = "shoe",
        parts: Mapping[str, object] | None = None,
    ) -> None:
        """``parts``: the game's components, by the names its transitions call them."""
        super().__init__(initial)
        self.game = game
        self._journal = journal
        self._devices = devices
        self._shoe = shoe
        self._held = deque()
        self._last_prompt = None
        self._parts: Mapping[str, object] = parts or {}
        self._machine = build_machine(
            self,
            self._parts,
            states=[*states, HALTED],
            transitions=[*transitions, *self._halt_transitions(states, shoe_over)],
            initial=initial,
            name=game,
        )
        self._triggers = Triggers(self._machine, self)
        self._state_triggers: dict[str, frozenset[str]] = {}
        self._commands = self._handlers(self.COMMANDS)
        self._checks = {kind: bound_method(self, self._parts, n) for kind, n in self.CHECKS.items()}
        self._events = self._handlers(self.EVENTS)

    # ------------------------------------------------------------------ triggers
    # Bound by the machine (model_override): typed entry points, never run as written.
    # Every game's machine has these.

    def shuffled(self, item: m.ShuffleCompleted | ManualShuffle) -> bool:
        raise RuntimeError("bound by the state machine")

    def card(self, event: m.CardDrawn) -> bool:
        raise RuntimeError("bound by the state machine")

    def wager(self, command: Wager) -> bool:
        raise RuntimeError("bound by the state machine")

    def no_more_bets(self, command: NoMoreBets) -> bool:
        raise RuntimeError("bound by the state machine")

    # ------------------------------------------------------------------ public

    @property
    @abstractmethod
    def shoe_number(self) -> int:
        """The shoe in play, counted from 1 (0 before the first shuffle)."""

    @property
    @abstractmethod
    def round(self) -> int:
        """The round being wagered on or dealt, counted within the shoe."""

    @property
    def machine(self) -> Machine:
        """The table's one state machine, to read (the diagrams); inputs go to ``handle``."""
        return self._machine

    @property
    def need(self) -> Need:
        if self.state == HALTED:
            return Need.FLOOR
        return self._need()

    def triggers_now(self) -> frozenset[str]:
        """The machine's triggers with a transition from the current state (conditions
        not asked), each state's found once: the transitions are fixed at build."""
        state = self.state
        found = self._state_triggers.get(state)
        if found is None:
            found = self._state_triggers[state] = frozenset(self._machine.get_triggers(state))
        return found

    def open_commands(self) -> frozenset[str]:
        """The commands taken by a handler of the game's own (not a trigger of the
        machine) that the table takes now (``controller.table.accepts``); a handler may
        still refuse one for its fields."""
        return frozenset()

    def decisions(self) -> dict[str, object] | None:
        """The hand a player decides on now and the decisions allowed on it; None when
        no decision is due or the game has none."""
        return None

    def handle(self, item: m.Event | Command, *, login: str | None = None) -> None:
        """Take one device event or console command, then whatever it released.
        ``login``: who at the console sent the command, recorded with it (the API's
        request names it; a replay reads it and ignores it)."""
        if isinstance(item, Command):
            entry = {"type": "command", "command": item.name, **self._command_fields(item)}
            if login is not None:
                entry["login"] = login
            self._record(entry)
            self._guard(self._on_command, item)
        else:
            self._record(self._device_entry(item))  # durable before the device forgets it
            if item.event_id is not None:
                self._devices.commit(item.device, item.event_id)
            self._guard(self._route, item)
        while self.state != HALTED and self._pending():
            pass

    # ------------------------------------------------------------------ game hooks

    @abstractmethod
    def _need(self) -> Need:
        """What the table waits for while play is not stopped."""

    def _on_procedure_event(self, event: m.Event) -> None:
        """A procedure event (cards, cover card, shuffles) while play is not stopped: to
        its handler in ``EVENTS``."""
        self._run(self._events[type(event)], event)

    def _on_game_command(self, command: Command) -> None:
        """A dealer's command while play is not stopped: refused by its check in
        ``CHECKS``, or to its handler in ``COMMANDS``."""
        handler = self._commands.get(type(command))
        if handler is None:
            self._refuse(command, Refusal(None, f"{command.name} is not a {self.game} command"))
            return
        check = self._checks.get(type(command))
        refusal = None if check is None else check(command)
        if refusal is not None:
            self._refuse(command, refusal)
        else:
            self._run(handler, command)

    @abstractmethod
    def _refusal(self, trigger: str, item: m.Event | Command) -> Refusal:
        """Why no transition of the current state takes ``trigger``."""

    def _on_device_fault(self, event: m.DeviceFault) -> None:
        """A device reports a fault: play stops for a floorperson. A game may treat a
        particular device's faults under its own rule."""
        detail = f"fault code {event.code}, detail {event.detail}"
        self._stop(Halt("device_fault", event.device, detail))

    def _on_other_event(self, event: m.Event) -> None:
        """A device event that is neither a procedure event nor the link's or device's
        health (a lid, a door, a shuffler attached, ...): recorded only, unless the game
        acts on it. It runs at once, even while play is stopped."""
        return None  # Baccarat's lid and door change nothing in its procedure

    def _entered_problem(self, halt: Halt, token: str) -> Refusal | None:
        """A table that seals no card has none a floorperson could enter."""
        return Refusal("551.8(e)", "this table seals no card a floorperson could enter")

    def _pending(self) -> bool:
        """Run one piece of work the game deferred; False when there is none."""
        if self._held:
            self._guard(self._route, self._held.popleft())
            return True
        return False

    # ------------------------------------------------------------------ helpers for games

    def _record(self, entry: Mapping[str, object]) -> None:
        self._journal.record(entry)

    def _prompt(self, text: str, section: str | None = None) -> None:
        """Show a prompt on the shoe's display and record it."""
        shown = self._devices.display(text)
        self._last_prompt = text
        entry: dict[str, object] = {"type": "prompt", "text": text, "shown": shown}
        if section is not None:
            entry["section"] = section
        self._record(entry)

    def _fire(self, trigger: str, item: m.Event | Command) -> None:
        """Run ``trigger``; refuse the input when no transition of the current state takes it
        (none from this state, or none whose conditions hold)."""
        try:
            done = self._triggers.fire(trigger, item)
        except MachineError:
            done = False
        if not done:
            self._refuse(item, self._refusal(trigger, item))

    def _run(self, handler: Handler, item: m.Event | Command) -> None:
        """Give ``item`` to ``handler``; refuse it for the reason the handler gives."""
        refusal = handler(item)
        if refusal is not None:
            self._refuse(item, refusal)

    def _handlers(self, names: Mapping[type[_Item], str]) -> dict[type[_Item], Handler]:
        """Each input type's handler: a trigger of the machine is fired (and refused when
        the procedure does not allow it); any other name is a ``Handler`` method."""
        return {
            kind: (
                functools.partial(self._fire, name)
                if name in self._machine.events
                else bound_method(self, self._parts, name)
            )
            for kind, name in names.items()
        }

    def _refuse(self, item: m.Event | Command, refusal: Refusal) -> None:
        what: dict[str, object]
        if isinstance(item, Command):
            # The game's view of the fields: a floorperson's card may be the hole card,
            # refused or not (551.8(e)).
            what = {"command": item.name, **self._command_fields(item)}
        else:
            what = _event_fields(item)
        self._record(
            {
                "type": "refused",
                **what,
                "state": self.state,
                "section": refusal.section,
                "reason": refusal.reason,
            }
        )

    # ------------------------------------------------------------------ routing

    def _guard(self, work: Callable[[_Item], object], item: _Item) -> None:
        """Run ``work(item)``; a bug stops the table for a floorperson instead of killing
        the thread that owns it, and ends the shoe, whose state is no longer known."""
        try:
            work(item)
        except Exception as exc:
            log.exception("table_internal_error", game=self.game, state=self.state)
            detail = f"{type(exc).__name__}: {exc}"
            self._record({"type": "internal_error", "state": self.state, "detail": detail})
            self._stop(Halt("internal_error", None, detail, ends_shoe=True))

    def _route(self, event: m.Event) -> None:
        if isinstance(event, HEALTH_EVENTS):
            self._on_health(event)
        elif isinstance(event, m.DeviceFault):
            self._on_device_fault(event)
        elif not isinstance(event, self.procedure_events):
            self._on_other_event(event)
        elif self.state == HALTED:
            self._held.append(event)
            self._record({"type": "held", **_event_fields(event)})
        else:
            self._on_procedure_event(event)

    def _on_command(self, command: Command) -> None:
        if isinstance(command, CallFloor | AcknowledgeShuffleAlert):
            return  # its command entry is the record; nothing at the table changes
        if isinstance(command, FloorClear):
            problem = self._clear_problem(command) if self.state == HALTED else self._not_stopped()
            if isinstance(problem, Refusal):
                self._refuse(command, problem)
            elif problem is not None:
                self._refuse(command, Refusal(None, problem))
            else:
                self._fire("floor_clear", command)
        elif self.state == HALTED:
            self._refuse(
                command, Refusal(None, f"play is stopped for a floorperson: {self._causes()}")
            )
        else:
            self._on_game_command(command)

    def _not_stopped(self) -> str:
        """Why a floorperson's clear finds nothing to clear: where play is instead (a
        restart that found no round in play, or whose stop was cleared, left it so)."""
        where = f", shoe {self.shoe_number} round {self.round}" if self.shoe_number else ""
        return f"nothing to clear: play is not stopped; the table is {self.state}{where}"

    # ------------------------------------------------------------------ records

    def _command_fields(self, command: Command) -> dict[str, object]:
        """How a console command is recorded. A game with a hole card seals a card the
        floorperson enters until it is placed face up (551.8(e))."""
        return command.fields()

    def _device_entry(self, event: m.Event) -> dict[str, object]:
        entry: dict[str, object] = {"type": "device", **_event_fields(event)}
        if isinstance(event, m.CardDrawn):
            entry.update(self._card_fields(event))
        else:
            for f in dataclasses.fields(event):
                if f.name not in ("device", "event_id"):
                    entry[f.name] = getattr(event, f.name)
        return entry

    def _card_fields(self, event: m.CardDrawn) -> dict[str, object]:
        """How a card read by the shoe is recorded. A game with a hole card seals it here
        until the dealer reveals it (551.8(e))."""
        return {"card": event.token, "face_up": event.face_up}
