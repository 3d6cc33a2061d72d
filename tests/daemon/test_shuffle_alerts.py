"""The shuffle monitor in the running daemon (issue 14 item 3): a real simulated table
whose shuffler riffles once (`--shuffle-model riffle:1`), its journal, its status and
its floor socket; then the same journal restarted, and read by a second monitor.

An alert never stops play (the floorperson decides, GLI-29 leaves the verdict to
people): the rounds go on after it. Only a floorperson acknowledges it, and only an
alert that waits."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.config import ShuffleSettings
from controller.daemon.shuffles import ShuffleWatch
from controller.export import read_rows
from controller.journal import SqliteJournal, open_read_only
from controller.shuffle.orders import shoe_orders
from controller.shuffle_report import report
from controller.shuffle_watch import selected
from tests.support.journals import simulated_rows, tablectl

GAME = ["--game", "baccarat", "--shuffle-model", "riffle:1", "--seed", "11"]


def _status(workdir: Path) -> dict[str, Any]:
    done = tablectl("status", "--runtime-dir", str(workdir), "--json")
    assert done.returncode == 0, done.stderr
    table = json.loads(done.stdout)["table"]
    assert isinstance(table, dict)
    return table


def _until(what: Any, timeout: float = 60) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = what()
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError(f"not within {timeout} s")


def _rows(workdir: Path) -> list[dict[str, Any]]:
    return [row.entry for row in read_rows(workdir / "journal.db")]


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A simulated table playing at full speed until it is stopped."""
    workdir = tmp_path_factory.mktemp("shuffles")
    argv = [sys.executable, "-m", "controller.cli", "run", "--simulate", *GAME]
    argv += ["--pace-ms", "0", "--plain", "--workdir", str(workdir)]
    with open(workdir / "out.txt", "w") as out, open(workdir / "err.txt", "w") as err:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
        )
        try:
            _until(lambda: (workdir / "events.sock").exists() and _status(workdir).get("ready"))
            yield workdir
        finally:
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(timeout=30) == 0, (workdir / "err.txt").read_text()[-2000:]


def test_an_alerting_shoe_is_journaled_shown_and_play_goes_on(table: Path) -> None:
    status = _until(lambda: (s := _status(table))["shuffle_alert"] and s)
    alert = status["shuffle_alert"]
    assert alert["shoes"][0] == 2  # the first shoe with a known input: the riffled rack
    assert "adjacency" in alert["latest"]["failed"]
    assert "acknowledge_shuffle_alert" in status["accepts"]
    assert status["state"] != "halted"
    assert status["shuffle_monitor"] == "watching"
    rows = _rows(table)
    at = next(i for i, e in enumerate(rows) if e["type"] == "shuffle_alert")
    row = rows[at]
    assert row["shoe"] == 2 and row["confidence"] == 0.99 and row["window"] == 10
    assert all(row["p_values"][name] <= row["threshold"] for name in row["failed"])
    assert {t["name"] for t in row["tests"]} >= {"spearman", "adjacency", "rising_sequences"}
    # Play went on: the next round was dealt after the alert, no halt in between.
    _until(lambda: any(e["type"] == "round_end" for e in _rows(table)[at:]))
    assert not any(e["type"] == "halt" for e in _rows(table)[at:])
    # The live view's plain line of it (what --plain writes for every row).
    assert "shuffle_alert shoe=2 " in (table / "out.txt").read_text()


def test_only_a_floorperson_acknowledges_and_only_an_alert_that_waits(table: Path) -> None:
    _until(lambda: _status(table)["shuffle_alert"])
    runtime = ["--runtime-dir", str(table)]
    wrong = tablectl("send", *runtime, "--floor", "acknowledge_shuffle_alert", "shoe=1")
    # Refused by the daemon before it reaches the table, as a broken journal's clear is:
    # the API's error, one line, exit 2.
    assert wrong.returncode == 2, wrong.stdout + wrong.stderr
    assert wrong.stdout == "" and len(wrong.stderr.splitlines()) == 1
    assert "no unacknowledged shuffle alert for shoe 1 (waiting: shoe 2" in wrong.stderr
    assert "(no_shuffle_alert)" in wrong.stderr
    dealer = tablectl("send", *runtime, "acknowledge_shuffle_alert", "shoe=2")
    assert dealer.returncode != 0 and "floor" in dealer.stdout + dealer.stderr
    bad = tablectl("send", *runtime, "--floor", "acknowledge_shuffle_alert", "shoe=two")
    assert bad.returncode == 2, bad.stdout + bad.stderr
    done = tablectl("send", *runtime, "--floor", "acknowledge_shuffle_alert", "shoe=2")
    assert done.returncode == 0, done.stdout + done.stderr
    acks = [e for e in _rows(table) if e.get("command") == "acknowledge_shuffle_alert"]
    assert [a["shoe"] for a in acks] == [2]
    # Shoe 2's alert is acknowledged; a later shoe's (the shuffler riffles every shoe
    # once) may wait by now, and is acknowledged on its own.
    _until(lambda: 2 not in ((_status(table)["shuffle_alert"] or {}).get("shoes") or [2]))


