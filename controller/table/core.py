"""What every table does, whatever its game: inputs recorded before anything else,
device health, stopping for a floorperson, refusals, the shoe's display.

A game subclasses ``Table`` with its states and transitions; ``Table`` adds the
``halted`` state and its ``halt`` / ``floor_clear`` transitions, builds the one
``transitions.Machine`` of the table, and owns the order of work for each input:

1. the input is written to the journal (a device event before it is committed to
   its device, so the device keeps it until it is durably recorded);
2. it is routed to a trigger; a trigger the procedure does not allow in the
   current state is refused with the section it breaks, and the refusal recorded;
3. events held while play was stopped run once a floorperson clears the table.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import re
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

import structlog
from transitions import Machine, MachineError

from controller.rules.cards import CardError, card
from controller.table.events import (
    Command,
    Devices,
    FloorClear,
    Journal,
    ManualShuffle,
    Need,
    NoMoreBets,
    Wager,
)
from drivers import messages as m

log = structlog.get_logger("controller.table")


class _QuietOverride(logging.Filter):
    """transitions warns for every helper (``is_*``, ``may_*``) that ``model_override``
    leaves unbound on purpose; that is the policy working, not a problem."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "due to model override policy" not in record.getMessage()


logging.getLogger("transitions.core").addFilter(_QuietOverride())

_Item = TypeVar("_Item", m.Event, Command)

