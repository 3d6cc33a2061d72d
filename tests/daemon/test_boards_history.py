"""The journal read back for the boards while a simulated daemon writes it: every row
in order with its own time, read again from where the last reading stopped, nothing
changed in the journal by the reading; a refused command seen by the pit; bad input."""

from __future__ import annotations

import itertools
import time
from pathlib import Path
from typing import Any

import pytest

from controller.boards.history import history, row_time
from controller.boards.pit import Pit
from controller.boards.scoreboard import Scoreboard
from controller.journal import JournalError
from tests.support.boards import journal_rows
from tests.support.cli import tablectl
from tests.support.daemon import daemon, finish

ROUNDS = 40


def wait_for_rounds(path: Path, rounds: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists():
            try:
                ends = sum(e["type"] == "round_end" for _, e, _ in history(path))
            except JournalError:
                ends = 0  # created but not yet a journal
            if ends >= rounds:
                return
        time.sleep(0.05)
    raise AssertionError(f"no {rounds} rounds in {path} after {timeout} s")


def rows_after(path: Path, seq: int, timeout: float = 60) -> list[tuple[int, Any, float]]:
    """The rows after row ``seq``, once the daemon has written some."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        more = list(history(path, after=seq))
        if more:
            return more
        time.sleep(0.05)
    raise AssertionError(f"no row after {seq} in {path} after {timeout} s")


def test_a_journal_being_written_is_read_row_by_row_with_its_times(tmp_path: Path) -> None:
    proc = daemon(
        "--simulate", "--game", "baccarat", "--rounds", str(ROUNDS), "--pace-ms", "15",
        "--seed", "7", "--workdir", str(tmp_path),
    )  # fmt: skip
    journal = tmp_path / "journal.db"
    try:
        wait_for_rounds(journal, 3)
        refused = tablectl("send", "--floor", "--runtime-dir", str(tmp_path), "floor_clear")
        assert refused.returncode == 3, refused.stdout + refused.stderr
        first = list(history(journal))
        board = Scoreboard("baccarat")
        for seq, entry, _at in first:
            board.feed(seq, entry)
        mid = board.view()
        more = rows_after(journal, first[-1][0])
        code, _out, err = finish(proc, timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert code == 0, err
    rows = journal_rows(journal)
    read = first + more
    # In order, none missed, none twice: a prefix of the journal as it ended.
    assert [seq for seq, _, _ in read] == [seq for seq, _, _ in rows[: len(read)]]
    assert [(e, at) for _, e, at in read] == [(e, row_time(ts)) for _, ts, e in rows[: len(read)]]
    assert all(a[2] <= b[2] for a, b in itertools.pairwise(read))
    # The board built mid-run is the board of the finished journal up to that row.
    again = Scoreboard("baccarat")
    for seq, _ts, entry in rows:
        if seq <= first[-1][0]:
            again.feed(seq, entry)
    assert again.view() == mid and mid["counts"]["rounds"] >= 3
    # The whole journal read back: the pit sees the refusal, with its reason.
    pit = Pit("baccarat", at=0.0)
    for seq, entry, at in history(journal):
        pit.feed(seq, entry, at)
    view = pit.view()
    assert view["rounds"] == ROUNDS
    assert view["refusals"]["count"] == 1
    (refusal,) = view["refusals"]["last"]
    assert refusal["command"] == "floor_clear"
    assert str(refusal["reason"]).startswith("nothing to clear: play is not stopped")
    # Reading changed nothing: the chain is whole.
    verified = tablectl("journal", "verify", str(journal))
    assert verified.returncode == 0, verified.stdout + verified.stderr


def test_no_journal_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(JournalError, match=r"no such journal$"):
        list(history(tmp_path / "journal.db"))
    (tmp_path / "notes.db").write_bytes(b"not a database at all, only text" * 200)
    with pytest.raises(JournalError) as caught:
        list(history(tmp_path / "notes.db"))
    assert "\n" not in str(caught.value) and str(caught.value).startswith(str(tmp_path))
