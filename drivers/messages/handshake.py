"""The handshake's payloads: HELLO from the host and the device's identity in
HELLO_REPLY."""

from __future__ import annotations

import struct
from dataclasses import dataclass

from drivers.errors import MalformedMessage
from drivers.messages.catalogue import FIRMWARE_HASH_LEN, NONCE_LEN


@dataclass(frozen=True, slots=True)
class Hello:
    """Host -> device: the versions the host speaks, the kind it expects on the port, and
    its lost-link time, which the device adopts (it heartbeats at a quarter of it)."""

    version_min: int
    version_max: int
    expected_kind: int
    link_timeout_ms: int
    host_nonce: bytes

    def encode(self) -> bytes:
        head = bytes((self.version_min, self.version_max, self.expected_kind))
        return head + struct.pack(">H", self.link_timeout_ms) + self.host_nonce

    @classmethod
    def decode(cls, p: bytes) -> Hello:
        if len(p) != 5 + NONCE_LEN:
            raise MalformedMessage("HELLO payload length")
        (timeout_ms,) = struct.unpack_from(">H", p, 3)
        if not 40 <= timeout_ms <= 60000:
            raise MalformedMessage("HELLO link timeout outside 40..60000 ms")
        return cls(p[0], p[1], p[2], timeout_ms, bytes(p[5:]))


@dataclass(frozen=True, slots=True)
class DeviceInfo:
    """Device -> host in HELLO_REPLY: who the device is and where its event ids stand."""

    protocol_version: int
    kind: int
    model: str
    serial: str
    firmware_version: str
    firmware_hash: bytes
    device_nonce: bytes
    next_event_id: int  # id the device will give its next new event
    oldest_unacked: int  # first id of the backlog it will replay (== next_event_id if none)

    def encode(self) -> bytes:
        out = bytearray((self.protocol_version, self.kind))
        for text in (self.model, self.serial, self.firmware_version):
            raw = text.encode("utf-8")
            if len(raw) > 32:
                raise ValueError("identity strings are at most 32 bytes")
            out.append(len(raw))
            out += raw
        out += self.firmware_hash + self.device_nonce
        out += struct.pack(">II", self.next_event_id, self.oldest_unacked)
        return bytes(out)

    @classmethod
    def decode(cls, p: bytes) -> DeviceInfo:
        try:
            version, kind = p[0], p[1]
            pos = 2
            texts = []
            for _ in range(3):
                n = p[pos]
                if n > 32:
                    raise MalformedMessage("identity string longer than 32 bytes")
                texts.append(bytes(p[pos + 1 : pos + 1 + n]).decode("utf-8"))
                pos += 1 + n
            fw_hash = bytes(p[pos : pos + FIRMWARE_HASH_LEN])
            pos += FIRMWARE_HASH_LEN
            nonce = bytes(p[pos : pos + NONCE_LEN])
            pos += NONCE_LEN
            next_id, oldest = struct.unpack(">II", p[pos : pos + 8])
            if pos + 8 != len(p) or len(fw_hash) != FIRMWARE_HASH_LEN or len(nonce) != NONCE_LEN:
                raise MalformedMessage("HELLO_REPLY payload length")
        except (IndexError, struct.error, UnicodeDecodeError) as exc:
            raise MalformedMessage(f"HELLO_REPLY payload: {exc}") from exc
        return cls(version, kind, texts[0], texts[1], texts[2], fw_hash, nonce, next_id, oldest)
