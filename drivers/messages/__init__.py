"""Protocol v1's messages: the catalogue of kinds and types (``catalogue``), the
handshake's payloads (``handshake``), the typed events (``events``) and the payload
layouts that encode them (``payloads``) and decode them (``decoding``). Importers use
``from drivers import messages as m`` and ``m.X`` for any of them.

The typed events and their decoding are imported when one of their names is first
looked up here (PEP 562's module ``__getattr__``), then are this module's own: a
simulator encodes payloads and never decodes one, and the thirty dataclasses were a
fifth of its start (docs/benchmarks.md, start-up)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from drivers.messages.catalogue import (
    ALL_EVENT_TYPES,
    COMMAND_TYPES,
    CONTROL_TYPES,
    DISPLAY_MAX,
    EVENT_TYPES,
    FIRMWARE_HASH_LEN,
    NONCE_LEN,
    PROTOCOL_VERSION,
    RANKS,
    STATUS_FLAG_ARMED,
    STATUS_FLAG_OPEN,
    SUITS,
    DeviceKind,
    FaultCode,
    MsgType,
    PeekTarget,
    RefusalReason,
    StatusState,
    parse_card,
)
from drivers.messages.handshake import (
    DeviceInfo,
    Hello,
)
from drivers.messages.payloads import (
    bool_body,
    card_body,
    count_body,
    decode_event_ack,
    encode_event_payload,
    event_ack_body,
    fault_body,
    split_event,
    status_body,
)

if TYPE_CHECKING:
    from drivers.messages.decoding import decode_event, decode_status
    from drivers.messages.events import (
        BatchReady,
        CardDrawn,
        CardInserted,
        CardsLoaded,
        CutCardSeen,
        CycleIncomplete,
        DeviceConnected,
        DeviceFault,
        DeviceLost,
        DeviceRefused,
        DeviceUnavailable,
        DoorChanged,
        Event,
        EventGap,
        LidChanged,
        LinkTamper,
        MalformedEvent,
        PeekResult,
        ReaderMalfunction,
        ReaderTamper,
        SelfTestResult,
        ShoeEmpty,
        ShuffleCompleted,
        ShufflerAttached,
        ShufflerJam,
        ShufflerRemoved,
        ShufflerStopped,
        ShuffleStarted,
        Status,
        UnreadableCard,
    )

_ON_FIRST_USE = ("drivers.messages.events", "drivers.messages.decoding")

__all__ = [
    "ALL_EVENT_TYPES",
    "COMMAND_TYPES",
    "CONTROL_TYPES",
    "DISPLAY_MAX",
    "EVENT_TYPES",
    "FIRMWARE_HASH_LEN",
    "NONCE_LEN",
    "PROTOCOL_VERSION",
    "RANKS",
    "STATUS_FLAG_ARMED",
    "STATUS_FLAG_OPEN",
    "SUITS",
    "BatchReady",
    "CardDrawn",
    "CardInserted",
    "CardsLoaded",
    "CutCardSeen",
    "CycleIncomplete",
    "DeviceConnected",
    "DeviceFault",
    "DeviceInfo",
    "DeviceKind",
    "DeviceLost",
    "DeviceRefused",
    "DeviceUnavailable",
    "DoorChanged",
    "Event",
    "EventGap",
    "FaultCode",
    "Hello",
    "LidChanged",
    "LinkTamper",
    "MalformedEvent",
    "MsgType",
    "PeekResult",
    "PeekTarget",
    "ReaderMalfunction",
    "ReaderTamper",
    "RefusalReason",
    "SelfTestResult",
    "ShoeEmpty",
    "ShuffleCompleted",
    "ShuffleStarted",
    "ShufflerAttached",
    "ShufflerJam",
    "ShufflerRemoved",
    "ShufflerStopped",
    "Status",
    "StatusState",
    "UnreadableCard",
    "bool_body",
    "card_body",
    "count_body",
    "decode_event",
    "decode_event_ack",
    "decode_status",
    "encode_event_payload",
    "event_ack_body",
    "fault_body",
    "parse_card",
    "split_event",
    "status_body",
]


def __getattr__(name: str) -> object:
    """A typed event's class or a decoding function: both modules are imported and
    their exported names become this module's."""
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    for module in map(importlib.import_module, _ON_FIRST_USE):
        globals().update({n: getattr(module, n) for n in __all__ if hasattr(module, n)})
    return globals()[name]
