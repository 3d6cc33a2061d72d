"""One simulated table's work directory and the `tablectl run --simulate --pace-ms 0`
processes the crash campaign (tests/support/campaign.py) runs on it: left to stop,
killed at a failpoint, or killed from outside at a random moment."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from tests.support.daemon import NotifySocket

KILLED = -signal.SIGKILL
OWN_ENVIRONMENT = ("TABLECTL_FAILPOINTS", "NOTIFY_SOCKET")  # set by the campaign alone


@dataclass
class Run:
    code: int
    err: str


class Table:
    """One work directory and the processes run on it."""

    def __init__(self, game: str, workdir: Path, logs: Path) -> None:
        self.game = game
        self.workdir = workdir
        self.logs = logs
        self.journal = workdir / "journal.db"
        self.spawned = 0
        self.starts: list[int] = []  # the journal's rows when each run began
        self.checked = 0  # the runs whose device events were checked
        workdir.mkdir(parents=True, exist_ok=True)
        logs.mkdir(parents=True, exist_ok=True)

    def spawn(
        self, seed: int, *args: str, failpoint: str | None = None, notify: Path | None = None
    ) -> tuple[subprocess.Popen[bytes], Path]:
        self.spawned += 1
        err = self.logs / f"{self.workdir.name}-{self.spawned:03d}.err"
        env = {k: v for k, v in os.environ.items() if k not in OWN_ENVIRONMENT}
        env["PYTHONUNBUFFERED"] = "1"
        if failpoint:
            env["TABLECTL_FAILPOINTS"] = failpoint
        if notify:
            env["NOTIFY_SOCKET"] = str(notify)
        argv = [sys.executable, "-m", "controller.cli", "run", "--simulate", "--game", self.game]
        argv += ["--seed", str(seed), "--pace-ms", "0", "--workdir", str(self.workdir), *args]
        with err.open("wb") as sink:
            proc = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,  # the live view: never a full pipe
                stderr=sink,
                env=env,
            )
        return proc, err

    def run(self, seed: int, *args: str, failpoint: str | None = None, timeout: float = 90) -> Run:
        proc, err = self.spawn(seed, *args, failpoint=failpoint)
        return _ended(proc, err, timeout)

    def kill_after(self, seed: int, delay: float, ready: bool) -> Run:
        """Spawned, and SIGKILLed ``delay`` seconds later (after READY=1, with ``ready``)."""
        # A short path of its own: a socket's path has room for 107 bytes.
        with tempfile.TemporaryDirectory(prefix="tablectl-") as short:
            notify = NotifySocket(Path(short) / "notify") if ready else None
            try:
                proc, err = self.spawn(seed, notify=notify.path if notify else None)
                if notify and not _ready(notify, proc):
                    return _ended(proc, err, 0)  # exited, or reported as not ready
                time.sleep(delay)
                if proc.poll() is None:
                    proc.send_signal(signal.SIGKILL)
                return _ended(proc, err, 30)
            finally:
                if notify:
                    notify.close()


def _ready(notify: NotifySocket, proc: subprocess.Popen[bytes], timeout: float = 60) -> bool:
    """READY=1 arrived, while the process lives."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        if any(text.startswith("READY=1") for text in notify.texts()):
            return True
        time.sleep(0.01)
    return False


def _ended(proc: subprocess.Popen[bytes], err: Path, timeout: float) -> Run:
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()  # not the kill under test: the run is reported as not killed
        proc.wait()
        return Run(-999, err.read_text(errors="replace") + f"\n(no exit within {timeout} s)")
    return Run(proc.returncode, err.read_text(errors="replace"))


def tail(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[-1] if lines else "(nothing on stderr)"
