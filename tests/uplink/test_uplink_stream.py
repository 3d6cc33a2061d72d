"""``tablectl uplink`` streaming a real table's journal into a real Mosquitto (TLS, the
example ACL), read by a floor subscriber with a persistent session: a whole shoe row
for row; a broker outage and an uplink crash mid-shoe with nothing lost; a cursor that
survives a restart; a client certificate instead of a password."""

from __future__ import annotations

import json
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.boards.tablestate import TableState
from controller.journal import SqliteJournal
from controller.uplink.messages import journal_topic, parse_status, status_topic
from tests.support.mosquitto import Broker
from tests.support.mqttsub import Subscriber
from tests.support.uplink import (
    UplinkProcess,
    cert_broker,
    config,
    cursor_of,
    password_broker,
    rows,
    simulated_table,
    wait_for_file,
)

FLOOR = "floor-secret"
USERS = {"T1": "t1-secret", "T4": "t4-secret", "T6": "t6-secret", "T7": "t7-secret", "floor": FLOOR}
OUTAGE = 3.0  # seconds the broker is down


@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Broker]:
    with Broker(tmp_path_factory.mktemp("broker"), USERS) as running:
        yield running


def subscriber(broker: Broker, table: str, name: str) -> Subscriber:
    return Subscriber(broker, FLOOR, [journal_topic(table), status_topic(table)], name)


def statuses(sub: Subscriber, table: str) -> list[dict[str, object]]:
    return [parse_status(payload) for _, payload in sub.messages(status_topic(table))]


def test_a_whole_shoe_reaches_the_floor_row_for_row(broker: Broker, tmp_path: Path) -> None:
    table = tmp_path / "table"
    daemon = simulated_table(table, "--rounds", "84", "--pace-ms", "0", "--seed", "3")
    journal = table / "journal.db"
    sub = subscriber(broker, "T1", "floor-shoe")
    wait_for_file(journal)
    conf = config(tmp_path / "u", "T1", journal, password_broker(broker, "T1", tmp_path / "pw"))
    with UplinkProcess(conf) as uplink:  # it reads while the table writes
        assert daemon.wait(60) == 0
        stored = rows(journal)
        last = stored[-1][0]
        sub.wait_seq(journal_topic("T1"), last, timeout=30)
        sub.wait_for(lambda: any(s.get("seq") == last for s in statuses(sub, "T1")))
        assert uplink.stop() == 0
    entries = [json.loads(body) for _, _, body, _ in stored]
    assert {"shuffled", "shoe_end"} <= {e["type"] for e in entries}  # the whole first shoe
    got = sub.journal(journal_topic("T1"))
    assert [(m.table, m.seq, m.ts, m.hash) for m in got] == [
        ("T1", s, t, h) for s, t, _, h in stored
    ]
    assert [m.entry for m in got] == entries
    final = [s for s in statuses(sub, "T1") if s["online"]][-1]
    assert final["seq"] == last and final["at"] == stored[-1][1]
    assert {k: final[k] for k in ("state", "shoe", "round")} == _state(stored)
    assert final["devices"] == {"shoe": "connected", "shuffler": "connected"}
    assert statuses(sub, "T1")[-1] == {"table": "T1", "online": False}  # said at the stop
    assert cursor_of(tmp_path / "u" / "state") == {
        "table": "T1",
        "seq": last,
        "hash": stored[-1][3],
    }
    sub.close()


