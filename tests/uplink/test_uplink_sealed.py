"""The hole card never leaves the table before its reveal (551.8(e)), through the
uplink either: a real Spanish 21 table's rounds reach the floor with each hole card
sealed until its reveal row, and a journal row in which a card marked sealed carries
a value leaves as the events socket's ``withheld`` notice, without the card."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.journal import SqliteJournal
from controller.uplink.messages import JournalMessage, journal_topic
from tests.support.mosquitto import Broker
from tests.support.mqttsub import Subscriber
from tests.support.uplink import UplinkProcess, config, password_broker, rows, simulated_table

FLOOR = "floor-secret"
USERS = {"S21": "s21-secret", "S22": "s22-secret", "floor": FLOOR}
CARD = "QS"


@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Broker]:
    with Broker(tmp_path_factory.mktemp("broker"), USERS) as running:
        yield running


def _hole_cards(messages: list[JournalMessage]) -> list[tuple[int, int, dict[str, Any]]]:
    """(seq of the first row sealing it, seq of its reveal, the reveal entry) of each
    round's hole card, found by its seal; every row sealing it holds no card."""
    found = []
    for reveal in (m for m in messages if (m.entry or {}).get("type") == "reveal"):
        (opening,) = reveal.entry["opened"]  # type: ignore[index]
        sealing = [m for m in messages if (m.entry or {}).get("seal") == opening["seal"]]
        assert [(m.entry or {}).get("type") for m in sealing] == ["device", "dealt"]
        assert all(m.entry == {**(m.entry or {}), "card": None, "sealed": True} for m in sealing)
        assert all(m.seq < reveal.seq for m in sealing)
        found.append((sealing[0].seq, reveal.seq, reveal.entry or {}))
    return found


@pytest.mark.reg("551.8(e)")
def test_a_hole_card_is_sealed_until_its_reveal(broker: Broker, tmp_path: Path) -> None:
    table = tmp_path / "table"
    daemon = simulated_table(
        table, "--game", "spanish21", "--rounds", "3", "--pace-ms", "0", "--seed", "3"
    )
    assert daemon.wait(60) == 0
    journal, topic = table / "journal.db", journal_topic("S21")
    sub = Subscriber(broker, FLOOR, [topic], "floor-s21")
    conf = config(tmp_path / "u", "S21", journal, password_broker(broker, "S21", tmp_path / "pw"))
    stored = rows(journal)
    with UplinkProcess(conf) as uplink:
        sub.wait_seq(topic, stored[-1][0])
        assert uplink.stop() == 0
    messages = sub.journal(topic)
    assert [(m.seq, m.entry) for m in messages] == [(s, json.loads(b)) for s, _, b, _ in stored]
    holes = _hole_cards(messages)
    assert len(holes) == 3
    payloads = {m.seq: m for m in messages}
    raw = {parse_seq(payload): payload for _, payload in sub.messages(topic)}
    for sealed, revealed, reveal in holes:
        card, (opening,) = reveal["card"], reveal["opened"]
        assert opening["card"] == card
        for seq in range(sealed, revealed):
            assert opening["nonce"].encode() not in raw[seq]  # nothing opens the seal early
            entry = payloads[seq].entry or {}
            if card.encode() in raw[seq]:  # the same rank and suit from another deck
                assert entry.get("card") == card and not entry.get("sealed"), entry
                assert entry.get("to") != "dealer" or entry.get("face_up"), entry
        assert card.encode() in raw[revealed]
    sub.close()


def parse_seq(payload: bytes) -> int:
    return int(json.loads(payload)["seq"])


@pytest.mark.reg("551.8(e)")
def test_a_sealed_card_with_a_value_leaves_as_withheld(broker: Broker, tmp_path: Path) -> None:
    journal, topic = tmp_path / "journal.db", journal_topic("S22")
    with SqliteJournal(journal) as writer:
        writer.record({"type": "wager", "round": 1, "box": 1, "bet": "spanish21", "amount": "10"})
        writer.record({"type": "dealt", "round": 1, "to": "dealer", "card": CARD, "sealed": True,
                       "face_up": False})  # fmt: skip
        writer.record({"type": "prompt", "text": "BOX 1: 12", "shown": True})
    sub = Subscriber(broker, FLOOR, [topic], "floor-s22")
    conf = config(tmp_path / "u", "S22", journal, password_broker(broker, "S22", tmp_path / "pw"))
    with UplinkProcess(conf) as uplink:
        sub.wait_seq(topic, 3)
        assert uplink.stop() == 0
    messages = sub.journal(topic)
    assert [m.event["type"] for m in messages] == ["event", "withheld", "event"]
    withheld = messages[1].event
    assert withheld["entry_type"] == "dealt" and "551.8(e)" in withheld["reason"]
    assert messages[1].entry is None and messages[1].hash == rows(journal)[1][3]
    assert all(CARD.encode() not in payload for _, payload in sub.messages(topic))
    assert CARD not in uplink.log()
    sub.close()
