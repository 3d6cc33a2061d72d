"""The link layer, sans I/O, on a simulated clock: ordering, loss, authentication, timers."""

from __future__ import annotations

import hmac
import random
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers import codec
from drivers.errors import LinkBusy, LinkLost
from drivers.link import Link, LinkConfig, mac
from drivers.link.auth import Mac
from drivers.messages import MsgType
from tests.support.devices import KEY


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


@dataclass
class Wire:
    """Frames written by one side, waiting to reach the other, with optional faults."""

    rng: random.Random = field(default_factory=lambda: random.Random(0))
    drop: float = 0.0
    dup: float = 0.0
    corrupt: float = 0.0
    queue: list[bytes] = field(default_factory=list)
    log: list[bytes] = field(default_factory=list)

    def write(self, data: bytes) -> None:
        self.log.append(data)
        r = self.rng.random()
        if r < self.drop:
            return
        if r < self.drop + self.corrupt:
            b = bytearray(data)
            b[self.rng.randrange(len(b))] ^= 1 << self.rng.randrange(8)
            data = bytes(b)
        self.queue.append(data)
        if self.rng.random() < self.dup:
            self.queue.append(data)

    def take(self) -> bytes:
        out = b"".join(self.queue)
        self.queue.clear()
        return out


class Pair:
    def __init__(self, config: LinkConfig | None = None, **faults: float) -> None:
        self.clock = Clock()
        cfg = config or LinkConfig()
        self.to_dev = Wire(random.Random(1), **faults)
        self.to_host = Wire(random.Random(2), **faults)
        self.host = Link(False, KEY, self.to_dev.write, cfg, self.clock)
        self.dev = Link(True, KEY, self.to_host.write, cfg, self.clock)
        self.host_got: list[tuple[int, bytes]] = []
        self.dev_got: list[tuple[int, bytes]] = []
        hn, dn = secrets.token_bytes(16), secrets.token_bytes(16)
        self.host.establish(hn, dn)
        self.dev.establish(hn, dn)

    def step(self, dt: float = 0.001) -> None:
        self.clock.t += dt
        self.dev_got += self.dev.receive(self.to_dev.take())
        self.host_got += self.host.receive(self.to_host.take())
        self.dev_got += self.dev.poll()
        self.host_got += self.host.poll()

    def run_until(self, done: Callable[[], bool], limit: int = 20000, dt: float = 0.001) -> None:
        for _ in range(limit):
            if done():
                return
            self.step(dt)
        raise AssertionError("condition not reached")


def test_messages_arrive_in_order_exactly_once() -> None:
    p = Pair()
    for i in range(100):
        p.dev.send(0x20, i.to_bytes(2, "big"))
        p.step()
    p.run_until(lambda: len(p.host_got) == 100 and p.dev.unacked == 0)
    assert [int.from_bytes(b, "big") for _, b in p.host_got] == list(range(100))


@settings(max_examples=25, deadline=None)
@given(
    st.integers(0, 2**32 - 1),
    st.floats(0, 0.2),
    st.floats(0, 0.2),
    st.floats(0, 0.2),
)
def test_lossy_wire_still_delivers_everything_in_order(
    seed: int, drop: float, dup: float, corrupt: float
) -> None:
    # A generous lost-link time: the property here is order and exactly-once delivery.
    p = Pair(LinkConfig(max_pending=400, link_timeout=60), drop=drop, dup=dup, corrupt=corrupt)
    p.to_host.rng = random.Random(seed)
    p.to_dev.rng = random.Random(seed + 1)
    for i in range(300):  # more than the 8-bit sequence space
        p.dev.send(0x20, i.to_bytes(2, "big"))
    p.run_until(lambda: p.dev.unacked == 0, limit=200000)
    assert [int.from_bytes(b, "big") for _, b in p.host_got] == list(range(300))


def test_window_bounds_frames_in_flight_and_pending_is_bounded() -> None:
    p = Pair(LinkConfig(window=4, max_pending=3))
    for i in range(7):
        p.dev.send(0x20, bytes([i]))
    assert len(p.to_host.queue) == 4
    with pytest.raises(LinkBusy):
        p.dev.send(0x20, b"x")
    p.run_until(lambda: len(p.host_got) == 7)


def test_garbage_gets_a_single_nak_and_gap_triggers_go_back() -> None:
    p = Pair()
    p.dev.send(0x20, b"a")
    p.dev.send(0x20, b"b")
    first, second = p.to_host.queue
    p.to_host.queue.clear()
    got = p.host.receive(b"\x00\x11garbage\xa5\x05" + second)  # first frame lost in noise
    assert got == [] and p.host.stats.naks_tx == 1
    assert p.host.stats.out_of_order == 1
    p.clock.t += 0.02
    p.dev.receive(p.to_dev.take())  # the NAK: device goes back to "a"
    assert p.dev.stats.naks_rx == 1 and p.dev.stats.retransmits == 2
    assert [b for _, b in p.host.receive(p.to_host.take())] == [b"a", b"b"]
    assert first != b""


