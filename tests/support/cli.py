"""``tablectl`` as a process, the way a technician runs it: its exit, stdout and stderr."""

from __future__ import annotations

import os
import subprocess
import sys


def tablectl(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """``python -m controller.cli ARGS`` with unbuffered output, waited for."""
    return subprocess.run(
        [sys.executable, "-m", "controller.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
