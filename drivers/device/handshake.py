"""The host's side of the handshake (docs/protocol.md): HELLO, sent again every
``hello_retry``, until the device's HELLO_REPLY or ``handshake_timeout``."""

from __future__ import annotations

import secrets
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from drivers import messages as m
from drivers.errors import LinkLost
from drivers.link import Link
from drivers.transport import Transport

if TYPE_CHECKING:
    from drivers.device.driver import DriverConfig


def hello(
    link: Link,
    lock: threading.Lock,
    transport: Transport,
    kind: m.DeviceKind,
    cfg: DriverConfig,
    clock: Callable[[], float],
    stop: threading.Event,
    on_tamper: Callable[[int], None],
) -> tuple[bytes, bytes]:
    """HELLO on ``link`` (its lock held around each use) until a HELLO_REPLY comes:
    the host's nonce and the reply's payload. LinkLost when none comes in time or
    ``stop`` is set; ``on_tamper`` hears of failed authentications meanwhile."""
    nonce = secrets.token_bytes(m.NONCE_LEN)
    timeout_ms = round(cfg.link.link_timeout * 1000)
    greeting = m.Hello(m.PROTOCOL_VERSION, m.PROTOCOL_VERSION, kind, timeout_ms, nonce).encode()
    deadline = clock() + cfg.handshake_timeout
    next_hello = 0.0
    while not stop.is_set():
        now = clock()
        if now >= deadline:
            raise LinkLost(f"no answer to HELLO within {cfg.handshake_timeout:.2f} s")
        if now >= next_hello:
            with lock:
                link.send_handshake(m.MsgType.HELLO, greeting)
            next_hello = now + cfg.hello_retry
        with lock:
            wake_at = min(deadline, next_hello, link.next_deadline())
        data = transport.read(4096, wake_at)
        with lock:
            msgs = link.receive(data) if data else []
            if not any(t == m.MsgType.HELLO_REPLY for t, _ in msgs):
                # Drops a stalled false frame start; not after the reply, or the
                # frames held behind it would be judged before the session exists.
                msgs += link.poll()
            tamper = link.take_tamper()
        if tamper is not None:
            on_tamper(tamper)
        for mtype, payload in msgs:
            if mtype == m.MsgType.HELLO_REPLY:
                return nonce, payload
    raise LinkLost("stopped")
