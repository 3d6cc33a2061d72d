"""Frame authentication: the truncated HMAC-SHA256, the session key, and the count of
failures that makes a tamper fault."""

from __future__ import annotations

import hashlib
import hmac
from collections import deque

from drivers import codec

_SESSION_LABEL = b"tablectl-session-v1"
_BLOCK = 64  # SHA-256's block size
_IPAD = bytes(x ^ 0x36 for x in range(256))
_OPAD = bytes(x ^ 0x5C for x in range(256))


def mac(key: bytes, message: bytes) -> bytes:
    return hmac.digest(key, message, "sha256")[: codec.MAC_LEN]


class Mac:
    """``mac`` with one key, keyed once (RFC 2104): the SHA-256 states after the key's
    inner and outer pads are kept and copied for each message, so a frame costs no
    key setup and no digest lookup."""

    __slots__ = ("_inner", "_outer")

    def __init__(self, key: bytes) -> None:
        if len(key) > _BLOCK:
            key = hashlib.sha256(key).digest()
        key = key.ljust(_BLOCK, b"\0")
        self._inner = hashlib.sha256(key.translate(_IPAD))
        self._outer = hashlib.sha256(key.translate(_OPAD))

    def __call__(self, message: bytes) -> bytes:
        inner = self._inner.copy()
        inner.update(message)
        outer = self._outer.copy()
        outer.update(inner.digest())
        return outer.digest()[: codec.MAC_LEN]


def session_key(device_key: bytes, host_nonce: bytes, device_nonce: bytes) -> bytes:
    """The key of one session, fresh from both sides' nonces."""
    return hmac.digest(device_key, _SESSION_LABEL + host_nonce + device_nonce, "sha256")


class TamperMeter:
    """Authentication failures within a sliding window; crossing the threshold is a
    tamper fault, reported once. It outlives sessions: a forger gains nothing by
    forcing a reconnect."""

    def __init__(self) -> None:
        self._times: deque[float] = deque()
        self._pending: int | None = None

    def failed(self, now: float, threshold: int, window: float) -> None:
        times = self._times
        times.append(now)
        while times and now - times[0] > window:
            times.popleft()
        if len(times) >= threshold:
            self._pending = len(times)
            times.clear()

    def take(self) -> int | None:
        """Failures counted when the threshold was last crossed, once."""
        count, self._pending = self._pending, None
        return count
