"""Host drivers over an in-memory link: byte-exact commands, handshake refusals,
exactly-once delivery, acknowledgement only after commit."""

from __future__ import annotations

import os
import queue
import time
import tty
from collections.abc import Iterator

import pytest

from drivers import messages as m
from drivers.device import DeviceDriver, ReaderDriver, ShoeDriver, ShufflerDriver
from drivers.errors import NotConnected, PortBusy, PortNotFound
from drivers.transport import SerialTransport
from firmware_sim.endpoint import Identity
from tests.support.devices import KEY, Drivers, InProcessDevice, host_frame, next_event


class Rig:
    """In-process devices and the drivers started on them, all closed after the test."""

    def __init__(self, drivers: Drivers) -> None:
        self.devices: list[InProcessDevice] = []
        self.drivers = drivers

    def device(self, kind: m.DeviceKind, **ident: str | int) -> InProcessDevice:
        fields: dict[str, object] = {"model": "SIM", "serial": "SN-1", "firmware_version": "1.0"}
        fields.update(ident)
        dev = InProcessDevice(Identity(kind, **fields))  # type: ignore[arg-type]
        self.devices.append(dev)
        return dev

    def start(
        self,
        cls: type[DeviceDriver],
        dev: InProcessDevice,
        approved: list[bytes] | None = None,
        **kw: object,
    ) -> tuple[DeviceDriver, queue.Queue[m.Event]]:
        q: queue.Queue[m.Event] = queue.Queue()
        ok = approved if approved is not None else [dev.endpoint.identity.firmware_hash]
        drv = cls("dev", dev.factory, KEY, q, ok, **kw)  # type: ignore[arg-type]
        return self.drivers.start(drv), q


@pytest.fixture
def rig(drivers: Drivers) -> Iterator[Rig]:
    made = Rig(drivers)
    yield made
    drivers.stop()
    for dev in made.devices:
        dev.close()


@pytest.mark.parametrize(
    ("kind", "cls", "call", "mtype", "payload"),
    [
        (m.DeviceKind.SHOE, ShoeDriver, lambda d: d.display("BANKER DRAWS"), 0x30, b"BANKER DRAWS"),
        (m.DeviceKind.SHOE, ShoeDriver, lambda d: d.request_status(), 0x11, b""),
        (m.DeviceKind.READER, ReaderDriver, lambda d: d.arm(m.PeekTarget.ACE), 0x50, b"\x02"),
        (
            m.DeviceKind.READER,
            ReaderDriver,
            lambda d: d.arm(m.PeekTarget.TEN_VALUE),
            0x50,
            b"\x01",
        ),
        (m.DeviceKind.READER, ReaderDriver, lambda d: d.disarm(), 0x51, b""),
        (m.DeviceKind.READER, ReaderDriver, lambda d: d.self_test(), 0x52, b""),
        (m.DeviceKind.SHUFFLER, ShufflerDriver, lambda d: d.start_shuffle(), 0x70, b""),
        (m.DeviceKind.SHUFFLER, ShufflerDriver, lambda d: d.request_status(), 0x11, b""),
    ],
)
def test_commands_are_byte_exact(
    fixed_nonces: None,
    rig: Rig,
    kind: m.DeviceKind,
    cls: type[DeviceDriver],
    call: object,
    mtype: int,
    payload: bytes,
) -> None:
    dev = rig.device(kind)
    drv, q = rig.start(cls, dev)
    next_event(q, m.DeviceConnected)
    call(drv)  # type: ignore[operator]
    assert dev.commands.get(timeout=2) == (mtype, payload)
    assert host_frame(0, 0, mtype, payload) in dev.host_end.written


