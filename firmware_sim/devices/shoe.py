"""The electronic dealing shoe's firmware: a stack of cards drawn by hand or at a pace."""

from __future__ import annotations

import enum
import random
import time
from collections.abc import Callable

import structlog

from drivers import messages as m
from firmware_sim import decks
from firmware_sim.control import CommandError, Fields, Reply, bool_field, int_field
from firmware_sim.devices.base import U16_MAX, Command, Firmware, card_tokens, no_fields
from firmware_sim.endpoint import Identity

log = structlog.get_logger("firmware_sim")


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
        if self.pace is Pace.INSTANT:
            self._draw_at_full_rate()
        elif self.pace is Pace.REALISTIC:
            self._draw_at_pace(now)

    def _draw_at_full_rate(self) -> None:
        # As fast as the link's window lets frames out (a real shoe at full rate),
        # however far the host's EVENT_ACKs lag behind, within the backlog limit.
        connected = self.endpoint.established
        link = self.endpoint.link
        while connected and self._stack and link.unacked < link.config.window:
            if not self.has_room():
                break
            self._draw()

    def _draw_at_pace(self, now: float) -> None:
        """One card per interval while a host is connected, the first an interval in."""
        if not self.endpoint.established:
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
        cards = card_tokens(fields)
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
