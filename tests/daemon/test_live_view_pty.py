"""The live view on a real pseudo-terminal of 80 columns and 24 lines: a simulated
table whose shoe is unplugged mid-run (the firmware simulator's ``unplug`` control).
The terminal shows the table and never a log line; the log (the drivers' warnings of
the lost shoe) is in the work directory's ``tablectl.log``, whose path the screen and
the last line give."""

from __future__ import annotations

import fcntl
import json
import os
import re
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

from firmware_sim.control import SimControl

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][0-9A-Za-z]")


def _terminal() -> tuple[int, int]:
    """A pseudo-terminal of 80 columns and 24 lines: its master and slave fds."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    return master, slave


def _read_all(master: int, proc: subprocess.Popen[bytes]) -> str:
    got = b""
    while True:
        ready, _, _ = select.select([master], [], [], 0.2)
        if not ready:
            if proc.poll() is not None:
                break
            continue
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: every writer of the pty has exited
            break
        if not chunk:
            break
        got += chunk
    os.close(master)
    return got.decode("utf-8", "replace")


def _play(work: Path, unplug_after: float) -> tuple[int, str]:
    """``tablectl run --simulate`` on a pty; the shoe unplugged ``unplug_after`` seconds
    after the view first draws. The exit status and everything the terminal got."""
    master, slave = _terminal()
    argv = [
        sys.executable, "-m", "controller.cli", "run", "--simulate", "--game", "spanish21",
        "--rounds", "3", "--pace-ms", "60", "--seed", "3", "--workdir", str(work),
    ]  # fmt: skip
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "80", "LINES": "24"}
    proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=env)
    os.close(slave)
    got, drawn_at, unplugged = b"", None, False
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.1)
        chunk = b""
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: every writer of the pty has exited
                break
            got += chunk
        if drawn_at is None and b"Ctrl-C stops" in got:
            drawn_at = time.monotonic()
        if not unplugged and drawn_at and time.monotonic() - drawn_at > unplug_after:
            with SimControl(work / "shoe.control") as shoe:
                assert shoe.request("unplug", duration_ms=300)["ok"]
            unplugged = True
        if not chunk and proc.poll() is not None:
            break
    os.close(master)
    assert unplugged
    return proc.wait(10), got.decode("utf-8", "replace")


def test_no_log_line_on_the_live_view(tmp_path: Path) -> None:
    work = tmp_path / "t"
    code, shown = _play(work, unplug_after=1.0)
    assert code == 0, shown[-2000:]
    log = work / "tablectl.log"
    text = ANSI.sub("", shown)
    assert '"event"' not in text and '"level"' not in text and "<4>" not in text
    for event in ("device_lost", "device_unavailable"):
        assert event not in text
    lines = [line for line in re.split(r"\r\n|\r|\n", text) if line]
    # Every line the view drew fits (the last, printed once it is gone, has the path).
    assert [line for line in lines[:-1] if len(line) > 80] == []
    records = [json.loads(re.sub(r"^<[0-7]>", "", line)) for line in log.read_text().splitlines()]
    events = [r["event"] for r in records]
    assert "device_lost" in events and "device_unavailable" in events
    assert "fault: device lost (shoe)" in text  # the view's own words for it
    assert "Ctrl-C stops · log: " in text
    assert lines[-1] == f"stopped after 3 rounds; log: {log}"


def test_a_pipe_gets_the_log_as_before(tmp_path: Path) -> None:
    """Without a terminal nothing is set aside: stderr has the log lines."""
    work = tmp_path / "t"
    argv = [
        sys.executable, "-m", "controller.cli", "run", "--simulate", "--rounds", "1",
        "--seed", "2", "--pace-ms", "0", "--workdir", str(work), "--log-level", "info",
    ]  # fmt: skip
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert '"event": "daemon_starting"' in done.stderr
    assert not (work / "tablectl.log").exists()


def test_a_failure_after_the_log_is_set_aside_is_told_on_the_terminal(tmp_path: Path) -> None:
    """The shoe's simulator cannot start (its control socket's path is taken): the
    failure's one line reaches the terminal, not the log file."""
    work = tmp_path / "t"
    (work / "shoe.control").mkdir(parents=True)
    master, slave = _terminal()
    argv = [
        sys.executable, "-m", "controller.cli", "run", "--simulate", "--rounds", "1",
        "--pace-ms", "0", "--workdir", str(work),
    ]  # fmt: skip
    proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave)
    os.close(slave)
    shown = _read_all(master, proc)
    assert proc.wait(10) == 1
    assert re.search(r"^tablectl: error: shoe simulator exited", shown, re.M), shown
    assert (work / "tablectl.log").read_text() == ""
