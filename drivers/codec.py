"""Frame codec (protocol v1): pure functions, no I/O. See docs/protocol.md.

Frame layout, all integers big-endian::

    0  SYNC   0xA5
    1  LEN    total frame length in bytes, MIN_FRAME..MAX_FRAME
    2  NLEN   LEN ^ 0xFF (cheap header check: a stray 0xA5 rarely looks like a header)
    3  FLAGS  bit0 SEQUENCED, bit1 FROM_DEVICE; other bits zero
    4  SEQ    sequence number of a sequenced frame, else 0
    5  ACK    next sequence number the sender expects from its peer
    6  TYPE   message type
    7  ...    payload, LEN - MIN_FRAME bytes
    -10 MAC   8 bytes: HMAC-SHA256 truncated (computed by the link)
    -2  CRC   CRC-16/CCITT-FALSE over bytes 1 .. end of MAC
"""

from __future__ import annotations

import binascii
from typing import NamedTuple

SYNC = 0xA5
HEADER_LEN = 7
MAC_LEN = 8
CRC_LEN = 2
MIN_FRAME = HEADER_LEN + MAC_LEN + CRC_LEN
MAX_FRAME = 255
MAX_PAYLOAD = MAX_FRAME - MIN_FRAME

FLAG_SEQUENCED = 0x01
FLAG_FROM_DEVICE = 0x02
_KNOWN_FLAGS = FLAG_SEQUENCED | FLAG_FROM_DEVICE
_SYNC_BYTE = bytes((SYNC,))


def crc16(data: bytes | bytearray | memoryview) -> int:
    """CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, no reflection, xorout 0 (check 0x29B1)."""
    return binascii.crc_hqx(data, 0xFFFF)


class Frame(NamedTuple):
    """One decoded frame (a tuple: built for every frame received, at C speed)."""

    flags: int
    seq: int
    ack: int
    type: int
    payload: bytes
    mac: bytes
    signed: bytes  # bytes 1 .. end of payload: what the MAC covers besides link context

    @property
    def sequenced(self) -> bool:
        return bool(self.flags & FLAG_SEQUENCED)

    @property
    def from_device(self) -> bool:
        return bool(self.flags & FLAG_FROM_DEVICE)


def signed_part(flags: int, seq: int, ack: int, mtype: int, payload: bytes) -> bytes:
    """The header (without SYNC) and payload of a frame: the input the MAC covers."""
    if len(payload) > MAX_PAYLOAD:
        raise ValueError(f"payload of {len(payload)} bytes exceeds {MAX_PAYLOAD}")
    length = MIN_FRAME + len(payload)
    return bytes((length, length ^ 0xFF, flags, seq & 0xFF, ack & 0xFF, mtype)) + payload


def assemble(signed: bytes, mac: bytes) -> bytes:
    """Add SYNC, the MAC and the CRC to a signed part."""
    body = signed + mac
    return _SYNC_BYTE + body + crc16(body).to_bytes(2, "big")


def check(buf: bytes | bytearray, start: int = 0) -> int:
    """Classify the bytes at buf[start:].

    Returns 0 when more bytes are needed, a positive frame length when a whole valid
    frame starts at ``start``, or ``-n`` when ``n`` bytes are garbage and must be
    skipped to reach the next possible SYNC.
    """
    avail = len(buf) - start
    if avail <= 0:
        return 0
    if buf[start] != SYNC:
        nxt = buf.find(SYNC, start + 1)
        return -((nxt if nxt >= 0 else len(buf)) - start)
    if avail < 3:
        return 0
    length = buf[start + 1]
    if length < MIN_FRAME or buf[start + 2] != length ^ 0xFF:
        return -_skip_one(buf, start)
    if avail < length:
        return 0
    end = start + length
    # The CRC over bytes 1 .. end of MAC followed by the CRC itself (big-endian) is 0
    # exactly when the CRC matches: CRC-16/CCITT-FALSE has no reflection and no xorout.
    if crc16(buf[start + 1 : end]) or buf[start + 3] & ~_KNOWN_FLAGS:
        return -_skip_one(buf, start)
    return length


def _skip_one(buf: bytes | bytearray, start: int) -> int:
    nxt = buf.find(SYNC, start + 1)
    return (nxt if nxt >= 0 else len(buf)) - start


def parse(buf: bytes | bytearray, start: int, length: int) -> Frame:
    """Build a Frame from a span that ``check`` accepted."""
    end = start + length
    mac_at = end - CRC_LEN - MAC_LEN
    return Frame(
        flags=buf[start + 3],
        seq=buf[start + 4],
        ack=buf[start + 5],
        type=buf[start + 6],
        payload=bytes(buf[start + HEADER_LEN : mac_at]),
        mac=bytes(buf[mac_at : end - CRC_LEN]),
        signed=bytes(buf[start + 1 : mac_at]),
    )


class Decoder:
    """Accumulates bytes and yields whole frames; garbage is skipped to the next SYNC."""

    def __init__(self) -> None:
        self._buf = bytearray()
        self.garbage_bytes = 0
        self.resyncs = 0

    def feed(self, data: bytes) -> tuple[list[Frame], bool]:
        """Add bytes; return the frames now complete and whether garbage was skipped."""
        buf = self._buf
        if not buf and data and check(data) == len(data):
            return [parse(data, 0, len(data))], False  # one whole frame: the usual read
        buf += data
        frames: list[Frame] = []
        skipped = False
        pos = 0
        while True:
            n = check(buf, pos)
            if n > 0:
                frames.append(parse(buf, pos, n))
                pos += n
            elif n < 0:
                if not skipped:
                    self.resyncs += 1
                skipped = True
                self.garbage_bytes += -n
                pos += -n
            else:
                break
        if pos:
            del buf[:pos]
        return frames, skipped

    @property
    def pending(self) -> int:
        """Bytes held waiting for the rest of a frame."""
        return len(self._buf)

    def discard_stale(self) -> tuple[list[Frame], bool]:
        """Drop the first held byte (a false SYNC that stalled decoding) and rescan."""
        if not self._buf:
            return [], False
        del self._buf[0]
        self.garbage_bytes += 1
        frames, _ = self.feed(b"")
        return frames, True

    def clear(self) -> None:
        self._buf.clear()
