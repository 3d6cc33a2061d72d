"""The Spanish 21 hole-card reader's firmware."""

from __future__ import annotations

import time
from collections.abc import Callable

import structlog

from drivers import messages as m
from firmware_sim.control import CommandError, Fields, Reply, int_field, str_field
from firmware_sim.devices.base import Command, Firmware, no_fields
from firmware_sim.endpoint import Identity

log = structlog.get_logger("firmware_sim")


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