def _copy_without_alerts(source: Path, dest: Path) -> list[dict[str, Any]]:
    """A new journal of the source's rows but its shuffle_alert rows: what a daemon
    that stopped before writing them left."""
    kept = [e for e in _rows(source) if e["type"] not in ("journal", "shuffle_alert")]
    journal = SqliteJournal(dest / "journal.db", header={"type": "journal", "game": "baccarat"})
    with journal.transaction():
        for entry in kept:
            journal.record(entry)
    journal.close()
    return kept


def test_a_restart_finds_an_alert_not_written_and_never_writes_one_twice(
    table: Path, tmp_path: Path
) -> None:
    _until(lambda: sum(e["type"] == "shoe_end" for e in _rows(table)) >= 3)
    kept = _copy_without_alerts(table, tmp_path)
    posted: list[dict[str, object]] = []
    path = tmp_path / "journal.db"
    watch = ShuffleWatch(path, ShuffleSettings(), lambda c, t: True, posted.append)
    watch.start()
    assert watch.caught_up.wait(30)
    watch.stop()
    shoes = [int(str(p["shoe"])) for p in posted]
    found = report([(r.seq, r.entry) for r in read_rows(path)])
    ended = {s["shoe"] for s in found["shoes"] if s["end"] is not None}
    assert shoes == [s for s in found["alerts"] if s in ended] and shoes[0] == 2
    # Written, then read again by a new monitor: nothing is posted twice.
    journal = SqliteJournal(path)
    for entry in posted:
        journal.record(entry)
    journal.close()
    again: list[dict[str, object]] = []
    watch = ShuffleWatch(path, ShuffleSettings(), lambda c, t: True, again.append)
    watch.start()
    assert watch.caught_up.wait(30)
    watch.stop()
    assert again == []
    # What waits: the alerts after the last acknowledgement the rows hold (an earlier
    # test's, of shoe 2), an alert row found after it for an earlier shoe included.
    acked = [e["shoe"] for e in kept if e.get("command") == "acknowledge_shuffle_alert"]
    waiting = [s for s in shoes if s > max(acked, default=0)]
    assert (watch.view() or {}).get("shoes", []) == waiting


def test_a_stop_writes_the_last_shoe_s_alert_first(tmp_path: Path) -> None:
    # 170 rounds: shoe 2 ends a few rounds before the daemon stops for the rounds
    # asked for; its alert is in the journal all the same (a stop waits for the
    # monitor to read the last rows, ``ShuffleWatch.settle``, if it has not yet).
    run = tablectl(
        "run", "--simulate", *GAME, "--rounds", "170", "--pace-ms", "0", "--workdir", str(tmp_path)
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    rows = _rows(tmp_path)
    assert [e["shoe"] for e in rows if e["type"] == "shuffle_alert"] == [2]
    ends = [i for i, e in enumerate(rows) if e["type"] == "shoe_end"]
    assert len(ends) == 2 and ends[-1] < len(rows) - 1


def test_bad_input_the_monitor_on_a_journal_it_cannot_read_says_one_line(tmp_path: Path) -> None:
    junk = tmp_path / "junk.db"
    junk.write_text("not a journal")
    for path, said in ((tmp_path / "none.db", "no such journal"), (junk, "junk.db")):
        done = subprocess.run(
            [sys.executable, "-m", "controller.shuffle_watch", str(path)],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 1 and done.stderr == ""
        (line,) = done.stdout.splitlines()
        assert said in json.loads(line)["error"]


@pytest.mark.parametrize(("game", "rounds"), [("spanish21", 90), ("baccarat", 170)])
def test_the_monitor_reads_only_rows_that_make_the_orders(
    tmp_path: Path, game: str, rounds: int
) -> None:
    # The rows it selects give every shoe the orders all the rows give (Spanish 21's
    # sealed hole cards, 551.8(e), put back by the rows that open them, included).
    every = simulated_rows(tmp_path, game, rounds, seed=5)
    db = open_read_only(tmp_path / "journal.db")
    try:
        chosen = list(selected(db, 0, every[-1][0]))
    finally:
        db.close()
    assert len(chosen) < len(every) / 2
    ended = [o for o in shoe_orders(every) if o.end is not None]
    assert len(ended) >= 2 and ended == [o for o in shoe_orders(chosen) if o.end is not None]


def test_the_monitor_s_process_starts_only_once_a_shoe_has_ended(tmp_path: Path) -> None:
    path = tmp_path / "journal.db"
    journal = SqliteJournal(path, header={"type": "journal", "game": "baccarat"})
    journal.record({"type": "prompt", "text": "PLACE YOUR BETS"})
    journal.close()
    watch = ShuffleWatch(path, ShuffleSettings(), lambda c, t: True, lambda row: None)
    watch.start()
    try:
        time.sleep(1)  # what it would do without a shoe's end, it would have begun
        assert watch.state() == "waiting" and not watch.caught_up.is_set()
        watch.observe({"type": "shoe_end"})  # as the table's thread tells it
        _until(lambda: watch.state() == "watching", 30)
    finally:
        watch.stop()
    assert watch.state() == "stopped"
    off = ShuffleWatch(path, ShuffleSettings(monitor=False), lambda c, t: True, print)
    off.start()
    assert off.state() == "off" and off.view() is None
