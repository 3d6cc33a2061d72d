"""Real journals for the table model's tests: a bench run's lines (the simulated
devices, the real drivers and table) and a simulated ``tablectl run``'s journal file."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from controller.tableview import TableModel
from tests.support.bench import bench, example, lines
from tests.support.daemon import entries


def bench_entries(tmp_path: Path, name: str, **changes: Any) -> list[dict[str, Any]]:
    """The lines of the example scenario ``name`` played by the bench, ``changes`` to
    its keys applied."""
    scenario = {**example(name), **changes}
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(scenario))
    out = tmp_path / f"{name}.jsonl"
    assert bench(path, out) == 0
    return lines(out)


def simulated_entries(tmp_path: Path, game: str, rounds: int, seed: int) -> list[dict[str, Any]]:
    """The journal of ``tablectl run --simulate`` after ``rounds`` rounds of ``game``."""
    work = tmp_path / f"run-{game}"
    done = subprocess.run(
        [
            *(sys.executable, "-m", "controller.cli", "run", "--simulate", "--game", game),
            *("--rounds", str(rounds), "--pace-ms", "0", "--seed", str(seed)),
            *("--workdir", str(work), "--plain"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return entries(work / "journal.db")


def views(
    game: str, fed: list[dict[str, Any]]
) -> Iterator[tuple[Mapping[str, Any], dict[str, Any]]]:
    """Each entry, and the model's view right before it is fed."""
    model = TableModel(game)
    for seq, entry in enumerate(fed, start=1):
        yield entry, model.view()
        model.feed(seq, entry)
