"""``tablectl run`` as a process, as the daemon's tests start it: its command line, its
exit and its log, a stand-in for systemd's notification socket, and a real table's
configuration for simulated devices."""

from __future__ import annotations

import grp
import json
import os
import re
import secrets
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from controller.journal import SqliteJournal
from firmware_sim.harness import SimProcess


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

    def __init__(self, path: Path, reading: bool = True) -> None:
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(str(path))
        self.sock.settimeout(0.1)
        self.messages: list[tuple[float, str]] = []
        self._stop = False
        self._thread = threading.Thread(target=self._receive, daemon=True)
        if reading:
            self.start()

    def start(self) -> None:
        """Read the socket from now on (as systemd does all the time)."""
        self._thread.start()

    def fill(self) -> int:
        """Fill the socket's queue, as a reader that stopped reading leaves it: the
        datagrams sent, each "filler", before the kernel took no more."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as filler:
            filler.setblocking(False)
            sent = 0
            while True:
                try:
                    filler.sendto(b"filler", str(self.path))
                except BlockingIOError:
                    return sent
                sent += 1

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
        if self._thread.is_alive():
            self._thread.join()
        self.sock.close()


LOG_LINE = re.compile(r"<(?P<priority>[0-7])>(?P<json>\{.*\})")


def log_records(err: str) -> list[tuple[int, dict[str, Any]]]:
    """Every line of a log as (priority, record); AssertionError naming the first line
    that is not ``<N>`` and one JSON object (controller/logformat.py)."""
    records = []
    for number, line in enumerate(err.splitlines(), 1):
        shaped = LOG_LINE.fullmatch(line)
        assert shaped is not None, f"line {number} is not <N>{{json}}: {line!r}"
        record = json.loads(shaped["json"])
        assert isinstance(record, dict), f"line {number} is not a JSON object: {line!r}"
        records.append((int(shaped["priority"]), record))
    return records


def logged(err: str, event: str) -> list[dict[str, Any]]:
    """The daemon's log lines (``<N>`` and JSON on stderr, controller/logformat.py) of
    ``event``."""
    found = []
    for line in err.splitlines():
        shaped = LOG_LINE.fullmatch(line)
        if shaped is not None and f'"{event}"' in line:
            record = json.loads(shaped["json"])
            if record.get("event") == event:
                found.append(record)
    return found


def configured_table(tmp_path: Path) -> tuple[Path, SimProcess, SimProcess]:
    """A Baccarat table's configuration file (``tablectl run --config``) naming a shoe
    and a shuffler simulator on real ptys (as udev's /dev/tablectl/* symlinks would
    be), the journal and sockets in ``tmp_path``; and the two simulators, not started
    (``with shoe, shuffler:``). Started by the test, they outlive a daemon, as real
    devices do."""
    work = tmp_path / "devices"
    work.mkdir()
    key = secrets.token_bytes(32)
    shoe = SimProcess("shoe", work, key, ["--pace", "manual", "--decks", "8"])
    shuffler = SimProcess("shuffler", work, key, ["--decks", "8"])
    # Dealer and floor sockets need groups of their own (docs/config.md): two that exist.
    groups = sorted({g.gr_gid for g in grp.getgrall()})[:3]
    devices = "".join(
        f'[devices.{sim.name}]\npath = "{sim.link_path}"\nkey_file = "{sim.key_path}"\n'
        f'approved_firmware = ["{sim.firmware_hash.hex()}"]\n'
        for sim in (shoe, shuffler)
    )
    sockets = "".join(
        f"[api.{s}]\ngroup = {g}\n"
        for s, g in zip(("dealer", "floor", "events"), groups, strict=True)
    )
    config = tmp_path / "table.toml"
    config.write_text(
        f'[table]\nid = "bac-07"\ngame = "baccarat"\n[devices]\n{devices}'
        f'[journal]\npath = "{tmp_path / "journal.db"}"\n'
        f'[api]\nruntime_dir = "{tmp_path}"\n{sockets}'
    )
    return config, shoe, shuffler


def entries(path: Path) -> list[dict[str, Any]]:
    """The journal's entries, in order."""
    with SqliteJournal(path) as journal:
        return [r.entry for r in journal.rows()]