def test_duplicate_is_dropped_and_reacked() -> None:
    p = Pair()
    p.dev.send(0x20, b"once")
    frame = p.to_host.take()
    assert p.host.receive(frame) == [(0x20, b"once")]
    acks_before = len(p.to_dev.log)
    assert p.host.receive(frame) == []
    assert p.host.stats.duplicates == 1 and len(p.to_dev.log) == acks_before + 1


def reforge(frame: bytes, index: int) -> bytes:
    """Flip a byte of the signed part and fix the CRC: only the MAC can catch it."""
    b = bytearray(frame)
    b[index] ^= 0x01
    b[-2:] = codec.crc16(bytes(b[1:-2])).to_bytes(2, "big")
    return bytes(b)


def test_altered_card_is_rejected_and_repeated_failures_raise_tamper() -> None:
    p = Pair(LinkConfig(tamper_threshold=3))
    p.dev.send(0x20, b"AS\x00")
    frame = p.to_host.take()
    for _ in range(3):
        assert p.host.receive(reforge(frame, codec.HEADER_LEN)) == []
    assert p.host.stats.auth_failures == 3
    assert p.host.take_tamper() == 3 and p.host.take_tamper() is None
    assert p.host.receive(frame) == [(0x20, b"AS\x00")]


def test_frames_from_another_session_or_key_are_rejected() -> None:
    p = Pair()
    p.dev.send(0x20, b"old")
    recorded = p.to_host.take()
    p.host.establish(b"n" * 16, b"m" * 16)  # a new session: sequence restarts at 0
    assert p.host.receive(recorded) == []
    assert p.host.stats.auth_failures == 1
    spliced = Link(True, b"x" * 32, p.to_host.write, LinkConfig(), p.clock)
    spliced.establish(b"n" * 16, b"m" * 16)
    spliced.send(0x20, b"fake")
    assert p.host.receive(p.to_host.take()) == []
    assert p.host.stats.auth_failures == 2


def test_replay_of_an_old_frame_with_the_same_8bit_seq_is_rejected() -> None:
    p = Pair()
    p.dev.send(0x20, b"seq0")
    recorded = p.to_host.take()
    assert p.host.receive(recorded) == [(0x20, b"seq0")]
    for i in range(255):
        p.dev.send(0x20, bytes([i]))
        p.step()
    p.run_until(lambda: p.dev.unacked == 0)
    assert len(p.host_got) == 255
    # 256 frames later the 8-bit SEQ of the recording is the expected one again.
    assert p.host.receive(recorded) == []
    assert p.host.stats.auth_failures == 1


def test_reflected_frames_are_not_accepted() -> None:
    p = Pair()
    p.host.send(MsgType.DISPLAY, b"HI")
    echoed = p.to_dev.take()
    assert p.host.receive(echoed) == []
    assert p.host.stats.stale_frames == 1


def test_heartbeat_replay_is_counted_not_accepted() -> None:
    p = Pair()
    p.clock.t += p.dev.config.heartbeat_interval
    p.dev.poll()
    hb = p.to_host.take()
    p.host.receive(hb)
    p.host.receive(hb)
    assert p.host.stats.replays == 1


def test_heartbeats_keep_the_link_and_silence_loses_it() -> None:
    cfg = LinkConfig(link_timeout=1.0)
    p = Pair(cfg)
    for _ in range(300):  # 3 s with both sides talking
        p.step(0.01)
    assert p.host.stats.frames_rx >= 8  # about three heartbeats a second
    with pytest.raises(LinkLost):
        for _ in range(120):  # the device goes silent
            p.clock.t += 0.01
            p.host.poll()
    assert p.host.next_deadline() <= p.clock.t


def test_retransmit_timer_backs_off_within_bounds() -> None:
    cfg = LinkConfig(rto_initial=0.1, rto_min=0.01, rto_max=0.5, link_timeout=60)
    assert LinkConfig(link_timeout=0.4).rto_ceiling == pytest.approx(0.4 / 3)
    p = Pair(cfg)
    p.to_host.drop = 1.0
    p.dev.send(0x20, b"lost")
    seen = []
    for _ in range(400):
        p.clock.t += 0.01
        p.dev.poll()
        seen.append(p.dev.rto)
    assert max(seen) == 0.5 and p.dev.stats.retransmits >= 5
    p.to_host.drop = p.to_dev.drop = 0.0
    p.run_until(lambda: p.dev.unacked == 0, dt=0.01)
    assert p.host_got == [(0x20, b"lost")]


