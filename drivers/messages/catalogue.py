"""Message catalogue of protocol v1: the device kinds, the message types, the codes
their payloads carry, and which messages each kind of device sends and accepts."""

from __future__ import annotations

from enum import IntEnum

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


def parse_card(token: str) -> tuple[str, str]:
    """Rank and suit of a card token ('TD', '10D', '7s'); ValueError otherwise."""
    t = token.strip().upper()
    if t.startswith("10"):
        t = "T" + t[2:]
    if len(t) != 2 or t[0] not in RANKS or t[1] not in SUITS:
        raise ValueError(f"not a card: {token!r} (expected rank A23456789TJQK then suit SHDC)")
    return t[0], t[1]
