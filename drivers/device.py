"""Host-side device drivers: one thread per device turns frames into typed events.

Each driver owns its transport and link, connects by stable path, handshakes,
delivers events in order onto the controller's queue exactly once, and reconnects
with backoff after a loss. The controller calls ``commit(event_id)`` once an event
is durably recorded; only then is it acknowledged to the device, which keeps (and
after a reconnect replays) every event until then.
"""

from __future__ import annotations

import contextlib
import secrets
import threading
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import ClassVar, Protocol

import structlog

from drivers import messages as m
from drivers.errors import (
    HandshakeRefused,
    LinkBusy,
    LinkError,
    LinkLost,
    MalformedMessage,
    NotConnected,
    TransportError,
)
from drivers.link import Link, LinkConfig
from drivers.transport import Transport

log = structlog.get_logger("drivers")


class EventSink(Protocol):
    """Where a driver puts its events: queue.Queue or the faster queue.SimpleQueue."""

    def put(self, item: m.Event, block: bool = True, timeout: float | None = None) -> None: ...


@dataclass(frozen=True, slots=True)
class DriverConfig:
    link: LinkConfig = field(default_factory=LinkConfig)
    handshake_timeout: float = 1.0
    hello_retry: float = 0.2
    reconnect_min: float = 0.05
    reconnect_max: float = 2.0
    refused_retry: float = 5.0  # a refused device is not asked again sooner than this