def test_rtt_samples_bring_the_timeout_down_to_its_floor() -> None:
    p = Pair(LinkConfig(rto_initial=0.1, rto_min=0.01))
    for i in range(50):
        p.dev.send(0x20, bytes([i]))
        p.step(0.0005)
        p.step(0.0005)
    assert p.dev.rto == pytest.approx(0.01)


def test_handshake_reply_is_bound_to_the_hello_nonce() -> None:
    clock = Clock()
    to_dev, to_host = Wire(), Wire()
    host = Link(False, KEY, to_dev.write, LinkConfig(), clock)
    dev = Link(True, KEY, to_host.write, LinkConfig(), clock)
    hello = bytes((1, 1, 1, 3, 232)) + b"A" * 16
    host.send_handshake(MsgType.HELLO, hello)
    assert dev.receive(to_dev.take()) == [(MsgType.HELLO, hello)]
    dev.bind_hello(b"A" * 16)
    dev.send_handshake(MsgType.HELLO_REPLY, b"reply")
    recorded = to_host.take()
    assert host.receive(recorded) == [(MsgType.HELLO_REPLY, b"reply")]
    host.send_handshake(MsgType.HELLO, bytes((1, 1, 1, 3, 232)) + b"B" * 16)
    assert host.receive(recorded) == []  # a recorded reply cannot answer a new HELLO
    assert host.stats.auth_failures == 1


def test_handshake_frames_need_the_device_key() -> None:
    clock = Clock()
    wire = Wire()
    dev = Link(True, KEY, wire.write, LinkConfig(), clock)
    signed = codec.signed_part(0, 0, 0, MsgType.HELLO, bytes(21))
    forged = codec.assemble(signed, mac(b"z" * 32, b"H" + bytes(16) + signed))
    assert dev.receive(forged) == []
    assert dev.stats.auth_failures == 1


def test_debug_dump_holds_headers_never_payloads() -> None:
    p = Pair()
    p.dev.send(0x20, b"KS\x00")
    p.step()
    dump = p.host.dump_debug()
    fields = {"at", "dir", "type", "seq", "ack", "len", "verdict"}
    assert dump and all(set(d) == fields for d in dump)
    assert "KS" not in repr(dump)


def test_short_keys_and_bad_configs_are_refused() -> None:
    with pytest.raises(ValueError):
        Link(False, b"short", lambda b: None)
    with pytest.raises(ValueError):
        LinkConfig(window=0)
    with pytest.raises(ValueError):
        LinkConfig(rto_min=1.0, rto_initial=0.1)


def test_recorded_ack_cannot_be_replayed_in_the_same_session() -> None:
    p = Pair()
    p.dev.send(0x20, b"x")
    p.host.receive(p.to_host.take())
    p.clock.t += 0.01
    p.host.poll()  # the delayed ACK goes out
    ack = p.to_dev.take()
    assert p.dev.receive(ack) == [] and p.dev.unacked == 0
    p.dev.send(0x20, b"y")
    p.dev.receive(ack)  # the same ACK again must not acknowledge "y"
    assert p.dev.stats.replays == 1 and p.dev.unacked == 1


def test_frames_behind_a_handshake_message_wait_for_the_session() -> None:
    clock = Clock()
    to_dev, to_host = Wire(), Wire()
    host = Link(False, KEY, to_dev.write, LinkConfig(), clock)
    dev = Link(True, KEY, to_host.write, LinkConfig(), clock)
    hello = bytes((1, 1, 1, 3, 232)) + b"N" * 16
    host.send_handshake(MsgType.HELLO, hello)
    dev.receive(to_dev.take())
    dev.bind_hello(b"N" * 16)
    dev.send_handshake(MsgType.HELLO_REPLY, b"reply")
    dev.establish(b"N" * 16, b"M" * 16)
    dev.send(0x20, b"first event")  # in the same read as the reply
    assert host.receive(to_host.take()) == [(MsgType.HELLO_REPLY, b"reply")]
    host.establish(b"N" * 16, b"M" * 16)
    assert host.receive(b"") == [(0x20, b"first event")]


def test_one_nak_per_garbage_run_across_reads() -> None:
    p = Pair()
    for chunk in (b"\x01\x02", b"\x03\x04", b"\x05"):
        p.host.receive(chunk)
    assert p.host.stats.naks_tx == 1
    p.dev.send(0x20, b"ok")
    p.host.receive(p.to_host.take())
    p.host.receive(b"\x09")  # a new run after a good frame
    assert p.host.stats.naks_tx == 2


