"""The watchdog's check of the journal (controller/daemon/health.py) on a real SQLite
journal in a real tmpfs of the test's own: read-only, nearly full, full, its files
deleted while open; and the daemon's pings stopping and coming back with it."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.api import Access, ApiServer
from controller.daemon.health import MIN_FREE, journal_problem
from controller.daemon.wiring import PublishingJournal
from controller.journal import JournalError, SqliteJournal
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
