"""Simulated firmware of the shoe, the hole-card reader and the shuffler, sans I/O.

Each firmware owns a DeviceEndpoint (handshake, event backlog, replay) and turns
host commands, control requests and its own timers into events. The owner feeds
it bytes, calls ``tick`` at ``next_deadline()`` and writes what it emits; the pty
process (firmware_sim.process) is one owner, a USB backend can be another.
"""

from __future__ import annotations

import enum
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import ClassVar

import structlog

from drivers import messages as m
from firmware_sim import decks
from firmware_sim.control import (
    CommandError,
    Fields,
    Reply,
    bool_field,
    int_field,
    str_field,
)
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


# --------------------------------------------------------------------------- shoe


class Pace(enum.Enum):
    INSTANT = "instant"  # as fast as the link's window allows
    REALISTIC = "realistic"  # one card per interval while a host is connected
    MANUAL = "manual"  # only on the control "draw" command


class ShoeFirmware(Firmware):
    kind = m.DeviceKind.SHOE

    def __init__(
        self,
        identity: Identity,
        key: bytes,
        write: Callable[[bytes], None],
        *,
        cards: list[str],
        rng: random.Random,
        pace: Pace = Pace.MANUAL,
        pace_interval: float = 1.5,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(identity, key, write, clock=clock)
        self.pace = pace
        self.pace_interval = pace_interval
        self._rng = rng
        self._stack: list[str] = []  # top of the shoe last
        self._empty_reported = False
        self._next_draw: float | None = None
        self._unreadable = False
        self._face_up = False
        self.display = ""
        self.lid_open = False
        self._fill(cards)
        self.commands.update(
            {
                "draw": Command(self._cmd_draw, frozenset({"count"})),
                "load": Command(self._cmd_load, frozenset({"cards"})),
                "unreadable": no_fields(self._cmd_unreadable),
                "face_up": no_fields(self._cmd_face_up),
                "ten": no_fields(self._cmd_ten),
                "lid": Command(self._cmd_lid, frozenset({"open"})),
            }
        )

    @property
    def cards_left(self) -> int:
        return decks.real_cards(self._stack)

    def start(self) -> None:
        self.emit(m.MsgType.CARDS_LOADED, m.count_body(self.cards_left))

    def tick(self, now: float) -> None:
        super().tick(now)
        connected = self.endpoint.established
        if self.pace is Pace.INSTANT:
            # As fast as the link's window lets frames out (a real shoe at full rate),
            # however far the host's EVENT_ACKs lag behind, within the backlog limit.
            link = self.endpoint.link
            while connected and self._stack and link.unacked < link.config.window:
                if not self.has_room():
                    break
                self._draw()
        elif self.pace is Pace.REALISTIC:
            if not connected:
                self._next_draw = None
            elif self._next_draw is None:
                self._next_draw = now + self.pace_interval
            elif now >= self._next_draw:
                self._next_draw = now + self.pace_interval
                if self._stack and self.has_room():
                    self._draw()

    def next_deadline(self) -> float | None:
        return self._next_draw if self._stack else None

    def status(self) -> Reply:
        return {
            **super().status(),
            "cards_left": self.cards_left,
            "display": self.display,
            "lid_open": self.lid_open,
            "pace": self.pace.value,
        }

    def status_body(self) -> tuple[int, int, int]:
        state, _, _ = super().status_body()
        return state, self.cards_left, m.STATUS_FLAG_OPEN if self.lid_open else 0

    def handle_command(self, mtype: int, payload: bytes) -> None:
        if mtype == m.MsgType.DISPLAY:
            # Shown as sent; undecodable bytes become U+FFFD as on a real display.
            self.display = payload.decode("utf-8", errors="replace")
            log.info("display", length=len(payload))
        else:
            super().handle_command(mtype, payload)

    def _fill(self, cards: list[str]) -> None:
        self._stack = cards[::-1]
        self._empty_reported = False

    def _draw(self) -> list[int]:
        token = self._stack.pop()
        if token == decks.CUT:
            ids = [self.emit(m.MsgType.CUT_CARD)]
        elif self._unreadable:
            self._unreadable = self._face_up = False
            ids = [self.emit(m.MsgType.UNREADABLE_CARD)]
        else:
            body = m.card_body(token[0], token[1], self._face_up)
            self._face_up = False
            ids = [self.emit(m.MsgType.CARD_DRAWN, body)]
        if not self._stack and not self._empty_reported:
            self._empty_reported = True
            ids.append(self.emit(m.MsgType.SHOE_EMPTY))
        return ids

    def _cmd_draw(self, fields: Fields) -> Reply:
        count = int_field(fields, "count", 1, U16_MAX, default=1)
        if not self._stack:
            raise CommandError("the shoe is empty")
        if count > len(self._stack):
            raise CommandError(f"only {len(self._stack)} cards left in the shoe")
        self.require_room(count + (1 if count == len(self._stack) else 0))  # + SHOE_EMPTY
        ids: list[int] = []
        for _ in range(count):
            ids += self._draw()
        return {"event_ids": ids}

    def _cmd_load(self, fields: Fields) -> Reply:
        raw = fields.get("cards")
        if not isinstance(raw, list) or not all(isinstance(t, str) for t in raw):
            raise CommandError('"cards" must be a list of card tokens')
        try:
            cards = decks.normalize(raw)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        if decks.real_cards(cards) > U16_MAX:
            raise CommandError(f"a shoe holds at most {U16_MAX} cards")
        self.require_room()
        self._fill(cards)
        self.faulted = False
        return {"event_ids": [self.emit(m.MsgType.CARDS_LOADED, m.count_body(self.cards_left))]}

    def _cmd_unreadable(self) -> Reply:
        self._unreadable = True
        return {}

    def _cmd_face_up(self) -> Reply:
        self._face_up = True
        return {}

    def _cmd_ten(self) -> Reply:
        # A ten that should not be in a Spanish shoe (551.3(a)), next out of the shoe.
        self._stack.append("T" + self._rng.choice(m.SUITS))
        self._empty_reported = False
        return {"cards_left": self.cards_left}

    def _cmd_lid(self, fields: Fields) -> Reply:
        is_open = bool_field(fields, "open")
        self.require_room()
        self.lid_open = is_open
        return {"event_ids": [self.emit(m.MsgType.LID, m.bool_body(is_open))]}


# --------------------------------------------------------------------------- reader


class ReaderFirmware(Firmware):
    """The Spanish 21 hole-card reader: reports only blackjack yes or no (551.8(e))."""

    kind = m.DeviceKind.READER

    def __init__(
        self,
        identity: Identity,
        key: bytes,
        write: Callable[[bytes], None],
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(identity, key, write, clock=clock)
        self.target: m.PeekTarget | None = None
        self._wrong_answer = False
        self._self_test_fail: int | None = None
        self.commands.update(
            {
                "insert": Command(self._cmd_insert, frozenset({"card"})),
                "malfunction": Command(self._cmd_malfunction, frozenset({"code"})),
                "wrong_answer": no_fields(self._cmd_wrong_answer),
                "tamper": no_fields(self._cmd_tamper),
                "self_test_fail": Command(self._cmd_self_test_fail, frozenset({"code"})),
            }
        )

    def status(self) -> Reply:
        return {**super().status(), "armed": self.target is not None}

    def status_body(self) -> tuple[int, int, int]:
        state, _, _ = super().status_body()
        return state, 0, m.STATUS_FLAG_ARMED if self.target is not None else 0

    def handle_command(self, mtype: int, payload: bytes) -> None:
        if mtype == m.MsgType.ARM:
            try:
                self.target = m.PeekTarget(payload[0]) if len(payload) == 1 else None
            except ValueError:
                self.target = None
            if self.target is None:
                log.warning("bad_arm", length=len(payload))
            else:
                log.info("armed", target=self.target.name)
        elif mtype == m.MsgType.DISARM:
            self.target = None
            log.info("disarmed")
        elif mtype == m.MsgType.SELF_TEST:
            code, self._self_test_fail = self._self_test_fail, None
            self.faulted = code is not None
            body = bytes((1, 0)) if code is None else bytes((0, code))
            self.emit(m.MsgType.SELF_TEST_RESULT, body)
        else:
            super().handle_command(mtype, payload)

    def _cmd_insert(self, fields: Fields) -> Reply:
        token = str_field(fields, "card")
        try:
            rank, _suit = m.parse_card(token)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        target = self.target
        self.require_room(2 if target is not None else 1)
        ids = [self.emit(m.MsgType.CARD_INSERTED, m.bool_body(target is not None))]
        if target is not None:
            wanted = "A" if target is m.PeekTarget.ACE else "TJQK"
            blackjack = (rank in wanted) != self._wrong_answer
            self._wrong_answer = False
            self.target = None
            ids.append(self.emit(m.MsgType.PEEK_RESULT, m.bool_body(blackjack)))
        return {"event_ids": ids}

    def _cmd_malfunction(self, fields: Fields) -> Reply:
        code = int_field(fields, "code", 0, 255)
        self.require_room()
        self.faulted = True
        return {"event_ids": [self.emit(m.MsgType.READER_MALFUNCTION, bytes((code,)))]}

    def _cmd_wrong_answer(self) -> Reply:
        self._wrong_answer = True
        return {}

    def _cmd_tamper(self) -> Reply:
        self.require_room()
        self.faulted = True
        return {"event_ids": [self.emit(m.MsgType.TAMPER)]}

    def _cmd_self_test_fail(self, fields: Fields) -> Reply:
        self._self_test_fail = int_field(fields, "code", 1, 255, default=1)
        return {}


# --------------------------------------------------------------------------- shuffler


class ShufflerFirmware(Firmware):
    kind = m.DeviceKind.SHUFFLER

    def __init__(
        self,
        identity: Identity,
        key: bytes,
        write: Callable[[bytes], None],
        *,
        card_count: int,
        shuffle_time: float = 0.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(identity, key, write, clock=clock)
        self.card_count = card_count
        self.shuffle_time = shuffle_time
        self.attached = True
        self.door_open = False
        self._done_at: float | None = None
        self._ending: m.MsgType | None = None  # JAM, CYCLE_INCOMPLETE or STOPPED instead
        self._count_delta = 0
        self._batch: int | None = None  # the next shuffle's cards, when not card_count
        self.commands.update(
            {
                "shuffle": no_fields(self._cmd_shuffle),
                # The cards put in for the next shuffle only, when they are not the full
                # decks: a partial batch such as a discard rack (551.16(g)).
                "load": Command(self._cmd_load, frozenset({"count"})),
                "jam": no_fields(lambda: self._set_ending(m.MsgType.JAM)),
                "incomplete": no_fields(lambda: self._set_ending(m.MsgType.CYCLE_INCOMPLETE)),
                # The next shuffle stops part way (STOPPED instead of completing), however
                # short the shuffle time: "stop" needs a shuffle running when it arrives.
                "stop_midway": no_fields(lambda: self._set_ending(m.MsgType.STOPPED)),
                "wrong_count": Command(self._cmd_wrong_count, frozenset({"delta"})),
                "stop": no_fields(self._cmd_stop),
                "remove": no_fields(lambda: self._set_attached(False)),
                "attach": no_fields(lambda: self._set_attached(True)),
                "door": Command(self._cmd_door, frozenset({"open"})),
            }
        )

    @property
    def shuffling(self) -> bool:
        return self._done_at is not None

    def start(self) -> None:
        self.emit(m.MsgType.SHUFFLER_ATTACHED)

    def tick(self, now: float) -> None:
        super().tick(now)
        if self._done_at is None or now < self._done_at:
            return
        self._done_at = None
        ending, self._ending = self._ending, None
        if ending is not None:
            self.faulted = True
            self.emit(ending)
            return
        delta, self._count_delta = self._count_delta, 0
        batch, self._batch = self._batch, None
        count = self.card_count if batch is None else batch
        self.emit(m.MsgType.SHUFFLE_COMPLETED, m.count_body(count + delta))
        self.emit(m.MsgType.BATCH_READY, m.count_body(count))

    def next_deadline(self) -> float | None:
        return self._done_at

    def status(self) -> Reply:
        return {
            **super().status(),
            "shuffling": self.shuffling,
            "attached": self.attached,
            "door_open": self.door_open,
            "card_count": self.card_count,
        }

    def status_body(self) -> tuple[int, int, int]:
        state, _, _ = super().status_body()
        if self.shuffling and state != m.StatusState.FAULT:
            state = m.StatusState.BUSY
        return state, self.card_count, m.STATUS_FLAG_OPEN if self.door_open else 0

    def handle_command(self, mtype: int, payload: bytes) -> None:
        if mtype == m.MsgType.START_SHUFFLE:
            try:
                self._start_shuffle()
            except CommandError as exc:
                log.warning("shuffle_refused", reason=str(exc))
        else:
            super().handle_command(mtype, payload)

    def _start_shuffle(self) -> int:
        if not self.attached:
            raise CommandError("the shuffler is removed")
        if self.shuffling:
            raise CommandError("a shuffle is already running")
        self.require_room(3)
        self.faulted = False
        self._done_at = self.clock() + self.shuffle_time
        return self.emit(m.MsgType.SHUFFLE_STARTED)

    def _cmd_shuffle(self) -> Reply:
        return {"event_ids": [self._start_shuffle()]}

    def _set_ending(self, ending: m.MsgType) -> Reply:
        self._ending = ending
        return {}

    def _cmd_load(self, fields: Fields) -> Reply:
        if self.shuffling:
            raise CommandError("a shuffle is running: load the cards before it starts")
        self._batch = int_field(fields, "count", 1, U16_MAX)
        return {"count": self._batch}

    def _cmd_wrong_count(self, fields: Fields) -> Reply:
        self._count_delta = int_field(fields, "delta", -self.card_count, U16_MAX - self.card_count)
        return {}

    def _cmd_stop(self) -> Reply:
        self.require_room()
        self._done_at = None
        self._ending = None
        return {"event_ids": [self.emit(m.MsgType.STOPPED)]}

    def _set_attached(self, attached: bool) -> Reply:
        self.require_room()
        self.attached = attached
        if not attached:
            self._done_at = None
        mtype = m.MsgType.SHUFFLER_ATTACHED if attached else m.MsgType.SHUFFLER_REMOVED
        return {"event_ids": [self.emit(mtype)]}

    def _cmd_door(self, fields: Fields) -> Reply:
        is_open = bool_field(fields, "open")
        self.require_room()
        self.door_open = is_open
        return {"event_ids": [self.emit(m.MsgType.DOOR, m.bool_body(is_open))]}
