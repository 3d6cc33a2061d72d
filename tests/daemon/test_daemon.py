"""``tablectl run`` end to end as a process: the firmware simulators on real
pseudo-terminals, the real drivers, a real SQLite journal in tmp_path, the real API
sockets, and a fake systemd notification socket (an AF_UNIX datagram socket)."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from controller.journal import SqliteJournal, verify
from tests.support.daemon import NotifySocket, configured_table, daemon, finish, logged
from tests.support.flood import Flooded, close_all, flood, told

CARD = re.compile(r"\b(10|[2-9TJQKA])[SHDC]\b")  # a card token, as STATUS must never hold
FAST = ("--pace-ms", "0")


def rows(path: Path) -> list[tuple[int, str, dict[str, Any]]]:
    with SqliteJournal(path) as journal:
        return [(r.seq, r.ts, r.entry) for r in journal.rows()]


@pytest.fixture
def notify(tmp_path: Path) -> Iterator[NotifySocket]:
    sock = NotifySocket(tmp_path / "notify.sock")
    yield sock
    sock.close()


def subscribe(path: Path) -> socket.socket:
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    client.connect(str(path))
    client.sendall(b'{"v":1,"op":"subscribe"}\n')
    client.settimeout(20)
    return client


def read_lines(
    client: socket.socket, until: int, kind: str = "round_end", raw: list[bytes] | None = None
) -> list[dict[str, Any]]:
    """Messages from ``client`` until ``until`` events of entry type ``kind`` came (and
    each line as it came, into ``raw``)."""
    messages: list[dict[str, Any]] = []
    buffer = b""
    while sum(1 for m in messages if m.get("entry", {}).get("type") == kind) < until:
        chunk = client.recv(65536)
        assert chunk, "the daemon closed the event stream"
        buffer += chunk
        *lines, buffer = buffer.split(b"\n")
        messages += [json.loads(line) for line in lines]
        if raw is not None:
            raw += lines
    return messages


def sealed_values(value: object) -> list[object]:
    """Every value found under ``card`` in an object marked ``sealed``."""
    if isinstance(value, dict):
        found = [value.get("card")] if value.get("sealed") and value.get("card") else []
        return found + [v for item in value.values() for v in sealed_values(item)]
    if isinstance(value, list):
        return [v for item in value for v in sealed_values(item)]
    return []


def test_simulated_run_stops_after_rounds_with_a_verified_journal(tmp_path: Path) -> None:
    code, out, err = finish(
        daemon("--simulate", "--rounds", "3", *FAST, "--workdir", str(tmp_path), "--plain")
    )
    assert code == 0, err
    journal = tmp_path / "journal.db"
    verdict = verify(journal)
    assert verdict.ok and verdict.rows > 0
    entries = [entry for _, _, entry in rows(journal)]
    assert [e["type"] for e in entries].count("round_end") == 3
    # Asked for (--plain): one plain line per journal entry the table wrote, then the
    # summary; row 1 is the journal's header, written as the file was created.
    assert entries[0]["type"] == "journal"
    lines = out.splitlines()
    assert len(lines) == (verdict.rows - 1) + 1 and lines[-1] == "stopped after 3 rounds"
    assert sum(line.startswith("round_end ") for line in lines) == 3
    assert "Traceback" not in err
    assert not (tmp_path / "events.sock").exists()  # the API closed and unlinked its sockets


def test_a_stdout_that_is_not_a_terminal_gets_nothing_unless_asked(tmp_path: Path) -> None:
    # Under systemd stdout is journald's too: a plain line there would be the one
    # line of the unit's log that is not JSON (docs/operations.md, "Logs").
    args = ("--simulate", "--rounds", "2", *FAST, "--workdir", str(tmp_path))
    code, out, err = finish(daemon(*args, "--log-level", "info"))
    assert code == 0, err
    assert out == ""
    assert [r["rounds"] for r in logged(err, "daemon_stopped")] == [2]


@pytest.mark.reg("551.8(e)")
def test_ready_after_connections_status_watchdog_and_stopping_on_sigterm(
    tmp_path: Path, notify: NotifySocket
) -> None:
    env = {"NOTIFY_SOCKET": str(notify.path), "WATCHDOG_USEC": "400000"}
    args = ("--simulate", "--game", "spanish21", "--pace-ms", "5", "--workdir", str(tmp_path))
    proc = daemon(*args, env=env)
    try:
        ready_at = notify.wait_for("READY=1")
        notify.wait_for("WATCHDOG=1")
        deadline = time.monotonic() + 20
        while not any("1 rounds played" in t for t in notify.texts()):
            assert time.monotonic() < deadline, notify.texts()
            time.sleep(0.05)
    finally:
        proc.send_signal(signal.SIGTERM)
    code, out, err = finish(proc)
    assert code == 0, err
    texts = notify.texts()
    assert "STOPPING=1" in texts
    assert texts.index("STOPPING=1") > texts.index("READY=1")
    statuses = [t for t in texts if t.startswith("STATUS=")]
    assert statuses[0].startswith("STATUS=opening the journal")
    assert any(s.startswith("STATUS=connecting") for s in statuses[: texts.index("READY=1")])
    assert any("shoe connected, shuffler connected, reader connected" in s for s in statuses)
    assert not [s for s in statuses if CARD.search(s)]  # never a card (551.8(e))
    # READY=1 came after the journal held every device's connection.
    entries = rows(tmp_path / "journal.db")
    connected = {e["device"]: ts for _, ts, e in entries if e.get("event") == "device_connected"}
    assert set(connected) == {"shoe", "shuffler", "reader"}
    assert max(datetime.fromisoformat(ts).timestamp() for ts in connected.values()) <= ready_at
    assert verify(tmp_path / "journal.db").ok
    assert out == ""


@pytest.mark.reg("551.8(e)")
def test_event_stream_carries_round_ends_and_never_a_sealed_card(
    tmp_path: Path, notify: NotifySocket
) -> None:
    args = ("--simulate", "--game", "spanish21", "--pace-ms", "2", "--seed", "11")
    proc = daemon(*args, "--workdir", str(tmp_path), env={"NOTIFY_SOCKET": str(notify.path)})
    try:
        notify.wait_for("READY=1")
        client = subscribe(tmp_path / "events.sock")
        raw: list[bytes] = []
        messages = read_lines(client, until=3, raw=raw)
        client.close()
    finally:
        proc.send_signal(signal.SIGTERM)
    code, _, err = finish(proc)
    assert code == 0, err
    events = [m for m in messages if m["type"] == "event"]
    assert messages[0]["type"] == "subscribed"
    assert not [m for m in messages if m["type"] == "withheld"]
    assert sum(e["entry"]["type"] == "round_end" for e in events) >= 3
    seqs = [e["seq"] for e in events]
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))  # every entry, in order
    holes = [e for e in events if e["entry"].get("sealed")]
    assert holes and all(e["entry"]["card"] is None for e in holes)
    assert sealed_values([e["entry"] for e in events]) == []
    # The stream is the journal: the same entries under the same numbers, each line
    # holding its row's body byte for byte (the entry encoded once, for both).
    journal = {seq: entry for seq, _, entry in rows(tmp_path / "journal.db")}
    assert all(journal[e["seq"]] == e["entry"] for e in events)
    db = sqlite3.connect(f"file:{tmp_path / 'journal.db'}?mode=ro", uri=True)
    bodies = dict(db.execute("SELECT seq, body FROM rows"))
    db.close()
    lines = [line for line in raw if line.startswith(b'{"v":1,"type":"event"')]
    assert len(lines) == len(events)
    for line, e in zip(lines, events, strict=True):
        seq = e["seq"]
        assert line == b'{"v":1,"type":"event","seq":%d,"entry":%s}' % (seq, bodies[seq].encode())


def test_sigint_stops_cleanly(tmp_path: Path, notify: NotifySocket) -> None:
    args = ("--simulate", "--pace-ms", "5", "--workdir", str(tmp_path))
    proc = daemon(*args, env={"NOTIFY_SOCKET": str(notify.path)})
    try:
        notify.wait_for("READY=1")
        time.sleep(0.5)
    finally:
        proc.send_signal(signal.SIGINT)
    code, out, err = finish(proc)
    assert code == 0, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    assert "STOPPING=1" in notify.texts()
    assert verify(tmp_path / "journal.db").ok
    assert out == ""


BAD_CONFIG = """
[table]
id = "t1"
game = "baccarat"

