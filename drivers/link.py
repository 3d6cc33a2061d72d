"""The link layer, shared by host and device: a sans-I/O state object.

Sequenced frames are delivered in order exactly once per session (go-back-N with a
bounded window, cumulative ACKs, one NAK per gap or garbage run, RFC 6298
retransmit timer within bounds). Every frame is authenticated with a truncated
HMAC-SHA256. The owner feeds received bytes to ``receive``, calls ``poll`` at
``next_deadline()``, and is not expected to share a Link between threads.
"""

from __future__ import annotations

import hmac
import struct
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from drivers import codec
from drivers.errors import LinkBusy, LinkLost
from drivers.messages import NONCE_LEN, MsgType

_HANDSHAKE_TYPES = frozenset({MsgType.HELLO, MsgType.HELLO_REPLY, MsgType.REFUSED})
_SESSION_LABEL = b"tablectl-session-v1"
_U32 = struct.Struct(">I")


@dataclass(frozen=True, slots=True)
class LinkConfig:
    window: int = 8
    max_pending: int = 256
    link_timeout: float = 1.0  # a link with no valid frame for this long is lost
    rto_initial: float = 0.1
    rto_min: float = 0.01
    rto_max: float = 0.25
    tamper_threshold: int = 5  # authentication failures ...
    tamper_window: float = 10.0  # ... within this many seconds raise a tamper fault
    stale_after: float = 0.05  # a partial frame with no new byte for this long is dropped
    ack_delay: float = 0.002  # a lone ACK waits this long for a frame to ride on

    @property
    def heartbeat_interval(self) -> float:
        return self.link_timeout / 4

    @property
    def rto_ceiling(self) -> float:
        """rto_max, but never above a heartbeat interval: a retransmitting side is still heard."""
        return min(self.rto_max, self.heartbeat_interval)

    def __post_init__(self) -> None:
        if not 0.04 <= self.link_timeout <= 60:
            raise ValueError("link_timeout must be 0.04..60 s")
        if not 1 <= self.window <= 64:
            raise ValueError("window must be 1..64")
        if self.link_timeout <= 0 or not 0 < self.rto_min <= self.rto_initial <= self.rto_max:
            raise ValueError("timeouts must be positive and rto_min <= rto_initial <= rto_max")
        if not 0 <= self.ack_delay < self.rto_min:
            raise ValueError("ack_delay must be below rto_min, or the peer retransmits needlessly")


@dataclass(slots=True)
class LinkStats:
    frames_tx: int = 0
    frames_rx: int = 0
    retransmits: int = 0
    naks_tx: int = 0
    naks_rx: int = 0
    duplicates: int = 0
    out_of_order: int = 0
    auth_failures: int = 0
    replays: int = 0
    stale_frames: int = 0
    malformed: int = 0
    garbage_bytes: int = 0


@dataclass(slots=True)
class _Outgoing:
    seq: int
    mtype: int
    payload: bytes
    sent_at: float = 0.0
    retransmitted: bool = False


def mac(key: bytes, message: bytes) -> bytes:
    return hmac.digest(key, message, "sha256")[: codec.MAC_LEN]


