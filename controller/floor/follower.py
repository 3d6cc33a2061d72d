"""The floor's MQTT subscriber: every table's journal and status, each row once, in
order, with every gap seen (docs/floor.md).

paho-mqtt 2.x, MQTT v5, ``clean_start=False`` with a session expiry interval: the
broker keeps the floor's session (its subscriptions and the QoS 1 messages queued for
it) while the floor is away, for ``SESSION_EXPIRY`` seconds, then forgets it, so an
abandoned client id does not hold a queue for ever (MQTT 3.1.1's ``clean_session=False``
has no expiry of its own: the broker keeps it until its global
``persistent_client_expiration``). v5's reason codes also say why a broker refused the
login (bad user name or password, not authorized), which the log line repeats.

Acknowledged after it is kept: messages are acknowledged by hand (``manual_ack``), in
the order received, only once each table's last ``seq`` that they moved is saved in the
state directory (tracks.py; the saving and the holding back: keeper.py). A
floor that crashes has the broker send again what it had not saved; a restarted floor
drops what it had (``seq`` <= last) and sees a gap (``seq`` > last + 1) only when rows
really did not reach it (a session expired, a broker that lost its queue).

``Follower(settings, on_row, on_status)``: ``start()`` connects and runs paho's network
loop in its own thread, reconnecting with exponential back-off and jitter (a broker
that refuses the credentials is one log line and a retry); ``stop()`` saves, sends
the last acknowledgements and disconnects. ``on_row(table, seq, message, received)``
gets each row not seen before, ``received`` being ``time.time()`` when it arrived;
``on_status(table, status, received)`` each table's retained status. Both run in the
follower's thread.
"""

from __future__ import annotations

import random
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any, Final

import paho.mqtt.client as mqtt
import structlog
from paho.mqtt.enums import CallbackAPIVersion, MQTTErrorCode, MQTTProtocolVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from controller.errors import TablectlError
from controller.floor import tracks as trackfile
from controller.floor.keeper import Keeper
from controller.floor.settings import FloorSettings, read_password
from controller.floor.tracks import Track, Verdict
from controller.uplink.messages import (
    JOURNAL_FILTER,
    STATUS_FILTER,
    JournalMessage,
    parse_journal,
    parse_status,
    table_of,
)

log = structlog.get_logger("tablectl.floor")

SESSION_EXPIRY: Final = 7 * 24 * 3600  # seconds the broker keeps the floor's session
KEEPALIVE: Final = 30
BACKOFF_FIRST: Final = 0.5  # seconds; doubled each failed attempt, up to BACKOFF_MAX
BACKOFF_MAX: Final = 30.0
STOP_WAIT: Final = 10.0

OnRow = Callable[[str, int, JournalMessage, float], None]
OnStatus = Callable[[str, dict[str, Any], float], None]


class FollowerError(TablectlError):
    """The follower cannot be set up (its TLS files); the message is one line."""


@dataclass
class Counters:
    received: int = 0  # journal messages, duplicates included
    duplicates: int = 0
    gaps: int = 0  # times rows were found missing
    missing: int = 0  # rows found missing, all tables
    recovered: int = 0  # missing rows that came late
    invalid: int = 0  # messages that are not the protocol's
    statuses: int = 0


def backoff(failures: int) -> float:
    """Seconds before the next attempt: exponential, capped, half of it random."""
    cap = min(BACKOFF_MAX, BACKOFF_FIRST * 2 ** min(failures, 16))
    return float(cap / 2 + random.uniform(0, cap / 2))


