"""``tablectl run`` as a process, for the tests that start, kill and restart it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from controller.journal import SqliteJournal


def daemon(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "run", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})},
    )


def finish(proc: subprocess.Popen[str], timeout: float = 30) -> tuple[int, str, str]:
    out, err = proc.communicate(timeout=timeout)
    return proc.returncode, out, err


def entries(path: Path) -> list[dict[str, Any]]:
    """The journal's entries, in order."""
    with SqliteJournal(path) as journal:
        return [r.entry for r in journal.rows()]
