"""The watchdog's check of the journal (controller/daemon/health.py) on a real SQLite
journal in a real tmpfs of the test's own: read-only, nearly full, full, its files
deleted while open; and the daemon's pings stopping and coming back with it."""

from __future__ import annotations

import grp
import os
import signal
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from controller.api import Access, ApiServer
from controller.daemon.health import MIN_FREE, journal_problem
from controller.daemon.main import _cause
from controller.daemon.wiring import PublishingJournal
from controller.journal import JournalError, SqliteJournal, verify
from drivers.keys import write_key
from tests.support.daemon import NotifySocket, daemon, finish, logged
from tests.support.filesystems import (
    disk_error,
    failing_filesystem,
    fill,
    free_bytes,
    remount,
    small_filesystem,
)

ME = Access(uids=(os.getuid(),))


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[Path]:
    with small_filesystem(tmp_path / "disk") as path:
        yield path


@pytest.fixture
def journal(disk: Path, tmp_path: Path) -> Iterator[PublishingJournal]:
    # The API is real but not started: publish() hands nothing to a socket then.
    api = ApiServer(tmp_path, lambda c, t: True, dealer=ME, floor=ME, events=ME)
    with SqliteJournal(disk / "journal.db") as file:
        published = PublishingJournal(file, api)
        published.record({"type": "opened"})
        yield published


def test_a_journal_that_can_take_commits_has_no_problem(journal: PublishingJournal) -> None:
    assert journal.problem() is None


def test_a_filesystem_mounted_read_only_is_a_problem(tmp_path: Path, disk: Path) -> None:
    path = disk / "journal.db"
    with SqliteJournal(path) as file:
        file.record({"type": "opened"})
    remount(disk, read_only=True)  # as at a boot that mounts it so
    try:
        assert journal_problem(path) == f"{disk} is on a read-only filesystem"
    finally:
        remount(disk, read_only=False)
    assert journal_problem(path) is None


def test_a_filesystem_the_kernel_turns_read_only_under_the_open_journal_is_a_problem(
    tmp_path: Path,
) -> None:
    # os.access said "writable" here: root may write any file, and the file is open.
    api = ApiServer(tmp_path, lambda c, t: True, dealer=ME, floor=ME, events=ME)
    with (
        failing_filesystem(tmp_path / "ext4", tmp_path / "ext4.img") as disk,
        SqliteJournal(disk / "journal.db") as file,
    ):
        journal = PublishingJournal(file, api)
        journal.record({"type": "opened"})
        assert journal.problem() is None
        disk_error(disk)
        assert os.access(file.path, os.W_OK)
        assert journal.problem() == f"{disk} is on a read-only filesystem"
        with pytest.raises(JournalError, match="cannot write the journal"):
            journal.record({"type": "lost"})
        assert str(journal.problem()).startswith("the last journal write failed: ")


