"""Message catalogue of protocol v1: types, payload layouts and typed events.

Everything here is pure. Device-to-host *events* start with a 4-byte event id and
are kept by the device until the host acknowledges them (EVENT_ACK). *Replies*
(STATUS) and commands carry no event id.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from enum import IntEnum

from drivers.errors import MalformedMessage

PROTOCOL_VERSION = 1
NONCE_LEN = 16
FIRMWARE_HASH_LEN = 32


class DeviceKind(IntEnum):
    SHOE = 1
    READER = 2
    SHUFFLER = 3

    @property
    def label(self) -> str:
        return self.name.lower()


class MsgType(IntEnum):
    # Link control: unsequenced.
    HELLO = 0x01
    HELLO_REPLY = 0x02
    ACK = 0x03
    NAK = 0x04
    HEARTBEAT = 0x05
    REFUSED = 0x06
    # Common, sequenced.
    EVENT_ACK = 0x10
    STATUS_REQUEST = 0x11
    STATUS = 0x12
    FAULT = 0x13
    # Shoe.
    CARD_DRAWN = 0x20
    CUT_CARD = 0x21
    SHOE_EMPTY = 0x22
    UNREADABLE_CARD = 0x23
    CARDS_LOADED = 0x24
    LID = 0x25
    DISPLAY = 0x30
    # Hole-card reader.
    CARD_INSERTED = 0x40
    PEEK_RESULT = 0x41
    READER_MALFUNCTION = 0x42
    TAMPER = 0x43
    SELF_TEST_RESULT = 0x44
    ARM = 0x50
    DISARM = 0x51
    SELF_TEST = 0x52
    # Shuffler.
    SHUFFLER_ATTACHED = 0x60
    SHUFFLER_REMOVED = 0x61
    SHUFFLE_STARTED = 0x62
    SHUFFLE_COMPLETED = 0x63
    BATCH_READY = 0x64
    JAM = 0x65
    STOPPED = 0x66
    CYCLE_INCOMPLETE = 0x67
    DOOR = 0x68
    START_SHUFFLE = 0x70


CONTROL_TYPES = frozenset(
    {
        MsgType.HELLO,
        MsgType.HELLO_REPLY,
        MsgType.ACK,
        MsgType.NAK,
        MsgType.HEARTBEAT,
        MsgType.REFUSED,
    }
)

RANKS = "A23456789TJQK"
SUITS = "SHDC"
DISPLAY_MAX = 32


class PeekTarget(IntEnum):
    """ARM payload: what the reader looks for, from the dealer's up card (551.8(e))."""

    TEN_VALUE = 1  # up card is an ace: a king, queen or jack (no tens in a Spanish deck)
    ACE = 2  # up card is a king, queen or jack


class FaultCode(IntEnum):
    """FAULT event codes (any device)."""

    JAM = 1
    SENSOR = 2
    BACKLOG_FULL = 3
    INTERNAL = 4


class StatusState(IntEnum):
    IDLE = 0
    BUSY = 1
    FAULT = 2


STATUS_FLAG_OPEN = 0x01  # lid or door open
STATUS_FLAG_ARMED = 0x02  # reader armed


class RefusalReason(IntEnum):
    WRONG_KIND = 1
    PROTOCOL_VERSION = 2
    FIRMWARE_NOT_APPROVED = 3


# --------------------------------------------------------------------------- handshake


@dataclass(frozen=True, slots=True)
class Hello:
    """Host -> device: the versions the host speaks, the kind it expects on the port, and
    its lost-link time, which the device adopts (it heartbeats at a quarter of it)."""

    version_min: int
    version_max: int
    expected_kind: int
    link_timeout_ms: int
    host_nonce: bytes

    def encode(self) -> bytes:
        head = bytes((self.version_min, self.version_max, self.expected_kind))
        return head + struct.pack(">H", self.link_timeout_ms) + self.host_nonce

    @classmethod
    def decode(cls, p: bytes) -> Hello:
        if len(p) != 5 + NONCE_LEN:
            raise MalformedMessage("HELLO payload length")
        (timeout_ms,) = struct.unpack_from(">H", p, 3)
        if not 40 <= timeout_ms <= 60000:
            raise MalformedMessage("HELLO link timeout outside 40..60000 ms")
        return cls(p[0], p[1], p[2], timeout_ms, bytes(p[5:]))