class Follower:
    def __init__(
        self,
        settings: FloorSettings,
        on_row: OnRow | None = None,
        on_status: OnStatus | None = None,
    ) -> None:
        self.settings = settings
        self.on_row = on_row
        self.on_status = on_status
        self.counters = Counters()
        self.connected = threading.Event()
        self._lock = threading.Lock()
        try:
            self._tracks = trackfile.load(settings.state_dir)
        except trackfile.TrackError as exc:
            raise FollowerError(str(exc)) from None
        self._refused = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._client = self._make_client()
        self._keeper = Keeper(settings.state_dir, self.tracks, self._acknowledge)

    def _make_client(self) -> mqtt.Client:
        broker = self.settings.broker
        client = mqtt.Client(
            CallbackAPIVersion.VERSION2,
            client_id=self.settings.client_id,
            protocol=MQTTProtocolVersion.MQTTv5,
            manual_ack=True,
        )
        try:
            client.tls_set(
                ca_certs=str(broker.cafile),
                certfile=str(broker.certfile) if broker.certfile else None,
                keyfile=str(broker.keyfile) if broker.keyfile else None,
                cert_reqs=ssl.CERT_REQUIRED,
                tls_version=ssl.PROTOCOL_TLS_CLIENT,
            )
        except (ssl.SSLError, OSError) as exc:
            files = f"cafile {broker.cafile}" + (
                f", certfile {broker.certfile}" if broker.certfile else ""
            )
            raise FollowerError(f"[broker] {files}: not usable for TLS ({exc})") from None
        if broker.username is not None:
            client.username_pw_set(broker.username, broker.password)
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_message = self._on_message
        return client

    # -- the public side -------------------------------------------------------------

    def start(self) -> None:
        """Connect and follow, in the follower's own thread (it retries for ever)."""
        assert self._thread is None, "the follower runs already"
        self._thread = threading.Thread(target=self._run, name="floor-follower", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Save, acknowledge what was saved, disconnect (the session stays)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(STOP_WAIT)
            self._thread = None

    def tracks(self) -> dict[str, Track]:
        """A copy of each table's track: last seq, game, missing rows."""
        with self._lock:
            return {table: track.copy() for table, track in self._tracks.items()}

    def _acknowledge(self, mid: int) -> None:
        self._client.ack(mid, 1)

    def counts(self) -> dict[str, int]:
        return asdict(self.counters)

    # -- the thread ------------------------------------------------------------------

    def _run(self) -> None:
        failures = 0
        while not self._stop.is_set():
            if self._open():
                self._serve()
                if self._stop.is_set():
                    break
            failures = 0 if self.connected.is_set() else failures + 1
            self.connected.clear()
            delay = backoff(failures)
            log.debug("floor_reconnecting", after_s=round(delay, 2), failures=failures)
            self._stop.wait(delay)
        self._close()

    def _password(self) -> None:
        """The password file read again: a new password needs no restart."""
        broker = self.settings.broker
        if broker.password_file is None:
            return
        try:
            password = read_password(broker.password_file)
        except (OSError, UnicodeDecodeError) as exc:
            log.warning("floor_password_unreadable", file=str(broker.password_file), error=str(exc))
            return
        if password:
            self._client.username_pw_set(broker.username, password)

    def _open(self) -> bool:
        broker = self.settings.broker
        self._password()
        properties = Properties(PacketTypes.CONNECT)  # type: ignore[no-untyped-call]
        properties.SessionExpiryInterval = SESSION_EXPIRY
        try:
            self._client.connect(
                broker.host, broker.port, KEEPALIVE, clean_start=False, properties=properties
            )
        except (OSError, ValueError) as exc:  # ssl's errors are OSErrors
            log.warning(
                "floor_broker_unreachable", host=broker.host, port=broker.port, error=str(exc)
            )
            return False
        return True

    def _serve(self) -> None:
        """The network loop until the connection ends or the follower stops."""
        rc = MQTTErrorCode.MQTT_ERR_SUCCESS
        while rc == MQTTErrorCode.MQTT_ERR_SUCCESS and not self._stop.is_set():
            rc = self._client.loop(timeout=self._keeper.wait())
            self._keeper.tend()
        if rc != MQTTErrorCode.MQTT_ERR_SUCCESS:
            self._keeper.drop()

    def _close(self) -> None:
        connected = self._client.is_connected()
        self._keeper.close(connected)
        if connected:
            self._client.disconnect()
        log.info("floor_follower_stopped", **self.counts())

    # -- paho's callbacks, in the thread ----------------------------------------------

    def _on_connect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any
    ) -> None:
        broker = self.settings.broker
        if reason.is_failure:
            self._refused = True
            log.warning("floor_broker_refused", host=broker.host, port=broker.port,
                        reason=str(reason), user=broker.username)  # fmt: skip
            return
        self._refused = False
        self.connected.set()
        log.info("floor_connected", host=broker.host, port=broker.port,
                 session_present=bool(flags.session_present))  # fmt: skip
        client.subscribe([(JOURNAL_FILTER, 1), (STATUS_FILTER, 1)])

    def _on_disconnect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any
    ) -> None:
        if not self._stop.is_set() and not self._refused:  # a refusal said it already
            log.warning("floor_disconnected", reason=str(reason))

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        at = time.time()
        table = table_of(message.topic)
        kind = message.topic.rsplit("/", 1)[-1]
        try:
            if table is not None and kind == "journal":
                self._journal(table, bytes(message.payload), at)
            elif table is not None and kind == "status":
                self._status(table, bytes(message.payload), at)
            else:
                self._invalid(message.topic, "not a table's topic")
        except Exception:  # a callback's bug must not end the follower
            log.exception("floor_callback_failed", topic=message.topic)
        if message.qos > 0:
            self._keeper.hold(message.mid)

    def _invalid(self, topic: str, why: str) -> None:
        self.counters.invalid += 1
        log.warning("floor_message_invalid", topic=topic, reason=why)

    def _journal(self, table: str, payload: bytes, at: float) -> None:
        try:
            message = parse_journal(payload)
        except ValueError as exc:
            self._invalid(f"tablectl/{table}/journal", str(exc))
            return
        if message.table != table:
            self._invalid(f"tablectl/{table}/journal", f"names table {message.table!r}")
            return
        verdict = self._admit(table, message)
        if verdict != "duplicate" and self.on_row is not None:
            self.on_row(table, message.seq, message, at)

    def _admit(self, table: str, message: JournalMessage) -> Verdict:
        self.counters.received += 1
        with self._lock:
            track = self._tracks.setdefault(table, Track())
            before = track.seq
            verdict = track.admit(message.seq)
            entry = message.entry
            if (
                entry is not None
                and entry.get("type") == "journal"
                and isinstance(entry.get("game"), str)
            ):
                track.game = entry["game"]
        if verdict == "duplicate":
            self.counters.duplicates += 1
            return verdict
        self._keeper.dirty = True
        if verdict == "gap":
            self.counters.gaps += 1
            self.counters.missing += message.seq - before - 1
            log.warning("floor_gap", table=table, first_missing=before + 1,
                        last_missing=message.seq - 1, rows=message.seq - before - 1)  # fmt: skip
        elif verdict == "recovered":
            self.counters.recovered += 1
            log.info("floor_gap_row_recovered", table=table, seq=message.seq)
        return verdict

    def _status(self, table: str, payload: bytes, at: float) -> None:
        try:
            status = parse_status(payload)
        except ValueError as exc:
            self._invalid(f"tablectl/{table}/status", str(exc))
            return
        if status.get("table") != table:
            self._invalid(f"tablectl/{table}/status", f"names table {status.get('table')!r}")
            return
        self.counters.statuses += 1
        if isinstance(status.get("game"), str):
            with self._lock:
                track = self._tracks.setdefault(table, Track())
                moved, track.game = track.game != status["game"], status["game"]
            self._keeper.dirty |= moved
        if self.on_status is not None:
            self.on_status(table, status, at)
