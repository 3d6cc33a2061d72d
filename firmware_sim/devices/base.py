"""What every simulated device's firmware does, and the table of control commands.

Each firmware owns a DeviceEndpoint (handshake, event backlog, replay) and turns
host commands, control requests and its own timers into events. The owner feeds
it bytes, calls ``tick`` at ``next_deadline()`` and writes what it emits; the pty
process (firmware_sim.process) is one owner, a USB backend can be another.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import ClassVar

import structlog

from drivers import messages as m
from firmware_sim import decks
from firmware_sim.control import CommandError, Fields, Reply, int_field
from firmware_sim.endpoint import DeviceEndpoint, Identity

log = structlog.get_logger("firmware_sim")

U16_MAX = 0xFFFF


@dataclass(frozen=True, slots=True)
class Command:
    """A control command: its handler and the request fields it accepts."""

    handler: Callable[[Fields], Reply]
    fields: frozenset[str] = frozenset()


class Firmware:
    """What every simulated device does: STATUS replies, FAULT events, backlog limits."""

    kind: ClassVar[m.DeviceKind]

    def __init__(
        self,
        identity: Identity,
        key: bytes,
        write: Callable[[bytes], None],
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if identity.kind != self.kind:
            raise ValueError(f"identity is a {identity.kind.label}, firmware a {self.kind.label}")
        self.clock = clock
        self.endpoint = DeviceEndpoint(identity, key, write, self._on_command, clock=clock)
        self.faulted = False
        self._backlog_fault_sent = False
        self.commands: dict[str, Command] = {
            "fault": Command(self._cmd_fault, frozenset({"code", "detail"})),
        }

    # ------------------------------------------------------------------ owner API

    def start(self) -> None:
        """Power-on events."""

    def tick(self, now: float) -> None:
        """Run the device's own timers."""
        if len(self.endpoint.backlog) < self.endpoint.backlog_limit:
            self._backlog_fault_sent = False

    def next_deadline(self) -> float | None:
        """When ``tick`` next has work, or None when only input can change anything."""
        return None

    def control(self, cmd: str, fields: Fields) -> Reply:
        return dispatch(self.commands, cmd, fields, self.kind)

    def status(self) -> Reply:
        """Device-specific fields of the control "status" reply."""
        return {"faulted": self.faulted}

    # ------------------------------------------------------------------ helpers

    def emit(self, mtype: m.MsgType, body: bytes = b"") -> int:
        event_id = self.endpoint.emit(mtype, body)
        log.info("event", type=mtype.name, event_id=event_id)
        if self.endpoint.backlog_full and not self._backlog_fault_sent:
            # Real firmware stops producing events rather than lose one; say so once.
            self._backlog_fault_sent = True
            self.faulted = True
            fault_id = self.endpoint.emit(
                m.MsgType.FAULT, m.fault_body(m.FaultCode.BACKLOG_FULL, 0)
            )
            log.warning("backlog_full", event_id=fault_id, backlog=len(self.endpoint.backlog))
        return event_id

    def require_room(self, events: int = 1) -> None:
        """Refuse an action whose events would not fit in the backlog."""
        ep = self.endpoint
        if len(ep.backlog) + events > ep.backlog_limit:
            raise CommandError(
                f"event backlog is full ({len(ep.backlog)} unacknowledged events, "
                f"limit {ep.backlog_limit})"
            )

    def has_room(self) -> bool:
        return len(self.endpoint.backlog) < self.endpoint.backlog_limit

    def status_body(self) -> tuple[int, int, int]:
        """State, count and flags of the STATUS reply."""
        state = m.StatusState.FAULT if self.faulted else m.StatusState.IDLE
        return state, 0, 0

    def handle_command(self, mtype: int, payload: bytes) -> None:
        log.warning("unexpected_command", msg_type=mtype)

    def _on_command(self, mtype: int, payload: bytes) -> None:
        if mtype == m.MsgType.STATUS_REQUEST:
            self.endpoint.reply(m.MsgType.STATUS, m.status_body(*self.status_body()))
        else:
            self.handle_command(mtype, payload)

    def _cmd_fault(self, fields: Fields) -> Reply:
        raw = fields.get("code")
        try:
            if isinstance(raw, str):
                code = m.FaultCode[raw.upper()]
            elif isinstance(raw, int) and not isinstance(raw, bool):
                code = m.FaultCode(raw)
            else:
                raise ValueError(raw)
        except (KeyError, ValueError):
            names = ", ".join(f"{c.value} ({c.name})" for c in m.FaultCode)
            raise CommandError(f'"code" must be a fault code: {names}') from None
        detail = int_field(fields, "detail", 0, U16_MAX, default=0)
        self.require_room()
        self.faulted = True
        return {"event_ids": [self.emit(m.MsgType.FAULT, m.fault_body(code, detail))]}


def dispatch(
    commands: Mapping[str, Command], cmd: str, fields: Fields, kind: m.DeviceKind
) -> Reply:
    """Run a control command after checking its name and fields."""
    command = commands.get(cmd)
    if command is None:
        known = ", ".join(sorted(commands))
        raise CommandError(f"unknown command {cmd!r} for a {kind.label} (known: {known})")
    unknown = set(fields) - command.fields
    if unknown:
        raise CommandError(f"{cmd} takes no field {sorted(unknown)[0]!r}")
    return command.handler(fields)


def no_fields(action: Callable[[], Reply]) -> Command:
    return Command(lambda _fields: action())


def card_tokens(fields: Fields) -> list[str]:
    """A control command's ``"cards"`` field, normalised (firmware_sim/decks.py); a
    ``CommandError`` for anything but a list of card tokens."""
    raw = fields.get("cards")
    if not isinstance(raw, list) or not all(isinstance(t, str) for t in raw):
        raise CommandError('"cards" must be a list of card tokens')
    try:
        return decks.normalize(raw)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