@dataclass(frozen=True, slots=True)
class DeviceInfo:
    """Device -> host in HELLO_REPLY: who the device is and where its event ids stand."""

    protocol_version: int
    kind: int
    model: str
    serial: str
    firmware_version: str
    firmware_hash: bytes
    device_nonce: bytes
    next_event_id: int  # id the device will give its next new event
    oldest_unacked: int  # first id of the backlog it will replay (== next_event_id if none)

    def encode(self) -> bytes:
        out = bytearray((self.protocol_version, self.kind))
        for text in (self.model, self.serial, self.firmware_version):
            raw = text.encode("utf-8")
            if len(raw) > 32:
                raise ValueError("identity strings are at most 32 bytes")
            out.append(len(raw))
            out += raw
        out += self.firmware_hash + self.device_nonce
        out += struct.pack(">II", self.next_event_id, self.oldest_unacked)
        return bytes(out)

    @classmethod
    def decode(cls, p: bytes) -> DeviceInfo:
        try:
            version, kind = p[0], p[1]
            pos = 2
            texts = []
            for _ in range(3):
                n = p[pos]
                if n > 32:
                    raise MalformedMessage("identity string longer than 32 bytes")
                texts.append(bytes(p[pos + 1 : pos + 1 + n]).decode("utf-8"))
                pos += 1 + n
            fw_hash = bytes(p[pos : pos + FIRMWARE_HASH_LEN])
            pos += FIRMWARE_HASH_LEN
            nonce = bytes(p[pos : pos + NONCE_LEN])
            pos += NONCE_LEN
            next_id, oldest = struct.unpack(">II", p[pos : pos + 8])
            if pos + 8 != len(p) or len(fw_hash) != FIRMWARE_HASH_LEN or len(nonce) != NONCE_LEN:
                raise MalformedMessage("HELLO_REPLY payload length")
        except (IndexError, struct.error, UnicodeDecodeError) as exc:
            raise MalformedMessage(f"HELLO_REPLY payload: {exc}") from exc
        return cls(version, kind, texts[0], texts[1], texts[2], fw_hash, nonce, next_id, oldest)


# --------------------------------------------------------------------------- events


@dataclass(frozen=True, slots=True)
class Event:
    """Something a device (or its driver) reports. ``event_id`` is None for driver events."""

    device: str
    event_id: int | None


@dataclass(frozen=True, slots=True)
class CardDrawn(Event):
    """A card left the shoe. ``face_up`` means it was found face up inside the shoe."""

    rank: str
    suit: str
    face_up: bool

    @property
    def token(self) -> str:
        return self.rank + self.suit

    def __repr__(self) -> str:
        # The card stays out of reprs: a hole card must never reach a log (551.8(e)).
        return f"CardDrawn(device={self.device!r}, event_id={self.event_id}, card=<sealed>)"


@dataclass(frozen=True, slots=True)
class CutCardSeen(Event):
    pass


@dataclass(frozen=True, slots=True)
class ShoeEmpty(Event):
    pass


@dataclass(frozen=True, slots=True)
class UnreadableCard(Event):
    pass


@dataclass(frozen=True, slots=True)
class CardsLoaded(Event):
    count: int


@dataclass(frozen=True, slots=True)
class LidChanged(Event):
    open: bool


@dataclass(frozen=True, slots=True)
class DeviceFault(Event):
    """A fault the device reports (codes in docs/protocol.md)."""

    code: int
    detail: int


@dataclass(frozen=True, slots=True)
class CardInserted(Event):
    """A card went into the reader; ``armed`` says whether the reader was armed to peek."""

    armed: bool


@dataclass(frozen=True, slots=True)
class PeekResult(Event):
    blackjack: bool


@dataclass(frozen=True, slots=True)
class ReaderMalfunction(Event):
    code: int


@dataclass(frozen=True, slots=True)
class ReaderTamper(Event):
    pass


@dataclass(frozen=True, slots=True)
class SelfTestResult(Event):
    ok: bool
    code: int


