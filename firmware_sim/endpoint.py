"""The device side of the protocol, sans I/O: handshake answers, the event backlog
kept until the host acknowledges it, and replay after a reconnect."""

from __future__ import annotations

import dataclasses
import secrets
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from drivers import messages as m
from drivers.errors import LinkLost, MalformedMessage
from drivers.identity import firmware_hash
from drivers.link import Link, LinkConfig


@dataclass(frozen=True, slots=True)
class Identity:
    kind: m.DeviceKind
    model: str
    serial: str
    firmware_version: str
    protocol_version: int = m.PROTOCOL_VERSION

    @property
    def firmware_hash(self) -> bytes:
        return firmware_hash(self.kind, self.model, self.firmware_version)


class DeviceEndpoint:
    """What a device's firmware runs on top of its serial port."""

    def __init__(
        self,
        identity: Identity,
        key: bytes,
        write: Callable[[bytes], None],
        on_command: Callable[[int, bytes], None],
        *,
        config: LinkConfig | None = None,
        clock: Callable[[], float] = time.monotonic,
        backlog_limit: int = 4096,
    ) -> None:
        self.identity = identity
        self._on_command = on_command
        self.link = Link(
            is_device=True,
            device_key=key,
            write=write,
            config=config or LinkConfig(max_pending=backlog_limit + 64),
            clock=clock,
        )
        self.next_event_id = 1
        self.backlog: deque[tuple[int, int, bytes]] = deque()
        self.backlog_limit = backlog_limit
        self.refused: str | None = None
        self.sessions = 0
        # Recent host nonces: a repeat of the current one gets the same reply (the host
        # retries HELLO); an older one is a replay and is ignored.
        self._nonces: deque[bytes] = deque(maxlen=64)
        self._reply = b""
        # The messages the endpoint answers itself; other commands go to the firmware.
        self._handlers: dict[int, Callable[[bytes], None]] = {
            m.MsgType.HELLO: self._answer_hello,
            m.MsgType.REFUSED: self._refused_by_host,
            m.MsgType.EVENT_ACK: self._event_ack,
        }

    @property
    def established(self) -> bool:
        return self.link.established

    @property
    def backlog_full(self) -> bool:
        return len(self.backlog) >= self.backlog_limit

    def emit(self, mtype: m.MsgType, body: bytes = b"") -> int:
        """Record a new event (kept until acknowledged) and send it if connected."""
        event_id = self.next_event_id
        self.next_event_id += 1
        payload = m.encode_event_payload(event_id, body)
        self.backlog.append((event_id, mtype, payload))
        if self.link.established:
            self.link.send(mtype, payload)
        return event_id

    def reply(self, mtype: m.MsgType, payload: bytes) -> None:
        if self.link.established:
            self.link.send(mtype, payload)

    def receive(self, data: bytes) -> None:
        try:
            msgs = self.link.receive(data)
        except LinkLost:
            self.link.reset()  # control counter exhausted: wait for the host's next HELLO
            return
        for mtype, payload in msgs:
            self._handle(mtype, payload)

    def poll(self) -> None:
        try:
            msgs = self.link.poll()
        except LinkLost:
            self.link.reset()  # wait for the host's next HELLO
            return
        for mtype, payload in msgs:
            self._handle(mtype, payload)

    def drop_session(self) -> None:
        self.link.reset()

    def _handle(self, mtype: int, payload: bytes) -> None:
        handler = self._handlers.get(mtype)
        if handler is not None:
            handler(payload)
        elif mtype not in m.CONTROL_TYPES:
            self._on_command(mtype, payload)

    def _refused_by_host(self, payload: bytes) -> None:
        try:
            self.refused = m.RefusalReason(payload[0]).name if payload else "UNKNOWN"
        except ValueError:
            self.refused = f"code {payload[0]}"
        self.link.reset()

    def _event_ack(self, payload: bytes) -> None:
        try:
            acked = m.decode_event_ack(payload)
        except MalformedMessage:
            return
        if acked >= self.next_event_id:
            return  # acknowledges events never sent: a host bug, keep the backlog
        while self.backlog and self.backlog[0][0] <= acked:
            self.backlog.popleft()

    def _answer_hello(self, payload: bytes) -> None:
        try:
            hello = m.Hello.decode(payload)
        except MalformedMessage:
            return
        if self._nonces and hello.host_nonce == self._nonces[-1] and self.link.established:
            self.link.send_handshake(m.MsgType.HELLO_REPLY, self._reply)
            return
        if hello.host_nonce in self._nonces:
            return
        self._nonces.append(hello.host_nonce)
        self.link.bind_hello(hello.host_nonce)
        # Heartbeat at the pace the host's lost-link time needs.
        self.link.config = dataclasses.replace(
            self.link.config, link_timeout=hello.link_timeout_ms / 1000
        )
        ident = self.identity
        nonce = secrets.token_bytes(m.NONCE_LEN)
        oldest = self.backlog[0][0] if self.backlog else self.next_event_id
        info = m.DeviceInfo(
            protocol_version=ident.protocol_version,
            kind=ident.kind,
            model=ident.model,
            serial=ident.serial,
            firmware_version=ident.firmware_version,
            firmware_hash=ident.firmware_hash,
            device_nonce=nonce,
            next_event_id=self.next_event_id,
            oldest_unacked=oldest,
        )
        self._reply = info.encode()
        self.link.send_handshake(m.MsgType.HELLO_REPLY, self._reply)
        self.link.establish(hello.host_nonce, nonce)
        self.refused = None
        self.sessions += 1
        for _event_id, mtype, event_payload in self.backlog:
            self.link.send(mtype, event_payload)
