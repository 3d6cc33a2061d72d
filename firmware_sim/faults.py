"""Wire faults on the frames a simulated device sends (OctoPrint virtual-printer style).

Two sources, combined per frame: random rates (``corrupt``, ``drop``, ``duplicate``)
drawn from a seeded generator so a run can be replayed, and a script keyed to event
ids that hits the first transmission of the frame carrying that event.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TypeGuard

import structlog

from drivers import codec
from drivers import messages as m

log = structlog.get_logger("firmware_sim.faults")

RATE_FAULTS = ("corrupt", "drop", "duplicate")
SCRIPT_FAULTS = ("corrupt", "drop", "duplicate", "delay", "nak")
MAX_DELAY_MS = 60_000


@dataclass(frozen=True, slots=True)
class ScriptEntry:
    at_event: int
    fault: str
    delay_ms: int = 0


@dataclass(frozen=True, slots=True)
class FaultSpec:
    seed: int = 0
    rates: Mapping[str, float] = field(default_factory=dict)
    script: tuple[ScriptEntry, ...] = ()

    @classmethod
    def from_json(cls, data: object) -> FaultSpec:
        """Validate a decoded faults object; ValueError with a one-line reason."""
        if not isinstance(data, dict):
            raise ValueError("faults must be a JSON object with seed, rates and script")
        unknown = set(data) - {"seed", "rates", "script"}
        if unknown:
            raise ValueError(f"faults: unknown key {sorted(unknown)[0]!r}")
        seed = data.get("seed", 0)
        if not _is_int(seed):
            raise ValueError("faults: seed must be an integer")
        return cls(seed, _rates(data.get("rates", {})), _script(data.get("script", [])))

    def to_json(self) -> dict[str, object]:
        return {
            "seed": self.seed,
            "rates": dict(self.rates),
            "script": [
                {"at_event": e.at_event, "fault": e.fault, "delay_ms": e.delay_ms}
                for e in self.script
            ],
        }


def _rates(data: object) -> dict[str, float]:
    if not isinstance(data, dict):
        raise ValueError('faults: rates must be an object such as {"drop": 0.1}')
    out: dict[str, float] = {}
    for name, p in data.items():
        if name not in RATE_FAULTS:
            raise ValueError(f"faults: unknown rate {name!r} (use {', '.join(RATE_FAULTS)})")
        if isinstance(p, bool) or not isinstance(p, int | float) or not 0 <= p <= 1:
            raise ValueError(f"faults: rate {name} must be a probability 0..1")
        out[name] = float(p)
    return out


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _script(data: object) -> tuple[ScriptEntry, ...]:
    if not isinstance(data, list):
        raise ValueError("faults: script must be a list of {at_event, fault} objects")
    return tuple(_script_entry(f"faults: script[{i}]", item) for i, item in enumerate(data))


def _script_entry(where: str, item: object) -> ScriptEntry:
    if not isinstance(item, dict):
        raise ValueError(f"{where} must be an object")
    unknown = set(item) - {"at_event", "fault", "delay_ms"}
    if unknown:
        raise ValueError(f"{where}: unknown key {sorted(unknown)[0]!r}")
    at = item.get("at_event")
    if not _is_int(at) or at < 1:
        raise ValueError(f"{where}: at_event must be an event id >= 1")
    fault = item.get("fault")
    if fault not in SCRIPT_FAULTS:
        raise ValueError(f"{where}: fault must be one of {', '.join(SCRIPT_FAULTS)}")
    delay = item.get("delay_ms", 0)
    if not _is_int(delay) or not 0 <= delay <= MAX_DELAY_MS:
        raise ValueError(f"{where}: delay_ms must be an integer 0..{MAX_DELAY_MS}")
    if fault == "delay" and delay == 0:
        raise ValueError(f"{where}: a delay needs delay_ms > 0")
    return ScriptEntry(at, str(fault), delay)


def load_faults(path: str) -> FaultSpec:
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except OSError as exc:
        raise ValueError(f"faults file {path} cannot be read: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"faults file {path} is not valid JSON: {exc}") from None
    try:
        return FaultSpec.from_json(data)
    except ValueError as exc:
        raise ValueError(f"faults file {path}: {exc}") from None


@dataclass(slots=True)
class Outgoing:
    """Bytes for the wire, not to be written before ``not_before`` (monotonic seconds)."""

    not_before: float
    data: bytes


class FaultLayer:
    """Decides what becomes of each outbound frame; keeps counts for the status reply."""

    def __init__(self, kind: m.DeviceKind, spec: FaultSpec) -> None:
        self._event_types = m.EVENT_TYPES[kind]
        self._highest_sent = 0  # event ids are first sent in rising order
        self._nak_requests = 0
        self.counts = dict.fromkeys(("corrupted", "dropped", "duplicated", "delayed", "naks"), 0)
        self.replace(spec)

    def replace(self, spec: FaultSpec) -> None:
        self.spec = spec
        # Nothing can befall a frame: no draws (a new spec reseeds the generator anyway).
        self._quiet = not spec.script and not any(spec.rates.values())
        self._rng = random.Random(spec.seed)
        self._script: dict[int, list[ScriptEntry]] = {}
        for entry in spec.script:
            self._script.setdefault(entry.at_event, []).append(entry)

    def apply(self, frame: bytes, now: float) -> list[Outgoing]:
        """What to put on the wire for one frame from the link."""
        if self._quiet:
            self._note_sent(frame)
            return [Outgoing(now, frame)]
        faults = [name for name in RATE_FAULTS if self._draw(name)]
        scripted, delay_ms = self._scripted(frame)
        faults += scripted
        if "nak" in faults:
            self._nak_requests += 1
            self.counts["naks"] += 1
        if "drop" in faults:
            self.counts["dropped"] += 1
            return []
        if "corrupt" in faults:
            # A flipped CRC byte: the frame fails its check whatever else it holds.
            frame = frame[:-1] + bytes((frame[-1] ^ 0xFF,))
            self.counts["corrupted"] += 1
        out = [Outgoing(now + delay_ms / 1000, frame)]
        if delay_ms:
            self.counts["delayed"] += 1
        if "duplicate" in faults:
            out.append(Outgoing(now, frame))
            self.counts["duplicated"] += 1
        return out

    def _scripted(self, frame: bytes) -> tuple[list[str], int]:
        """The script's faults, and its delay in ms, for the first transmission of the
        frame carrying an event."""
        event_id = self._event_id(frame)
        if event_id is None or event_id <= self._highest_sent:
            return [], 0
        self._highest_sent = event_id
        entries = self._script.get(event_id, [])
        for entry in entries:
            log.info("scripted_fault", fault=entry.fault, event_id=event_id)
        return [e.fault for e in entries], sum(e.delay_ms for e in entries if e.fault == "delay")

    def _note_sent(self, frame: bytes) -> None:
        """Keep count of the highest event sent, for a script that may come later."""
        event_id = self._event_id(frame)
        if event_id is not None and event_id > self._highest_sent:
            self._highest_sent = event_id

    def take_nak(self) -> bool:
        """Whether a scripted NAK is due (sent by the owner outside the link's write call)."""
        if not self._nak_requests:
            return False
        self._nak_requests -= 1
        return True

    def _draw(self, name: str) -> bool:
        # One draw per rate per frame, whatever the rates, so a seed replays identically.
        return self._rng.random() < self.spec.rates.get(name, 0.0)

    def _event_id(self, frame: bytes) -> int | None:
        """The event id a sequenced event frame from the link carries (read from its
        header: the link hands over whole, valid frames, before any fault)."""
        if (
            len(frame) < codec.MIN_FRAME + 4
            or not frame[3] & codec.FLAG_SEQUENCED
            or frame[6] not in self._event_types
        ):
            return None
        return int.from_bytes(frame[codec.HEADER_LEN : codec.HEADER_LEN + 4], "big")