def test_event_is_acknowledged_only_after_commit(fixed_nonces: None, rig: Rig) -> None:
    dev = rig.device(m.DeviceKind.SHOE)
    drv, q = rig.start(ShoeDriver, dev)
    next_event(q, m.DeviceConnected)
    ids = [dev.emit(m.MsgType.CARD_DRAWN, m.card_body(r, "S", False)) for r in "A23"]
    cards = [next_event(q, m.CardDrawn) for _ in ids]
    assert [c.token for c in cards] == ["AS", "2S", "3S"]  # type: ignore[attr-defined]
    time.sleep(0.1)
    assert len(dev.endpoint.backlog) == 3  # delivered, not yet durable: kept
    drv.commit(ids[1])
    deadline = time.monotonic() + 2
    while len(dev.endpoint.backlog) != 1 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert [e[0] for e in dev.endpoint.backlog] == [ids[2]]
    # The EVENT_ACK frame, byte for byte: device sent 3 events, so ACK=3.
    assert host_frame(0, 3, 0x10, ids[1].to_bytes(4, "big")) in dev.host_end.written


def test_replay_after_reconnect_is_delivered_once(rig: Rig) -> None:
    dev = rig.device(m.DeviceKind.SHOE)
    drv, q = rig.start(ShoeDriver, dev)
    next_event(q, m.DeviceConnected)
    first = [dev.emit(m.MsgType.CARD_DRAWN, m.card_body("K", s, False)) for s in "SHDC"]
    got = [next_event(q, m.CardDrawn).event_id for _ in first]
    drv.commit(got[1])  # two durable, two delivered but not yet durable
    time.sleep(0.1)
    dev.unplug()
    next_event(q, m.DeviceLost)
    later = dev.emit(m.MsgType.CARD_DRAWN, m.card_body("Q", "S", False))  # while unplugged
    dev.replug()
    next_event(q, m.DeviceConnected)
    assert next_event(q, m.CardDrawn).event_id == later  # replayed ones were not redelivered
    drv.commit(later)
    deadline = time.monotonic() + 2
    while dev.endpoint.backlog and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not dev.endpoint.backlog
    assert q.empty()


@pytest.mark.parametrize(
    ("kind", "ident", "approve", "reason"),
    [
        (m.DeviceKind.SHUFFLER, {}, True, "wrong_kind"),
        (m.DeviceKind.SHOE, {"protocol_version": 2}, True, "protocol_version"),
        (m.DeviceKind.SHOE, {"firmware_version": "6.6.6-unknown"}, False, "firmware_not_approved"),
    ],
)
def test_refused_handshakes(
    rig: Rig,
    kind: m.DeviceKind,
    ident: dict[str, int | str],
    approve: bool,
    reason: str,
) -> None:
    dev = rig.device(kind, **ident)
    approved = [dev.endpoint.identity.firmware_hash] if approve else [b"\x00" * 32]
    drv, q = rig.start(ShoeDriver, dev, approved)
    refused = next_event(q, m.DeviceRefused)
    assert refused.reason == reason  # type: ignore[attr-defined]
    assert "\n" not in refused.detail  # type: ignore[attr-defined]
    time.sleep(0.1)
    assert dev.endpoint.refused is not None  # the device was told
    assert not drv.connected.is_set()
    with pytest.raises(NotConnected):
        drv.display("HELLO")  # type: ignore[attr-defined]


def test_wrong_kind_message_names_both_kinds(rig: Rig) -> None:
    dev = rig.device(m.DeviceKind.SHUFFLER)
    _drv, q = rig.start(ShoeDriver, dev)
    detail = next_event(q, m.DeviceRefused).detail  # type: ignore[attr-defined]
    assert "expected a shoe" in detail and "found a shuffler" in detail


def test_event_gap_is_reported(rig: Rig) -> None:
    dev = rig.device(m.DeviceKind.SHOE)
    dev.endpoint.next_event_id = 20  # the device forgot events 11..19
    _drv, q = rig.start(ShoeDriver, dev, resume=("SN-1", 10))
    gap = next_event(q, m.EventGap)
    assert (gap.expected, gap.got) == (11, 20)  # type: ignore[attr-defined]


