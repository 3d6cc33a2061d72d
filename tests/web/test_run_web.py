"""``tablectl run --simulate --web HOST:PORT`` (what ``make run`` starts): the web
consoles beside the simulated table, this run's logins printed and kept, the web
process stopped with the table, a new run's passwords not the old ones."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.support.web import Client, free_port

LINE = re.compile(r"^(dealer|floor):\s+(\S+)\s+login (\w+) / (\S+)$", re.M)


def _run(workdir: Path, port: int) -> tuple[subprocess.Popen[str], dict[str, tuple[str, str]]]:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "controller.cli",
            "run",
            "--simulate",
            "--manual",
            "--workdir",
            str(workdir),
            "--web",
            f"127.0.0.1:{port}",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert proc.stdout is not None
    text = "".join(proc.stdout.readline() for _ in range(6))
    logins = {role: (login, password) for role, _url, login, password in LINE.findall(text)}
    assert set(logins) == {"dealer", "floor"}, text
    assert f"http://127.0.0.1:{port}/scoreboard" in text and str(workdir) in text
    return proc, logins


def _serving(base: str) -> None:
    deadline = time.monotonic() + 30
    while True:
        try:
            if Client(base).request("GET", "/scoreboard")[0] == 200:
                return
        except OSError:
            pass
        assert time.monotonic() < deadline, "the web consoles never answered"
        time.sleep(0.1)


def _stop(proc: subprocess.Popen[str]) -> str:
    proc.send_signal(signal.SIGINT)
    proc.wait(30)
    assert proc.stderr is not None
    return proc.stderr.read()


def test_the_printed_logins_open_their_consoles_and_the_web_stops_with_the_table(
    tmp_path: Path,
) -> None:
    workdir, port = tmp_path / "table", free_port()
    base = f"http://127.0.0.1:{port}"
    proc, logins = _run(workdir, port)
    try:
        _serving(base)
        for role in ("dealer", "floor"):
            client = Client(base)
            login, password = logins[role]
            assert client.login(login, password)[0] == 303
            assert client.request("GET", f"/{role}")[0] == 200
        assert Client(base).login("dealer", "not-the-password")[0] == 401
        kept = (workdir / "web-logins.txt").read_text()
        assert all(password in kept for _login, password in logins.values())
        assert (workdir / "web-logins.txt").stat().st_mode & 0o077 == 0
        users = (workdir / "web-users.toml").read_text()
        assert all(password not in users for _login, password in logins.values())
    finally:
        assert _stop(proc) == "" or proc.returncode == 0
    assert proc.returncode == 0
    # The web process went with the table: nothing answers on its port any more.
    try:
        Client(base).request("GET", "/scoreboard")
        raise AssertionError("the web consoles outlived the table")
    except OSError:
        pass
    # A second run on the same directory: new passwords, the old ones refused.
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    proc, again = _run(workdir, port)
    try:
        _serving(base)
        assert again["dealer"][1] != logins["dealer"][1]
        assert Client(base).login("dealer", logins["dealer"][1])[0] == 401
        assert Client(base).login("dealer", again["dealer"][1])[0] == 303
    finally:
        _stop(proc)


def test_a_bad_web_address_is_one_line_before_anything_starts(tmp_path: Path) -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "controller.cli",
            "run",
            "--simulate",
            "--web",
            "nowhere",
            "--workdir",
            str(tmp_path / "t"),
        ],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0 and "--web must be HOST:PORT" in result.stderr
    assert not (tmp_path / "t").exists()
