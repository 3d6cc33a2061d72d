"""``tablectl floor`` as a process on a real Mosquitto (TLS, the example ACL), fed by
tables' publishers (tests/support/mqttpub.py: the protocol's own message functions,
each table under its own login, a real simulated table's journal replayed row for row):
every row in the pit, duplicates dropped, a gap shown, the need-first order, /pit
behind a floor login, a floor restarted that misses nothing published while it was
down (its persistent session), a broker refusing the floor's password."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from controller.uplink.messages import journal_message
from tests.support.boards import journal_rows, settled
from tests.support.browser import chromium, open_page
from tests.support.floor import (
    FLOOR_PASSWORD,
    Floor,
    config,
    pit,
    settles,
    start,
    tables,
    users_file,
    wait_for,
)
from tests.support.mosquitto import Broker
from tests.support.mqttpub import Publisher, now, spawn
from tests.support.uplink import UplinkProcess, password_broker, simulated_table, wait_for_file
from tests.support.uplink import config as uplink_config
from tests.support.web import Client

TABLES = [f"BAC-{n:02d}" for n in range(1, 20)]
HEADER = {"type": "journal", "format": 1, "game": "baccarat", "sealing_key": None}


def alert(shoe: int, failed: list[str], p_values: dict[str, float]) -> dict[str, object]:
    """A ``shuffle_alert`` row as the daemon journals it at a shoe's end."""
    return {"type": "shuffle_alert", "shoe": shoe, "game": "baccarat", "confidence": 0.99,
            "window": 10, "failed": failed, "p_values": p_values}  # fmt: skip


def acknowledge(shoe: int) -> dict[str, object]:
    return {"type": "command", "command": "acknowledge_shuffle_alert", "shoe": shoe,
            "login": "fred"}  # fmt: skip


@dataclass
class Env:
    root: Path
    broker: Broker
    users: Path
    journal: Path
    floor: Floor
    fred: Client

    def publisher(self, table: str) -> Publisher:
        return Publisher(self.broker.port, self.broker.certs.ca, table, f"pw-{table}")

    def subscribed(self, fred: Client, table: str) -> Publisher:
        """``table``'s publisher once the floor behind ``fred`` has its status: it has
        subscribed (a new floor gets only what is published after that)."""
        publisher = self.publisher(table)
        publisher.status(state="starting", shoe=None, round=None, halted=False, devices={})
        wait_for(lambda: table in tables(fred))
        return publisher


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as running:
        yield running


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Env]:
    root = tmp_path_factory.mktemp("floorstack")
    # A simulated table plays 3 rounds meanwhile: its journal is replayed below.
    (root / "table").mkdir()
    table = simulated_table(root / "table", "--rounds", "3", "--pace-ms", "0", "--seed", "7")
    logins = {"floor": FLOOR_PASSWORD, **{t: f"pw-{t}" for t in TABLES}}
    broker = Broker(root / "broker", logins).start()
    try:
        users = users_file(root / "users.toml")
        floor = start(config(root / "floor", broker, users))
        assert table.wait(60) == 0
        journal = root / "table" / "journal.db"
        try:
            env = Env(root, broker, users, journal, floor, floor.client("fred"))
            env.subscribed(env.fred, "BAC-19").close()
            yield env
        finally:
            floor.stop()
    finally:
        broker.stop()


def test_pit_and_its_json_need_a_floor_login(env: Env) -> None:
    anonymous = Client(env.floor.base)
    status, headers, _ = anonymous.request("GET", "/pit")
    assert status == 303 and headers["Location"] == "/login?next=/pit"
    assert anonymous.request("GET", "/api/pit")[0] == 401
    dealer = env.floor.client("dana")
    status, _, html = dealer.request("GET", "/pit")
    assert status == 403 and "needs a floor login" in html
    assert dealer.request("GET", "/api/pit")[0] == 403
    status, headers, html = env.fred.request("GET", "/pit")
    assert status == 200 and "/floor-static/floor.js" in html and 'id="tables"' in html
    assert "default-src 'self'" in headers["Content-Security-Policy"]
    status, _, script = anonymous.request("GET", "/floor-static/floor.js")
    assert status == 200 and "/api/pit" in script
    assert env.fred.request("GET", "/floor")[1]["Location"] == "/pit"  # a floor login's home


