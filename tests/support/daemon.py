"""``tablectl run`` as a process, as the daemon's tests start it: its command line, its
exit, and a fake systemd notification socket (an AF_UNIX datagram socket) that keeps
what it receives."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path


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


class NotifySocket:
    """What systemd's notification socket receives, with the time of arrival."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(str(path))
        self.sock.settimeout(0.1)
        self.messages: list[tuple[float, str]] = []
        self._stop = False
        self._thread = threading.Thread(target=self._receive, daemon=True)
        self._thread.start()

    def _receive(self) -> None:
        while not self._stop:
            try:
                data = self.sock.recv(4096)
            except TimeoutError:
                continue
            self.messages.append((time.time(), data.decode()))

    def wait_for(self, prefix: str, timeout: float = 20) -> float:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for at, message in list(self.messages):
                if message.startswith(prefix):
                    return at
            time.sleep(0.02)
        raise AssertionError(f"no {prefix!r} within {timeout} s: {self.texts()}")

    def texts(self) -> list[str]:
        return [message for _, message in self.messages]

    def close(self) -> None:
        self._stop = True
        self._thread.join()
        self.sock.close()