HALTED = "halted"
INTERRUPTED = "interrupted_round"  # a restart found a round in play (controller.recovery)
STOP_PROMPT = "STOP: CALL THE FLOOR"
REPAIRS = ("repaired", "replaced")

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
class Halt:
    """Why play stopped. ``ends_shoe``: the cards in play cannot be trusted, so clearing
    voids the round and ends the shoe. ``needs_card``: the floorperson must enter the
    card the shoe could not read. ``needs_repair``: the floorperson must record the
    device's repair or replacement (551.16(m)). ``seal``: an interrupted round's hole
    card, sealed and not known after a restart; the floorperson may enter it, checked
    against the seal (551.8(e)), or clear without it to void the round."""

    cause: str
    device: str | None
    detail: str
    section: str | None = None
    ends_shoe: bool = False
    needs_card: bool = False
    needs_repair: bool = False
    seal: str | None = None

    def entry(self) -> dict[str, object]:
        entry: dict[str, object] = {
            "cause": self.cause,
            "device": self.device,
            "detail": self.detail,
            "section": self.section,
            "ends_shoe": self.ends_shoe,
        }
        if self.needs_repair:
            entry["needs_repair"] = True
        if self.seal is not None:
            entry["seal"] = self.seal
        return entry


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why an input is refused. ``section`` is None where the rule is the controller's
    own fail-safe (a stopped table) rather than a regulation."""

    section: str | None
    reason: str


def event_name(event: m.Event) -> str:
    return _snake(type(event).__name__)


@functools.cache
def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


class Table(ABC):
    """One table's state machine, owned by the single thread that calls ``handle``."""

    state: str  # set by the machine
    # Events that carry the procedure forward, held while play is stopped; a game with
    # more devices adds theirs.
    procedure_events: ClassVar[tuple[type[m.Event], ...]] = PROCEDURE_EVENTS

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
    ) -> None:
        self.game = game
        self._journal = journal
        self._devices = devices
        self._shoe = shoe
        self._halts: list[Halt] = []
        self._resume = initial
        self._held: deque[m.Event] = deque()
        self._missing: set[str] = set()  # devices lost or refused and not back yet
        self._last_prompt: str | None = None
        self._prompt_before_halt: str | None = None
        self._machine = Machine(
            model=self,
            states=[*states, HALTED],
            initial=initial,
            transitions=[*transitions, *self._halt_transitions(states, shoe_over)],
            auto_transitions=False,
            model_override=True,
            name=game,
        )

    # ------------------------------------------------------------------ triggers
    # Bound by the machine (model_override): typed entry points, never run as written.

    def halt(self, halt: Halt) -> bool:
        raise RuntimeError("bound by the state machine")

    def floor_clear(self, command: FloorClear) -> bool:
        raise RuntimeError("bound by the state machine")

    # Every game's machine has these too.

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
    def need(self) -> Need:
        if self.state == HALTED:
            return Need.FLOOR
        return self._need()

    @property
    def can_clear(self) -> bool:
        """Whether a floorperson's clear without a card (with the repair recorded, where
        one is needed) would be accepted now."""
        repair = REPAIRS[0] if self.repair_needed else None
        return self.state == HALTED and self._clear_problem(FloorClear(repair=repair)) is None

    @property
    def repair_needed(self) -> bool:
        """Whether play stays stopped until a device's repair or replacement is recorded."""
        return any(h.needs_repair for h in self._halts)

    def interrupt(self, halt: Halt, held: Iterable[m.Event] = ()) -> None:
        """After a restart (``controller.recovery``): stop play for a floorperson over the
        round the journal shows in play. ``held``: inputs journaled as the table stopped
        but not acted on yet; they run once the floorperson clears."""
        self._held.extend(held)
        self._stop(halt)

    def handle(self, item: m.Event | Command) -> None:
        """Take one device event or console command, then whatever it released."""
        if isinstance(item, Command):
            self._record({"type": "command", "command": item.name, **self._command_fields(item)})
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

    @abstractmethod
    def _on_procedure_event(self, event: m.Event) -> None:
        """A procedure event (cards, cover card, shuffles) while play is not stopped."""

    @abstractmethod
    def _on_game_command(self, command: Command) -> None:
        """A dealer's command while play is not stopped."""

    @abstractmethod
    def _refusal(self, trigger: str, item: m.Event | Command) -> Refusal:
        """Why no transition of the current state takes ``trigger``."""

    @abstractmethod
    def _void_and_end_shoe(self, reason: str) -> None:
        """A floorperson cleared a halt that ends the shoe (``Halt.ends_shoe``): the table
        is in the ``shoe_over`` state already."""

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
        """Why ``token`` is not the sealed card ``halt`` waits for; a game that seals
        cards checks the seal."""
        return Refusal("551.8(e)", "this table seals no card a floorperson could enter")

    def _clear_interrupted(self, command: FloorClear, halt: Halt) -> None:
        """A floorperson cleared a round interrupted by a restart: play goes on from the
        rebuilt state. A game with sealed cards completes the round with the card
        entered, or voids it."""
        return None

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
            done = getattr(self, trigger)(item)
        except MachineError:
            done = False
        if not done:
            self._refuse(item, self._refusal(trigger, item))

    def _refuse(self, item: m.Event | Command, refusal: Refusal) -> None:
        what: dict[str, object]
        if isinstance(item, Command):
            # The game's view of the fields: a floorperson's card may be the hole card,
            # refused or not (551.8(e)).
            what = {"command": item.name, **self._command_fields(item)}
        else:
            what = {"device": item.device, "event": event_name(item)}
            if item.event_id is not None:
                what["event_id"] = item.event_id
        self._record(
            {
                "type": "refused",
                **what,
                "state": self.state,
                "section": refusal.section,
                "reason": refusal.reason,
            }
        )

    def _stop(self, halt: Halt) -> None:
        self.halt(halt)

    def _causes(self) -> str:
        return "; ".join(f"{h.cause} ({h.detail})" for h in self._halts)

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
        if isinstance(event, m.DeviceConnected):
            self._missing.discard(event.device)
        elif isinstance(event, m.DeviceLost | m.DeviceRefused):
            self._missing.add(event.device)
            cause = "device_lost" if isinstance(event, m.DeviceLost) else "device_refused"
            self._stop(Halt(cause, event.device, event.reason))
        elif isinstance(event, m.DeviceFault):
            self._on_device_fault(event)
        elif isinstance(event, m.LinkTamper):
            detail = f"{event.failures} frames failed authentication"
            self._stop(Halt("link_tamper", event.device, detail))
        elif isinstance(event, m.EventGap | m.MalformedEvent):
            # A shoe event lost or unreadable: a card may be unaccounted for.
            detail = (
                f"events {event.expected}..{event.got - 1} lost"
                if isinstance(event, m.EventGap)
                else event.reason
            )
            self._stop(
                Halt(event_name(event), event.device, detail, None, event.device == self._shoe)
            )
        elif isinstance(event, self.procedure_events):
            if self.state == HALTED:
                self._held.append(event)
                entry: dict[str, object] = {
                    "type": "held",
                    "device": event.device,
                    "event": event_name(event),
                }
                if event.event_id is not None:
                    entry["event_id"] = event.event_id
                self._record(entry)
            else:
                self._on_procedure_event(event)
        else:
            self._on_other_event(event)

    def _on_command(self, command: Command) -> None:
        if isinstance(command, FloorClear):
            problem = self._clear_problem(command) if self.state == HALTED else None
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

    def _clear_problem(self, command: FloorClear) -> str | Refusal | None:
        if self._missing:
            lost = ", ".join(sorted(self._missing))
            return f"{lost} not connected: play stays stopped until it is back"
        needs_card = any(h.needs_card for h in self._halts)
        if needs_card and command.card is None:
            return "enter the card the shoe could not read"
        sealed = next((h for h in self._halts if h.seal is not None), None)
        if command.card is not None:
            if not needs_card and sealed is None:
                return "no unreadable card is waiting to be entered"
            try:
                token = card(command.card)
            except CardError as exc:
                return str(exc)
            if not needs_card and sealed is not None:
                refusal = self._entered_problem(sealed, token)
                if refusal is not None:
                    return refusal
        repair = next((h for h in self._halts if h.needs_repair), None)
        if repair is not None and command.repair not in REPAIRS:
            return (
                f"record the {repair.device}'s repair or replacement "
                f"(repair: {' or '.join(REPAIRS)}) before play goes on ({repair.section})"
            )
        if repair is None and command.repair is not None:
            return "no device is waiting for a repair or replacement"
        return None

    # ------------------------------------------------------------------ halted

    def _halt_transitions(self, states: Sequence[str], shoe_over: str) -> list[dict[str, Any]]:
        resume = [
            {
                "trigger": "floor_clear",
                "source": HALTED,
                "dest": state,
                "conditions": [functools.partial(self._resumes_to, state)],
                "after": "_cleared",
            }
            for state in states
        ]
        return [
            {"trigger": "halt", "source": HALTED, "dest": None, "before": "_add_halt"},
            {"trigger": "halt", "source": list(states), "dest": HALTED, "before": "_enter_halt"},
            {
                "trigger": "floor_clear",
                "source": HALTED,
                "dest": shoe_over,
                "conditions": "_clear_ends_shoe",
                "after": "_cleared_ending_shoe",
            },
            *resume,
        ]

    def _enter_halt(self, halt: Halt) -> None:
        self._resume = self.state
        self._prompt_before_halt = self._last_prompt
        self._add_halt(halt)
        self._prompt(STOP_PROMPT)

    def _add_halt(self, halt: Halt) -> None:
        self._halts.append(halt)
        self._record({"type": "halt", **halt.entry()})

    def _resumes_to(self, state: str, command: FloorClear) -> bool:
        return self._resume == state

    def _clear_ends_shoe(self, command: FloorClear) -> bool:
        return any(h.ends_shoe for h in self._halts)

    def _cleared(self, command: FloorClear) -> None:
        self._record({"type": "floor_clear", "causes": [h.cause for h in self._halts]})
        if command.card is not None and any(h.needs_card for h in self._halts):
            # The floorperson's reading takes the unreadable card's place, ahead of
            # anything held after it.
            token = card(command.card)
            self._held.appendleft(m.CardDrawn(self._shoe, None, token[0], token[1], False))
        interrupted = next((h for h in self._halts if h.cause == INTERRUPTED), None)
        self._halts.clear()
        if self._prompt_before_halt is not None:
            self._prompt(self._prompt_before_halt)  # what the dealer was doing
        if interrupted is not None:
            self._clear_interrupted(command, interrupted)

    def _cleared_ending_shoe(self, command: FloorClear) -> None:
        reason = self._causes()
        self._record({"type": "floor_clear", "causes": [h.cause for h in self._halts]})
        self._halts.clear()
        self._void_and_end_shoe(reason)

    # ------------------------------------------------------------------ records

    def _command_fields(self, command: Command) -> dict[str, object]:
        """How a console command is recorded. A game with a hole card seals a card the
        floorperson enters until it is placed face up (551.8(e))."""
        return command.fields()

    def _device_entry(self, event: m.Event) -> dict[str, object]:
        entry: dict[str, object] = {
            "type": "device",
            "device": event.device,
            "event": event_name(event),
        }
        if event.event_id is not None:
            entry["event_id"] = event.event_id
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
