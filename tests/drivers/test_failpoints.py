"""Failpoints (drivers/failpoints.py): a named place kills the process only when the
environment arms it, and on the Nth time it is reached when it says so."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

from drivers.failpoints import _armed

PROGRAM = """
from drivers import failpoints
for i in range(1, 6):
    print(i, flush=True)
    failpoints.reached("here")
print("done", flush=True)
"""


def run(setting: str | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "TABLECTL_FAILPOINTS"}
    if setting is not None:
        env["TABLECTL_FAILPOINTS"] = setting
    return subprocess.run(
        [sys.executable, "-c", PROGRAM], env=env, capture_output=True, text=True, timeout=30
    )


def test_unarmed_failpoints_do_nothing() -> None:
    result = run(None)
    assert result.returncode == 0 and result.stdout.split() == ["1", "2", "3", "4", "5", "done"]


def test_an_armed_failpoint_kills_the_process_the_first_time() -> None:
    result = run("elsewhere,here")
    assert result.returncode == -signal.SIGKILL
    assert result.stdout.split() == ["1"]


def test_an_armed_failpoint_with_a_count_kills_on_that_time() -> None:
    result = run("here@3")
    assert result.returncode == -signal.SIGKILL
    assert result.stdout.split() == ["1", "2", "3"]


def test_the_setting_is_read_leniently() -> None:
    assert _armed("") == {}
    assert _armed(" a , b@2,,c@x, d@0") == {"a": 1, "b": 2, "c": 1, "d": 1}