def test_resume_after_skips_events_already_recorded(rig: Rig) -> None:
    dev = rig.device(m.DeviceKind.SHOE)
    for r in "A23":
        dev.endpoint.emit(m.MsgType.CARD_DRAWN, m.card_body(r, "D", False))
    _drv, q = rig.start(ShoeDriver, dev, resume=("SN-1", 2))  # the journal holds events 1 and 2
    card = next_event(q, m.CardDrawn)
    assert (card.event_id, card.token) == (3, "3D")  # type: ignore[attr-defined]
    deadline = time.monotonic() + 2
    while len(dev.endpoint.backlog) != 1 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert [e[0] for e in dev.endpoint.backlog] == [3]  # 1 and 2 acknowledged at connect


def test_malformed_authenticated_event_becomes_a_fault_event(
    rig: Rig,
) -> None:
    dev = rig.device(m.DeviceKind.SHOE)
    _drv, q = rig.start(ShoeDriver, dev)
    next_event(q, m.DeviceConnected)
    eid = dev.emit(m.MsgType.CARD_DRAWN, b"ZZ\x00")
    bad = next_event(q, m.MalformedEvent)
    assert bad.event_id == eid and "not a card" in bad.reason  # type: ignore[attr-defined]
    dev.emit(m.MsgType.PEEK_RESULT, b"\x01")  # a reader's message from a shoe
    bad = next_event(q, m.MalformedEvent)
    assert bad.msg_type == m.MsgType.PEEK_RESULT  # type: ignore[attr-defined]


def test_display_text_is_validated(rig: Rig) -> None:
    dev = rig.device(m.DeviceKind.SHOE)
    drv, q = rig.start(ShoeDriver, dev)
    next_event(q, m.DeviceConnected)
    for bad in ("X" * 33, "LINE\nBREAK"):
        with pytest.raises(ValueError):
            drv.display(bad)  # type: ignore[attr-defined]


def test_card_values_stay_out_of_reprs() -> None:
    card = m.CardDrawn("shoe", 7, "A", "S", False)
    assert "AS" not in repr(card) and "'A'" not in repr(card)


def test_missing_port_is_reported_once(tmp_path: object, drivers: Drivers) -> None:
    q: queue.Queue[m.Event] = queue.Queue()
    path = f"{tmp_path}/no-such-shoe"
    drivers.start(ShoeDriver("shoe", lambda: SerialTransport(path), KEY, q, []))
    event = next_event(q, m.DeviceUnavailable)
    assert "does not exist" in event.reason  # type: ignore[attr-defined]
    time.sleep(0.4)  # several retries
    assert q.empty()


def test_busy_port_and_missing_port_errors() -> None:
    master, slave = os.openpty()
    try:
        tty.setraw(slave)
        path = os.ttyname(slave)
        first = SerialTransport(path)
        first.open()
        try:
            with pytest.raises(PortBusy):
                SerialTransport(path).open()
        finally:
            first.close()
        second = SerialTransport(path)
        second.open()  # released on close
        second.close()
        with pytest.raises(PortNotFound):
            SerialTransport(path + "-missing").open()
    finally:
        os.close(master)
        os.close(slave)


def test_forged_frames_raise_a_tamper_fault(rig: Rig) -> None:
    from drivers import codec
    from drivers.link import mac

    dev = rig.device(m.DeviceKind.SHOE)
    drv, q = rig.start(ShoeDriver, dev)
    next_event(q, m.DeviceConnected)
    # A spliced-in device without the key: well-formed frames, wrong MACs.
    for seq in range(6):
        signed = codec.signed_part(0x03, seq, 0, m.MsgType.CARD_DRAWN, b"\x00\x00\x00\x09AS\x00")
        dev.dev_end.write(codec.assemble(signed, mac(b"\x13" * 32, b"D" + signed)))
    tamper = next_event(q, m.LinkTamper)
    assert tamper.failures == 5  # type: ignore[attr-defined]
    assert drv.link_stats["auth_failures"] >= 5


def test_silent_device_is_reported_unavailable_once(drivers: Drivers) -> None:
    from drivers.transport import MemoryTransport

    q: queue.Queue[m.Event] = queue.Queue()
    ends: list[MemoryTransport] = []

    def silent() -> MemoryTransport:
        host, device = MemoryTransport.pair()
        ends.append(device)  # nobody answers on this end
        return host

    drivers.start(ShoeDriver("shoe", silent, KEY, q, []))
    event = next_event(q, m.DeviceUnavailable)
    assert "no answer to HELLO" in event.reason  # type: ignore[attr-defined]
    time.sleep(1.5)  # more handshake attempts, no more events
    assert q.empty() and len(ends) >= 2