[rules]
tie_odds = 7

[devices.shoe]
path = "/dev/tablectl/shoe"
key_file = "{dir}/shoe.key"
approved_firmware = ["{hash}"]

[journal]
path = "{dir}/journal.db"

[api]
runtime_dir = "{dir}"
"""


@pytest.mark.reg("545.13(b)")
def test_bad_config_is_one_line_exit_2_and_nothing_created(tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    config.write_text(BAD_CONFIG.format(dir=tmp_path, hash="ab" * 32))
    code, out, err = finish(daemon("--config", str(config)))
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "rules.tie_odds" in lines[0] and "545.13(b)" in lines[0]
    assert out == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["table.toml"]


def _tampered_journal(path: Path) -> None:
    with SqliteJournal(path) as journal:
        for n in range(3):
            journal.record({"type": "note", "n": n})
    db = sqlite3.connect(path)
    db.executescript(
        'DROP TRIGGER rows_no_update; UPDATE rows SET body = \'{"type":"note","n":9}\' '
        "WHERE seq = 3;"
    )
    db.close()


@pytest.mark.parametrize("damage", ["not_a_database", "row_edited"])
def test_damaged_journal_is_one_line_and_left_untouched(tmp_path: Path, damage: str) -> None:
    journal = tmp_path / "journal.db"
    if damage == "not_a_database":
        journal.write_bytes(b"this is not a tablectl journal\n" * 200)
    else:
        _tampered_journal(journal)
    before = journal.read_bytes()
    code, out, err = finish(
        daemon("--simulate", "--rounds", "1", *FAST, "--workdir", str(tmp_path))
    )
    assert code == 1 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and str(journal) in lines[0] and "Traceback" not in err
    assert journal.read_bytes() == before
    assert not (tmp_path / "shoe.tty").exists()  # no device was started over it
    assert not (tmp_path / "events.sock").exists()


@pytest.mark.parametrize(
    ("env", "variable"),
    [
        ({"NOTIFY_SOCKET": "relative/path"}, "NOTIFY_SOCKET"),
        ({"WATCHDOG_USEC": "soon"}, "WATCHDOG"),
    ],
)
def test_bad_notify_environment_is_one_line(
    tmp_path: Path, env: dict[str, str], variable: str
) -> None:
    full = {"NOTIFY_SOCKET": str(tmp_path / "n.sock"), **env}
    code, _, err = finish(daemon("--simulate", "--workdir", str(tmp_path), env=full))
    assert code == 1
    lines = err.strip().splitlines()
    assert len(lines) == 1 and variable in lines[0]
    assert not (tmp_path / "journal.db").exists()


def _journal_now(path: Path) -> list[dict[str, Any]]:
    """The journal as another process sees it while the daemon writes (read-only)."""
    if not path.exists():
        return []
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return [json.loads(body) for (body,) in db.execute("SELECT body FROM rows ORDER BY seq")]
    except sqlite3.OperationalError:
        return []  # the schema is not written yet
    finally:
        db.close()


def _in_round(entries: list[dict[str, Any]]) -> bool:
    """A round has cards on the layout and has not ended."""
    last_end = max((i for i, e in enumerate(entries) if e["type"] == "round_end"), default=-1)
    return any(e["type"] == "dealt" for e in entries[last_end + 1 :])


@pytest.mark.parametrize("game", ["spanish21", "baccarat"])
def test_killed_mid_round_it_comes_back_stopped_on_the_round_and_loses_nothing(
    tmp_path: Path, game: str
) -> None:
    journal = tmp_path / "journal.db"
    args = ("--simulate", "--game", game, "--seed", "7", "--workdir", str(tmp_path))
    proc = daemon(*args, "--pace-ms", "30")
    try:
        deadline = time.monotonic() + 30
        while not (_in_round(entries := _journal_now(journal)) and len(entries) > 40):
            assert proc.poll() is None and time.monotonic() < deadline, proc.stderr
            time.sleep(0.01)
    finally:
        proc.kill()  # SIGKILL: no chance to stop cleanly
        proc.wait()
    before = rows(journal)
    assert verify(journal).ok
    # Start again: the table is rebuilt from the journal and stops on the round.
    code, _, err = finish(daemon(*args, "--pace-ms", "0", "--rounds", "2"), timeout=60)
    assert code == 0, err
    after = rows(journal)
    assert after[: len(before)] == before, "nothing journaled is lost or rewritten"
    assert verify(journal).ok
    added = [entry for _, _, entry in after[len(before) :]]
    (resumed,) = [e for e in added if e["type"] == "resumed"]
    interrupted = resumed["interrupted"]
    assert interrupted is not None and interrupted["round"] >= 1
    kinds = [e["type"] for e in added]
    # Play waits for a floorperson, whose clear comes before any new card is dealt.
    clear = next(i for i, e in enumerate(added) if e.get("command") == "floor_clear")
    first_card = next(i for i, e in enumerate(added) if e["type"] == "dealt")
    assert clear < first_card
    assert kinds.count("round_end") >= 2
    assert "Traceback" not in err


def test_the_sealing_key_is_made_once_with_the_journal_for_the_daemon_alone(
    tmp_path: Path,
) -> None:
    # Made with the journal (its fingerprint is in the header), no longer on first use.
    from controller.daemon.wiring import sealing_key
    from controller.journal import JournalError
    from controller.journal.header import Identity, open_table_journal

    journal = tmp_path / "journal.db"
    identity = Identity("t1", "spanish21", seals=True)
    opened, key = open_table_journal(journal, identity)
    opened.close()
    path = tmp_path / "journal.sealkey"
    assert key is not None and len(key) == 32 and path.stat().st_mode & 0o777 == 0o600
    assert sealing_key(str(journal)) == key
    opened, again = open_table_journal(journal, identity)
    opened.close()
    assert again == key, "the same key after a restart"
    for text in ("abcd\n", "not hex at all\n"):
        path.write_text(text)
        with pytest.raises(JournalError, match="not a sealing key"):
            open_table_journal(journal, identity)
        with pytest.raises(JournalError, match="not a sealing key"):
            sealing_key(str(journal))


def test_the_watchdog_check_fails_on_a_stalled_queue_or_a_journal_problem() -> None:
    # The loop sends WATCHDOG=1 only when this check passes (TableLoop.run): a table
    # thread that stopped draining its queue, or a journal that cannot take the next
    # commits (tests/daemon/test_health.py, on real filesystems), lets systemd's
    # watchdog restart the daemon.
    from types import SimpleNamespace

    from controller.daemon import loop as d

    def check(emptied_ago: float, problem: str | None) -> bool:
        fake = SimpleNamespace(
            inbox=SimpleNamespace(emptied_at=time.monotonic() - emptied_ago),
            journal=SimpleNamespace(problem=lambda: problem),
            unhealthy=False,
        )
        return bool(d.TableLoop._healthy(fake))  # type: ignore[arg-type]

    assert check(0.1, None)
    assert not check(d.STALLED_AFTER + 1, None)
    assert not check(0.1, "/var/lib/tablectl is on a read-only filesystem")


def test_a_configured_table_opens_the_devices_its_file_names(
    tmp_path: Path, notify: NotifySocket
) -> None:
    # The production path, `tablectl run --config FILE`, against simulated devices on
    # real ptys named in the file (as udev's /dev/tablectl/* symlinks would be).
    config, shoe, shuffler = configured_table(tmp_path)
    with shoe, shuffler:
        proc = daemon("--config", str(config), env={"NOTIFY_SOCKET": str(notify.path)})
        try:
            notify.wait_for("READY=1")
            assert (tmp_path / "dealer.sock").exists() and (tmp_path / "floor.sock").exists()
        finally:
            proc.send_signal(signal.SIGTERM)
        code, _, err = finish(proc)
    assert code == 0, err
    notify.wait_for("STOPPING=1")
    entries = [entry for _, _, entry in rows(tmp_path / "journal.db")]
    connected = {e["device"] for e in entries if e.get("event") == "device_connected"}
    assert connected == {"shoe", "shuffler"}
    assert verify(tmp_path / "journal.db").ok


@pytest.mark.timeout(90)  # before the fix the table stalled here for ever
def test_a_notify_socket_nobody_reads_never_stops_the_table(tmp_path: Path) -> None:
    # A health-check tool that binds NOTIFY_SOCKET and never reads it: its queue is full
    # from the start, so every notification fails with EAGAIN; the table deals on.
    notify = NotifySocket(tmp_path / "notify.sock", reading=False)
    try:
        assert notify.fill() > 0
        env = {"NOTIFY_SOCKET": str(notify.path), "WATCHDOG_USEC": "400000"}
        args = ("--simulate", "--game", "spanish21", "--rounds", "12", *FAST)
        code, _, err = finish(daemon(*args, "--workdir", str(tmp_path), env=env), timeout=60)
    finally:
        notify.close()
    assert code == 0, err
    entries = [entry for _, _, entry in rows(tmp_path / "journal.db")]
    assert [e["type"] for e in entries].count("round_end") == 12
    assert verify(tmp_path / "journal.db").ok
    # The outage logged once, and at the stop what systemd never got, by name.
    assert len(logged(err, "sd_notify_failed")) == 1
    (undelivered,) = logged(err, "sd_notify_undelivered")
    # Kept in the order asked for: the loop pings before READY=1 as well.
    assert sorted(undelivered["messages"][:2]) == ["READY=1", "WATCHDOG=1"]
    assert undelivered["messages"][2:] == ["STOPPING=1"]
    assert "Traceback" not in err


@pytest.mark.timeout(90)
def test_ready_and_pings_held_by_a_full_notify_socket_arrive_once_it_is_read(
    tmp_path: Path,
) -> None:
    notify = NotifySocket(tmp_path / "notify.sock", reading=False)
    try:
        filled = notify.fill()
        env = {"NOTIFY_SOCKET": str(notify.path), "WATCHDOG_USEC": "400000"}
        args = ("--simulate", "--pace-ms", "5", "--workdir", str(tmp_path))
        proc = daemon(*args, env=env)
        try:
            deadline = time.monotonic() + 30
            while not any(e["type"] == "round_end" for e in _journal_now(tmp_path / "journal.db")):
                assert proc.poll() is None and time.monotonic() < deadline
                time.sleep(0.05)
            dealing_at = time.time()  # a round played while READY=1 waited
            notify.start()
            ready_at = notify.wait_for("READY=1")
            notify.wait_for("WATCHDOG=1")
        finally:
            proc.send_signal(signal.SIGTERM)
        code, _, err = finish(proc)
        notify.wait_for("STOPPING=1", timeout=5)
    finally:
        notify.close()
    assert code == 0, err
    texts = notify.texts()
    assert texts[:filled] == ["filler"] * filled
    assert texts.count("READY=1") == 1 and ready_at > dealing_at
    assert texts.index("READY=1") < texts.index("STOPPING=1")
    # The notifications kept first, then the latest status, not the backlog of statuses
    # dropped while nobody read.
    assert sorted(texts[filled : filled + 2]) == ["READY=1", "WATCHDOG=1"]
    statuses = [t for t in texts[filled:] if t.startswith("STATUS=")]
    assert "rounds played" in statuses[0], statuses
    assert len(logged(err, "sd_notify_failed")) == 1
    assert not logged(err, "sd_notify_undelivered")


def _playing_since_restart(entries: list[dict[str, Any]]) -> bool:
    """Play stopped at the restart, and every stop since is cleared and wagers taken."""
    restarts = [i for i, e in enumerate(entries) if e["type"] == "resumed"]
    if not restarts:
        return False
    since = [e["type"] for e in entries[restarts[-1] :]]
    cleared = max(i for i, kind in enumerate(since) if kind in ("halt", "floor_clear", "resumed"))
    return since[cleared] == "floor_clear" and "wager" in since[cleared:]


def test_a_clear_after_a_restart_when_play_is_not_stopped_says_where_play_is(
    tmp_path: Path,
) -> None:
    # It said "nothing to clear: play is not stopped (None; ...)": the section a
    # refusal without one was printed as None, and nothing said where play was.
    journal = tmp_path / "journal.db"
    args = ("--simulate", "--seed", "5", "--workdir", str(tmp_path))
    proc = daemon(*args, "--pace-ms", "20")
    try:
        deadline = time.monotonic() + 30
        while not (_in_round(_journal_now(journal)) and len(_journal_now(journal)) > 40):
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.01)
    finally:
        proc.kill()
        proc.wait()
    proc = daemon(*args, "--pace-ms", "300")
    try:
        deadline = time.monotonic() + 30
        while not _playing_since_restart(_journal_now(journal)):
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)  # the simulated floorperson clears the restart's stops
        sent = subprocess.run(
            [sys.executable, "-m", "controller.cli", "send", "--floor", "floor_clear"],
            capture_output=True,
            text=True,
            env={**os.environ, "TABLECTL_RUNTIME_DIR": str(tmp_path)},
            timeout=30,
        )
    finally:
        proc.send_signal(signal.SIGTERM)
        finish(proc)
    assert sent.returncode == 3, sent.stderr
    (refused,) = [
        e for e in _journal_now(journal) if e["type"] == "refused" and e["command"] == "floor_clear"
    ]
    where = f"the table is {refused['state']}, shoe "
    line = sent.stdout.strip()
    assert re.fullmatch(
        r"refused: floor_clear: nothing to clear: play is not stopped; "
        + re.escape(where)
        + r"\d+ round \d+ \(ticket \d+, journal \d+\)",
        line,
    ), line
    assert refused["section"] is None


@pytest.mark.timeout(120)
def test_a_thousand_simultaneous_connects_never_stop_the_table_and_each_is_answered(
    tmp_path: Path, notify: NotifySocket
) -> None:
    # With a backlog of 16, 839 of 1,000 such connects failed with EAGAIN. SIGSTOP holds
    # the daemon while they arrive: every one must wait in the listen queue.
    from controller.api import MAX_CLIENTS

    args = ("--simulate", "--pace-ms", "5", "--workdir", str(tmp_path))
    proc = daemon(*args, env={"NOTIFY_SOCKET": str(notify.path)})
    clients: list[Flooded] = []
    try:
        notify.wait_for("READY=1")
        proc.send_signal(signal.SIGSTOP)
        try:
            clients = flood(tmp_path / "events.sock", 1000)
        finally:
            proc.send_signal(signal.SIGCONT)
        told(clients, closed=1000 - MAX_CLIENTS)
        crowded = [c for c in clients if c.closed]
        assert len(crowded) == 1000 - MAX_CLIENTS
        assert {c.lines[0]["code"] for c in crowded} == {"too_many_clients"}
        assert all(len(c.lines) == 1 for c in crowded)
        # The table deals on with its clients all taken.
        played = _rounds_played(tmp_path / "journal.db")
        deadline = time.monotonic() + 20
        while _rounds_played(tmp_path / "journal.db") < played + 2:
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        # tablectl status tries again briefly, then says so in one line.
        status = _tablectl_status(tmp_path)
        assert status.returncode == 1 and status.stdout == ""
        assert status.stderr.strip().splitlines() == [
            f"tablectl: error: {tmp_path / 'events.sock'}: {MAX_CLIENTS} clients use "
            "events.sock already: try again later (too_many_clients; tried for 2 s)"
        ]
        next(c for c in clients if not c.closed).sock.close()  # room for one
        status = _tablectl_status(tmp_path)
        assert status.returncode == 0, status.stderr
        assert status.stdout.startswith("table simulated (baccarat): ")
    finally:
        close_all(clients)
        proc.send_signal(signal.SIGTERM)
        code, _, err = finish(proc)
    assert code == 0, err
    assert "Traceback" not in err
    assert verify(tmp_path / "journal.db").ok


def _rounds_played(path: Path) -> int:
    return sum(1 for e in _journal_now(path) if e["type"] == "round_end")


def _tablectl_status(runtime_dir: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "controller.cli", "status", "--runtime-dir", str(runtime_dir)],
        capture_output=True,
        text=True,
        timeout=30,
    )
