"""A simulated table's journal, as `tablectl run --simulate` writes it, read as the
``(seq, entry)`` rows the pure layer takes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from controller.export import read_rows


def simulated_rows(workdir: Path, game: str, rounds: int, seed: int) -> list[tuple[int, Any]]:
    """Run the real simulated daemon for ``rounds`` rounds; its journal's rows (the
    journal is ``workdir / "journal.db"``)."""
    argv = [sys.executable, "-m", "controller.cli", "run", "--simulate", "--game", game]
    argv += ["--rounds", str(rounds), "--seed", str(seed), "--pace-ms", "0"]
    argv += ["--workdir", str(workdir)]
    done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    return [(row.seq, row.entry) for row in read_rows(workdir / "journal.db")]


def tablectl(*args: str) -> subprocess.CompletedProcess[str]:
    """``tablectl ARGS`` as a process: its exit code, stdout and stderr."""
    argv = [sys.executable, "-m", "controller.cli", *args]
    return subprocess.run(
        argv, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60
    )