def test_every_row_of_several_tables_reaches_the_pit(env: Env) -> None:
    rows = journal_rows(env.journal)
    rounds = settled(rows)
    before = pit(env.fred)["counters"]
    for table in ("BAC-01", "BAC-02", "BAC-03"):
        publisher = env.publisher(table)
        last = publisher.journal(env.journal)
        publisher.close()
    assert last == rows[-1][0]
    views = wait_for(lambda: (v := tables(env.fred)) and all(
        v.get(t, {}).get("seq") == last for t in ("BAC-01", "BAC-02", "BAC-03")) and v)  # fmt: skip
    for table in ("BAC-01", "BAC-02", "BAC-03"):
        view = views[table]
        assert view["game"] == "baccarat" and view["rounds"] == len(rounds) == 3
        assert view["round"] == rounds[-1]["round"] and view["missing"] == []
    after = pit(env.fred)["counters"]
    assert after["received"] - before["received"] == 3 * len(rows)
    assert after["duplicates"] == before["duplicates"] and after["gaps"] == before["gaps"]


def test_duplicates_are_dropped_and_a_gap_is_shown(env: Env) -> None:
    before = pit(env.fred)["counters"]
    publisher = env.publisher("BAC-05")
    publisher.rows([(1, HEADER), (2, {"type": "shuffled", "shoe": 1})])
    publisher.rows([(2, {"type": "shuffled", "shoe": 1}), (1, HEADER)])  # sent again
    publisher.rows([(6, {"type": "no_more_bets", "round": 1})])  # 3 to 5 lost
    view = wait_for(lambda: tables(env.fred).get("BAC-05", {}).get("seq") == 6 and
                    tables(env.fred)["BAC-05"])  # fmt: skip
    assert view["missing"] == [[3, 5]] and view["missing_rows"] == 3 and "gap" in view["needs"]
    counters = pit(env.fred)["counters"]
    assert counters["duplicates"] - before["duplicates"] == 2
    assert counters["gaps"] - before["gaps"] == 1 and counters["missing"] - before["missing"] == 3
    gap = [json.loads(line[3:]) for line in env.floor.log().splitlines() if "floor_gap" in line]
    assert {"table": "BAC-05", "first_missing": 3, "last_missing": 5, "rows": 3}.items() <= gap[
        -1
    ].items()
    publisher.rows([(4, {"type": "wager", "seat": 1, "bet": "banker", "amount": 10})])  # late
    wait_for(lambda: tables(env.fred)["BAC-05"]["missing"] == [[3, 3], [5, 5]])
    # On its own topic, a message naming another table, and one that is not JSON.
    publisher.raw(journal_message("BAC-06", 7, now(), json.dumps(HEADER), "00" * 32))
    publisher.raw(b"not json")
    wait_for(lambda: pit(env.fred)["counters"]["invalid"] - before["invalid"] == 2)
    assert "BAC-06" not in tables(env.fred) and tables(env.fred)["BAC-05"]["seq"] == 6
    publisher.close()


