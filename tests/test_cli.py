"""The tablectl command line: the simulated run end to end, and one-line errors."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


def tablectl(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "controller.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )


def test_simulated_run_is_fixed_by_its_seed(tmp_path: Path) -> None:
    """``run`` without --config is the simulated table; the seed fixes the shoe and the
    autoplay's wagers, so two runs deal the same rounds."""
    outs = []
    for n in range(2):
        workdir = tmp_path / str(n)
        result = tablectl(
            "run", "--game", "spanish21", "--rounds", "2", "--pace-ms", "0", "--seed", "4",
            "--workdir", str(workdir),
        )  # fmt: skip
        assert result.returncode == 0, result.stderr
        outs.append([ln for ln in result.stdout.splitlines() if ln.startswith("round_end ")])
    assert len(outs[0]) == 2 and outs[0] == outs[1]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((), "the following arguments are required"),
        (("launch",), "invalid choice"),
        (("run", "--simulate", "--rounds", "0"), "must be at least 1"),
        (("run", "--simulate", "--rounds", "many"), "not a whole number"),
        (("run", "--simulate", "--bogus"), "unrecognized arguments"),
        (("run", "--game", "poker"), "invalid choice"),
        (("run", "--config", "table.toml", "--seed", "3"), "--seed is for a simulated table"),
        (("run", "--simulate", "--pace-ms", "-1"), "--pace-ms must be 0 or more"),
        (("run", "--config", "/nonexistent/table.toml"), "cannot read the configuration"),
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
