"""The table's side of the floor protocol for the floor's tests: a publisher of
correctly formed messages (controller/uplink/messages.py, the same functions the uplink
uses) under a table's own login, with its last will, on a real broker.

``Publisher(broker, table, password)`` in the test's process; ``python -m
tests.support.mqttpub PORT CAFILE TABLE PASSWORD`` as a process of its own that
publishes an online status, prints ``ready`` and waits: SIGKILL it and the broker
publishes its last will (the table offline), as for an uplink that died.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion, MQTTProtocolVersion

from controller.uplink.messages import (
    journal_message,
    journal_topic,
    offline,
    status_message,
    status_topic,
)

HOST = "127.0.0.1"
WAIT = 10.0


def _client(port: int, cafile: Path, table: str, password: str) -> mqtt.Client:
    client = mqtt.Client(
        CallbackAPIVersion.VERSION2, client_id=f"pub-{table}", protocol=MQTTProtocolVersion.MQTTv5
    )
    client.tls_set(ca_certs=str(cafile))
    client.username_pw_set(table, password)
    client.will_set(status_topic(table), offline(table), qos=1, retain=True)
    up = threading.Event()
    client.on_connect = lambda c, u, f, reason, p: up.set() if not reason.is_failure else None
    client.connect(HOST, port, 30)
    client.loop_start()
    assert up.wait(WAIT), f"{table}: the broker did not accept the publisher"
    return client


def now() -> str:
    return datetime.now(UTC).isoformat()


class Publisher:
    """One table publishing its rows (QoS 1) and its retained status."""

    def __init__(self, port: int, cafile: Path, table: str, password: str) -> None:
        self.table = table
        self.client = _client(port, cafile, table, password)

    def _publish(self, seq: int, entry: dict[str, Any]) -> mqtt.MQTTMessageInfo:
        body = json.dumps(entry, sort_keys=True)
        digest = hashlib.sha256(body.encode()).hexdigest()
        payload = journal_message(self.table, seq, now(), body, digest)
        return self.client.publish(journal_topic(self.table), payload, qos=1)

    def row(self, seq: int, entry: dict[str, Any]) -> None:
        self._publish(seq, entry).wait_for_publish(WAIT)

    def rows(self, entries: list[tuple[int, dict[str, Any]]]) -> None:
        """Each row in order, then wait until the broker has acknowledged them all."""
        for info in [self._publish(seq, entry) for seq, entry in entries]:
            info.wait_for_publish(WAIT)

    def journal(self, path: Path, after: int = 0, upto: int | None = None) -> int:
        """The rows of a real journal after ``after`` (up to ``upto``), each as stored
        (its time, body and hash); the last seq sent."""
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            rows = db.execute(
                "SELECT seq, ts, body, hash FROM rows WHERE seq > ? AND seq <= ? ORDER BY seq",
                (after, upto if upto is not None else 2**62),
            ).fetchall()
        finally:
            db.close()
        infos = [
            self.client.publish(journal_topic(self.table), journal_message(self.table, *row), qos=1)
            for row in rows
        ]
        for info in infos:
            info.wait_for_publish(WAIT)
        return int(rows[-1][0]) if rows else after

    def raw(self, payload: bytes) -> None:
        """Anything on the table's journal topic (the ACL lets it publish there)."""
        self.client.publish(journal_topic(self.table), payload, qos=1).wait_for_publish(WAIT)

    def status(self, **fields: object) -> None:
        payload = status_message(self.table, {"at": now(), **fields})
        self.client.publish(status_topic(self.table), payload, qos=1, retain=True).wait_for_publish(
            WAIT
        )

    def close(self) -> None:
        """A clean disconnect: the will is not sent."""
        self.client.disconnect()
        self.client.loop_stop()


def spawn(port: int, cafile: Path, table: str, password: str) -> subprocess.Popen[str]:
    """The publisher as its own process, once its status is published."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.support.mqttpub", str(port), str(cafile), table, password],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line.strip() == "ready", f"the publisher of {table} did not start: {line!r}"
    return proc


def main(argv: list[str]) -> None:
    port, cafile, table, password = argv
    publisher = Publisher(int(port), Path(cafile), table, password)
    publisher.status(state="place your bets", shoe=1, round=1, halted=False, devices={}, seq=0)
    print("ready", flush=True)
    while True:
        time.sleep(60)


if __name__ == "__main__":
    main(sys.argv[1:])
