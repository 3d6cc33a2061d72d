"""``tablectl run`` end to end as a process: the firmware simulators on real
pseudo-terminals, the real drivers, a real SQLite journal in tmp_path, the real API
sockets, and a fake systemd notification socket (an AF_UNIX datagram socket)."""

from __future__ import annotations

import json
import re
import signal
import socket
import sqlite3
import threading
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from controller.journal import SqliteJournal, verify
from tests.support.daemon import daemon, finish

CARD = re.compile(r"\b(10|[2-9TJQKA])[SHDC]\b")  # a card token, as STATUS must never hold
FAST = ("--pace-ms", "0")


def rows(path: Path) -> list[tuple[int, str, dict[str, Any]]]:
    with SqliteJournal(path) as journal:
        return [(r.seq, r.ts, r.entry) for r in journal.rows()]


class NotifySocket:
    """What systemd's notification socket receives, with the time of arrival."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(str(path))
        self.sock.settimeout(0.1)
        self.messages: list[tuple[float, str]] = []
        self._stop = False
        self._thread = threading.Thread(target=self._receive, daemon=True)
        self._thread.start()

    def _receive(self) -> None:
        while not self._stop:
            try:
                data = self.sock.recv(4096)
            except TimeoutError:
                continue
            self.messages.append((time.time(), data.decode()))

    def wait_for(self, prefix: str, timeout: float = 20) -> float:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for at, message in list(self.messages):
                if message.startswith(prefix):
                    return at
            time.sleep(0.02)
        raise AssertionError(f"no {prefix!r} within {timeout} s: {self.texts()}")

    def texts(self) -> list[str]:
        return [message for _, message in self.messages]

    def close(self) -> None:
        self._stop = True
        self._thread.join()
        self.sock.close()


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


def read_lines(client: socket.socket, until: int, kind: str = "round_end") -> list[dict[str, Any]]:
    """Messages from ``client`` until ``until`` events of entry type ``kind`` came."""
    messages: list[dict[str, Any]] = []
    buffer = b""
    while sum(1 for m in messages if m.get("entry", {}).get("type") == kind) < until:
        chunk = client.recv(65536)
        assert chunk, "the daemon closed the event stream"
        buffer += chunk
        *lines, buffer = buffer.split(b"\n")
        messages += [json.loads(line) for line in lines]
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
        daemon("--simulate", "--rounds", "3", *FAST, "--workdir", str(tmp_path))
    )
    assert code == 0, err
    journal = tmp_path / "journal.db"
    verdict = verify(journal)
    assert verdict.ok and verdict.rows > 0
    entries = [entry for _, _, entry in rows(journal)]
    assert [e["type"] for e in entries].count("round_end") == 3
    # One plain line per journal entry on a non-terminal stdout, then the summary.
    lines = out.splitlines()
    assert len(lines) == verdict.rows + 1 and lines[-1] == "stopped after 3 rounds"
    assert sum(line.startswith("round_end ") for line in lines) == 3
    assert "Traceback" not in err
    assert not (tmp_path / "events.sock").exists()  # the API closed and unlinked its sockets


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
    assert out.rstrip().splitlines()[-1].startswith("stopped after ")


@pytest.mark.reg("551.8(e)")
def test_event_stream_carries_round_ends_and_never_a_sealed_card(
    tmp_path: Path, notify: NotifySocket
) -> None:
    args = ("--simulate", "--game", "spanish21", "--pace-ms", "2", "--seed", "11")
    proc = daemon(*args, "--workdir", str(tmp_path), env={"NOTIFY_SOCKET": str(notify.path)})
    try:
        notify.wait_for("READY=1")
        client = subscribe(tmp_path / "events.sock")
        messages = read_lines(client, until=3)
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
    # The stream is the journal: the same entries under the same numbers.
    journal = {seq: entry for seq, _, entry in rows(tmp_path / "journal.db")}
    assert all(journal[e["seq"]] == e["entry"] for e in events)


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
    assert out.rstrip().splitlines()[-1].startswith("stopped after ")


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


def test_the_sealing_key_is_made_once_beside_the_journal_for_the_daemon_alone(
    tmp_path: Path,
) -> None:
    from controller.daemon.wiring import sealing_key
    from controller.journal import JournalError

    journal = tmp_path / "journal.db"
    key = sealing_key(str(journal))
    path = tmp_path / "journal.sealkey"
    assert len(key) == 32 and path.stat().st_mode & 0o777 == 0o600
    assert sealing_key(str(journal)) == key, "the same key after a restart"
    path.write_text("abcd\n")
    with pytest.raises(JournalError, match="not a sealing key"):
        sealing_key(str(journal))
    path.write_text("not hex at all\n")
    with pytest.raises(JournalError, match="not a sealing key"):
        sealing_key(str(journal))


def test_the_watchdog_check_fails_on_a_stalled_queue_or_an_unwritable_journal() -> None:
    # The loop sends WATCHDOG=1 only when this check passes (TableLoop.run): a table
    # thread that stopped draining its queue, or a journal it cannot write, lets
    # systemd's watchdog restart the daemon.
    from types import SimpleNamespace

    from controller.daemon import loop as d

    def check(emptied_ago: float, writable: bool) -> bool:
        fake = SimpleNamespace(
            inbox=SimpleNamespace(emptied_at=time.monotonic() - emptied_ago),
            journal=SimpleNamespace(writable=lambda: writable),
            unhealthy=False,
        )
        return bool(d.TableLoop._healthy(fake))  # type: ignore[arg-type]

    assert check(0.1, True)
    assert not check(d.STALLED_AFTER + 1, True)
    assert not check(0.1, False)


def test_a_configured_table_opens_the_devices_its_file_names(
    tmp_path: Path, notify: NotifySocket
) -> None:
    # The production path, `tablectl run --config FILE`, against simulated devices on
    # real ptys named in the file (as udev's /dev/tablectl/* symlinks would be).
    import secrets

    from firmware_sim.harness import SimProcess

    work = tmp_path / "devices"
    work.mkdir()
    key = secrets.token_bytes(32)
    shoe = SimProcess("shoe", work, key, ["--pace", "manual", "--decks", "8"])
    shuffler = SimProcess("shuffler", work, key, ["--decks", "8"])
    # Dealer and floor sockets need groups of their own (docs/config.md): two that exist.
    import grp

    groups = sorted({g.gr_gid for g in grp.getgrall()})[:3]
    devices = "".join(
        f'[devices.{sim.name}]\npath = "{sim.link_path}"\nkey_file = "{sim.key_path}"\n'
        f'approved_firmware = ["{sim.firmware_hash.hex()}"]\n'
        for sim in (shoe, shuffler)
    )
    config = tmp_path / "table.toml"
    config.write_text(
        '[table]\nid = "bac-07"\ngame = "baccarat"\n[devices]\n'
        + devices
        + f'[journal]\npath = "{tmp_path / "journal.db"}"\n'
        + f'[api]\nruntime_dir = "{tmp_path}"\n'
        + "".join(
            f"[api.{s}]\ngroup = {g}\n"
            for s, g in zip(("dealer", "floor", "events"), groups, strict=True)
        )
    )
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
