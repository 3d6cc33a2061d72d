"""Play stopped for a floorperson: why (``Halt``), the ``halted`` state and its
transitions, and what a floorperson's clear needs before play goes on.

``Halting`` is the part of every table (``controller.table.core.Table``) that stops
and resumes play: it owns why play stopped, the devices lost and not back, the state
a clear returns to and the prompt it shows again.
"""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from controller.rules.cards import CardError, card
from controller.table.events import FloorClear
from drivers import messages as m

if TYPE_CHECKING:
    from controller.table.core import Refusal

HALTED = "halted"
INTERRUPTED = "interrupted_round"  # a restart found a round in play (controller.recovery)
STOP_PROMPT = "STOP: CALL THE FLOOR"
REPAIRS = ("repaired", "replaced")

# The links' and devices' health: a device back, or play stopped for a floorperson.
HEALTH_EVENTS: tuple[type[m.Event], ...] = (
    m.DeviceConnected,
    m.DeviceLost,
    m.DeviceRefused,
    m.LinkTamper,
    m.EventGap,
    m.MalformedEvent,
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


class Halting(ABC):
    """The ``halted`` state of every table (a base of ``controller.table.core.Table``):
    play stopped for a floorperson, and the clear that lets it go on."""

    # Kept by the table and read here.
    state: str  # set by the machine
    _shoe: str  # the dealing shoe's device name
    _held: deque[m.Event]  # events held while play is stopped
    _last_prompt: str | None

    def __init__(self, initial: str) -> None:
        self._halts: list[Halt] = []
        self._resume = initial  # the state a floorperson's clear returns to
        self._missing: set[str] = set()  # devices lost or refused and not back yet
        self._prompt_before_halt: str | None = None

    # ------------------------------------------------------------------ triggers
    # Bound by the machine (model_override): typed entry points, never run as written.

    def halt(self, halt: Halt) -> bool:
        raise RuntimeError("bound by the state machine")

    def floor_clear(self, command: FloorClear) -> bool:
        raise RuntimeError("bound by the state machine")

    # ------------------------------------------------------------------ public

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

    def restarted(self) -> None:  # noqa: B027 (a hook, empty for a game without one)
        """After a restart's replay (``controller.recovery``), live and when a later
        replay meets the restart's ``resumed`` row: forget what waited for the process
        that died. Nothing, for a table that waits for no device's answer."""

    def interrupt(self, halt: Halt, held: Iterable[m.Event] = ()) -> None:
        """After a restart (``controller.recovery``): stop play for a floorperson over the
        round the journal shows in play. ``held``: inputs journaled as the table stopped
        but not acted on yet; they run once the floorperson clears."""
        self._held.extend(held)
        self._stop(halt)

    # ------------------------------------------------------------------ the table's record, display

    @abstractmethod
    def _record(self, entry: Mapping[str, object]) -> None: ...

    @abstractmethod
    def _prompt(self, text: str, section: str | None = None) -> None: ...

    # ------------------------------------------------------------------ game hooks

    @abstractmethod
    def _void_and_end_shoe(self, reason: str) -> None:
        """A floorperson cleared a halt that ends the shoe (``Halt.ends_shoe``): the table
        is in the ``shoe_over`` state already."""

    @abstractmethod
    def _entered_problem(self, halt: Halt, token: str) -> Refusal | None:
        """Why ``token`` is not the sealed card ``halt`` waits for; a game that seals
        cards checks the seal."""

    def _clear_interrupted(self, command: FloorClear, halt: Halt) -> None:
        """A floorperson cleared a round interrupted by a restart: play goes on from the
        rebuilt state. A game with sealed cards completes the round with the card
        entered, or voids it."""
        return None

    # ------------------------------------------------------------------ stopping

    def _stop(self, halt: Halt) -> None:
        self.halt(halt)

    def _causes(self) -> str:
        return "; ".join(f"{h.cause} ({h.detail})" for h in self._halts)

    def _on_health(self, event: m.Event) -> None:
        """A link's or device's health (``HEALTH_EVENTS``): a device back, or play stops."""
        if isinstance(event, m.DeviceConnected):
            self._missing.discard(event.device)
        elif isinstance(event, m.DeviceLost | m.DeviceRefused):
            self._missing.add(event.device)
            cause = "device_lost" if isinstance(event, m.DeviceLost) else "device_refused"
            self._stop(Halt(cause, event.device, event.reason))
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
            cause = "event_gap" if isinstance(event, m.EventGap) else "malformed_event"
            self._stop(Halt(cause, event.device, detail, None, event.device == self._shoe))

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

    # ------------------------------------------------------------------ a clear

    def _clear_problem(self, command: FloorClear) -> str | Refusal | None:
        """Why ``command`` cannot clear the table now; None: it can."""
        problem: str | Refusal | None = self._device_problem()
        if problem is None:
            problem = self._card_problem(command)
        if problem is None:
            problem = self._repair_problem(command)
        return problem

    def _device_problem(self) -> str | None:
        if not self._missing:
            return None
        lost = ", ".join(sorted(self._missing))
        return f"{lost} not connected: play stays stopped until it is back"

    def _card_problem(self, command: FloorClear) -> str | Refusal | None:
        needs_card = self._needs_card()
        if command.card is None:
            return "enter the card the shoe could not read" if needs_card else None
        # Not the unreadable card: the sealed card of a round a restart interrupted.
        sealed = None if needs_card else self._sealed()
        if not needs_card and sealed is None:
            return "no unreadable card is waiting to be entered"
        try:
            token = self._entered_card(command.card)
        except CardError as exc:
            return str(exc)
        return None if sealed is None else self._entered_problem(sealed, token)

    def _entered_card(self, text: str) -> str:
        """The card a floorperson enters; CardError when it is none. A table that seals
        cards also takes, from a replay alone, a stand-in for one the journal never
        released (``controller.rules.cards.stand_in``)."""
        return card(text)

    @property
    def needs_card(self) -> bool:
        """Whether play stays stopped until a floorperson enters the card the shoe could
        not read (a card entered now is that one, not a sealed hole card)."""
        return self._needs_card()

    def _needs_card(self) -> bool:
        return any(h.needs_card for h in self._halts)

    def _sealed(self) -> Halt | None:
        return next((h for h in self._halts if h.seal is not None), None)

    def _repair_problem(self, command: FloorClear) -> str | None:
        repair = next((h for h in self._halts if h.needs_repair), None)
        if repair is not None and command.repair not in REPAIRS:
            return (
                f"record the {repair.device}'s repair or replacement "
                f"(repair: {' or '.join(REPAIRS)}) before play goes on ({repair.section})"
            )
        if repair is None and command.repair is not None:
            return "no device is waiting for a repair or replacement"
        return None

    def _resumes_to(self, state: str, command: FloorClear) -> bool:
        return self._resume == state

    def _clear_ends_shoe(self, command: FloorClear) -> bool:
        return any(h.ends_shoe for h in self._halts)

    def _cleared(self, command: FloorClear) -> None:
        self._record({"type": "floor_clear", "causes": [h.cause for h in self._halts]})
        if command.card is not None and self._needs_card():
            # The floorperson's reading takes the unreadable card's place, ahead of
            # anything held after it.
            token = self._entered_card(command.card)
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