def test_repeated_hello_gets_the_same_session_and_old_nonces_are_ignored() -> None:
    from drivers import codec
    from drivers.link import Link

    sent: list[bytes] = []
    dev = InProcessDevice(Identity(m.DeviceKind.SHOE, "SIM", "SN-9", "1.0"))
    try:
        host = Link(False, KEY, sent.append)
        hello_a = m.Hello(1, 1, m.DeviceKind.SHOE, 1000, b"A" * 16).encode()
        replies = []
        for hello in (hello_a, hello_a):
            host.send_handshake(m.MsgType.HELLO, hello)
            dev.host_end.write(sent.pop())
            data = dev.host_end.read(4096, time.monotonic() + 2)
            replies += [p for t, p in host.receive(data) if t == m.MsgType.HELLO_REPLY]
        assert len(replies) == 2 and replies[0] == replies[1]
        assert dev.endpoint.sessions == 1
        host.send_handshake(m.MsgType.HELLO, m.Hello(1, 1, 1, 1000, b"B" * 16).encode())
        dev.host_end.write(sent.pop())
        deadline = time.monotonic() + 2
        while dev.endpoint.sessions != 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert dev.endpoint.sessions == 2
        dev.host_end.read(4096, time.monotonic() + 0.1)  # the reply to B
        host.send_handshake(m.MsgType.HELLO, hello_a)  # a replayed, older HELLO
        dev.host_end.write(sent.pop())
        time.sleep(0.3)
        frames, _ = codec.Decoder().feed(dev.host_end.read(4096, time.monotonic() + 0.1))
        assert m.MsgType.HELLO_REPLY not in [f.type for f in frames]
        assert dev.endpoint.sessions == 2
    finally:
        dev.close()


def test_counter_regression_is_reported_once_and_the_backlog_delivered(
    rig: Rig,
) -> None:
    dev = rig.device(m.DeviceKind.SHOE)
    for r in "AK":
        dev.endpoint.emit(m.MsgType.CARD_DRAWN, m.card_body(r, "C", False))
    _drv, q = rig.start(ShoeDriver, dev, resume=("SN-1", 50))  # the unit was reset since
    gap = next_event(q, m.EventGap)
    assert (gap.expected, gap.got) == (51, 1)  # type: ignore[attr-defined]
    cards = [next_event(q, m.CardDrawn) for _ in range(2)]
    assert [c.token for c in cards] == ["AC", "KC"]  # type: ignore[attr-defined]
    time.sleep(0.1)
    assert q.empty()  # no second gap report


def test_event_of_another_device_kind_does_not_open_a_gap(rig: Rig) -> None:
    dev = rig.device(m.DeviceKind.SHOE)
    _drv, q = rig.start(ShoeDriver, dev)
    next_event(q, m.DeviceConnected)
    dev.emit(m.MsgType.PEEK_RESULT, b"\x01")
    assert isinstance(q.get(timeout=2), m.MalformedEvent)
    dev.emit(m.MsgType.CARD_DRAWN, m.card_body("9", "H", False))
    assert isinstance(q.get(timeout=2), m.CardDrawn)


def test_backlog_sent_right_behind_the_reply_is_not_dropped(
    rig: Rig,
) -> None:
    dev = rig.device(m.DeviceKind.SHOE)
    for r in "234":
        dev.endpoint.emit(m.MsgType.CARD_DRAWN, m.card_body(r, "H", False))
    drv, q = rig.start(ShoeDriver, dev)
    next_event(q, m.DeviceConnected)
    cards = [next_event(q, m.CardDrawn, timeout=2) for _ in range(3)]
    assert [c.token for c in cards] == ["2H", "3H", "4H"]  # type: ignore[attr-defined]
    assert drv.link_stats["stale_frames"] == 0  # none judged before the session
    assert drv.link_stats["retransmits"] == 0