def test_a_broker_outage_and_an_uplink_crash_lose_nothing(
    broker: Broker, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = tmp_path / "table"
    daemon = simulated_table(table, "--rounds", "32", "--pace-ms", "40", "--seed", "5")
    journal, topic = table / "journal.db", journal_topic("T4")
    sub = subscriber(broker, "T4", "floor-outage")
    wait_for_file(journal)
    conf = config(tmp_path / "u", "T4", journal, password_broker(broker, "T4", tmp_path / "pw"))
    with UplinkProcess(conf) as first:
        sub.wait_seq(topic, 60)
        broker.stop()
        before = len(rows(journal))
        time.sleep(OUTAGE)  # the outage itself: the table goes on writing meanwhile
        written = len(rows(journal)) - before
        broker.start()
        first.wait_log("uplink_connected", 2)
        sub.wait_seq(topic, before + written)
        wills = len([s for s in statuses(sub, "T4") if not s["online"]])
        first.kill()  # mid-shoe: the table is still dealing
        assert daemon.poll() is None, "the table ended before the crash: slow it down"
        sub.wait_for(lambda: len([s for s in statuses(sub, "T4") if not s["online"]]) > wills)
    with UplinkProcess(conf) as second:
        assert daemon.wait(60) == 0
        stored = rows(journal)
        sub.wait_seq(topic, stored[-1][0], timeout=30)
        assert second.stop() == 0
    seqs = [m.seq for m in sub.journal(topic)]
    first_seen = list(dict.fromkeys(seqs))
    figures = {
        "rows_published": len(stored),
        "rows_written_during_outage": written,
        "messages_received": len(seqs),
        "duplicates": len(seqs) - len(first_seen),
        "gaps": len(set(range(1, stored[-1][0] + 1)) - set(seqs)),
    }
    (tmp_path / "outage.json").write_text(json.dumps(figures) + "\n", encoding="utf-8")
    with capsys.disabled():
        print(f"\nuplink outage test: {json.dumps(figures)}")
    assert written > 0 and figures["gaps"] == 0
    assert first_seen == [s for s, _, _, _ in stored]  # every row, in order, after dedup
    assert figures["duplicates"] <= 2 * 64  # what was in flight at the two cuts (window 64)
    got = {m.seq: m for m in sub.journal(topic)}
    assert all(got[s].hash == h for s, _, _, h in stored)
    # The restarted uplink's status, rebuilt from row 1: the devices connected long
    # before its cursor are in it.
    final = [s for s in statuses(sub, "T4") if s["online"]][-1]
    assert final["seq"] == stored[-1][0]
    assert {k: final[k] for k in ("state", "shoe", "round")} == _state(stored)
    assert final["devices"] == {"shoe": "connected", "shuffler": "connected"}
    sub.close()


def _state(stored: list[tuple[int, str, str, str]]) -> dict[str, object]:
    table_state = TableState()
    for _, _, body, _ in stored:
        table_state.feed(json.loads(body))
    return table_state.view()


def _journal(path: Path, first: int, count: int) -> None:
    with SqliteJournal(path) as journal:
        for n in range(first, first + count):
            journal.record({"type": "prompt", "text": f"LINE {n}", "shown": True})


def test_the_cursor_survives_a_restart(broker: Broker, tmp_path: Path) -> None:
    journal, topic = tmp_path / "journal.db", journal_topic("T6")
    _journal(journal, 1, 40)
    sub = subscriber(broker, "T6", "floor-cursor")
    conf = config(tmp_path / "u", "T6", journal, password_broker(broker, "T6", tmp_path / "pw"))
    with UplinkProcess(conf) as uplink:
        sub.wait_seq(topic, 40)
        assert uplink.stop() == 0
    hash_40 = rows(journal)[39][3]
    assert cursor_of(tmp_path / "u" / "state") == {"table": "T6", "seq": 40, "hash": hash_40}
    _journal(journal, 41, 20)
    with UplinkProcess(conf) as uplink:
        sub.wait_seq(topic, 60)
        assert uplink.stop() == 0
        started = uplink.events("uplink_started")
    assert [m.seq for m in sub.journal(topic)] == list(range(1, 61))  # none of 1-40 again
    assert [e["cursor"] for e in started] == [0, 40]  # the same log file: both runs
    sub.close()


def test_the_uplink_follows_the_table_across_a_daemon_restart(
    broker: Broker, tmp_path: Path
) -> None:
    # The uplink's reader keeps the journal's write-ahead log while the daemon is away;
    # the daemon starts again on it as after any stop.
    table, topic = tmp_path / "table", journal_topic("T7")
    first = simulated_table(table, "--rounds", "1", "--pace-ms", "0", "--seed", "1")
    journal = table / "journal.db"
    sub = subscriber(broker, "T7", "floor-restart")
    wait_for_file(journal)
    conf = config(tmp_path / "u", "T7", journal, password_broker(broker, "T7", tmp_path / "pw"))
    with UplinkProcess(conf) as uplink:
        assert first.wait(60) == 0
        sub.wait_seq(topic, len(rows(journal)))
        again = simulated_table(table, "--rounds", "1", "--pace-ms", "0", "--seed", "1")
        assert again.wait(60) == 0
        stored = rows(journal)
        sub.wait_seq(topic, stored[-1][0])
        assert uplink.stop() == 0
    assert [(m.seq, m.hash) for m in sub.journal(topic)] == [(s, h) for s, _, _, h in stored]
    sub.close()


def test_a_client_certificate_logs_the_table_in(broker: Broker, tmp_path: Path) -> None:
    journal, topic = tmp_path / "journal.db", journal_topic("C1")
    _journal(journal, 1, 5)
    sub = subscriber(broker, "C1", "floor-cert")
    conf = config(tmp_path / "u", "C1", journal, cert_broker(broker, "C1"))
    with UplinkProcess(conf) as uplink:
        sub.wait_seq(topic, 5)
        assert uplink.stop(sig=signal.SIGINT) == 0  # Ctrl-C: the same clean stop
    assert [m.seq for m in sub.journal(topic)] == [1, 2, 3, 4, 5]
    assert statuses(sub, "C1")[-1] == {"table": "C1", "online": False}
    sub.close()
