"""Typed events: what a device reports, and what its driver reports about it."""

from __future__ import annotations

from dataclasses import dataclass


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