@dataclass(frozen=True, slots=True)
class ShufflerAttached(Event):
    pass


@dataclass(frozen=True, slots=True)
class ShufflerRemoved(Event):
    pass


@dataclass(frozen=True, slots=True)
class ShuffleStarted(Event):
    pass


@dataclass(frozen=True, slots=True)
class ShuffleCompleted(Event):
    card_count: int


@dataclass(frozen=True, slots=True)
class BatchReady(Event):
    card_count: int


@dataclass(frozen=True, slots=True)
class ShufflerJam(Event):
    pass


@dataclass(frozen=True, slots=True)
class ShufflerStopped(Event):
    pass


@dataclass(frozen=True, slots=True)
class CycleIncomplete(Event):
    pass


@dataclass(frozen=True, slots=True)
class DoorChanged(Event):
    open: bool


@dataclass(frozen=True, slots=True)
class Status(Event):
    """Reply to STATUS_REQUEST (no event id): state code, a count and flag bits."""

    state: int
    count: int
    flags: int


# Events the driver itself raises (event_id None).


@dataclass(frozen=True, slots=True)
class DeviceConnected(Event):
    kind: str
    model: str
    serial: str
    firmware_version: str


@dataclass(frozen=True, slots=True)
class DeviceLost(Event):
    reason: str


@dataclass(frozen=True, slots=True)
class DeviceUnavailable(Event):
    """The port could not be opened (missing, busy, I/O error)."""

    reason: str


@dataclass(frozen=True, slots=True)
class DeviceRefused(Event):
    """The handshake was refused: wrong kind, unsupported version, unapproved firmware."""

    reason: str
    detail: str


@dataclass(frozen=True, slots=True)
class LinkTamper(Event):
    """Frames failing authentication crossed the threshold."""

    failures: int


@dataclass(frozen=True, slots=True)
class EventGap(Event):
    """The device's replay does not continue where the host left off: events were lost."""

    expected: int
    got: int


@dataclass(frozen=True, slots=True)
class MalformedEvent(Event):
    """An authenticated event whose payload does not match its type."""

    msg_type: int
    reason: str


# --------------------------------------------------------------------------- encoding


_EMPTY_EVENTS: dict[int, type[Event]] = {
    MsgType.CUT_CARD: CutCardSeen,
    MsgType.SHOE_EMPTY: ShoeEmpty,
    MsgType.UNREADABLE_CARD: UnreadableCard,
    MsgType.TAMPER: ReaderTamper,
    MsgType.SHUFFLER_ATTACHED: ShufflerAttached,
    MsgType.SHUFFLER_REMOVED: ShufflerRemoved,
    MsgType.SHUFFLE_STARTED: ShuffleStarted,
    MsgType.JAM: ShufflerJam,
    MsgType.STOPPED: ShufflerStopped,
    MsgType.CYCLE_INCOMPLETE: CycleIncomplete,
}
_BOOL_EVENTS: dict[int, type[Event]] = {
    MsgType.LID: LidChanged,
    MsgType.CARD_INSERTED: CardInserted,
    MsgType.PEEK_RESULT: PeekResult,
    MsgType.DOOR: DoorChanged,
}
_COUNT_EVENTS: dict[int, type[Event]] = {
    MsgType.CARDS_LOADED: CardsLoaded,
    MsgType.SHUFFLE_COMPLETED: ShuffleCompleted,
    MsgType.BATCH_READY: BatchReady,
}

# Which event types each kind of device may send; anything else is malformed.
EVENT_TYPES: dict[DeviceKind, frozenset[int]] = {
    DeviceKind.SHOE: frozenset(
        {
            MsgType.CARD_DRAWN,
            MsgType.CUT_CARD,
            MsgType.SHOE_EMPTY,
            MsgType.UNREADABLE_CARD,
            MsgType.CARDS_LOADED,
            MsgType.LID,
            MsgType.FAULT,
        }
    ),
    DeviceKind.READER: frozenset(
        {
            MsgType.CARD_INSERTED,
            MsgType.PEEK_RESULT,
            MsgType.READER_MALFUNCTION,
            MsgType.TAMPER,
            MsgType.SELF_TEST_RESULT,
            MsgType.FAULT,
        }
    ),
    DeviceKind.SHUFFLER: frozenset(
        {
            MsgType.SHUFFLER_ATTACHED,
            MsgType.SHUFFLER_REMOVED,
            MsgType.SHUFFLE_STARTED,
            MsgType.SHUFFLE_COMPLETED,
            MsgType.BATCH_READY,
            MsgType.JAM,
            MsgType.STOPPED,
            MsgType.CYCLE_INCOMPLETE,
            MsgType.DOOR,
            MsgType.FAULT,
        }
    ),
}

