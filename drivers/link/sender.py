"""The sending half of a session: go-back-N over a bounded window, with cumulative
acknowledgements and an RFC 6298 retransmit timer within bounds."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from drivers.errors import LinkBusy
from drivers.link.config import LinkConfig, LinkStats


@dataclass(slots=True)
class Outgoing:
    seq: int
    mtype: int
    payload: bytes
    sent_at: float = 0.0
    retransmitted: bool = False


class Sender:
    """Sequence numbers, the messages in flight and queued behind the window, and the
    retransmit timer of one session. ``write`` frames and writes one message."""

    def __init__(
        self,
        config: Callable[[], LinkConfig],
        stats: LinkStats,
        write: Callable[[Outgoing], None],
        clock: Callable[[], float],
    ) -> None:
        self._config = config  # read at each use: the owner may replace its config
        self._stats = stats
        self._write = write
        self._clock = clock
        self._tx_next = 0
        self._inflight: deque[Outgoing] = deque()
        self._pending: deque[Outgoing] = deque()
        self.rto = config().rto_initial
        self._srtt: float | None = None
        self._rttvar = 0.0
        self._rto_deadline: float | None = None
        self._last_gbn = -1.0

    @property
    def unacked(self) -> int:
        return len(self._inflight) + len(self._pending)

    def send(self, mtype: int, payload: bytes) -> None:
        entry = Outgoing(0, mtype, payload)
        cfg = self._config()
        if len(self._inflight) < cfg.window:
            self._launch(entry)
        elif len(self._pending) < cfg.max_pending:
            self._pending.append(entry)
        else:
            raise LinkBusy("send window and pending queue are full")

    def _launch(self, entry: Outgoing) -> None:
        entry.seq = self._tx_next
        self._tx_next += 1
        self._inflight.append(entry)
        self._transmit(entry)

    def _transmit(self, entry: Outgoing) -> None:
        now = self._clock()
        entry.sent_at = now
        if self._rto_deadline is None:
            self._rto_deadline = now + self.rto
        self._write(entry)

    def _go_back(self, now: float) -> None:
        self._last_gbn = now
        for entry in self._inflight:
            entry.retransmitted = True
            self._stats.retransmits += 1
            self._transmit(entry)
        self._rto_deadline = now + self.rto

    def on_ack(self, ack: int, now: float) -> None:
        """The peer has everything before sequence number ``ack`` (modulo 256)."""
        inflight = self._inflight
        if not inflight:
            return
        n = (ack - inflight[0].seq) & 0xFF
        if n == 0 or n > len(inflight):
            return
        for _ in range(n):
            entry = inflight.popleft()
            if not entry.retransmitted:
                self._sample_rtt(now - entry.sent_at)
        while self._pending and len(inflight) < self._config().window:
            self._launch(self._pending.popleft())
        self._rto_deadline = now + self.rto if inflight else None

    def on_nak(self, now: float) -> None:
        """Resend from the oldest message in flight, at most once per round trip."""
        floor = self._srtt if self._srtt is not None else self._config().rto_min
        if self._inflight and now - self._last_gbn >= floor:
            self._go_back(now)

    def on_timer(self, now: float) -> None:
        """The retransmit timer: when it runs out, back off and resend what is in flight."""
        if self._rto_deadline is not None and now >= self._rto_deadline and self._inflight:
            self.rto = min(self._config().rto_ceiling, self.rto * 2)
            self._go_back(now)

    def deadline(self) -> float | None:
        """When the retransmit timer runs out, if anything is in flight."""
        return self._rto_deadline if self._inflight else None

    def _sample_rtt(self, r: float) -> None:
        # RFC 6298, section 2, with bounds of our own.
        if self._srtt is None:
            self._srtt = r
            self._rttvar = r / 2
        else:
            self._rttvar = 0.75 * self._rttvar + 0.25 * abs(self._srtt - r)
            self._srtt = 0.875 * self._srtt + 0.125 * r
        rto = self._srtt + max(0.001, 4 * self._rttvar)
        cfg = self._config()
        self.rto = min(cfg.rto_ceiling, max(cfg.rto_min, rto))
