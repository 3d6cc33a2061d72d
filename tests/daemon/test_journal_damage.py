"""The journal's damage cases through the real daemon (issue 9, items 3-7): a simulated
table played with ``tablectl run --workdir``, stopped cleanly or killed with SIGKILL at
a failpoint, its files then damaged as a disk, a tool or a person would; the next start
is refused in one line with exit 1 and changes nothing already journaled, or recovers
as docs/recovery.md says. Never a silent fresh start."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.journal import verify
from tests.support.daemon import NotifySocket, configured_table, daemon, finish, logged
from tests.support.journal import cut, files_of, flip, lose, stored_rows

KILL_AFTER_ROUND_2 = {"TABLECTL_FAILPOINTS": "journal.committed:round_end@2"}


@pytest.fixture
def notify(tmp_path: Path) -> Iterator[NotifySocket]:
    sock = NotifySocket(tmp_path / "notify.sock")
    yield sock
    sock.close()


def _args(workdir: Path, game: str, *more: str) -> tuple[str, ...]:
    return ("--simulate", "--game", game, "--seed", "5", "--workdir", str(workdir), *more)


def _played(workdir: Path, game: str = "baccarat") -> None:
    """Two rounds, then a clean stop: the checkpoint is at the last row."""
    code, _, err = finish(daemon(*_args(workdir, game, "--rounds", "2", "--pace-ms", "0")))
    assert code == 0, err


def _killed(workdir: Path, game: str = "baccarat") -> None:
    """Killed (SIGKILL) as round 2's end is durable: the rows are in the write-ahead log,
    the checkpoint at the start's row, the tail record at the last row."""
    proc = daemon(*_args(workdir, game, "--pace-ms", "0"), env=KILL_AFTER_ROUND_2)
    code, _, err = finish(proc, timeout=60)
    assert code == -signal.SIGKILL, err


def _into_the_file(path: Path) -> None:
    """Another SQLite reader's last close: the log's rows moved into the file, as any
    tool may do; the journal's own witnesses untouched."""
    db = sqlite3.connect(path)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()


def _restart(workdir: Path, game: str = "baccarat") -> tuple[int, str, str]:
    return finish(daemon(*_args(workdir, game, "--rounds", "1", "--pace-ms", "0")), timeout=60)


def _refused(workdir: Path, game: str = "baccarat") -> str:
    """The next start: refused in one line, exit 1, its journal's files as they were."""
    before = files_of(workdir)
    code, out, err = _restart(workdir, game)
    assert code == 1 and out == "", err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tablectl: error: "), err
    assert files_of(workdir) == before, "a refused start changed the journal's files"
    return lines[0].removeprefix("tablectl: error: ")


def _unique_row(path: Path, after: int) -> tuple[int, str, str]:
    """A row after ``after`` whose body is in the file once: (seq, ts, body)."""
    data = path.read_bytes()
    for seq, ts, body, _, _ in stored_rows(path):
        if seq > after and data.count(body.encode()) == 1 and len(body) > 40:
            return seq, ts, body
    raise AssertionError("no row with a body of its own")


def _lost(journal: Path, last: int, kept: int) -> str:
    """What a start says of a journal that lost its rows after ``kept``."""
    return (
        f"{journal}: row {last} is missing: the journal ends at row {kept}, its tail record "
        f"saw row {last} (docs/recovery.md)"
    )


def _checkpoint(workdir: Path) -> dict[str, object]:
    data: dict[str, object] = json.loads((workdir / "journal.checkpoint").read_text())
    return data


@pytest.mark.parametrize("damage", ["zero-length", "deleted"])
def test_a_lost_journal_beside_its_witnesses_is_refused_and_nothing_created(
    tmp_path: Path, damage: str
) -> None:
    _played(tmp_path)
    journal = tmp_path / "journal.db"
    seen = _checkpoint(tmp_path)["seq"]
    lose(journal, damage)
    assert _refused(tmp_path) == (
        f"{journal}: no journal, but its checkpoint journal.checkpoint saw row {seen}: the "
        "table has been in use, so no fresh journal is started (docs/recovery.md)"
    )
    assert journal.exists() == (damage == "zero-length")


