"""The uplink's loop: the journal's rows to the broker, store-and-forward.

Each row after the cursor is published QoS 1 on ``tablectl/<id>/journal``, at most
``window`` unacknowledged at once. The cursor advances over the contiguous prefix of
acknowledged rows only, and is made durable once per pass of the loop that moved it,
so after a crash the rows republished are those in flight at the cut (and the few
acknowledged in the pass being made). After any lost connection the uplink connects
again (back-off: full jitter, from ``retry_min_ms`` doubling to ``retry_max_ms``) and
republishes from the cursor on: in order, no gap; a receiver deduplicates by ``seq``.

A broker that refuses the connection (CONNACK: bad user name or password, not
authorised) or a row (PUBACK with a failure reason, e.g. 135 not authorised: the ACL)
is one log line and a retry after the back-off; a refused row is never counted as
acknowledged, so the cursor stops before it and it is offered again each retry.
"""

from __future__ import annotations

import contextlib
import random
import ssl
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, Protocol

from paho.mqtt.reasoncodes import ReasonCode

from controller.uplink.cursor import Cursor
from controller.uplink.link import Link
from controller.uplink.messages import (
    journal_message,
    journal_topic,
    offline,
    status_message,
    status_topic,
)
from controller.uplink.outbox import Outbox
from controller.uplink.settings import Settings, SettingsError
from controller.uplink.status import Status

CONNACK_WAIT: Final = 10.0  # seconds the broker has to answer CONNECT
OFFLINE_WAIT: Final = 2.0  # seconds the broker has to acknowledge the offline status at a stop
# Seconds between two statuses that differ only by seq while rows keep coming; once
# every row is sent the status says the last one.
STATUS_EVERY: Final = 5.0
STEADY: Final = 30.0  # seconds of connection after which the back-off starts again


class Stopping(Protocol):
    def is_set(self) -> bool: ...
    def wait(self, seconds: float) -> None: ...


class Backoff:
    """Full jitter: a random pause up to a ceiling doubling from ``least`` to ``most``."""

    def __init__(
        self, least: float, most: float, rand: Callable[[], float] = random.random
    ) -> None:
        self.least, self.most, self._rand = least, most, rand
        self.attempt = 0

    def next(self) -> float:
        ceiling = min(self.most, self.least * 2.0**self.attempt)
        self.attempt = min(self.attempt + 1, 32)
        return ceiling * self._rand()

    def reset(self) -> None:
        self.attempt = 0


@dataclass(frozen=True, slots=True)
class Failure:
    """Why a connection ended or was never made: logged once, with the retry's pause."""

    level: str
    event: str
    fields: dict[str, object]


class Refused(Exception):
    """The broker refused a message (a PUBACK with a failure reason)."""

    def __init__(self, failure: Failure) -> None:
        super().__init__(failure.event)
        self.failure = failure


