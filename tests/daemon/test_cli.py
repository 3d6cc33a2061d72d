"""The tablectl command line: the simulated run end to end, and one-line errors."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.cli import tablectl


def test_simulated_run_is_fixed_by_its_seed(tmp_path: Path) -> None:
    """``run`` without --config is the simulated table; the seed fixes the shoe and the
    autoplay's wagers, so two runs deal the same rounds."""
    outs = []
    for n in range(2):
        workdir = tmp_path / str(n)
        result = tablectl(
            "run", "--game", "spanish21", "--rounds", "2", "--pace-ms", "0", "--seed", "4",
            "--workdir", str(workdir), "--plain",
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
        (("run", "--config", "table.toml", "--manual"), "--manual is for a simulated table"),
        (
            ("run", "--simulate", "--manual", "--pace-ms", "10"),
            "--pace-ms is the autoplay dealer's pace, not with --manual",
        ),
        (("run", "--config", "table.toml", "--web", "127.0.0.1:8080"), "--web is for a simulated"),
        (("run", "--simulate", "--web", "8080"), "--web must be HOST:PORT"),
        (("run", "--simulate", "--web", "localhost:99999"), "--web must be HOST:PORT"),
        (("run", "--simulate", "--web", ":8080"), "--web must be HOST:PORT"),
        (("run", "--config", "/nonexistent/table.toml"), "cannot read the configuration"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args: tuple[str, ...], message: str) -> None:
    result = tablectl(*args)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and "Traceback" not in result.stderr


def test_run_help_names_the_manual_table() -> None:
    result = tablectl("run", "--help")
    assert result.returncode == 0, result.stderr
    text = " ".join(result.stdout.split())
    assert "--manual with --simulate: no autoplay dealer" in text
    assert "controller/simpanel.py, docs/manual.md" in text


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


# --------------------------------------------------------------------------- what loads


def _loaded_after(code: str) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    """Run ``code`` in a fresh interpreter that prints a status line, then lists every
    module it has loaded, one a line."""
    env = {k: v for k, v in os.environ.items() if k != "NOTIFY_SOCKET"}
    code += "\nprint('\\n'.join(sorted(sys.modules)))\n"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env
    )
    return result, result.stdout.splitlines()[1:]


def _bench_or_simulator(modules: list[str]) -> list[str]:
    return [
        m
        for m in modules
        if m.split(".")[0] == "firmware_sim"
        or m == "controller.bench"
        or m.startswith("controller.bench.")
    ]


def test_a_configured_run_loads_neither_the_bench_nor_the_simulators(tmp_path: Path) -> None:
    # `tablectl run --config FILE` is the production daemon: the bench and the firmware
    # simulators stay out of its process (controller/cli.py imports a command's module
    # only when that command runs; the daemon is handed a simulated table, never
    # imports one).
    config = tmp_path / "table.toml"
    config.write_text('[table]\nid = "t1"\n', encoding="utf-8")  # invalid: exit 2
    result, loaded = _loaded_after(
        "import sys\nfrom controller.cli import main\n"
        f"print(main(['run', '--config', {str(config)!r}]))"
    )
    assert result.stdout.splitlines()[0] == "2", result.stderr
    assert result.stderr.startswith(f"tablectl: error: {config}: table.game: missing")
    assert "controller.daemon.main" in loaded and "controller.config" in loaded
    assert _bench_or_simulator(loaded) == []

    result, loaded = _loaded_after("import sys\nimport controller.daemon.main\nprint('ok')")
    assert result.returncode == 0, result.stderr
    assert "controller.daemon.wiring" in loaded
    assert _bench_or_simulator(loaded) == []


def test_the_bench_command_loads_the_bench_and_the_simulators(tmp_path: Path) -> None:
    # The other side of the test above: the same listing shows them once asked for.
    missing, out = tmp_path / "missing.json", tmp_path / "out.jsonl"
    result, loaded = _loaded_after(
        "import sys\nfrom controller.cli import main\n"
        f"print(main(['bench', {str(missing)!r}, '--events', {str(out)!r}]))"
    )
    assert result.stdout.splitlines()[0] == "2", result.stderr
    assert "controller.bench.runner" in loaded and "firmware_sim.harness" in loaded
    assert "controller.daemon" not in loaded
