"""A table played by hand: ``tablectl run --simulate --manual`` as a process, the
dealer's and floorperson's commands over its sockets (with a ``login``), the cards by
``controller.simpanel.SimulatedDevices``, as the web process would (docs/manual.md)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from controller.client.connection import Connection
from controller.simpanel import SimulatedDevices
from tests.support.daemon import entries

READY_TIMEOUT = 30.0
SHUFFLE_TIMEOUT = 10.0


class ManualTable:
    """One manual simulated table in ``workdir`` and the hands that play it."""

    def __init__(self, workdir: Path, game: str, seed: int = 7, *args: str) -> None:
        self.workdir = workdir
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "controller.cli",
                "run",
                "--simulate",
                "--manual",
                "--plain",
                "--game",
                game,
                "--seed",
                str(seed),
                "--workdir",
                str(workdir),
                *args,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.panel = SimulatedDevices(workdir)
        self._wait_ready()

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + READY_TIMEOUT
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                err = self.proc.stderr.read() if self.proc.stderr else ""
                raise AssertionError(f"the daemon exited: {err}")
            if (self.workdir / "events.sock").exists():
                table = self.status()
                if table is not None and table["ready"]:
                    return
            time.sleep(0.05)
        raise AssertionError("the manual table did not become ready")

    def status(self) -> dict[str, Any] | None:
        """The table's snapshot once it is as of the last entry streamed (``seq``): the
        daemon sets it after each input, the entries go out as they commit."""
        deadline = time.monotonic() + SHUFFLE_TIMEOUT
        while True:
            reply = self._status()
            table: dict[str, Any] | None = reply["table"]
            if table is None or table["seq"] == reply["last_seq"]:
                return table
            assert time.monotonic() < deadline, f"the status stays behind: {reply}"
            time.sleep(0.01)

    def _status(self) -> dict[str, Any]:
        with Connection(self.workdir / "events.sock") as conn:
            return conn.request({"v": 1, "op": "status"})

    def command(self, socket: str, name: str, **args: object) -> dict[str, Any]:
        """One command, as the web sends it (its login named), and its result."""
        return self.request(
            socket, {"op": "command", "name": name, "args": args, "login": "tester"}
        )

    def request(self, socket: str, message: dict[str, object]) -> dict[str, Any]:
        """One request; the command's result, or the error."""
        request = {"v": 1, **message}
        with Connection(self.workdir / f"{socket}.sock") as conn:
            conn.send(json.dumps(request))
            while True:
                reply = conn.receive(5.0)
                if reply["type"] in ("result", "error"):
                    return reply

    def wait(self, until: Any, what: str, timeout: float = SHUFFLE_TIMEOUT) -> dict[str, Any]:
        """The status once ``until(status)`` holds."""
        deadline = time.monotonic() + timeout
        while True:
            table = self.status()
            assert table is not None
            if until(table):
                return table
            if time.monotonic() >= deadline:
                raise AssertionError(f"{what}: still {table}")
            time.sleep(0.05)

    def draw(self) -> None:
        """The dealer draws one card; back once the table has it (the journal grew)."""
        before = self._status()["last_seq"]
        self.panel.draw()
        deadline = time.monotonic() + SHUFFLE_TIMEOUT
        while self._status()["last_seq"] == before:
            assert time.monotonic() < deadline, "the drawn card never reached the table"
            time.sleep(0.02)

    def journal(self) -> list[dict[str, Any]]:
        return entries(self.workdir / "journal.db")

    def last(self, kind: str) -> dict[str, Any]:
        return [e for e in self.journal() if e.get("type") == kind][-1]

    def stop(self) -> tuple[int, str]:
        self.panel.close()
        self.proc.terminate()
        _, err = self.proc.communicate(timeout=30)
        return self.proc.returncode, err