def test_device_binds_only_the_hello_it_answers() -> None:
    clock = Clock()
    to_dev, to_host = Wire(), Wire()
    host = Link(False, KEY, to_dev.write, LinkConfig(), clock)
    dev = Link(True, KEY, to_host.write, LinkConfig(), clock)
    host.send_handshake(MsgType.HELLO, bytes((1, 1, 1, 3, 232)) + b"A" * 16)
    dev.receive(to_dev.take())
    dev.bind_hello(b"A" * 16)
    host.send_handshake(MsgType.REFUSED, b"\x01")
    refused_a = to_dev.take()
    host.send_handshake(MsgType.HELLO, bytes((1, 1, 1, 3, 232)) + b"B" * 16)
    dev.receive(to_dev.take())  # authenticated, but the device chose not to answer it
    assert dev.receive(refused_a) == [(MsgType.REFUSED, b"\x01")]


def test_control_counter_exhaustion_ends_the_session() -> None:
    p = Pair()
    p.dev._ctl_out = 0xFFFFFFFF
    p.clock.t += p.dev.config.heartbeat_interval
    with pytest.raises(LinkLost):
        p.dev.poll()


def test_frames_held_behind_an_ignored_hello_do_not_spin_the_timer() -> None:
    clock = Clock()
    to_dev = Wire()
    host = Link(False, KEY, to_dev.write, LinkConfig(), clock)
    dev = Link(True, KEY, lambda b: None, LinkConfig(), clock)
    host.send_handshake(MsgType.HELLO, bytes((1, 1, 1, 3, 232)) + b"A" * 16)
    host.send_handshake(MsgType.HELLO, bytes((1, 1, 1, 3, 232)) + b"B" * 16)
    assert [t for t, _ in dev.receive(to_dev.take())] == [MsgType.HELLO]  # the second is held
    dev.poll()  # the owner ignored the first HELLO; the held one is processed now
    assert dev.next_deadline() > clock.t


@given(st.binary(max_size=100), st.binary(max_size=300))
def test_a_keyed_mac_is_the_truncated_hmac_sha256(key: bytes, message: bytes) -> None:
    assert Mac(key)(message) == hmac.digest(key, message, "sha256")[:8] == mac(key, message)


def frame_types(data: bytes) -> list[int]:
    frames, _ = codec.Decoder().feed(data)
    return [f.type for f in frames]


def test_held_messages_go_out_in_one_write_timed_from_their_release() -> None:
    p = Pair(LinkConfig(rto_initial=0.1, rto_min=0.01, link_timeout=60))
    p.host.send(0x30, b"PLAYER", hold=True)
    p.host.send(0x10, b"\x00\x00\x00\x07", hold=True)
    p.clock.t += 0.3  # three retransmit timeouts: nothing was framed, nothing is resent
    p.host.poll()
    assert p.to_dev.log == [] and p.host.stats.retransmits == 0
    assert p.host.release()
    (written,) = p.to_dev.log
    assert frame_types(written) == [0x30, 0x10]
    assert p.host.next_deadline() == pytest.approx(p.clock.t + 0.1)  # from the release
    p.run_until(lambda: p.host.unacked == 0)
    assert p.dev_got == [(0x30, b"PLAYER"), (0x10, b"\x00\x00\x00\x07")]
    assert p.host.stats.retransmits == 0


def test_another_frame_sends_the_held_ones_first_in_send_order() -> None:
    p = Pair(LinkConfig(window=4, max_pending=2))
    p.host.send(0x30, b"one", hold=True)
    # The device's event wants an ACK: the held frame carries it, no ACK of its own.
    p.dev.send(0x20, b"card")
    p.host_got += p.host.receive(p.to_host.take())
    p.clock.t += 0.01
    p.host.poll()
    assert [frame_types(w) for w in p.to_dev.log] == [[0x30]]
    p.host.send(0x30, b"two", hold=True)
    p.host.send(0x10, b"three")  # not held: after what is held, in the same write
    assert frame_types(p.to_dev.log[-1]) == [0x30, 0x10]
    for i in range(3):  # the window (4) and the queue behind it (2) count what is held
        p.host.send(0x30, bytes([i]), hold=True)
    with pytest.raises(LinkBusy):
        p.host.send(0x30, b"x", hold=True)
    p.host.release()
    p.run_until(lambda: p.host.unacked == 0)
    payloads = [b for _, b in p.dev_got]
    assert payloads == [b"one", b"two", b"three", b"\x00", b"\x01", b"\x02"]
    assert p.dev.stats.out_of_order == p.dev.stats.duplicates == 0


def test_held_messages_wait_a_window_at_most() -> None:
    # However long a cork: never more kept than a window, the rest queued as any send.
    p = Pair(LinkConfig(window=4))
    for i in range(9):
        p.host.send(0x30, bytes([i]), hold=True)
    assert [frame_types(w) for w in p.to_dev.log] == [[0x30] * 4]
    assert p.host.holding
    p.host.release()
    p.run_until(lambda: p.host.unacked == 0)
    assert [b for _, b in p.dev_got] == [bytes([i]) for i in range(9)]
