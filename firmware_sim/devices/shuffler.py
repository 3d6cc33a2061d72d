"""The automated card shuffler's firmware."""

from __future__ import annotations

import random
import time
from collections.abc import Callable

import structlog

from drivers import messages as m
from firmware_sim import decks, shuffle_models
from firmware_sim.control import CommandError, Fields, Reply, bool_field, int_field
from firmware_sim.devices.base import U16_MAX, Command, Firmware, card_tokens, no_fields
from firmware_sim.endpoint import Identity

log = structlog.get_logger("firmware_sim")


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
        model: shuffle_models.ShuffleModel = shuffle_models.DEFAULT,
        rng: random.Random | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(identity, key, write, clock=clock)
        self.card_count = card_count
        self.model = model
        self._rng = rng if rng is not None else random.SystemRandom()
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
                # The order the shuffler's model makes of the cards put in (a discard
                # rack's, first card in first), the next shoe's: docs/shuffle-monitor.md.
                "order": Command(self._cmd_order, frozenset({"cards"})),
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
            "shuffle_model": str(self.model),
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

    def _cmd_order(self, fields: Fields) -> Reply:
        cards = card_tokens(fields)
        if decks.CUT in cards:
            raise CommandError("the cutting card does not go through the shuffler")
        return {"cards": shuffle_models.apply(self.model, cards, self._rng)}

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