def test_less_free_space_than_the_next_commits_need_is_a_problem(
    journal: PublishingJournal, disk: Path
) -> None:
    filler = fill(disk, leave=MIN_FREE // 2)
    problem = journal.problem()
    assert problem is not None
    assert problem.startswith("4.0 MiB free on ") or problem.startswith("3.9 MiB free on ")
    assert problem.endswith("under the 8 MiB the journal's next commits need")
    journal.record({"type": "still written"})  # low, not full: the table deals on
    fill(disk, leave=MIN_FREE + 1024 * 1024)
    assert journal.problem() is None
    filler.unlink()


def test_a_failed_write_is_a_problem_until_a_write_succeeds(
    journal: PublishingJournal, disk: Path
) -> None:
    filler = fill(disk, leave=0)
    with pytest.raises(JournalError, match="cannot write the journal"):
        for n in range(10_000):  # until the write-ahead log needs a page it cannot have
            journal.record({"type": "filling", "n": n, "pad": "x" * 1000})
    assert free_bytes(disk) == 0
    filler.unlink()
    problem = journal.problem()
    assert problem is not None and problem.startswith("the last journal write failed: ")
    assert "full" in problem
    journal.record({"type": "after"})
    assert journal.problem() is None


@pytest.mark.parametrize("name", ["journal.db-wal", "journal.db"])
def test_a_journal_file_deleted_while_open_is_a_problem(tmp_path: Path, name: str) -> None:
    path = tmp_path / "journal.db"
    with SqliteJournal(path) as file:
        file.record({"type": "opened"})
        assert journal_problem(path) is None
        (tmp_path / name).unlink()
        assert journal_problem(path) == (
            f"{name} was deleted or replaced while open: its commits would be lost"
        )


def _pings_after(notify: NotifySocket, since: float) -> list[float]:
    return [at for at, text in notify.messages if text == "WATCHDOG=1" and at > since]


@pytest.mark.timeout(120)
def test_the_daemon_stops_pinging_while_its_journal_is_short_of_space(
    tmp_path: Path, disk: Path
) -> None:
    # The whole simulated table (journal, keys, sockets, device links) on the small disk.
    notify = NotifySocket(tmp_path / "notify.sock")
    env = {"NOTIFY_SOCKET": str(notify.path), "WATCHDOG_USEC": "400000"}
    args = ("--simulate", "--pace-ms", "20", "--workdir", str(disk), "--log-level", "info")
    proc = daemon(*args, env=env)
    try:
        notify.wait_for("WATCHDOG=1")
        # Under the threshold, yet room for the write-ahead log to grow in meanwhile.
        filler = fill(disk, leave=MIN_FREE - 1024 * 1024)
        low_at = time.time()
        time.sleep(2.0)  # ten ping intervals
        # One ping may have been on its way as the space went: none after that.
        assert [at for at in _pings_after(notify, low_at) if at > low_at + 0.3] == []
        assert proc.poll() is None, "low on space, not full: the table deals on"
        filler.unlink()
        back_at = time.time()
        deadline = time.monotonic() + 10
        while not _pings_after(notify, back_at):
            assert time.monotonic() < deadline, "no ping once the space was back"
            time.sleep(0.05)
    finally:
        proc.send_signal(signal.SIGTERM)
        code, _, err = finish(proc)
        notify.close()
    assert code == 0, err
    checks = logged(err, "health_check")
    assert [c["healthy"] for c in checks] == [False, True]
    assert "MiB free on" in checks[0]["journal"] and checks[0]["level"] == "error"
    assert checks[0]["stalled"] is False


def _error_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("tablectl: error: ")]


def _journal_rows(path: Path) -> list[tuple[int, str, str]]:
    with SqliteJournal(path) as file:
        return [(row.seq, row.ts, str(row.entry)) for row in file.rows()]


def _rows_so_far(path: Path) -> int:
    """How many rows a running daemon's journal holds, read as a concurrent reader
    (SqliteJournal would refuse a journal that grows while it opens it)."""
    if not path.exists():
        return 0
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return int(db.execute("SELECT count(*) FROM rows").fetchone()[0])
    finally:
        db.close()


SIMULATED = ("--simulate", "--pace-ms", "0")


def test_a_restart_on_a_full_disk_says_the_disk_is_full(disk: Path) -> None:
    code, _, err = finish(daemon(*SIMULATED, "--rounds", "2", "--workdir", str(disk)), 60)
    assert code == 0, err
    before = _journal_rows(disk / "journal.db")
    fill(disk, leave=0)
    code, _, err = finish(daemon(*SIMULATED, "--rounds", "2", "--workdir", str(disk)), 60)
    # It said "shoe simulator exited with status 1: no stderr": the simulator could
    # not write its log, nor its stderr, on the full disk.
    assert code == 1
    assert _error_lines(err) == [line for line in err.splitlines() if "Traceback" not in line]
    (line,) = _error_lines(err)
    assert line.startswith(f"tablectl: error: no space left on {disk}'s filesystem (")
    (disk / "filler").unlink()
    assert _journal_rows(disk / "journal.db") == before, "nothing journaled is lost"