@dataclass
class Link:
    is_device: bool
    device_key: bytes
    write: Callable[[bytes], None]
    config: LinkConfig = field(default_factory=LinkConfig)
    clock: Callable[[], float] = time.monotonic

    def __post_init__(self) -> None:
        if len(self.device_key) < 16:
            raise ValueError("a device key must be at least 16 bytes")
        self.stats = LinkStats()
        self._decoder = codec.Decoder()
        # (time, direction, type, seq, ack, length, verdict): headers only
        self._ring: deque[tuple[float, str, int, int, int, int, str]] = deque(maxlen=128)
        self._my_dir = b"D" if self.is_device else b"H"
        self._peer_dir = b"H" if self.is_device else b"D"
        self._flags = codec.FLAG_FROM_DEVICE if self.is_device else 0
        self._auth_fail_times: deque[float] = deque()
        self._tamper_pending: int | None = None
        self._hello_nonce = b""
        self._last_byte = 0.0
        self._reset_session()

    # ------------------------------------------------------------------ session

    def _reset_session(self) -> None:
        self.established = False
        self._session_key = b""
        self._tx_next = 0
        self._rx_next = 0
        self._inflight: deque[_Outgoing] = deque()
        self._pending: deque[_Outgoing] = deque()
        self._rto = self.config.rto_initial
        self._srtt: float | None = None
        self._rttvar = 0.0
        self._rto_deadline: float | None = None
        self._nak_for: int | None = None
        self._ack_due: float | None = None
        self._rx_unacked = 0
        self._last_gbn = -1.0
        self._ctl_out = 0  # rising counter in every ACK, NAK and HEARTBEAT: no replays
        self._ctl_in = 0
        self._garbage_naked = False
        self._held: list[codec.Frame] = []
        now = self.clock()
        self._last_rx = now
        self._last_tx = now

    def reset(self) -> None:
        """Forget the session (after a disconnect). Undelivered sequenced messages are dropped."""
        self._reset_session()
        self._decoder.clear()

    def establish(self, host_nonce: bytes, device_nonce: bytes) -> None:
        """Start a session: derive its key from both nonces and restart sequence numbers.
        Frames that arrived right after the handshake message are processed by the next
        ``receive`` call (``receive(b"")`` processes them at once)."""
        held = self._held
        self._reset_session()
        self._held = held
        self._session_key = hmac.digest(
            self.device_key, _SESSION_LABEL + host_nonce + device_nonce, "sha256"
        )
        self.established = True

    # ------------------------------------------------------------------ sending

    def send_handshake(self, mtype: MsgType, payload: bytes) -> None:
        """HELLO, HELLO_REPLY or REFUSED: authenticated with the device key, bound to the
        host's nonce so a recorded reply cannot answer a new HELLO."""
        if mtype == MsgType.HELLO:
            self._hello_nonce = payload[-NONCE_LEN:]
        signed = codec.signed_part(self._flags, 0, 0, mtype, payload)
        tag = mac(self.device_key, self._my_dir + self._hello_nonce + signed)
        self._emit(signed, tag, mtype, 0, 0)

    def bind_hello(self, host_nonce: bytes) -> None:
        """Device side: the HELLO the device answered; its nonce authenticates what the
        host sends before the session (REFUSED). A HELLO the device ignores binds nothing."""
        self._hello_nonce = host_nonce

    def send(self, mtype: int, payload: bytes) -> None:
        """Queue a sequenced message; it is delivered in order unless the session ends."""
        if not self.established:
            raise LinkLost("no session")
        entry = _Outgoing(0, mtype, payload)
        if len(self._inflight) < self.config.window:
            entry.seq = self._tx_next
            self._tx_next += 1
            self._inflight.append(entry)
            self._transmit(entry)
        elif len(self._pending) < self.config.max_pending:
            self._pending.append(entry)
        else:
            raise LinkBusy("send window and pending queue are full")

    def _transmit(self, entry: _Outgoing) -> None:
        now = self.clock()
        entry.sent_at = now
        signed = codec.signed_part(
            self._flags | codec.FLAG_SEQUENCED,
            entry.seq,
            self._rx_next,
            entry.mtype,
            entry.payload,
        )
        tag = mac(self._session_key, self._my_dir + entry.seq.to_bytes(8, "big") + signed)
        if self._rto_deadline is None:
            self._rto_deadline = now + self._rto
        self._emit(signed, tag, entry.mtype, entry.seq, self._rx_next)

    def _send_control(self, mtype: MsgType) -> None:
        if self._ctl_out >= 0xFFFFFFFF:
            raise LinkLost("control counter exhausted: a new session is needed")
        self._ctl_out += 1
        signed = codec.signed_part(self._flags, 0, self._rx_next, mtype, _U32.pack(self._ctl_out))
        tag = mac(self._session_key, self._my_dir + signed)
        self._emit(signed, tag, mtype, 0, self._rx_next)

    def _emit(self, signed: bytes, tag: bytes, mtype: int, seq: int, ack: int) -> None:
        frame = codec.assemble(signed, tag)
        if self.established:
            self._ack_due = None  # this frame's ACK field acknowledges everything received
            self._rx_unacked = 0
        self._last_tx = self.clock()
        self.stats.frames_tx += 1
        self._ring.append((self._last_tx, "tx", mtype, seq, ack, len(frame), "sent"))
        self.write(frame)

    def send_nak(self) -> None:
        """Ask the peer to resend from the next expected sequence number."""
        self._nak_for = self._rx_next
        self.stats.naks_tx += 1
        self._send_control(MsgType.NAK)

    def _go_back(self, now: float) -> None:
        self._last_gbn = now
        for entry in self._inflight:
            entry.retransmitted = True
            self.stats.retransmits += 1
            self._transmit(entry)
        self._rto_deadline = now + self._rto

    # ------------------------------------------------------------------ receiving

    def receive(self, data: bytes) -> list[tuple[int, bytes]]:
        """Feed bytes from the transport; return the messages now deliverable, in order."""
        if data:
            self._last_byte = self.clock()
        frames, skipped = self._decoder.feed(data)
        if self._held:
            frames, self._held = self._held + frames, []
        return self._process(frames, skipped)

    def _process(self, frames: list[codec.Frame], skipped: bool) -> list[tuple[int, bytes]]:
        now = self.clock()
        self.stats.garbage_bytes = self._decoder.garbage_bytes
        out: list[tuple[int, bytes]] = []
        ack_now = False
        if skipped and self.established and not self._garbage_naked:
            self.send_nak()  # one NAK per garbage run, however many reads it spans
            self._garbage_naked = True
        for i, f in enumerate(frames):
            self.stats.frames_rx += 1
            verdict = self._accept(f, now, out)
            if verdict not in ("auth-failed", "malformed", "reflected"):
                self._garbage_naked = False
            if verdict == "data":
                self._rx_unacked += 1
                if self._ack_due is None:
                    self._ack_due = now + self.config.ack_delay
            elif verdict == "duplicate":
                ack_now = True  # the peer is retransmitting: our ACK was lost
            length = len(f.signed) + codec.MAC_LEN + codec.CRC_LEN + 1
            self._ring.append((now, "rx", f.type, f.seq, f.ack, length, verdict))
            if verdict == "handshake":
                # What follows belongs to the session the owner is about to establish.
                self._held = frames[i + 1 :]
                break
        if ack_now or self._rx_unacked >= max(1, self.config.window // 2):
            self._send_control(MsgType.ACK)
        return out

    def _accept(self, f: codec.Frame, now: float, out: list[tuple[int, bytes]]) -> str:
        if f.from_device == self.is_device:
            self.stats.stale_frames += 1
            return "reflected"
        if f.type in _HANDSHAKE_TYPES and not f.sequenced:
            nonce = f.payload[-NONCE_LEN:] if f.type == MsgType.HELLO else self._hello_nonce
            if not hmac.compare_digest(
                mac(self.device_key, self._peer_dir + nonce + f.signed), f.mac
            ):
                return self._auth_failed(now)
            self._last_rx = now
            out.append((f.type, f.payload))
            return "handshake"
        if not self.established:
            self.stats.stale_frames += 1
            return "no-session"
        if f.sequenced:
            d = (f.seq - self._rx_next) & 0xFF
            full = self._rx_next + d if d < 128 else self._rx_next - (256 - d)
            if full < 0:
                return self._auth_failed(now)
            tag = mac(self._session_key, self._peer_dir + full.to_bytes(8, "big") + f.signed)
            if not hmac.compare_digest(tag, f.mac):
                return self._auth_failed(now)
            self._last_rx = now
            self._process_ack(f.ack, now)
            if d == 0:
                self._rx_next += 1
                self._nak_for = None
                out.append((f.type, f.payload))
                return "data"
            if d < 128:
                self.stats.out_of_order += 1
                if self._nak_for != self._rx_next:
                    self.send_nak()
                return "gap"
            self.stats.duplicates += 1
            return "duplicate"
        if not hmac.compare_digest(mac(self._session_key, self._peer_dir + f.signed), f.mac):
            return self._auth_failed(now)
        if len(f.payload) != 4:
            self.stats.malformed += 1
            return "malformed"
        count = _U32.unpack(f.payload)[0]
        if count <= self._ctl_in:
            self.stats.replays += 1
            return "replay"
        self._ctl_in = count
        self._last_rx = now
        self._process_ack(f.ack, now)
        if f.type == MsgType.NAK:
            self.stats.naks_rx += 1
            floor = self._srtt if self._srtt is not None else self.config.rto_min
            if self._inflight and now - self._last_gbn >= floor:
                self._go_back(now)
        return "control"

    def _auth_failed(self, now: float) -> str:
        self.stats.auth_failures += 1
        times = self._auth_fail_times
        times.append(now)
        while times and now - times[0] > self.config.tamper_window:
            times.popleft()
        if len(times) >= self.config.tamper_threshold:
            self._tamper_pending = len(times)
            times.clear()
        return "auth-failed"

    def _process_ack(self, ack: int, now: float) -> None:
        inflight = self._inflight
        if not inflight:
            return
        n = (ack - inflight[0].seq) & 0xFF
        if n == 0 or n > len(inflight):
            return
        for _ in range(n):
            entry = inflight.popleft()
            if not entry.retransmitted:
                self._sample_rtt(now - entry.sent_at)
        while self._pending and len(inflight) < self.config.window:
            entry = self._pending.popleft()
            entry.seq = self._tx_next
            self._tx_next += 1
            inflight.append(entry)
            self._transmit(entry)
        self._rto_deadline = now + self._rto if inflight else None

    def _sample_rtt(self, r: float) -> None:
        # RFC 6298, section 2, with bounds of our own.
        if self._srtt is None:
            self._srtt = r
            self._rttvar = r / 2
        else:
            self._rttvar = 0.75 * self._rttvar + 0.25 * abs(self._srtt - r)
            self._srtt = 0.875 * self._srtt + 0.125 * r
        rto = self._srtt + max(0.001, 4 * self._rttvar)
        self._rto = min(self.config.rto_ceiling, max(self.config.rto_min, rto))

    # ------------------------------------------------------------------ timers

    def poll(self) -> list[tuple[int, bytes]]:
        """Run timers: retransmit, heartbeat, stalled-frame recovery. Raises LinkLost."""
        now = self.clock()
        out: list[tuple[int, bytes]] = []
        if self._decoder.pending and now - self._last_byte >= self.config.stale_after:
            frames, skipped = self._decoder.discard_stale()
            self._last_byte = now
            out = self._process(frames, skipped)
        if self._held:
            out += self.receive(b"")  # before the session check: held frames never wait
        if not self.established:
            return out
        if now - self._last_rx >= self.config.link_timeout:
            raise LinkLost(f"no valid frame for {now - self._last_rx:.3f} s")
        if self._ack_due is not None and now >= self._ack_due:
            self._send_control(MsgType.ACK)
        if self._rto_deadline is not None and now >= self._rto_deadline and self._inflight:
            self._rto = min(self.config.rto_ceiling, self._rto * 2)
            self._go_back(now)
        if now - self._last_tx >= self.config.heartbeat_interval:
            self._send_control(MsgType.HEARTBEAT)
        return out

    def next_deadline(self) -> float:
        """When ``poll`` next has work to do (monotonic seconds)."""
        cfg = self.config
        candidates = []
        if self._held:
            candidates.append(self.clock())
        if self._decoder.pending:
            candidates.append(self._last_byte + cfg.stale_after)
        if self.established:
            candidates.append(self._last_rx + cfg.link_timeout)
            candidates.append(self._last_tx + cfg.heartbeat_interval)
            if self._ack_due is not None:
                candidates.append(self._ack_due)
            if self._rto_deadline is not None and self._inflight:
                candidates.append(self._rto_deadline)
        return min(candidates) if candidates else self.clock() + cfg.link_timeout

    # ------------------------------------------------------------------ state

    @property
    def unacked(self) -> int:
        return len(self._inflight) + len(self._pending)

    @property
    def rto(self) -> float:
        return self._rto

    def take_tamper(self) -> int | None:
        """Failures counted when the tamper threshold was last crossed, once."""
        count, self._tamper_pending = self._tamper_pending, None
        return count

    def dump_debug(self) -> list[dict[str, object]]:
        """Recent frame headers (never payloads: a card may be a hole card)."""
        out: list[dict[str, object]] = []
        for at, direction, mtype, seq, ack, length, verdict in self._ring:
            try:
                name = MsgType(mtype).name
            except ValueError:
                name = f"0x{mtype:02x}"
            out.append(
                {
                    "at": round(at, 6),
                    "dir": direction,
                    "type": name,
                    "seq": seq & 0xFF,
                    "ack": ack & 0xFF,
                    "len": length,
                    "verdict": verdict,
                }
            )
        return out
