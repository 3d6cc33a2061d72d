"""/pit's shifts (``tablectl web --shifts``, controller/web/shifts.py): a web process
started in the middle of a shift counts the shift's rounds from the journal, not
only those after its own start, and a new shift starts its figures again."""

from __future__ import annotations

import datetime as dt
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.web import shifts
from controller.web.models import Models
from tests.support.boards import journal_rows, settled, simulated_journal
from tests.support.web import tablectl, users_file

UTC_DAY = dt.datetime(2026, 12, 2, tzinfo=dt.UTC).timestamp()  # a midnight, UTC


@pytest.fixture
def utc() -> Iterator[None]:
    before = os.environ.get("TZ")
    os.environ["TZ"] = "UTC"
    time.tzset()
    yield
    if before is None:
        del os.environ["TZ"]
    else:
        os.environ["TZ"] = before
    time.tzset()


def test_the_current_shift_and_the_next(utc: None) -> None:
    starts = shifts.parse("22:00,06:00,14:00")
    assert starts == (360, 840, 1320)
    hour = 3600.0
    assert shifts.current(UTC_DAY + 10.5 * hour, starts) == (
        UTC_DAY + 6 * hour,
        UTC_DAY + 14 * hour,
    )
    # Before the day's first start: the previous day's last shift.
    assert shifts.current(UTC_DAY + 3 * hour, starts) == (UTC_DAY - 2 * hour, UTC_DAY + 6 * hour)
    assert shifts.current(UTC_DAY + 23 * hour, starts)[1] == UTC_DAY + 30 * hour
    assert shifts.current(UTC_DAY + 6 * hour, starts)[0] == UTC_DAY + 6 * hour  # at its start


@pytest.mark.parametrize("bad", ["25:00", "6:00", "06:00,06:00", "", "06:00;14:00", "noon"])
def test_bad_shifts_are_one_line_and_exit_2(tmp_path: Path, bad: str) -> None:
    users = str(users_file(tmp_path / "users.toml"))
    done = tablectl("web", "--runtime-dir", str(tmp_path), "--users", users, "--shifts", bad)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "--shifts" in done.stderr, done.stderr


def test_the_pit_counts_the_shift_from_its_start_and_starts_again_at_the_next(
    tmp_path: Path, utc: None
) -> None:
    rows = journal_rows(simulated_journal(tmp_path / "t", "baccarat", 6, seed=5))
    rounds = settled(rows)
    assert len(rounds) == 6
    ends = [n for n, (_, _, e) in enumerate(rows) if e.get("type") == "round_end"]
    hour = 3600.0
    # The table's rows as if its first two rounds were played before 06:00 and the
    # next two after, the web started at 07:00 with the whole journal behind it; then
    # the last two after 14:00.
    first, second = ends[1], ends[3]
    models = Models(shifts.parse("06:00,14:00,22:00"))
    now = time.time

    def at(n: int) -> float:
        if n <= first:
            return UTC_DAY + 5 * hour
        return UTC_DAY + (7 * hour if n <= second else 15 * hour)

    time.time = lambda: UTC_DAY + 7 * hour  # type: ignore[assignment]
    try:
        for n, (seq, _, entry) in enumerate(rows[: second + 1]):
            models.feed(seq, entry, at(n))
        view = models.pit_view()
        assert (view["rounds"], view["shift"]["since"]) == (2, UTC_DAY + 6 * hour), view
        for n, (seq, _, entry) in enumerate(rows[second + 1 :], start=second + 1):
            models.feed(seq, entry, at(n))
    finally:
        time.time = now  # type: ignore[assignment]
    view = models.pit_view()
    assert (view["rounds"], view["shift"]["since"]) == (2, UTC_DAY + 14 * hour), view