class DeviceDriver:
    KIND: ClassVar[m.DeviceKind]

    def __init__(
        self,
        name: str,
        transport_factory: Callable[[], Transport],
        key: bytes,
        events: EventSink,
        approved_firmware: Collection[bytes],
        *,
        config: DriverConfig | None = None,
        resume: tuple[str, int] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.name = name
        self._factory = transport_factory
        self._events = events
        self._approved = frozenset(approved_firmware)
        self._config = config or DriverConfig()
        self._clock = clock
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._transport: Transport | None = None
        self._waiting_until = 0.0
        self._event_ack_due: float | None = None
        self._event_ack_sent_at = 0.0
        self._link = Link(
            is_device=False,
            device_key=key,
            write=self._write,
            config=self._config.link,
            clock=clock,
        )
        self.info: m.DeviceInfo | None = None
        # (serial, last event id) recorded in the journal: where to pick up that unit's events
        self._serial: str | None = resume[0] if resume else None
        self._last_delivered = resume[1] if resume else None
        self._last_committed = self._last_delivered
        self.connected = threading.Event()
        self._unavailable: str | None = None  # last reason reported while not connected

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> None:
        if self._thread is not None:
            raise RuntimeError(f"driver {self.name} already started")
        self._thread = threading.Thread(target=self._run, name=f"driver-{self.name}", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        self._stop.set()
        transport = self._transport
        if transport is not None:
            transport.wake()
        if self._thread is not None:
            self._thread.join(timeout)

    @property
    def link_stats(self) -> dict[str, int]:
        with self._lock:
            s = self._link.stats
            return {k: getattr(s, k) for k in s.__slots__}

    # ------------------------------------------------------------------ controller API

    def commit(self, event_id: int) -> None:
        """Every event up to ``event_id`` is durably recorded: the device may forget them.

        The EVENT_ACK goes out at once, unless one went out less than ``ack_delay`` ago:
        then the I/O thread sends one for all commits when that time is up, so a burst
        of cards shares one frame."""
        with self._lock:
            if self._last_committed is not None and event_id <= self._last_committed:
                return
            self._last_committed = event_id
            if not self._link.established or self._event_ack_due is not None:
                return  # sent after the next handshake, or already on its way
            next_allowed = self._event_ack_sent_at + self._config.link.ack_delay
            if self._clock() < next_allowed:
                self._event_ack_due = next_allowed
                self._wake_if_due()
                return
            # No wake for its retransmit timer: the device keeps the events until an
            # EVENT_ACK arrives, and the I/O thread runs within a heartbeat interval.
            with contextlib.suppress(LinkError, TransportError):  # resent at reconnect
                self._send_event_ack()

    def _command(self, mtype: m.MsgType, payload: bytes = b"") -> None:
        with self._lock:
            if not self._link.established:
                raise NotConnected(f"{self.name} is not connected")
            try:
                self._link.send(mtype, payload)
            except (LinkError, TransportError) as exc:
                raise NotConnected(f"{self.name}: {exc}") from None
            self._wake_if_due()

    def request_status(self) -> None:
        """Ask for a STATUS reply; it arrives on the event queue as a Status."""
        self._command(m.MsgType.STATUS_REQUEST)

    # ------------------------------------------------------------------ I/O thread

    def _write(self, data: bytes) -> None:
        transport = self._transport
        if transport is None:
            raise NotConnected(f"{self.name} is not connected")
        transport.write(data)

    def _next_deadline(self) -> float:
        """When the I/O thread must next run (lock held)."""
        deadline = self._link.next_deadline()
        if self._event_ack_due is not None:
            deadline = min(deadline, self._event_ack_due)
        return deadline

    def _wake_if_due(self) -> None:
        """Called with the lock held after a send. Wake the I/O thread only when the new
        deadline (a retransmit timer, an EVENT_ACK) is much earlier than the one it
        sleeps on; an incoming frame wakes it soon enough otherwise."""
        transport = self._transport
        if (
            transport is not None
            and self._next_deadline() < self._waiting_until - self._config.link.rto_min
        ):
            transport.wake()

    def _send_event_ack(self) -> None:
        """Lock held: acknowledge everything committed so far, in one frame."""
        self._event_ack_due = None
        self._event_ack_sent_at = self._clock()
        if self._last_committed is not None:
            self._link.send(m.MsgType.EVENT_ACK, m.event_ack_body(self._last_committed))

    def _emit(self, event: m.Event) -> None:
        self._events.put(event)

    def _run(self) -> None:
        cfg = self._config
        backoff = cfg.reconnect_min
        while not self._stop.is_set():
            transport = self._factory()
            try:
                transport.open()
            except TransportError as exc:
                self._report_unavailable(str(exc))
                self._stop.wait(backoff)
                backoff = min(backoff * 2, cfg.reconnect_max)
                continue
            try:
                self._session(transport)
            except HandshakeRefused as exc:
                if exc.detail != self._unavailable:  # once, not at every retry
                    log.error(
                        "handshake_refused", device=self.name, reason=exc.reason, detail=exc.detail
                    )
                    self._emit(m.DeviceRefused(self.name, None, exc.reason, exc.detail))
                    self._unavailable = exc.detail
                self._stop.wait(cfg.refused_retry)
            except (TransportError, LinkError) as exc:
                if self._stop.is_set():
                    break
                reason = str(exc)
                with self._lock:
                    dump = self._link.dump_debug()
                if self.connected.is_set():
                    log.warning("device_lost", device=self.name, reason=reason)
                    self._emit(m.DeviceLost(self.name, None, reason))
                    backoff = cfg.reconnect_min
                else:
                    # Opened but never connected (no answer, garbage): a fault once per reason.
                    self._report_unavailable(reason)
                    self._stop.wait(backoff)
                    backoff = min(backoff * 2, cfg.reconnect_max)
                log.info("link_debug_dump", device=self.name, frames=dump[-32:])
            finally:
                self.connected.clear()
                with self._lock:
                    self._event_ack_due = None
                    self._link.reset()
                    self._transport = None
                transport.close()

    def _session(self, transport: Transport) -> None:
        with self._lock:
            self._link.reset()
            self._transport = transport
        info = self._handshake(transport)
        self._on_connected(info)
        link = self._link
        with self._lock:
            held = link.receive(b"")  # frames that came in the same read as the reply
            self._waiting_until = self._next_deadline()
        for mtype, payload in held:
            self._dispatch(mtype, payload)
        while not self._stop.is_set():
            data = transport.read(4096, self._waiting_until)
            with self._lock:
                msgs = link.receive(data) if data else []
                msgs += link.poll()
                if self._event_ack_due is not None and self._clock() >= self._event_ack_due:
                    try:
                        self._send_event_ack()
                    except LinkBusy:  # the window and queue are full: try again shortly
                        self._event_ack_due = self._clock() + self._config.link.ack_delay
                tamper = link.take_tamper()
                self._waiting_until = self._next_deadline()
            if tamper is not None:
                self._tamper(tamper)
            for mtype, payload in msgs:
                self._dispatch(mtype, payload)

    def _handshake(self, transport: Transport) -> m.DeviceInfo:
        cfg = self._config
        nonce = secrets.token_bytes(m.NONCE_LEN)
        timeout_ms = round(cfg.link.link_timeout * 1000)
        hello = m.Hello(
            m.PROTOCOL_VERSION, m.PROTOCOL_VERSION, self.KIND, timeout_ms, nonce
        ).encode()
        deadline = self._clock() + cfg.handshake_timeout
        next_hello = 0.0
        while not self._stop.is_set():
            now = self._clock()
            if now >= deadline:
                raise LinkLost(f"no answer to HELLO within {cfg.handshake_timeout:.2f} s")
            if now >= next_hello:
                with self._lock:
                    self._link.send_handshake(m.MsgType.HELLO, hello)
                next_hello = now + cfg.hello_retry
            with self._lock:
                wake_at = min(deadline, next_hello, self._link.next_deadline())
            data = transport.read(4096, wake_at)
            with self._lock:
                msgs = self._link.receive(data) if data else []
                if not any(t == m.MsgType.HELLO_REPLY for t, _ in msgs):
                    # Drops a stalled false frame start; not after the reply, or the
                    # frames held behind it would be judged before the session exists.
                    msgs += self._link.poll()
                tamper = self._link.take_tamper()
            if tamper is not None:
                self._tamper(tamper)
            for mtype, payload in msgs:
                if mtype == m.MsgType.HELLO_REPLY:
                    return self._check_reply(nonce, payload)
        raise LinkLost("stopped")

    def _check_reply(self, host_nonce: bytes, payload: bytes) -> m.DeviceInfo:
        try:
            info = m.DeviceInfo.decode(payload)
        except MalformedMessage as exc:
            raise LinkLost(f"unreadable HELLO_REPLY: {exc}") from None
        refusal: tuple[m.RefusalReason, str] | None = None
        if info.kind != self.KIND:
            try:
                found = m.DeviceKind(info.kind).label
            except ValueError:
                found = f"unknown kind {info.kind}"
            refusal = (
                m.RefusalReason.WRONG_KIND,
                f"expected a {self.KIND.label} on {self.name}, found a {found}",
            )
        elif info.protocol_version != m.PROTOCOL_VERSION:
            refusal = (
                m.RefusalReason.PROTOCOL_VERSION,
                f"device speaks protocol {info.protocol_version}, "
                f"controller speaks {m.PROTOCOL_VERSION}",
            )
        elif info.firmware_hash not in self._approved:
            refusal = (
                m.RefusalReason.FIRMWARE_NOT_APPROVED,
                f"firmware {info.firmware_version} hash {info.firmware_hash.hex()[:16]}... "
                "is not on the approved list",
            )
        if refusal is not None:
            with self._lock:
                self._link.send_handshake(m.MsgType.REFUSED, bytes((refusal[0],)))
            raise HandshakeRefused(refusal[0].name.lower(), refusal[1])
        with self._lock:
            self._link.establish(host_nonce, info.device_nonce)
        return info

    def _on_connected(self, info: m.DeviceInfo) -> None:
        if self._serial is not None and info.serial != self._serial:
            # Another unit: its event ids are its own.
            self._last_delivered = self._last_committed = None
        self._serial = info.serial
        last = self._last_delivered
        if last is not None and (info.oldest_unacked > last + 1 or info.next_event_id <= last):
            # Events lost (the device dropped some) or its counter went backwards (reset):
            # report it once, then take the device's backlog from its start.
            self._gap(last + 1, info.oldest_unacked)
            self._last_delivered = self._last_committed = info.oldest_unacked - 1
        self.info = info
        self._unavailable = None
        self.connected.set()
        log.info(
            "device_connected",
            device=self.name,
            kind=m.DeviceKind(info.kind).label,
            model=info.model,
            serial=info.serial,
            firmware=info.firmware_version,
        )
        self._emit(
            m.DeviceConnected(
                self.name,
                None,
                m.DeviceKind(info.kind).label,
                info.model,
                info.serial,
                info.firmware_version,
            )
        )
        with self._lock:
            self._send_event_ack()

    def _report_unavailable(self, reason: str) -> None:
        """One log line and one fault event per distinct reason while not connected."""
        if reason != self._unavailable:
            log.warning("device_unavailable", device=self.name, reason=reason)
            self._emit(m.DeviceUnavailable(self.name, None, reason))
            self._unavailable = reason

    def _tamper(self, failures: int) -> None:
        log.error("link_tamper", device=self.name, failures=failures)
        self._emit(m.LinkTamper(self.name, None, failures))

    def _gap(self, expected: int, got: int) -> None:
        log.error("event_gap", device=self.name, expected=expected, got=got)
        self._emit(m.EventGap(self.name, None, expected, got))

    def _dispatch(self, mtype: int, payload: bytes) -> None:
        if mtype in m.ALL_EVENT_TYPES:
            try:
                event_id, body = m.split_event(payload)
            except MalformedMessage as exc:
                self._malformed(None, mtype, str(exc))
                return
            last = self._last_delivered
            if last is not None and event_id <= last:
                return  # replayed after a reconnect: delivered already
            if last is not None and event_id != last + 1:
                self._gap(last + 1, event_id)
            self._last_delivered = event_id
            if mtype not in m.EVENT_TYPES[self.KIND]:
                self._malformed(event_id, mtype, "event type not sent by this kind of device")
                return
            try:
                event = m.decode_event(self.name, event_id, mtype, body)
            except MalformedMessage as exc:
                self._malformed(event_id, mtype, str(exc))
                return
            self._emit(event)
        elif mtype == m.MsgType.STATUS:
            try:
                self._emit(m.decode_status(self.name, payload))
            except MalformedMessage as exc:
                self._malformed(None, mtype, str(exc))
        elif mtype == m.MsgType.HELLO_REPLY:
            pass  # the answer to a repeated HELLO, identical to the one already used
        else:
            self._malformed(None, mtype, "message type not expected from this device")

    def _malformed(self, event_id: int | None, mtype: int, reason: str) -> None:
        log.warning("malformed_event", device=self.name, msg_type=mtype, reason=reason)
        self._emit(m.MalformedEvent(self.name, event_id, mtype, reason))


class ShoeDriver(DeviceDriver):
    KIND = m.DeviceKind.SHOE

    def display(self, text: str) -> None:
        """Show a prompt on the shoe's display (e.g. "BANKER DRAWS")."""
        raw = text.encode("utf-8")
        if not text.isprintable() or len(raw) > m.DISPLAY_MAX:
            raise ValueError(f"display text must be printable and at most {m.DISPLAY_MAX} bytes")
        self._command(m.MsgType.DISPLAY, raw)


class ReaderDriver(DeviceDriver):
    KIND = m.DeviceKind.READER

    def arm(self, target: m.PeekTarget) -> None:
        """Allow one peek for ``target`` (the controller arms only when the up card permits it)."""
        self._command(m.MsgType.ARM, bytes((target,)))

    def disarm(self) -> None:
        self._command(m.MsgType.DISARM)

    def self_test(self) -> None:
        self._command(m.MsgType.SELF_TEST)


class ShufflerDriver(DeviceDriver):
    KIND = m.DeviceKind.SHUFFLER

    def start_shuffle(self) -> None:
        self._command(m.MsgType.START_SHUFFLE)


DRIVERS: dict[m.DeviceKind, type[DeviceDriver]] = {
    m.DeviceKind.SHOE: ShoeDriver,
    m.DeviceKind.READER: ReaderDriver,
    m.DeviceKind.SHUFFLER: ShufflerDriver,
}
