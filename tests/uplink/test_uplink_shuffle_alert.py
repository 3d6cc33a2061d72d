"""The retained status carries the shuffle alerts no floorperson has acknowledged
(issue 14): a real SQLite journal holding ``shuffle_alert`` rows and an
acknowledgement, the real ``tablectl uplink`` and a real Mosquitto. The status is
rebuilt from row 1 at start (an alert acknowledged before the start is not shown, one
still waiting is), then follows the rows the table goes on writing, a new alert and
its acknowledgement each published at once."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.journal import SqliteJournal
from controller.uplink.messages import journal_topic, parse_status, status_topic
from tests.support.mosquitto import Broker
from tests.support.mqttsub import Subscriber
from tests.support.uplink import UplinkProcess, config, password_broker

FLOOR = "floor-secret"
USERS = {"SA1": "sa1-secret", "floor": FLOOR}
HEADER = {"type": "journal", "format": 1, "table": "SA1", "game": "baccarat", "sealing_key": None}


def alert(shoe: int, failed: list[str], p_values: dict[str, float]) -> dict[str, Any]:
    """A ``shuffle_alert`` row as the daemon writes it at a shoe's end."""
    tests = [{"name": k, "statistic": 1.0, "p_value": p, "n": 10} for k, p in p_values.items()]
    return {
        "type": "shuffle_alert",
        "shoe": shoe,
        "game": "baccarat",
        "confidence": 0.99,
        "window": 10,
        "threshold": 0.001,
        "failed": failed,
        "p_values": p_values,
        "tests": tests,
        "tested_on": "2026-12-02T04:00:00+00:00",
    }


def acknowledge(shoe: int) -> dict[str, Any]:
    return {
        "type": "command",
        "command": "acknowledge_shuffle_alert",
        "shoe": shoe,
        "login": "fred",
    }


@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Broker]:
    with Broker(tmp_path_factory.mktemp("broker"), USERS) as running:
        yield running


def test_the_status_carries_the_alerts_waiting_rebuilt_then_followed(
    broker: Broker, tmp_path: Path
) -> None:
    journal, topic = tmp_path / "journal.db", status_topic("SA1")
    with SqliteJournal(journal) as writer:
        writer.record(HEADER)
        writer.record({"type": "shuffled", "shoe": 2})
        writer.record(alert(2, ["rising_sequences"], {"rising_sequences": 1e-5}))
        writer.record(acknowledge(2))  # before the uplink starts: not shown
        writer.record(
            alert(
                3,
                ["rising_sequences", "spearman@window"],
                {"rising_sequences": 2e-4, "spearman@window": 3e-6, "chi2": 0.4},
            )
        )
        writer.record({"type": "shuffled", "shoe": 4})
    sub = Subscriber(broker, FLOOR, [topic, journal_topic("SA1")], "floor-sa1")

    def statuses() -> list[dict[str, Any]]:
        return [parse_status(payload) for _, payload in sub.messages(topic)]

    def at(seq: int) -> dict[str, Any]:
        sub.wait_for(lambda: any(s.get("seq") == seq for s in statuses()), what=f"status {seq}")
        return next(s for s in statuses() if s.get("seq") == seq)

    conf = config(tmp_path / "u", "SA1", journal, password_broker(broker, "SA1", tmp_path / "pw"))
    with UplinkProcess(conf) as uplink:
        first = at(6)
        assert first["shuffle_alert"] == {
            "shoes": [3],
            "latest": {
                "shoe": 3,
                "failed": ["rising_sequences", "spearman@window"],
                "p_value": 3e-6,
                "confidence": 0.99,
            },
        }
        with SqliteJournal(journal) as writer:  # the table goes on: a later shoe's alert
            writer.record(alert(5, ["position_chi2"], {"position_chi2": 1e-4}))
        assert at(7)["shuffle_alert"]["shoes"] == [3, 5]
        assert uplink.stop() == 0
    with UplinkProcess(conf) as uplink:  # restarted: rebuilt from row 1, both still wait
        sub.wait_for(lambda: len([s for s in statuses() if s.get("seq") == 7]) >= 2)
        again = [s for s in statuses() if s.get("seq") == 7][-1]
        assert again["shuffle_alert"]["shoes"] == [3, 5]
        assert again["shuffle_alert"]["latest"] == {
            "shoe": 5,
            "failed": ["position_chi2"],
            "p_value": 1e-4,
            "confidence": 0.99,
        }
        with SqliteJournal(journal) as writer:  # shoe 5's acknowledgement covers shoe 3's
            writer.record(acknowledge(5))
        assert at(8)["shuffle_alert"] is None
        assert uplink.stop() == 0
    sub.close()