def test_the_tables_that_need_a_floorperson_come_first(env: Env) -> None:
    mine = ["BAC-10", "BAC-11", "BAC-12", "BAC-13", "BAC-14", "BAC-15", "BAC-17"]
    quiet, halted, offline, lost, gap, fault, alerted = mine
    for table in (quiet, halted, lost, gap, fault, alerted):
        publisher = env.publisher(table)
        publisher.status(state="place your bets", shoe=1, round=2, halted=False, devices={})
        publisher.rows([(1, HEADER), (2, {"type": "shuffled", "shoe": 1})])
        extra = {
            halted: {
                "type": "halt",
                "cause": "shuffler_jam",
                "device": "shuffler",
                "section": "545.4",
            },
            lost: {"type": "device", "event": "device_lost", "device": "shoe"},
            fault: {"type": "irregularity", "cause": "card_face_up", "section": "545.10"},
            alerted: alert(1, ["rising_sequences"], {"rising_sequences": 1e-5}),
        }.get(table)
        if extra is not None:
            publisher.row(3, extra)
        if table == gap:
            publisher.row(9, {"type": "no_more_bets", "round": 1})
        publisher.close()  # a clean disconnect: no last will
    dying = spawn(env.broker.port, env.broker.certs.ca, offline, f"pw-{offline}")
    wait_for(lambda: tables(env.fred).get(offline, {}).get("online") is True)
    os.kill(dying.pid, signal.SIGKILL)  # the uplink dies: the broker sends its will
    dying.wait()

    def order() -> list[str]:
        return [v["table"] for v in pit(env.fred)["tables"] if v["table"] in mine]

    settles(order, [offline, halted, fault, lost, alerted, gap, quiet])
    views = tables(env.fred)
    assert views[halted]["needs"] == ["stopped", "fault"]
    assert views[halted]["state"] == "play stopped: floorperson called"
    assert views[lost]["needs"] == ["device"] and views[lost]["devices"] == {"shoe": "lost"}
    assert views[gap]["needs"] == ["gap"] and views[quiet]["needs"] == []
    assert views[alerted]["needs"] == ["shuffle"]
    assert views[alerted]["shuffle_alert"]["latest"]["failed"] == ["rising_sequences"]
    assert views[offline]["needs"] == ["offline"] and views[offline]["state"] == "place your bets"
    everyone = [v["table"] for v in pit(env.fred)["tables"]]
    assert everyone.index(offline) == 0  # before every other table on the floor


def test_a_restarted_floor_misses_nothing_published_while_it_was_down(env: Env) -> None:
    rows = journal_rows(env.journal)
    second = start(config(env.root / "floor2", env.broker, env.users, client_id="floor-2"))
    fred = second.client("fred")
    publisher = env.subscribed(fred, "BAC-07")
    cut = publisher.journal(env.journal, upto=10)
    wait_for(lambda: tables(fred).get("BAC-07", {}).get("seq") == cut)
    assert second.stop() == 0  # SIGTERM: saved, acknowledged, session kept
    last = publisher.journal(env.journal, after=cut)  # the floor is down
    publisher.close()
    saved = json.loads((env.root / "floor2" / "state" / "tracks.json").read_text())
    assert saved["tables"]["BAC-07"] == {"seq": cut, "game": "baccarat", "missing": []}
    again = start(config(env.root / "floor2", env.broker, env.users, client_id="floor-2"))
    try:
        fred = again.client("fred")
        view = wait_for(lambda: tables(fred).get("BAC-07", {}).get("seq") == last and
                        tables(fred)["BAC-07"])  # fmt: skip
        counters = pit(fred)["counters"]
        assert counters["received"] == last - cut  # each row once: no duplicate, no gap
        assert counters["duplicates"] == 0 and counters["gaps"] == 0 and view["missing"] == []
        assert view["game"] == "baccarat"  # from the saved track: the header came before
        assert view["rounds"] == len(settled(rows)) and last == rows[-1][0]
        assert '"session_present": true' in again.log()
    finally:
        assert again.stop() == 0


def test_a_refused_password_is_one_line_a_retry_until_the_file_holds_the_right_one(
    env: Env,
) -> None:
    path = config(env.root / "floor3", env.broker, env.users, client_id="floor-3", password="no")
    refused = start(path)
    try:
        wait_for(lambda: refused.log().count("floor_broker_refused") >= 2)
        assert refused.proc.poll() is None
        lines = [json.loads(line[3:]) for line in refused.log().splitlines()]
        said = [line for line in lines if line["level"] != "info"]
        assert all(line["event"] == "floor_broker_refused" for line in said), said
        assert said[0]["reason"] == "Not authorized" and said[0]["user"] == "floor"
        fred = refused.client("fred")
        assert pit(fred)["connected"] is False and pit(fred)["tables"] == []
        # The right password into its file: read again at the next try, no restart.
        (env.root / "floor3" / "password").write_text(FLOOR_PASSWORD + "\n", encoding="utf-8")
        wait_for(lambda: pit(fred)["connected"], timeout=20)
    finally:
        assert refused.stop(signal.SIGINT) == 0  # Ctrl-C too: exit 0, no traceback
    assert "Traceback" not in refused.log()


