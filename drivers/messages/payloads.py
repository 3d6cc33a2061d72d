"""Payload layouts of events, replies and commands (their decoding into typed events:
``drivers.messages.decoding``).

Device-to-host *events* start with a 4-byte event id and are kept by the device until
the host acknowledges them (EVENT_ACK). *Replies* (STATUS) and commands carry no event
id. Everything here is pure.
"""

from __future__ import annotations

import struct

from drivers.errors import MalformedMessage

_ID = struct.Struct(">I")
_U16 = struct.Struct(">H")
_STATUS = struct.Struct(">BHB")


def encode_event_payload(event_id: int, body: bytes) -> bytes:
    return _ID.pack(event_id) + body


def card_body(rank: str, suit: str, face_up: bool) -> bytes:
    return bytes((ord(rank), ord(suit), 1 if face_up else 0))


def bool_body(value: bool) -> bytes:
    return b"\x01" if value else b"\x00"


def count_body(count: int) -> bytes:
    return _U16.pack(count)


def fault_body(code: int, detail: int = 0) -> bytes:
    return bytes((code,)) + _U16.pack(detail)


def status_body(state: int, count: int, flags: int) -> bytes:
    return _STATUS.pack(state, count, flags)


def event_ack_body(event_id: int) -> bytes:
    return _ID.pack(event_id)


def decode_event_ack(payload: bytes) -> int:
    if len(payload) != 4:
        raise MalformedMessage("EVENT_ACK payload length")
    return int(_ID.unpack(payload)[0])


def split_event(payload: bytes) -> tuple[int, bytes]:
    """Event id and body of an event payload."""
    if len(payload) < 4:
        raise MalformedMessage("event payload shorter than its id")
    return int(_ID.unpack_from(payload)[0]), payload[4:]