class Uplink:
    def __init__(
        self,
        settings: Settings,
        outbox: Outbox,
        cursor: Cursor,
        status: Status,
        context: ssl.SSLContext,
        log: Any,
    ) -> None:
        self.settings, self.outbox, self.cursor, self.status = settings, outbox, cursor, status
        self.context, self.log = context, log
        self.topic = journal_topic(settings.table_id)
        self.backoff = Backoff(settings.retry_min_ms / 1000, settings.retry_max_ms / 1000)
        self.poll = settings.poll_ms / 1000
        self.done = cursor.seq  # the acknowledged prefix
        self._reset()

    def _reset(self) -> None:
        self.sent = self.done
        self.inflight: dict[int, int] = {}  # mid -> seq
        self.hashes: dict[int, str] = {}  # seq -> hash, of the rows sent and not yet done
        self.acked: set[int] = set()  # seqs acknowledged past the prefix
        self.status_mids: set[int] = set()
        self.shown: dict[str, object] | None = None
        self.status_at = 0.0
        self.status_seq = -1
        self.caught_up = False

    def run(self, stop: Stopping) -> None:
        """Until ``stop``: connect, stream, and after any failure one log line, a pause
        (the back-off) and again."""
        while not stop.is_set():
            failure = self._session(stop)
            if stop.is_set():
                break
            pause = round(self.backoff.next(), 3)
            if failure is not None:
                log = getattr(self.log, failure.level)
                log(failure.event, **failure.fields, cursor=self.done, retry_in_s=pause)
            stop.wait(pause)
        self.log.info("uplink_stopped", cursor=self.done)

    def _session(self, stop: Stopping) -> Failure | None:
        self._reset()
        try:
            link = Link(self.settings, self.context, self.settings.broker.password())
        except SettingsError as exc:
            return Failure("error", "uplink_password_unreadable", {"error": str(exc)})
        try:
            failure = self._connect(link, stop)
            if failure is None:
                began = time.monotonic()
                failure = self._stream(link, stop)
                if time.monotonic() - began > STEADY:
                    self.backoff.reset()
        except BaseException:
            link.close(clean=False)  # the journal failed: the will says the table is offline
            raise
        if stop.is_set() and link.lost is None and link.connack is not None:
            self._goodbye(link)
        link.close()
        return failure

    def _connect(self, link: Link, stop: Stopping) -> Failure | None:
        """TCP, TLS, CONNECT and its CONNACK: None when the broker took the connection,
        else why not."""
        broker = self.settings.broker
        where: dict[str, object] = {"host": broker.host, "port": broker.port}
        try:
            link.open()
        except OSError as exc:
            return Failure("warning", "uplink_connect_failed", {**where, "error": str(exc)})
        deadline = time.monotonic() + CONNACK_WAIT
        while link.connack is None and link.lost is None and not stop.is_set():
            if time.monotonic() > deadline:
                link.lost = "no CONNACK in time"
            link.loop(0.1)
        if link.connack is None:
            return Failure("warning", "uplink_connect_failed", {**where, "error": str(link.lost)})
        if link.connack.is_failure:
            refusal = {"username": broker.username, **_reason(link.connack)}
            return Failure("error", "uplink_connect_refused", {**where, **refusal})
        window = min(self.settings.window, link.receive_maximum)  # the broker's say too
        self.log.info("uplink_connected", **where, cursor=self.done, window=window)
        return None

    def _stream(self, link: Link, stop: Stopping) -> Failure | None:
        try:
            while not stop.is_set():
                self._fill(link)
                self._publish_status(link)
                link.loop(self.poll)
                self._take(link)
                if link.lost is not None:
                    return Failure("warning", "uplink_disconnected", {"reason": str(link.lost)})
        except Refused as refused:
            return refused.failure
        return None

    def _fill(self, link: Link) -> None:
        room = min(self.settings.window, link.receive_maximum) - len(self.inflight)
        if room <= 0:
            return
        table = self.settings.table_id
        rows = self.outbox.after(self.sent, room)
        self.caught_up = len(rows) < room  # every row committed so far is sent
        for row in rows:
            mid = link.publish(
                self.topic, journal_message(table, row.seq, row.ts, row.body, row.hash)
            )
            if mid is None:
                return
            self.inflight[mid] = row.seq
            self.hashes[row.seq] = row.hash
            self.sent = row.seq
            self.status.feed_body(row.seq, row.ts, row.body)

    def _publish_status(self, link: Link) -> None:
        shown = self.status.shown()
        now = time.monotonic()
        due = self.caught_up or now - self.status_at >= STATUS_EVERY
        stale = self.status.seq != self.status_seq and due
        if shown == self.shown and not stale:
            return
        payload = status_message(self.settings.table_id, self.status.view())
        mid = link.publish(status_topic(self.settings.table_id), payload, retain=True)
        if mid is not None:
            self.status_mids.add(mid)
            self.shown, self.status_at, self.status_seq = shown, now, self.status.seq

    def _take(self, link: Link) -> None:
        """The acknowledgements received: the prefix advanced and made durable; the
        first refused message ends the connection (Refused)."""
        refused: Failure | None = None
        for mid, reason in link.take_acks():
            seq = self.inflight.pop(mid, None)
            if seq is not None and not reason.is_failure:
                self.acked.add(seq)
            elif mid in self.status_mids:
                self.status_mids.discard(mid)
                if reason.is_failure:
                    refused = refused or _refusal(
                        status_topic(self.settings.table_id), None, reason
                    )
            elif seq is not None:
                refused = refused or _refusal(self.topic, seq, reason)
        self._advance()
        if refused is not None:
            raise Refused(refused)

    def _advance(self) -> None:
        start = self.done
        while self.done + 1 in self.acked:
            self.done += 1
            self.acked.discard(self.done)
        if self.done == start:
            return
        digest = self.hashes[self.done]
        for seq in range(start + 1, self.done + 1):
            del self.hashes[seq]
        self.cursor.save(self.done, digest)
        self.backoff.reset()

    def _goodbye(self, link: Link) -> None:
        """A clean stop: nothing more of the journal; the offline status, retained,
        and what is acknowledged meanwhile counted; then the caller's DISCONNECT."""
        table = self.settings.table_id
        mid = link.publish(status_topic(table), offline(table), retain=True)
        if mid is not None:
            self.status_mids.add(mid)
        deadline = time.monotonic() + OFFLINE_WAIT
        while mid in self.status_mids and link.lost is None and time.monotonic() < deadline:
            link.loop(0.05)
            with contextlib.suppress(Refused):  # stopping: nothing is offered again
                self._take(link)


def _reason(reason: ReasonCode) -> dict[str, object]:
    return {"reason": str(reason), "code": reason.value}


def _refusal(topic: str, seq: int | None, reason: ReasonCode) -> Failure:
    """A refused message: the row is not acknowledged, so the cursor stays before it."""
    return Failure(
        "error", "uplink_publish_refused", {"topic": topic, "seq": seq, **_reason(reason)}
    )