def test_a_floor_killed_mid_stream_gets_every_row_after_its_restart(env: Env) -> None:
    path = config(env.root / "floor4", env.broker, env.users, client_id="floor-4")
    killed = start(path)
    fred = killed.client("fred")
    publisher = env.subscribed(fred, "BAC-08")
    entries = [(1, HEADER)] + [(seq, {"type": "prompt", "text": "x"}) for seq in range(2, 401)]

    def paced() -> None:  # about a row a millisecond: the crash comes mid-stream
        for seq, entry in entries:
            publisher.row(seq, entry)
            time.sleep(0.001)

    sender = threading.Thread(target=paced)
    sender.start()
    state = env.root / "floor4" / "state" / "tracks.json"
    wait_for(lambda: tables(fred).get("BAC-08", {}).get("seq", 0) >= 100, step=0.01)
    wait_for(state.exists, step=0.01)
    killed.proc.kill()  # a crash: what it had not saved is not acknowledged either
    killed.proc.wait()
    kept = json.loads(state.read_text())["tables"]["BAC-08"]["seq"]
    sender.join()
    publisher.close()
    assert 1 <= kept < 400
    again = start(path)
    try:
        fred = again.client("fred")
        view = wait_for(lambda: tables(fred).get("BAC-08", {}).get("seq") == 400 and
                        tables(fred)["BAC-08"])  # fmt: skip
        counters = pit(fred)["counters"]
        assert counters["gaps"] == 0 and view["missing"] == [] and view["game"] == "baccarat"
        # Every row after the last one it had kept, once: the broker sent again what
        # the killed floor had received but not acknowledged.
        assert counters["received"] - counters["duplicates"] == 400 - kept
        print(f"floor SIGKILLed at row {kept} kept of 400: after its restart "
              f"{counters['received']} received, {counters['duplicates']} duplicates, "
              f"{counters['gaps']} gaps")  # fmt: skip
    finally:
        assert again.stop() == 0


def test_a_floor_browser_sees_every_table_in_need_order_updating_live(
    env: Env, browser: Browser
) -> None:
    publisher = env.subscribed(env.fred, "BAC-16")
    publisher.rows([(1, HEADER), (2, {"type": "shuffled", "shoe": 1})])
    page = open_page(browser, env.floor.base, "/pit", login="fred").page
    card = page.locator('section[data-table="BAC-16"]')
    card.wait_for()
    assert card.get_attribute("data-needs") == "" and "nothing needed" in card.inner_text()
    shown = page.eval_on_selector_all("section[data-table]", "s => s.map(n => n.dataset.table)")
    assert shown == [v["table"] for v in pit(env.fred)["tables"]]
    publisher.row(3, {"type": "halt", "cause": "shuffler_jam", "device": "shuffler"})
    page.wait_for_selector('section[data-table="BAC-16"][data-needs="stopped fault"]')
    assert "play stopped: floorperson called" in card.inner_text()
    shown = page.eval_on_selector_all("section[data-table]", "s => s.map(n => n.dataset.table)")
    quiet = [v["table"] for v in pit(env.fred)["tables"] if not v["needs"]]
    assert shown.index("BAC-16") < min(shown.index(t) for t in quiet)
    page.context.close()
    publisher.close()


