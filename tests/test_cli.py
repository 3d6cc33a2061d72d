"""The tablectl command line: the simulated run end to end, and one-line errors."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest


def tablectl(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "controller.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )


def test_simulated_run_reads_cards_from_all_three_devices() -> None:
    result = tablectl("run", "--simulate", "--cards", "8", "--pace-ms", "20", "--seed", "4")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    for device in ("shoe", "reader", "shuffler"):
        assert f"{device}: connected" in out
    assert "reader: self-test passed" in out
    assert "shuffle completed, 52 cards" in out
    cards = [line.split(": ")[1] for line in out.splitlines() if line.startswith("card ")]
    assert len(cards) == 8 and len(set(cards)) == 8
    assert out.rstrip().endswith("stopped after 8 cards")
    again = tablectl("run", "--simulate", "--cards", "8", "--pace-ms", "20", "--seed", "4")
    assert [ln for ln in again.stdout.splitlines() if ln.startswith("card ")] == [
        ln for ln in out.splitlines() if ln.startswith("card ")
    ]  # the seed fixes the shuffle


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((), "the following arguments are required"),
        (("launch",), "invalid choice"),
        (("run",), "only --simulate"),
        (("run", "--simulate", "--cards", "0"), "must be at least 1"),
        (("run", "--simulate", "--cards", "many"), "not a whole number"),
        (("run", "--simulate", "--bogus"), "unrecognized arguments"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args: tuple[str, ...], message: str) -> None:
    result = tablectl(*args)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and "Traceback" not in result.stderr


def test_analyze_prints_the_published_eight_deck_counts() -> None:
    result = tablectl("analyze", "baccarat", "--decks", "8", "--json")
    assert result.returncode == 0, result.stderr
    import json

    counts = json.loads(result.stdout)
    text = json.dumps(counts)
    for published in ("2292252566437888", "2230518282592256", "475627426473216"):
        assert published in text.replace(",", "").replace("_", "")


def test_analyze_bad_decks_is_one_line() -> None:
    result = tablectl("analyze", "baccarat", "--decks", "3")
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "545.3(a)" in result.stderr
