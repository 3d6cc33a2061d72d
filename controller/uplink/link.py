"""One connection to the broker: a fresh paho-mqtt client (MQTT 5, TLS) per connection.

Fresh, so that paho never resends on its own what a former connection had in flight:
after a reconnection the uplink itself republishes from its cursor, in journal order,
and the journal is the only outbox. The client runs in the uplink's thread
(``loop``); its callbacks only note what happened, which the uplink then reads.

The last will is the table's ``offline`` status, retained, QoS 1: the broker publishes
it when the connection is lost without a DISCONNECT (a crash, a cut cable). A clean
stop sends no will, so the uplink publishes ``offline`` itself first.
"""

from __future__ import annotations

import ssl
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion, MQTTErrorCode, MQTTProtocolVersion
from paho.mqtt.reasoncodes import ReasonCode

from controller.uplink.messages import offline, status_topic
from controller.uplink.settings import Settings

KEEPALIVE = 30  # seconds between pings when idle; a dead link is noticed in 1.5 times that
CONNECT_TIMEOUT = 5.0  # seconds for TCP and TLS
RECEIVE_MAXIMUM = 65535  # MQTT 5's default when the CONNACK does not say


def tls_context(settings: Settings) -> ssl.SSLContext:
    """The broker's CA (and this table's certificate): ssl.SSLError or OSError when a
    file is not what it should be."""
    context = ssl.create_default_context(cafile=str(settings.broker.cafile))
    broker = settings.broker
    if broker.certfile is not None:
        context.load_cert_chain(
            str(broker.certfile), None if broker.keyfile is None else str(broker.keyfile)
        )
    return context


class Link:
    """A connection being made or made: ``connack``, ``lost``, and the ``acks`` (mid,
    reason) received since the uplink last took them."""

    def __init__(self, settings: Settings, context: ssl.SSLContext, password: str | None) -> None:
        self.settings = settings
        table = settings.table_id
        client = mqtt.Client(
            CallbackAPIVersion.VERSION2,
            client_id=f"tablectl-uplink-{table}",
            protocol=MQTTProtocolVersion.MQTTv5,
            reconnect_on_failure=False,
        )
        client.tls_set_context(context)
        if settings.broker.username is not None:
            client.username_pw_set(settings.broker.username, password)
        client.will_set(status_topic(table), offline(table), qos=1, retain=True)
        client.max_inflight_messages_set(settings.window)
        client.max_queued_messages_set(0)
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_publish = self._on_publish
        self.client = client
        self.connack: ReasonCode | None = None
        self.lost: ReasonCode | str | None = None
        self.acks: list[tuple[int, ReasonCode]] = []
        self.receive_maximum = RECEIVE_MAXIMUM

    def open(self) -> None:
        """TCP, TLS and the CONNECT packet; OSError (ssl.SSLError among them) when the
        broker cannot be reached."""
        self.client.connect_timeout = CONNECT_TIMEOUT
        self.client.connect(
            self.settings.broker.host,
            self.settings.broker.port,
            keepalive=KEEPALIVE,
            clean_start=True,
        )

    def _on_connect(
        self, client: Any, userdata: Any, flags: Any, reason: ReasonCode, props: Any
    ) -> None:
        self.connack = reason
        # MQTT 5: the broker takes at most this many QoS 1 messages unacknowledged
        # (paho does not apply it itself).
        self.receive_maximum = int(getattr(props, "ReceiveMaximum", RECEIVE_MAXIMUM))

    def _on_disconnect(
        self, client: Any, userdata: Any, flags: Any, reason: ReasonCode, props: Any
    ) -> None:
        self.lost = reason

    def _on_publish(
        self, client: Any, userdata: Any, mid: int, reason: ReasonCode, props: Any
    ) -> None:
        self.acks.append((mid, reason))

    def take_acks(self) -> list[tuple[int, ReasonCode]]:
        acks, self.acks = self.acks, []
        return acks

    def loop(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for the broker and handle what it sent: False
        once the connection is gone."""
        rc = self.client.loop(timeout)
        if rc != MQTTErrorCode.MQTT_ERR_SUCCESS and self.lost is None:
            self.lost = mqtt.error_string(rc)
        return self.lost is None

    def publish(self, topic: str, payload: bytes, retain: bool = False) -> int | None:
        """Publish QoS 1: the message id, or None when the connection is gone."""
        info = self.client.publish(topic, payload, qos=1, retain=retain)
        if info.rc != MQTTErrorCode.MQTT_ERR_SUCCESS:
            if self.lost is None:
                self.lost = mqtt.error_string(info.rc)
            return None
        return info.mid

    def close(self, clean: bool = True) -> None:
        """DISCONNECT (no will) when connected and ``clean``, then the socket closed;
        not ``clean``, the broker publishes the will."""
        if self.lost is None and clean:
            self.client.disconnect()
            self.client.loop(0.2)
        sock = self.client.socket()
        if sock is not None:
            sock.close()
