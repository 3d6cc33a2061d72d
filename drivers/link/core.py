"""The link layer, shared by host and device: a sans-I/O state object.

Sequenced frames are delivered in order exactly once per session (go-back-N with a
bounded window, cumulative ACKs, one NAK per gap or garbage run, RFC 6298
retransmit timer within bounds). Every frame is authenticated with a truncated
HMAC-SHA256. The owner feeds received bytes to ``receive``, calls ``poll`` at
``next_deadline()``, and is not expected to share a Link between threads.
"""

from __future__ import annotations

import hmac
import math
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from drivers import codec
from drivers.errors import LinkBusy, LinkLost
from drivers.link.auth import Mac, TamperMeter, session_key
from drivers.link.config import LinkConfig, LinkStats
from drivers.link.sender import Outgoing, Sender
from drivers.link.trace import FrameTrace
from drivers.messages import NONCE_LEN, MsgType

_HANDSHAKE_TYPES = frozenset({MsgType.HELLO, MsgType.HELLO_REPLY, MsgType.REFUSED})
# The control types as module names: an Enum class attribute costs ten times a global.
_ACK, _NAK, _HEARTBEAT = MsgType.ACK, MsgType.NAK, MsgType.HEARTBEAT
# Verdicts on frames that do not end a run of garbage (they may be garbage themselves).
_SUSPECT = frozenset({"auth-failed", "malformed", "reflected"})
_U32 = struct.Struct(">I")
_SYNC_MAC_CRC = 1 + codec.MAC_LEN + codec.CRC_LEN  # a frame's bytes besides its signed part


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
        self._trace = FrameTrace()
        self._my_dir = b"D" if self.is_device else b"H"
        self._peer_dir = b"H" if self.is_device else b"D"
        self._flags = codec.FLAG_FROM_DEVICE if self.is_device else 0
        self._peer_flag = self._flags ^ codec.FLAG_FROM_DEVICE  # a frame from the other end
        self._tamper = TamperMeter()
        self._device_mac = Mac(self.device_key)
        self._hello_nonce = b""
        self._last_byte = 0.0
        self._reset_session()

    # ------------------------------------------------------------------ session

    def _reset_session(self) -> None:
        self.established = False
        self._session_mac = Mac(b"")  # no session: keyed by the session key at establish
        self._sender = Sender(lambda: self.config, self.stats, self._transmit, self.clock)
        self._rx_next = 0
        self._nak_for: int | None = None
        self._ack_due: float | None = None
        self._rx_unacked = 0
        self._ctl_out = 0  # rising counter in every ACK, NAK and HEARTBEAT: no replays
        self._ctl_in = 0
        self._garbage_naked = False
        self._heard_heartbeat = False
        self._held: list[codec.Frame] = []
        self._kept: list[tuple[int, bytes]] = []  # sent with ``hold``, not framed yet
        self._batch: list[bytes] | None = None  # frames of a ``release``, written together
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
        self._session_mac = Mac(session_key(self.device_key, host_nonce, device_nonce))
        self.established = True

    # ------------------------------------------------------------------ sending

    def send_handshake(self, mtype: MsgType, payload: bytes) -> None:
        """HELLO, HELLO_REPLY or REFUSED: authenticated with the device key, bound to the
        host's nonce so a recorded reply cannot answer a new HELLO."""
        if mtype == MsgType.HELLO:
            self._hello_nonce = payload[-NONCE_LEN:]
        self.release()
        signed = codec.signed_part(self._flags, 0, 0, mtype, payload)
        tag = self._device_mac(self._my_dir + self._hello_nonce + signed)
        self._emit(signed, tag, mtype, 0, 0)

    def bind_hello(self, host_nonce: bytes) -> None:
        """Device side: the HELLO the device answered; its nonce authenticates what the
        host sends before the session (REFUSED). A HELLO the device ignores binds nothing."""
        self._hello_nonce = host_nonce

    def send(self, mtype: int, payload: bytes, hold: bool = False) -> None:
        """Queue a sequenced message; it is delivered in order unless the session ends.
        ``hold``: kept until ``release`` (or the next frame sent without it, or a
        window's worth kept), to go out in one write with the others kept; it is
        framed, and its retransmit timer started, only then."""
        if not self.established:
            raise LinkLost("no session")
        if hold or self._kept:
            cfg = self.config
            if self._sender.unacked + len(self._kept) >= cfg.window + cfg.max_pending:
                raise LinkBusy("send window and pending queue are full")
            self._kept.append((mtype, payload))
            if not hold or len(self._kept) >= cfg.window:
                self.release()  # after what was kept, in the same write
            return
        self._sender.send(mtype, payload)

    @property
    def holding(self) -> bool:
        """Whether messages sent with ``hold`` wait for ``release``."""
        return bool(self._kept)

    def release(self) -> bool:
        """Send the messages kept by ``send(hold=True)``, in order, in one write (those
        the window has no room for wait behind it, as any send); whether a frame was
        written. Every other frame sends them first: the wire keeps the send order."""
        kept = self._kept
        if not kept:
            return False
        self._kept, self._batch = [], []
        try:
            for mtype, payload in kept:
                self._sender.send(mtype, payload)
        finally:
            frames, self._batch = self._batch, None
        if not frames:
            return False
        self.write(b"".join(frames))
        return True

    def _transmit(self, entry: Outgoing) -> None:
        signed = codec.signed_part(
            self._flags | codec.FLAG_SEQUENCED,
            entry.seq,
            self._rx_next,
            entry.mtype,
            entry.payload,
        )
        tag = self._session_mac(self._my_dir + entry.seq.to_bytes(8, "big") + signed)
        self._emit(signed, tag, entry.mtype, entry.seq, self._rx_next)

    def _send_control(self, mtype: MsgType) -> None:
        if self.release() and mtype == _ACK:
            return  # the released frames carry the same acknowledgement
        if self._ctl_out >= 0xFFFFFFFF:
            raise LinkLost("control counter exhausted: a new session is needed")
        self._ctl_out += 1
        signed = codec.signed_part(self._flags, 0, self._rx_next, mtype, _U32.pack(self._ctl_out))
        tag = self._session_mac(self._my_dir + signed)
        self._emit(signed, tag, mtype, 0, self._rx_next)

    def _emit(self, signed: bytes, tag: bytes, mtype: int, seq: int, ack: int) -> None:
        frame = codec.assemble(signed, tag)
        if self.established:
            self._ack_due = None  # this frame's ACK field acknowledges everything received
            self._rx_unacked = 0
        self._last_tx = self.clock()
        self.stats.frames_tx += 1
        self._trace.add(self._last_tx, "tx", mtype, seq, ack, len(frame), "sent")
        if self._batch is None:
            self.write(frame)
        else:
            self._batch.append(frame)

    def send_nak(self) -> None:
        """Ask the peer to resend from the next expected sequence number."""
        self._nak_for = self._rx_next
        self.stats.naks_tx += 1
        self._send_control(_NAK)

    # ------------------------------------------------------------------ receiving

    def receive(self, data: bytes) -> list[tuple[int, bytes]]:
        """Feed bytes from the transport; return the messages now deliverable, in order."""
        now = self.clock()
        if data:
            self._last_byte = now
        frames, skipped = self._decoder.feed(data)
        if self._held:
            frames, self._held = self._held + frames, []
        return self._process(frames, skipped, now)

    def _process(
        self, frames: list[codec.Frame], skipped: bool, now: float
    ) -> list[tuple[int, bytes]]:
        out: list[tuple[int, bytes]] = []
        ack_now = False
        if skipped:
            self.stats.garbage_bytes = self._decoder.garbage_bytes
            if self.established and not self._garbage_naked:
                self.send_nak()  # one NAK per garbage run, however many reads it spans
                self._garbage_naked = True
        for i, f in enumerate(frames):
            self.stats.frames_rx += 1
            verdict = self._accept(f, now, out)
            ack_now = self._count(verdict, now) or ack_now
            length = len(f.signed) + _SYNC_MAC_CRC
            self._trace.add(now, "rx", f.type, f.seq, f.ack, length, verdict)
            if verdict == "handshake":
                # What follows belongs to the session the owner is about to establish.
                self._held = frames[i + 1 :]
                break
        if ack_now or self._rx_unacked >= max(1, self.config.window // 2):
            self._send_control(_ACK)
        if self._heard_heartbeat:
            self._answer_heartbeat(now)
        return out

    def _answer_heartbeat(self, now: float) -> None:
        """A HEARTBEAT is answered at once by one of ours, unless we sent a frame in the
        last half heartbeat interval: the two ends' heartbeats share one exchange (7.6)."""
        self._heard_heartbeat = False
        if self.established and now - self._last_tx >= self.config.heartbeat_interval / 2:
            self._send_control(_HEARTBEAT)

    def _count(self, verdict: str, now: float) -> bool:
        """The receiving side's note of one frame; True when an ACK must go at once."""
        if verdict not in _SUSPECT:
            self._garbage_naked = False
        if verdict == "duplicate":
            return True  # the peer is retransmitting: our ACK was lost
        if verdict == "data":
            self._rx_unacked += 1
            if self._ack_due is None:
                self._ack_due = now + self.config.ack_delay
        return False

    def _accept(self, f: codec.Frame, now: float, out: list[tuple[int, bytes]]) -> str:
        """Judge one frame (the verdict goes to the trace); deliverable messages go to ``out``."""
        flags = f.flags
        if flags & codec.FLAG_FROM_DEVICE != self._peer_flag:
            self.stats.stale_frames += 1
            return "reflected"
        sequenced = flags & codec.FLAG_SEQUENCED
        if f.type in _HANDSHAKE_TYPES and not sequenced:
            return self._accept_handshake(f, now, out)
        if not self.established:
            self.stats.stale_frames += 1
            return "no-session"
        if sequenced:
            return self._accept_sequenced(f, now, out)
        return self._accept_control(f, now)

    def _accept_handshake(self, f: codec.Frame, now: float, out: list[tuple[int, bytes]]) -> str:
        nonce = f.payload[-NONCE_LEN:] if f.type == MsgType.HELLO else self._hello_nonce
        if not hmac.compare_digest(self._device_mac(self._peer_dir + nonce + f.signed), f.mac):
            return self._auth_failed(now)
        self._last_rx = now
        out.append((f.type, f.payload))
        return "handshake"

    def _accept_sequenced(self, f: codec.Frame, now: float, out: list[tuple[int, bytes]]) -> str:
        d = (f.seq - self._rx_next) & 0xFF
        full = self._rx_next + d if d < 128 else self._rx_next - (256 - d)
        if full < 0:
            return self._auth_failed(now)
        tag = self._session_mac(self._peer_dir + full.to_bytes(8, "big") + f.signed)
        if not hmac.compare_digest(tag, f.mac):
            return self._auth_failed(now)
        self._last_rx = now
        self._sender.on_ack(f.ack, now)
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

    def _accept_control(self, f: codec.Frame, now: float) -> str:
        """ACK, NAK or HEARTBEAT: a rising counter, and the peer's acknowledgement."""
        if not hmac.compare_digest(self._session_mac(self._peer_dir + f.signed), f.mac):
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
        self._sender.on_ack(f.ack, now)
        if f.type == _NAK:
            self.stats.naks_rx += 1
            self._sender.on_nak(now)
        elif f.type == _HEARTBEAT:
            self._heard_heartbeat = True
        return "control"

    def _auth_failed(self, now: float) -> str:
        self.stats.auth_failures += 1
        self._tamper.failed(now, self.config.tamper_threshold, self.config.tamper_window)
        return "auth-failed"

    # ------------------------------------------------------------------ timers

    def poll(self) -> list[tuple[int, bytes]]:
        """Run timers: retransmit, heartbeat, stalled-frame recovery. Raises LinkLost."""
        now = self.clock()
        out = self._drop_stalled(now)
        if self._held:
            out += self.receive(b"")  # before the session check: held frames never wait
        if not self.established:
            return out
        if now - self._last_rx >= self.config.link_timeout:
            raise LinkLost(f"no valid frame for {now - self._last_rx:.3f} s")
        if self._ack_due is not None and now >= self._ack_due:
            self._send_control(_ACK)
        self._sender.on_timer(now)
        if now - self._last_tx >= self._idle_interval():
            self._send_control(_HEARTBEAT)
        return out

    def _idle_interval(self) -> float:
        """Idle time before our own HEARTBEAT: the device's pace, or the host's longer
        one (the host answers the device's heartbeats; 7.6)."""
        cfg = self.config
        return cfg.heartbeat_interval if self.is_device else cfg.host_heartbeat_interval

    def _drop_stalled(self, now: float) -> list[tuple[int, bytes]]:
        """A partial frame with no new byte for ``stale_after`` is dropped; what follows
        it in the buffer is judged now."""
        if not self._decoder.pending or now - self._last_byte < self.config.stale_after:
            return []
        frames, skipped = self._decoder.discard_stale()
        self._last_byte = now
        return self._process(frames, skipped, now)

    def next_deadline(self) -> float:
        """When ``poll`` next has work to do (monotonic seconds)."""
        cfg = self.config
        if self._held:
            return self.clock()
        due = self._last_byte + cfg.stale_after if self._decoder.pending else math.inf
        if self.established:
            due = min(due, self._last_rx + cfg.link_timeout, self._last_tx + self._idle_interval())
            if self._ack_due is not None and self._ack_due < due:
                due = self._ack_due
            retransmit = self._sender.deadline()
            if retransmit is not None and retransmit < due:
                due = retransmit
        return due if due != math.inf else self.clock() + cfg.link_timeout

    # ------------------------------------------------------------------ state

    @property
    def unacked(self) -> int:
        return self._sender.unacked

    @property
    def rto(self) -> float:
        return self._sender.rto

    def take_tamper(self) -> int | None:
        """Failures counted when the tamper threshold was last crossed, once."""
        return self._tamper.take()

    def dump_debug(self) -> list[dict[str, object]]:
        """Recent frame headers (never payloads: a card may be a hole card)."""
        return self._trace.dump()