ALL_EVENT_TYPES: frozenset[int] = frozenset().union(*EVENT_TYPES.values())

# Commands each kind accepts (host -> device, sequenced).
COMMAND_TYPES: dict[DeviceKind, frozenset[int]] = {
    DeviceKind.SHOE: frozenset({MsgType.STATUS_REQUEST, MsgType.DISPLAY, MsgType.EVENT_ACK}),
    DeviceKind.READER: frozenset(
        {
            MsgType.STATUS_REQUEST,
            MsgType.ARM,
            MsgType.DISARM,
            MsgType.SELF_TEST,
            MsgType.EVENT_ACK,
        }
    ),
    DeviceKind.SHUFFLER: frozenset(
        {MsgType.STATUS_REQUEST, MsgType.START_SHUFFLE, MsgType.EVENT_ACK}
    ),
}

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


def decode_event(device: str, event_id: int, mtype: int, body: bytes) -> Event:
    """Typed event from an authenticated event body; MalformedMessage if it does not fit."""
    if mtype == MsgType.CARD_DRAWN:
        if len(body) != 3:
            raise MalformedMessage("CARD_DRAWN body length")
        rank, suit, face_up = chr(body[0]), chr(body[1]), body[2]
        if rank not in RANKS or suit not in SUITS or face_up > 1:
            raise MalformedMessage("CARD_DRAWN card is not a card")
        return CardDrawn(device, event_id, rank, suit, face_up == 1)
    if mtype in _EMPTY_EVENTS:
        if body:
            raise MalformedMessage(f"{MsgType(mtype).name} takes no body")
        return _EMPTY_EVENTS[mtype](device, event_id)
    if mtype in _BOOL_EVENTS:
        if len(body) != 1 or body[0] > 1:
            raise MalformedMessage(f"{MsgType(mtype).name} body is not a flag")
        return _BOOL_EVENTS[mtype](device, event_id, body[0] == 1)  # type: ignore[call-arg]
    if mtype in _COUNT_EVENTS:
        if len(body) != 2:
            raise MalformedMessage(f"{MsgType(mtype).name} body length")
        return _COUNT_EVENTS[mtype](device, event_id, _U16.unpack(body)[0])  # type: ignore[call-arg]
    if mtype == MsgType.FAULT:
        if len(body) != 3:
            raise MalformedMessage("FAULT body length")
        return DeviceFault(device, event_id, body[0], _U16.unpack_from(body, 1)[0])
    if mtype == MsgType.READER_MALFUNCTION:
        if len(body) != 1:
            raise MalformedMessage("READER_MALFUNCTION body length")
        return ReaderMalfunction(device, event_id, body[0])
    if mtype == MsgType.SELF_TEST_RESULT:
        if len(body) != 2 or body[0] > 1:
            raise MalformedMessage("SELF_TEST_RESULT body")
        return SelfTestResult(device, event_id, body[0] == 1, body[1])
    raise MalformedMessage(f"message type 0x{mtype:02x} is not an event")


def decode_status(device: str, payload: bytes) -> Status:
    if len(payload) != _STATUS.size:
        raise MalformedMessage("STATUS payload length")
    state, count, flags = _STATUS.unpack(payload)
    return Status(device, None, state, count, flags)


def parse_card(token: str) -> tuple[str, str]:
    """Rank and suit of a card token ('TD', '10D', '7s'); ValueError otherwise."""
    t = token.strip().upper()
    if t.startswith("10"):
        t = "T" + t[2:]
    if len(t) != 2 or t[0] not in RANKS or t[1] not in SUITS:
        raise ValueError(f"not a card: {token!r} (expected rank A23456789TJQK then suit SHDC)")
    return t[0], t[1]
