"""The link's recent frames, for the debug dump after a lost link."""

from __future__ import annotations

from collections import deque

from drivers.messages import MsgType


class FrameTrace:
    """The last frames' headers in both directions, with what became of each: headers
    only, never payloads (a card may be a hole card)."""

    def __init__(self, size: int = 128) -> None:
        # (time, direction, type, seq, ack, length, verdict)
        self._ring: deque[tuple[float, str, int, int, int, int, str]] = deque(maxlen=size)

    def add(
        self, at: float, direction: str, mtype: int, seq: int, ack: int, length: int, verdict: str
    ) -> None:
        self._ring.append((at, direction, mtype, seq, ack, length, verdict))

    def dump(self) -> list[dict[str, object]]:
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