def test_the_pit_page_shows_a_shuffle_alert_until_it_is_acknowledged(
    env: Env, browser: Browser
) -> None:
    """BAC-04's alert of shoe 3 raised before the floor joined (its status says it, as
    the uplink publishes it), then shoe 5's in a row; one acknowledgement covers both."""
    publisher = env.publisher("BAC-04")
    said = {"shoes": [3], "latest": {"shoe": 3, "failed": ["spearman@window"],
                                     "p_value": 2e-6, "confidence": 0.99}}  # fmt: skip
    publisher.status(state="place your bets", shoe=4, round=60, halted=False, devices={},
                     game="baccarat", seq=20, shuffle_alert=said)  # fmt: skip
    wait_for(lambda: "BAC-04" in tables(env.fred))
    page = open_page(browser, env.floor.base, "/pit", login="fred").page
    card = page.locator('section[data-table="BAC-04"]')
    page.wait_for_selector('section[data-table="BAC-04"][data-needs="shuffle"]')
    assert card.locator("p.shuffle").inner_text() == "shuffle alert, shoe 3: spearman@window"
    assert "a shuffle alert to acknowledge" in card.inner_text()
    later = alert(5, ["rising_sequences", "position_chi2"], {"chi2": 3e-4})
    publisher.rows([(21, {"type": "shuffled", "shoe": 5}), (22, later)])
    page.wait_for_selector('section[data-table="BAC-04"] p.shuffle[data-shoe="5"]')
    # The rows after the status say only shoe 5: the uplink's next status says both.
    publisher.status(state="place your bets", shoe=5, round=61, halted=False, devices={},
                     game="baccarat", seq=22, shuffle_alert={"shoes": [3, 5], "latest": {
                         "shoe": 5, "failed": ["rising_sequences", "position_chi2"],
                         "p_value": 3e-4, "confidence": 0.99}})  # fmt: skip
    page.wait_for_selector('section[data-table="BAC-04"] p.shuffle:has-text("also shoe 3")')
    assert card.locator("p.shuffle").inner_text() == (
        "shuffle alert, shoe 5: rising_sequences, position_chi2 (also shoe 3)"
    )
    publisher.row(23, acknowledge(5))
    page.wait_for_selector('section[data-table="BAC-04"][data-needs=""]')
    assert card.locator("p.shuffle").count() == 0 and "nothing needed" in card.inner_text()
    page.context.close()
    assert tables(env.fred)["BAC-04"]["shuffle_alert"] is None
    publisher.close()


def test_a_simulated_table_through_the_real_uplink_reaches_the_floors_pit(env: Env) -> None:
    """End to end: ``tablectl run --simulate`` -> its journal -> ``tablectl uplink`` ->
    Mosquitto -> ``tablectl floor`` -> /api/pit. Its shuffler riffles once: the daemon's
    alert on its second shoe (seed 11's first two end after 159 rounds) is on the pit."""
    table = env.root / "e2e-table"
    riffled = ["--shuffle-model", "riffle:1", "--seed", "11"]
    daemon = simulated_table(table, "--rounds", "170", "--pace-ms", "0", *riffled)
    journal = table / "journal.db"
    wait_for_file(journal)
    login = password_broker(env.broker, "BAC-18", env.root / "e2e-password")
    conf = uplink_config(env.root / "e2e-uplink", "BAC-18", journal, login)
    with UplinkProcess(conf) as uplink:
        assert daemon.wait(60) == 0
        stored = journal_rows(journal)
        rounds = settled(stored)
        view = wait_for(lambda: tables(env.fred).get("BAC-18", {}).get("seq") == stored[-1][0]
                        and tables(env.fred)["BAC-18"], timeout=30)  # fmt: skip
        assert view["game"] == "baccarat" and view["online"] is True
        assert view["round"] == rounds[-1]["round"] and view["rounds"] == len(rounds) == 170
        assert view["missing"] == [] and view["devices"]  # the devices' health, as the pit shows
        (alert,) = [e for _, _, e in stored if e["type"] == "shuffle_alert"]
        assert view["shuffle_alert"]["shoes"] == [alert["shoe"]] == [2]
        assert view["shuffle_alert"]["latest"]["failed"] == alert["failed"]
        assert "shuffle" in view["needs"]
        assert uplink.stop() == 0
    wait_for(lambda: tables(env.fred)["BAC-18"]["online"] is False)  # stopped: offline