def test_a_start_with_too_little_space_for_the_next_commits_is_refused(disk: Path) -> None:
    code, _, err = finish(daemon(*SIMULATED, "--rounds", "1", "--workdir", str(disk)), 60)
    assert code == 0, err
    before = _journal_rows(disk / "journal.db")
    fill(disk, leave=MIN_FREE // 2)
    code, _, err = finish(daemon(*SIMULATED, "--rounds", "1", "--workdir", str(disk)), 60)
    assert code == 1
    assert err.strip().splitlines() == [
        f"tablectl: error: {disk}/journal.db: cannot start: 4.0 MiB free on {disk}'s "
        "filesystem, under the 8 MiB the journal's next commits need"
    ]
    (disk / "filler").unlink()
    assert _journal_rows(disk / "journal.db") == before


@pytest.mark.timeout(120)
def test_a_disk_that_fills_during_play_stops_the_table_saying_so(disk: Path) -> None:
    proc = daemon("--simulate", "--pace-ms", "5", "--workdir", str(disk))
    try:
        deadline = time.monotonic() + 30
        while _rows_so_far(disk / "journal.db") < 50:
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        fill(disk, leave=0)
        code, _, err = finish(proc, 60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert code == 1
    (line,) = _error_lines(err)
    assert line.startswith(f"tablectl: error: no space left on {disk}'s filesystem (")
    assert "Traceback" not in err
    (disk / "filler").unlink()
    assert verify(disk / "journal.db").ok


def test_a_journal_write_that_found_the_disk_full_leads_with_it_once_space_is_back(
    tmp_path: Path,
) -> None:
    """The daemon's last line after a failed write: by the time it is written, the
    failed transaction (or another process's file) may have left a page free again,
    so the probe alone would not say the disk was full."""
    full = JournalError(f"{tmp_path}/journal.db: cannot write the journal: the disk is full")
    full.disk_full = True
    config: Any = SimpleNamespace(journal=SimpleNamespace(path=str(tmp_path / "journal.db")))
    assert _cause(config, full) == f"no space left on {tmp_path}'s filesystem ({full})"
    other = JournalError(f"{tmp_path}/journal.db: cannot write the journal: input/output error")
    assert _cause(config, other) == str(other)  # the probe finds the disk writable


CONFIG = """
[table]
id = "bac-07"
game = "baccarat"
[devices.shoe]
path = "{dir}/shoe.tty"
key_file = "{dir}/shoe.key"
approved_firmware = ["{hash}"]
[devices.shuffler]
path = "{dir}/shuffler.tty"
key_file = "{dir}/shuffler.key"
approved_firmware = ["{hash}"]
[journal]
path = "{journal}"
[api]
runtime_dir = "{dir}"
[api.dealer]
group = {groups[0]}
[api.floor]
group = {groups[1]}
[api.events]
group = {groups[2]}
"""


def _configured(tmp_path: Path, journal: Path) -> Path:
    """A configured table (not simulated) whose journal is ``journal``."""
    for name in ("shoe", "shuffler"):
        write_key(str(tmp_path / f"{name}.key"))
    config = tmp_path / "table.toml"
    # Each socket a group of its own (docs/config.md): three that exist.
    groups = sorted({g.gr_gid for g in grp.getgrall()})[:3]
    config.write_text(CONFIG.format(dir=tmp_path, hash="ab" * 32, journal=journal, groups=groups))
    return config


@pytest.mark.parametrize("how", ["full", "read-only"])
def test_a_configured_daemon_whose_journal_cannot_be_written_says_why(
    tmp_path: Path, disk: Path, how: str
) -> None:
    journal = disk / "journal.db"
    config = _configured(tmp_path, journal)
    if how == "full":
        fill(disk, leave=0)
        cause = f"no space left on {disk}'s filesystem"
    else:
        with SqliteJournal(journal) as file:
            file.record({"type": "opened"})
        remount(disk, read_only=True)
        cause = f"{disk} is on a read-only filesystem"
    try:
        code, out, err = finish(daemon("--config", str(config)), 30)
    finally:
        if how == "read-only":
            remount(disk, read_only=False)
    assert code == 1, err
    (line,) = err.strip().splitlines()
    assert line.startswith(f"tablectl: error: {cause}")
    assert out == ""