@pytest.mark.parametrize("field", ["body", "ts"])
def test_a_flipped_byte_after_the_checkpoint_is_refused_naming_the_row(
    tmp_path: Path, field: str
) -> None:
    _killed(tmp_path)
    journal = tmp_path / "journal.db"
    _into_the_file(journal)
    assert _checkpoint(tmp_path)["seq"] == 1
    seq, ts, body = _unique_row(journal, after=20)
    if field == "ts":
        flip(journal, ts.encode(), at=ts.index(":") + 2)  # a minute's digit: 5 <-> 4 and so on
    else:
        flip(journal, body.encode(), at=len(body) // 2)
    assert _refused(tmp_path) == (
        f"{journal}: the chain is broken at row {seq}: contents do not match its hash "
        "(edited): `tablectl journal verify` names every bad row (docs/recovery.md)"
    )
    assert f"row {seq}: contents do not match its hash (edited)" in verify(journal).problems


def test_a_flipped_byte_in_the_write_ahead_log_is_a_lost_tail_refused(tmp_path: Path) -> None:
    _killed(tmp_path)
    journal = tmp_path / "journal.db"
    last = len(stored_rows(journal))
    wal = tmp_path / "journal.db-wal"
    data = bytearray(wal.read_bytes())
    data[len(data) // 2] ^= 0x01  # SQLite drops that frame's commit and every later one
    wal.write_bytes(bytes(data))
    kept = len(stored_rows(journal))
    assert kept < last
    assert _refused(tmp_path) == _lost(journal, last, kept)


def test_a_torn_write_ahead_log_is_refused_naming_the_lost_row(tmp_path: Path) -> None:
    _killed(tmp_path)
    journal = tmp_path / "journal.db"
    last = len(stored_rows(journal))
    cut(tmp_path / "journal.db-wal", 7)
    assert len(stored_rows(journal)) == last - 1, "the last row is gone, and SQLite says nothing"
    # The chain is intact: only a witness shows the loss, and verify names it now.
    assert verify(journal).problems == (
        f"row {last} missing: the journal ends at row {last - 1}, journal.tail saw it",
    )
    assert _refused(tmp_path) == _lost(journal, last, last - 1)


def test_a_file_truncated_after_a_checkpoint_is_refused(tmp_path: Path) -> None:
    _played(tmp_path)
    journal = tmp_path / "journal.db"
    cut(journal, 2 * 4096)  # the last two pages
    message = _refused(tmp_path)
    assert message.startswith(f"{journal}: ")
    assert "is missing: the journal ends at row" in message or "damaged" in message


@pytest.mark.reg("551.8(e)")
@pytest.mark.parametrize("damage", ["deleted", "replaced"])
def test_a_lost_or_replaced_sealing_key_is_refused(tmp_path: Path, damage: str) -> None:
    _played(tmp_path, "spanish21")
    sealkey = tmp_path / "journal.sealkey"
    named = json.loads(stored_rows(tmp_path / "journal.db")[0][2])["sealing_key"]
    if damage == "deleted":
        sealkey.unlink()
        expected = f"{sealkey}: missing, and the journal's header (row 1) names sealing key {named}"
    else:
        sealkey.write_text(os.urandom(32).hex() + "\n")  # another valid key
        expected = f"the journal's header (row 1) names {named}: restore the table's own key"
    assert expected in _refused(tmp_path, "spanish21")
    assert sealkey.exists() == (damage == "replaced"), "no key is made over the journal"


def test_a_header_naming_another_game_is_refused(tmp_path: Path) -> None:
    _played(tmp_path, "baccarat")
    assert _refused(tmp_path, "spanish21") == (
        f"{tmp_path / 'journal.db'}: the journal of table 'simulated' (baccarat), by its "
        "header (row 1); the configuration is table 'simulated' (spanish21): give each "
        "table its own journal"
    )


@pytest.mark.parametrize(
    ("game", "failpoint"),
    [
        ("baccarat", "journal.creating"),
        ("spanish21", "journal.creating"),
        ("spanish21", "journal.placed"),
        ("spanish21", "key.writing@1"),  # the journal's sealing key
        ("spanish21", "key.writing@2"),  # shoe.key, written once the journal exists
        ("baccarat", "key.writing@1"),  # shoe.key
    ],
)
def test_a_kill_while_the_table_is_created_does_not_fail_the_next_start(
    tmp_path: Path, game: str, failpoint: str
) -> None:
    proc = daemon(*_args(tmp_path, game, "--rounds", "1"), env={"TABLECTL_FAILPOINTS": failpoint})
    code, _, err = finish(proc, timeout=60)
    assert code == -signal.SIGKILL, err
    code, _, err = _restart(tmp_path, game)
    assert code == 0, err
    journal = tmp_path / "journal.db"
    assert verify(journal).ok
    kinds = [json.loads(body)["type"] for _, _, body, _, _ in stored_rows(journal)]
    assert kinds[0] == "journal" and kinds.count("journal") == 1 and "round_end" in kinds
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_a_broken_row_before_the_checkpoint_stops_play_until_the_journal_is_repaired(
    tmp_path: Path, notify: NotifySocket
) -> None:
    _played(tmp_path)
    journal = tmp_path / "journal.db"
    # A timestamp: the rows still read (the restart replays them), the chain does not.
    seq, ts, _ = _unique_row(journal, after=20)
    flip(journal, ts.encode(), at=ts.index(":") + 2)
    before = stored_rows(journal)
    proc = daemon(
        *_args(tmp_path, "baccarat", "--pace-ms", "5"), env={"NOTIFY_SOCKET": str(notify.path)}
    )
    try:
        notify.wait_for("READY=1")  # the start checks from the checkpoint on: it is after
        halt = _wait_for_halt(journal, "journal_broken")
        assert halt["detail"] == f"row {seq}: contents do not match its hash (edited)"
        send = ("send", "--runtime-dir", str(tmp_path), "--floor", "floor_clear")
        clear = subprocess.run(
            [sys.executable, "-m", "controller.cli", *send],
            capture_output=True,
            text=True,
            timeout=30,
        )
        # Exit 1: the daemon cannot serve it (docs/cli.md), not bad input.
        assert clear.returncode == 1 and "(journal_broken)" in clear.stderr
        assert "the journal is repaired" in clear.stderr + clear.stdout
        time.sleep(0.3)
        added = [json.loads(r[2]) for r in stored_rows(journal)[len(before) :]]
        stopped = added.index(halt)
        assert not [e for e in added[stopped:] if e["type"] in ("floor_clear", "dealt")]
    finally:
        proc.send_signal(signal.SIGTERM)
    code, _, err = finish(proc)
    assert code == 0, err
    assert stored_rows(journal)[: len(before)] == before, "nothing journaled changed"
    assert _refused(tmp_path) == (
        f"{journal}: the full check found the chain broken (row {seq}: contents do not match "
        "its hash (edited), recorded in journal.checkpoint): the journal must be repaired "
        "before play goes on (docs/recovery.md)"
    )


def _wait_for_halt(journal: Path, cause: str, timeout: float = 20) -> dict[str, object]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for _, _, body, _, _ in stored_rows(journal):
            entry: dict[str, object] = json.loads(body)
            if entry.get("type") == "halt" and entry.get("cause") == cause:
                return entry
        time.sleep(0.1)
    raise AssertionError(f"no {cause} halt within {timeout} s")


def _until(condition: Callable[[], bool], what: str, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"no {what} within {timeout} s"
        time.sleep(0.05)


def _entries(journal: Path) -> list[dict[str, Any]]:
    return [json.loads(body) for _, _, body, _, _ in stored_rows(journal)]


def _drawn(journal: Path) -> list[int]:
    """The event ids of the cards the shoe's rows hold."""
    return [
        e["event_id"]
        for e in _entries(journal)
        if e["type"] == "device" and e.get("event") == "card_drawn"
    ]


def test_a_device_that_was_acknowledged_past_the_journal_stops_the_table(
    tmp_path: Path, notify: NotifySocket
) -> None:
    # The journal lost its tail together with its own witnesses (an old copy put back
    # over it, say): only the shoe, which was acknowledged for the lost events, knows.
    config, shoe, shuffler = configured_table(tmp_path)
    journal = tmp_path / "journal.db"
    env = {"NOTIFY_SOCKET": str(notify.path)}

    def started() -> subprocess.Popen[str]:
        notify.messages.clear()
        proc = daemon("--config", str(config), env=env)
        notify.wait_for("READY=1")
        return proc

    with shoe, shuffler:
        first = started()
        first.send_signal(signal.SIGTERM)
        assert finish(first)[0] == 0
        old = files_of(tmp_path)  # the copy that will be put back
        second = started()
        shoe.control("draw", count=3)
        _until(lambda: len(_drawn(journal)) == 3, "cards")
        second.send_signal(signal.SIGTERM)
        assert finish(second)[0] == 0
        drawn = _drawn(journal)
        for name in ("journal.db-wal", "journal.db-shm"):
            (tmp_path / name).unlink(missing_ok=True)
        for name, data in old.items():
            (tmp_path / name).write_bytes(data)
        third = daemon("--config", str(config), env=env)
        try:
            _until(lambda: any(e.get("cause") == "event_gap" for e in _entries(journal)), "halt")
        finally:
            third.send_signal(signal.SIGTERM)
        code, _, err = finish(third)
    assert code == 0, err
    entries = _entries(journal)
    (gap,) = [e for e in entries if e["type"] == "device" and e.get("event") == "event_gap"]
    assert (gap["device"], gap["expected"], gap["got"]) == ("shoe", drawn[0], drawn[-1] + 1)
    (halt,) = [e for e in entries if e.get("type") == "halt"]
    expected = f"events {drawn[0]}..{drawn[-1]} lost"
    assert (halt["cause"], halt["device"], halt["detail"], halt["ends_shoe"]) == (
        "event_gap",
        "shoe",
        expected,
        True,
    )
    assert entries.index(halt) > entries.index(gap)
    (said,) = logged(err, "journal_tail_lost")
    assert said["detail"] == f"shoe events {drawn[0]}..{drawn[-1]} acknowledged, not in the journal"


def test_the_header_row_reads_in_the_export_and_the_events(tmp_path: Path) -> None:
    _played(tmp_path)
    journal = str(tmp_path / "journal.db")

    def cli(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "controller.cli", *args],
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    report = json.loads(cli("journal", "export", "--round", "1", "--json", journal))
    assert report["journal"] == {
        "file": journal,
        "chain": "intact",
        "table": "simulated",
        "game": "baccarat",
    }
    assert cli("journal", "export", "--round", "1", journal).startswith(
        f"Baccarat: shoe 1, round 1, table simulated ({journal})\n"
    )
    first = cli("events", "--journal", journal).splitlines()[0]
    assert (
        first == '1 journal {"format":1,"game":"baccarat","sealing_key":null,"table":"simulated"}'
    )
