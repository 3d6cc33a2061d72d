"""A driver's place in one unit's event ids, and the decoding of what the device sends."""

from __future__ import annotations

from collections.abc import Callable

import structlog

from drivers import messages as m
from drivers.errors import MalformedMessage

log = structlog.get_logger("drivers")


class EventStream:
    """The events of the unit on one port, each delivered once and in order.

    ``delivered`` is the last event id put on the controller's queue, ``committed`` the
    last one the controller has durably recorded (acknowledged to the device). Both
    start from the journal's (serial, last event id), and start over on another unit."""

    def __init__(
        self,
        name: str,
        kind: m.DeviceKind,
        emit: Callable[[m.Event], None],
        resume: tuple[str, int] | None,
    ) -> None:
        self._name = name
        self._kind = kind
        self._emit = emit
        self.serial: str | None = resume[0] if resume else None
        self.delivered = resume[1] if resume else None
        self.committed = self.delivered

    def commit(self, event_id: int) -> bool:
        """Move the commit point to ``event_id``; False when it is there already."""
        if self.committed is not None and event_id <= self.committed:
            return False
        self.committed = event_id
        return True

    def connected(self, info: m.DeviceInfo) -> None:
        """A new session: check the device's backlog against where we stand."""
        if self.serial is not None and info.serial != self.serial:
            # Another unit: its event ids are its own.
            self.delivered = self.committed = None
        self.serial = info.serial
        last = self.delivered
        if last is not None and (info.oldest_unacked > last + 1 or info.next_event_id <= last):
            # Events lost (the device dropped some) or its counter went backwards (reset):
            # report it once, then take the device's backlog from its start.
            self._gap(last + 1, info.oldest_unacked)
            self.delivered = self.committed = info.oldest_unacked - 1

    def dispatch(self, mtype: int, payload: bytes) -> None:
        """One sequenced message from the device: an event, a STATUS reply, or malformed."""
        if mtype in m.ALL_EVENT_TYPES:
            self._event(mtype, payload)
        elif mtype == m.MsgType.STATUS:
            try:
                self._emit(m.decode_status(self._name, payload))
            except MalformedMessage as exc:
                self._malformed(None, mtype, str(exc))
        elif mtype != m.MsgType.HELLO_REPLY:
            # (A HELLO_REPLY answers a repeated HELLO, identical to the one already used.)
            self._malformed(None, mtype, "message type not expected from this device")

    def _event(self, mtype: int, payload: bytes) -> None:
        try:
            event_id, body = m.split_event(payload)
        except MalformedMessage as exc:
            self._malformed(None, mtype, str(exc))
            return
        if not self._advance(event_id):
            return  # replayed after a reconnect: delivered already
        if mtype not in m.EVENT_TYPES[self._kind]:
            self._malformed(event_id, mtype, "event type not sent by this kind of device")
            return
        try:
            event = m.decode_event(self._name, event_id, mtype, body)
        except MalformedMessage as exc:
            self._malformed(event_id, mtype, str(exc))
            return
        self._emit(event)

    def _advance(self, event_id: int) -> bool:
        """Take ``event_id`` as the last delivered; False if it was delivered already."""
        last = self.delivered
        if last is not None and event_id <= last:
            return False
        if last is not None and event_id != last + 1:
            self._gap(last + 1, event_id)
        self.delivered = event_id
        return True

    def _gap(self, expected: int, got: int) -> None:
        log.error("event_gap", device=self._name, expected=expected, got=got)
        self._emit(m.EventGap(self._name, None, expected, got))

    def _malformed(self, event_id: int | None, mtype: int, reason: str) -> None:
        log.warning("malformed_event", device=self._name, msg_type=mtype, reason=reason)
        self._emit(m.MalformedEvent(self._name, event_id, mtype, reason))
