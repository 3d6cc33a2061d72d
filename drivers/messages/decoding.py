"""Authenticated event and reply payloads decoded into typed events
(``drivers.messages.events``): the host's side alone. A simulator encodes payloads
(``drivers.messages.payloads``) and never decodes one, so it never imports the typed
events, a fifth of its start (docs/benchmarks.md, start-up)."""

from __future__ import annotations

from collections.abc import Callable

from drivers.errors import MalformedMessage
from drivers.messages import events as ev
from drivers.messages.catalogue import RANKS, SUITS, MsgType
from drivers.messages.payloads import _STATUS, _U16

# Each body layout reads an event's fields after its device and id from the body of
# the message type named; MalformedMessage if the body does not fit.


def _card(name: str, body: bytes) -> tuple[object, ...]:
    if len(body) != 3:
        raise MalformedMessage(f"{name} body length")
    rank, suit, face_up = chr(body[0]), chr(body[1]), body[2]
    if rank not in RANKS or suit not in SUITS or face_up > 1:
        raise MalformedMessage(f"{name} card is not a card")
    return rank, suit, face_up == 1


def _empty(name: str, body: bytes) -> tuple[object, ...]:
    if body:
        raise MalformedMessage(f"{name} takes no body")
    return ()


def _flag(name: str, body: bytes) -> tuple[object, ...]:
    if len(body) != 1 or body[0] > 1:
        raise MalformedMessage(f"{name} body is not a flag")
    return (body[0] == 1,)


def _count(name: str, body: bytes) -> tuple[object, ...]:
    if len(body) != 2:
        raise MalformedMessage(f"{name} body length")
    return (_U16.unpack(body)[0],)


def _fault(name: str, body: bytes) -> tuple[object, ...]:
    if len(body) != 3:
        raise MalformedMessage(f"{name} body length")
    return body[0], _U16.unpack_from(body, 1)[0]


def _code(name: str, body: bytes) -> tuple[object, ...]:
    if len(body) != 1:
        raise MalformedMessage(f"{name} body length")
    return (body[0],)


def _self_test(name: str, body: bytes) -> tuple[object, ...]:
    if len(body) != 2 or body[0] > 1:
        raise MalformedMessage(f"{name} body")
    return body[0] == 1, body[1]


_EVENTS: dict[int, tuple[type[ev.Event], Callable[[str, bytes], tuple[object, ...]]]] = {
    MsgType.CARD_DRAWN: (ev.CardDrawn, _card),
    MsgType.CUT_CARD: (ev.CutCardSeen, _empty),
    MsgType.SHOE_EMPTY: (ev.ShoeEmpty, _empty),
    MsgType.UNREADABLE_CARD: (ev.UnreadableCard, _empty),
    MsgType.CARDS_LOADED: (ev.CardsLoaded, _count),
    MsgType.LID: (ev.LidChanged, _flag),
    MsgType.FAULT: (ev.DeviceFault, _fault),
    MsgType.CARD_INSERTED: (ev.CardInserted, _flag),
    MsgType.PEEK_RESULT: (ev.PeekResult, _flag),
    MsgType.READER_MALFUNCTION: (ev.ReaderMalfunction, _code),
    MsgType.TAMPER: (ev.ReaderTamper, _empty),
    MsgType.SELF_TEST_RESULT: (ev.SelfTestResult, _self_test),
    MsgType.SHUFFLER_ATTACHED: (ev.ShufflerAttached, _empty),
    MsgType.SHUFFLER_REMOVED: (ev.ShufflerRemoved, _empty),
    MsgType.SHUFFLE_STARTED: (ev.ShuffleStarted, _empty),
    MsgType.SHUFFLE_COMPLETED: (ev.ShuffleCompleted, _count),
    MsgType.BATCH_READY: (ev.BatchReady, _count),
    MsgType.JAM: (ev.ShufflerJam, _empty),
    MsgType.STOPPED: (ev.ShufflerStopped, _empty),
    MsgType.CYCLE_INCOMPLETE: (ev.CycleIncomplete, _empty),
    MsgType.DOOR: (ev.DoorChanged, _flag),
}

# Each type's name for the layouts' error messages, looked up once, not per event.
_NAMES: dict[int, str] = {mtype: MsgType(mtype).name for mtype in _EVENTS}


def decode_event(device: str, event_id: int, mtype: int, body: bytes) -> ev.Event:
    """Typed event from an authenticated event body; MalformedMessage if it does not fit."""
    entry = _EVENTS.get(mtype)
    if entry is None:
        raise MalformedMessage(f"message type 0x{mtype:02x} is not an event")
    event, layout = entry
    return event(device, event_id, *layout(_NAMES[mtype], body))


def decode_status(device: str, payload: bytes) -> ev.Status:
    if len(payload) != _STATUS.size:
        raise MalformedMessage("STATUS payload length")
    state, count, flags = _STATUS.unpack(payload)
    return ev.Status(device, None, state, count, flags)
