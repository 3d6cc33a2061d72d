"""The host-side device driver: frames in, typed events out.

Each driver has a thread that connects, handshakes and reconnects; its session runs
on that thread, or, on a serial port the daemon hands it (``sessions``), on the one
thread that serves every such session (drivers/device/sessions.py).

Each driver owns its transport and link, connects by stable path, handshakes,
delivers events in order onto the controller's queue exactly once, and reconnects
with backoff after a loss. The controller calls ``commit(event_id)`` once an event
is durably recorded; only then is it acknowledged to the device, which keeps (and
after a reconnect replays) every event until then.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import ClassVar, Protocol

import structlog

from drivers import messages as m
from drivers.device.admission import refusal
from drivers.device.handshake import hello
from drivers.device.sessions import Pollable, SessionPoller
from drivers.device.stream import EventStream
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
_EVENT_ACK = m.MsgType.EVENT_ACK  # a global: an Enum class attribute costs ten times more


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
        sessions: SessionPoller | None = None,
    ) -> None:
        self.name = name
        self._sessions = sessions  # the shared I/O thread of sessions on a pollable port
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
        self._corked_by: int | None = None  # the thread whose sends wait for ``uncork``
        self._ack_owed = False  # committed while corked: an EVENT_ACK at ``uncork``
        self._link = Link(
            is_device=False,
            device_key=key,
            write=self._write,
            config=self._config.link,
            clock=clock,
        )
        self.info: m.DeviceInfo | None = None
        # (serial, last event id) recorded in the journal: where to pick up that unit's events
        self._stream = EventStream(name, self.KIND, self._emit, resume)
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

        The EVENT_ACK goes out at once (corked: at ``uncork``), unless one went out less
        than ``ack_delay`` ago: then the I/O thread sends one for all commits when that
        time is up, so a burst of cards shares one frame."""
        with self._lock:
            if not self._stream.commit(event_id):
                return
            if self._corked_by == threading.get_ident():
                self._ack_owed = True
                return
            self._acknowledge(riding=False)

    def _acknowledge(self, riding: bool) -> None:
        """Lock held, after a commit: the EVENT_ACK now, or when ``ack_delay`` is up;
        ``riding``: now, kept with the frames a cork kept, which go out now anyway."""
        if not self._link.established:
            return  # sent after the next handshake
        if not riding:
            if self._event_ack_due is not None:
                return  # already on its way
            next_allowed = self._event_ack_sent_at + self._config.link.ack_delay
            if self._clock() < next_allowed:
                self._event_ack_due = next_allowed
                self._wake_if_due()
                return
        # No wake for its retransmit timer: the device keeps the events until an
        # EVENT_ACK arrives, and the I/O thread runs within a heartbeat interval.
        with contextlib.suppress(LinkError, TransportError):  # resent at reconnect
            self._send_event_ack(hold=riding)

    def cork(self) -> None:
        """Until ``uncork``, what this thread sends through the driver (commands, the
        EVENT_ACK of a commit) is kept, to go out in one write at ``uncork``. A frame
        another thread sends (the I/O thread's ACK, heartbeat, retransmit, delayed
        EVENT_ACK) sends what is kept first: the wire keeps the order of the sends."""
        self._corked_by = threading.get_ident()

    def uncork(self) -> None:
        """Send what the cork kept, with the EVENT_ACK of the commits made meanwhile, in
        one write. A lost link loses no event: the device keeps them until acknowledged,
        and the next handshake acknowledges every commit."""
        with self._lock:
            self._corked_by = None
            if self._ack_owed:
                self._ack_owed = False
                self._acknowledge(riding=self._link.holding)
            if self._link.holding:
                with contextlib.suppress(LinkError, TransportError):  # the I/O thread sees it
                    self._link.release()
                self._wake_if_due()

    def _command(self, mtype: m.MsgType, payload: bytes = b"") -> None:
        with self._lock:
            if not self._link.established:
                raise NotConnected(f"{self.name} is not connected")
            try:
                self._link.send(mtype, payload, self._corked_by == threading.get_ident())
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

    def _send_event_ack(self, hold: bool = False) -> None:
        """Lock held: acknowledge everything committed so far, in one frame."""
        self._event_ack_due = None
        self._event_ack_sent_at = self._clock()
        committed = self._stream.committed
        if committed is not None:
            self._link.send(_EVENT_ACK, m.event_ack_body(committed), hold)

    def _emit(self, event: m.Event) -> None:
        self._events.put(event)

    def _run(self) -> None:
        """The reconnect loop: open, handshake, run the session, and after a loss report
        it and try again with a rising backoff."""
        backoff = self._config.reconnect_min
        while not self._stop.is_set():
            transport = self._factory()
            try:
                transport.open()
            except TransportError as exc:
                self._report_unavailable(str(exc))
                backoff = self._back_off(backoff)
                continue
            try:
                self._session(transport)
            except HandshakeRefused as exc:
                self._refused(exc)
            except (TransportError, LinkError) as exc:
                if self._stop.is_set():
                    break
                backoff = self._lost(str(exc), backoff)
            finally:
                self.connected.clear()
                with self._lock:
                    self._event_ack_due = None
                    self._link.reset()
                    self._transport = None
                transport.close()

    def _back_off(self, backoff: float) -> float:
        """Wait ``backoff``; the next wait is twice as long, up to ``reconnect_max``."""
        self._stop.wait(backoff)
        return min(backoff * 2, self._config.reconnect_max)

    def _refused(self, exc: HandshakeRefused) -> None:
        if exc.detail != self._unavailable:  # once, not at every retry
            log.error("handshake_refused", device=self.name, reason=exc.reason, detail=exc.detail)
            self._emit(m.DeviceRefused(self.name, None, exc.reason, exc.detail))
            self._unavailable = exc.detail
        self._stop.wait(self._config.refused_retry)

    def _lost(self, reason: str, backoff: float) -> float:
        """Report a session that ended in a transport or link error; the next backoff."""
        with self._lock:
            dump = self._link.dump_debug()
        if self.connected.is_set():
            log.warning("device_lost", device=self.name, reason=reason)
            self._emit(m.DeviceLost(self.name, None, reason))
            backoff = self._config.reconnect_min
        else:
            # Opened but never connected (no answer, garbage): a fault once per reason.
            self._report_unavailable(reason)
            backoff = self._back_off(backoff)
        log.info("link_debug_dump", device=self.name, frames=dump[-32:])
        return backoff

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
            self._stream.dispatch(mtype, payload)
        if self._sessions is not None and isinstance(transport, Pollable):
            self._sessions.serve(self, transport)  # on its thread, until the session ends
            return
        while not self._stop.is_set():
            self.turn(transport.read(4096, self._waiting_until))

    def turn(self, data: bytes) -> None:
        """One turn of the session: ``data`` read from the port (maybe none), the
        timers that are due, the messages delivered."""
        link = self._link
        with self._lock:
            msgs = link.receive(data) if data else []
            if self._clock() >= self._waiting_until:  # a timer is due, not just a frame
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
            self._stream.dispatch(mtype, payload)

    @property
    def waiting_until(self) -> float:
        """When the session's next timer is due (monotonic seconds)."""
        return self._waiting_until

    @property
    def stopping(self) -> bool:
        return self._stop.is_set()

    def _handshake(self, transport: Transport) -> m.DeviceInfo:
        nonce, reply = hello(
            self._link,
            self._lock,
            transport,
            self.KIND,
            self._config,
            self._clock,
            self._stop,
            self._tamper,
        )
        return self._check_reply(nonce, reply)

    def _check_reply(self, host_nonce: bytes, payload: bytes) -> m.DeviceInfo:
        try:
            info = m.DeviceInfo.decode(payload)
        except MalformedMessage as exc:
            raise LinkLost(f"unreadable HELLO_REPLY: {exc}") from None
        refused = refusal(self.KIND, self.name, self._approved, info)
        if refused is not None:
            reason, detail = refused
            with self._lock:
                self._link.send_handshake(m.MsgType.REFUSED, bytes((reason,)))
            raise HandshakeRefused(reason.name.lower(), detail)
        with self._lock:
            self._link.establish(host_nonce, info.device_nonce)
        return info

    def _on_connected(self, info: m.DeviceInfo) -> None:
        self._stream.connected(info)
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
