"""The link's parameters and counters."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class LinkConfig:
    window: int = 8
    max_pending: int = 256
    link_timeout: float = 1.0  # a link with no valid frame for this long is lost
    rto_initial: float = 0.1
    rto_min: float = 0.01
    rto_max: float = 0.25
    tamper_threshold: int = 5  # authentication failures ...
    tamper_window: float = 10.0  # ... within this many seconds raise a tamper fault
    stale_after: float = 0.05  # a partial frame with no new byte for this long is dropped
    ack_delay: float = 0.002  # a lone ACK waits this long for a frame to ride on

    @property
    def heartbeat_interval(self) -> float:
        """A device's idle time before its HEARTBEAT (docs/protocol.md 7.6): the longest
        that still leaves a frame heard within ``link_timeout`` when one heartbeat is
        lost (two intervals), with a third of ``link_timeout`` to spare."""
        return self.link_timeout / 3

    @property
    def host_heartbeat_interval(self) -> float:
        """The host's idle time before a HEARTBEAT of its own: it answers the device's,
        so this fires only when the device's heartbeats stop coming (7.6)."""
        return self.link_timeout / 2

    @property
    def rto_ceiling(self) -> float:
        """rto_max, but never above a heartbeat interval: a retransmitting side is still heard."""
        return min(self.rto_max, self.heartbeat_interval)

    def __post_init__(self) -> None:
        if not 0.04 <= self.link_timeout <= 60:
            raise ValueError("link_timeout must be 0.04..60 s")
        if not 1 <= self.window <= 64:
            raise ValueError("window must be 1..64")
        if self.link_timeout <= 0 or not 0 < self.rto_min <= self.rto_initial <= self.rto_max:
            raise ValueError("timeouts must be positive and rto_min <= rto_initial <= rto_max")
        if not 0 <= self.ack_delay < self.rto_min:
            raise ValueError("ack_delay must be below rto_min, or the peer retransmits needlessly")


@dataclass(slots=True)
class LinkStats:
    frames_tx: int = 0
    frames_rx: int = 0
    retransmits: int = 0
    naks_tx: int = 0
    naks_rx: int = 0
    duplicates: int = 0
    out_of_order: int = 0
    auth_failures: int = 0
    replays: int = 0
    stale_frames: int = 0
    malformed: int = 0
    garbage_bytes: int = 0
