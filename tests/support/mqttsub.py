"""A floor-side subscriber for the uplink tests, written with paho-mqtt 2 directly (not
the code under test): a persistent MQTT 5 session (clean_start False, a session that
outlives a broker restart or a reconnection), QoS 1, TLS with the test CA, collecting
each (topic, payload) in the order received; paho's own loop thread reconnects it."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion, MQTTProtocolVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from controller.uplink.messages import JournalMessage, parse_journal
from tests.support.mosquitto import HOST, Broker

SESSION = 3600  # seconds the broker keeps the session while the subscriber is away


class Subscriber:
    def __init__(self, broker: Broker, password: str, topics: list[str], client_id: str,
                 user: str = "floor") -> None:  # fmt: skip
        self.topics = topics
        self.received: list[tuple[str, bytes]] = []
        self.lock = threading.Lock()
        self.subscribed = threading.Event()
        client = mqtt.Client(
            CallbackAPIVersion.VERSION2, client_id=client_id, protocol=MQTTProtocolVersion.MQTTv5
        )
        client.tls_set(ca_certs=str(broker.certs.ca))
        client.username_pw_set(user, password)
        client.reconnect_delay_set(1, 1)
        client.on_connect = self._connected
        client.on_message = self._message
        client.on_subscribe = lambda *a: self.subscribed.set()
        self.client = client
        props = Properties(PacketTypes.CONNECT)
        props.SessionExpiryInterval = SESSION
        client.connect(HOST, broker.port, keepalive=10, clean_start=False, properties=props)
        client.loop_start()
        assert self.subscribed.wait(10), "the subscriber did not subscribe"

    def _connected(self, client: Any, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if not reason.is_failure:
            client.subscribe([(topic, 1) for topic in self.topics])

    def _message(self, client: Any, userdata: Any, message: mqtt.MQTTMessage) -> None:
        with self.lock:
            self.received.append((message.topic, bytes(message.payload)))

    def messages(self, topic: str | None = None) -> list[tuple[str, bytes]]:
        with self.lock:
            return [m for m in self.received if topic is None or m[0] == topic]

    def journal(self, topic: str) -> list[JournalMessage]:
        return [parse_journal(payload) for _, payload in self.messages(topic)]

    def wait_for(self, done: Callable[[], bool], timeout: float = 20, what: str = "") -> None:
        deadline = time.monotonic() + timeout
        while not done():
            assert time.monotonic() < deadline, f"timed out waiting for {what or done}"
            time.sleep(0.02)

    def wait_seq(self, topic: str, seq: int, timeout: float = 20) -> None:
        """Until a journal message for row ``seq`` or later has arrived on ``topic``."""
        self.wait_for(
            lambda: any(m.seq >= seq for m in self.journal(topic)), timeout, f"{topic} seq {seq}"
        )

    def close(self) -> None:
        """Disconnect; the broker keeps the session (and queues for it) for SESSION s."""
        self.client.disconnect()
        self.client.loop_stop()
