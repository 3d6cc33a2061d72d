"""``tablectl floor`` as the tests run it: its TOML written for a test broker
(tests/support/mosquitto.py), the process started until it prints its URL and ended
with SIGTERM, and its /api/pit read through a logged-in client."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from controller.web.users import set_password
from tests.support.mosquitto import Broker
from tests.support.web import PASSWORDS, Client, free_port

FLOOR_PASSWORD = "floor-broker-pass"
T = TypeVar("T")


def users_file(path: Path) -> Path:
    """The web's users file with tests/support/web.py's logins (a dealer, a floor),
    written by the function ``tablectl web passwd`` calls, in this process."""
    for login, (role, password) in PASSWORDS.items():
        set_password(path, login, role, password)
    return path


def config(
    folder: Path,
    broker: Broker,
    users: Path,
    *,
    client_id: str = "floor-1",
    password: str = FLOOR_PASSWORD,
    port: int | None = None,
) -> Path:
    """The floor's TOML in ``folder`` (its state directory beside it)."""
    folder.mkdir(parents=True, exist_ok=True)
    secret = folder / "password"
    secret.write_text(password + "\n", encoding="utf-8")
    path = folder / "floor.toml"
    path.write_text(
        f'client_id = "{client_id}"\n'
        f'state_dir = "{folder / "state"}"\n'
        "[broker]\n"
        f'host = "127.0.0.1"\nport = {broker.port}\ncafile = "{broker.certs.ca}"\n'
        f'username = "floor"\npassword_file = "{secret}"\n'
        "[web]\n"
        f'listen = "127.0.0.1:{port or free_port()}"\nusers = "{users}"\n',
        encoding="utf-8",
    )
    return path


@dataclass
class Floor:
    proc: subprocess.Popen[str]
    base: str
    stderr_path: Path

    def stop(self, sig: signal.Signals = signal.SIGTERM) -> int:
        """SIGTERM, as systemd stops it (or ``sig``); its exit status."""
        self.proc.send_signal(sig)
        return self.proc.wait(20)

    def log(self) -> str:
        return self.stderr_path.read_text(encoding="utf-8", errors="replace")

    def client(self, login: str = "fred") -> Client:
        client = Client(self.base)
        status, _, _ = client.login(login)
        assert status == 303, f"{login} could not log in"
        return client


def start(path: Path) -> Floor:
    """``tablectl floor --config PATH`` until it listens (stderr into a file beside)."""
    stderr_path = path.with_suffix(f".{time.monotonic_ns()}.log")
    with stderr_path.open("w") as stderr:
        proc = subprocess.Popen(
            [sys.executable, "-m", "controller.cli", "floor", "--config", str(path)],
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line.startswith("tablectl floor: "):
        proc.kill()
        proc.wait()
        raise AssertionError(f"no URL: {line!r} {stderr_path.read_text()}")
    return Floor(proc, line.split(": ", 1)[1].strip().rstrip("/"), stderr_path)


def pit(client: Client) -> dict[str, Any]:
    status, _, text = client.request("GET", "/api/pit")
    assert status == 200, f"/api/pit: {status} {text[:200]}"
    data: dict[str, Any] = json.loads(text)
    return data


def tables(client: Client) -> dict[str, dict[str, Any]]:
    return {view["table"]: view for view in pit(client)["tables"]}


def wait_for(what: Callable[[], T | None], timeout: float = 15.0, step: float = 0.05) -> T:
    """``what()`` once it is true; AssertionError with its last value after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        value = what()
        if value:
            return value
        assert time.monotonic() < deadline, f"not reached in {timeout} s: {value!r}"
        time.sleep(step)


def settles(what: Callable[[], T], expected: T, timeout: float = 15.0) -> None:
    """Wait until ``what()`` equals ``expected``; AssertionError with both after ``timeout``."""
    deadline = time.monotonic() + timeout
    while (value := what()) != expected:
        assert time.monotonic() < deadline, f"after {timeout} s: {value!r} != {expected!r}"
        time.sleep(0.05)
