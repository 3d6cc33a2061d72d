"""The follower in-process, as the floor benchmark uses it (``Follower(settings,
on_row)``), on a real Mosquitto: each row handed over once with its receipt time, and
nothing lost or doubled when the broker is stopped and started again mid-stream (it
keeps the floor's persistent session and queue across its restart)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.floor.follower import Follower
from controller.floor.settings import BrokerSettings, FloorSettings
from controller.uplink.messages import JournalMessage
from tests.support.floor import FLOOR_PASSWORD, wait_for
from tests.support.mosquitto import Broker
from tests.support.mqttpub import Publisher

ROWS = 300


@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Broker]:
    root = tmp_path_factory.mktemp("follower")
    with Broker(root / "broker", {"floor": FLOOR_PASSWORD, "S21-01": "pw-1"}) as running:
        yield running


class Rows:
    def __init__(self) -> None:
        self.got: list[tuple[str, int, float]] = []
        self.lock = threading.Lock()

    def __call__(self, table: str, seq: int, message: JournalMessage, received: float) -> None:
        assert message.seq == seq and message.table == table
        with self.lock:
            self.got.append((table, seq, received))

    def seqs(self) -> list[int]:
        with self.lock:
            return [seq for _, seq, _ in self.got]


def _settings(broker: Broker, state: Path) -> FloorSettings:
    state.mkdir(parents=True, exist_ok=True)
    login = BrokerSettings("127.0.0.1", broker.port, broker.certs.ca, "floor", FLOOR_PASSWORD)
    return FloorSettings("bench-floor", state, login)


def test_rows_survive_a_broker_restart_each_once_in_order(broker: Broker, tmp_path: Path) -> None:
    rows = Rows()
    follower = Follower(_settings(broker, tmp_path / "state"), rows)
    follower.start()
    try:
        assert follower.connected.wait(10)
        publisher = Publisher(broker.port, broker.certs.ca, "S21-01", "pw-1")
        sent_at = time.time()
        publisher.rows([(1, {"type": "journal", "game": "spanish21"})])
        publisher.rows([(seq, {"type": "prompt", "text": "x"}) for seq in range(2, ROWS // 2)])
        publisher.close()
        wait_for(lambda: len(rows.seqs()) == ROWS // 2 - 1)
        broker.stop()  # the floor's session and the queue are saved
        wait_for(lambda: not follower.connected.is_set())
        broker.start()
        publisher = Publisher(broker.port, broker.certs.ca, "S21-01", "pw-1")
        publisher.rows(
            [(seq, {"type": "prompt", "text": "y"}) for seq in range(ROWS // 2, ROWS + 1)]
        )
        publisher.close()
        wait_for(lambda: len(rows.seqs()) >= ROWS, timeout=20)
    finally:
        follower.stop()
    assert rows.seqs() == list(range(1, ROWS + 1))
    assert all(received >= sent_at for _, _, received in rows.got)
    counts = follower.counts()
    assert counts["received"] == ROWS + counts["duplicates"] and counts["gaps"] == 0
    assert (
        follower.tracks()["S21-01"].seq == ROWS and follower.tracks()["S21-01"].game == "spanish21"
    )
