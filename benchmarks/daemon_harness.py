"""What the daemon benchmarks share: `tablectl run --simulate` as a process, its
NOTIFY_SOCKET, its resident memory and its events.sock stream (benchmarks/daemon_bench.py,
daemon_throughput.py, restart_bench.py, sim_bench.py, start_bench.py)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent  # the spawn's cwd: the tree measured
READY_TIMEOUT = 30.0
STREAM_TIMEOUT = 60.0  # no event line for this long: the daemon is stuck
MB = 1024 * 1024


def tablectl() -> list[str]:
    script = Path(sys.executable).with_name("tablectl")
    if script.exists():
        return [str(script), "run"]
    return [sys.executable, "-m", "controller.cli", "run"]


def run_args(game: str, pace_ms: int, seed: int, workdir: Path) -> list[str]:
    return [
        "--simulate",
        "--game",
        game,
        "--pace-ms",
        str(pace_ms),
        "--seed",
        str(seed),
        "--workdir",
        str(workdir),
    ]


def rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for pid {pid}")


class Notify:
    """systemd's side of NOTIFY_SOCKET: the READY=1 arrival, every datagram drained
    (a full datagram queue would block the daemon's sendto)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(str(path))
        self.sock.settimeout(0.1)
        self.ready_ns: int | None = None
        self.ready = threading.Event()
        self._stop = False
        self._thread = threading.Thread(target=self._drain, daemon=True)
        self._thread.start()

    def _drain(self) -> None:
        while not self._stop:
            try:
                data = self.sock.recv(4096)
            except TimeoutError:
                continue
            at = time.monotonic_ns()
            if self.ready_ns is None and b"READY=1" in data.split(b"\n"):
                self.ready_ns = at
                self.ready.set()

    def close(self) -> None:
        self._stop = True
        self._thread.join()
        self.sock.close()


@dataclass
class Daemon:
    proc: subprocess.Popen[bytes]
    notify: Notify
    workdir: Path
    spawned_ns: int
    stderr: Path

    def wait_ready(self) -> float:
        """Seconds from spawn to READY=1."""
        deadline = time.monotonic() + READY_TIMEOUT
        while not self.notify.ready.wait(0.1):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"the daemon did not report READY=1: {self.tail()}")
        assert self.notify.ready_ns is not None
        return (self.notify.ready_ns - self.spawned_ns) / 1e9

    def tail(self) -> str:
        return self.stderr.read_text(errors="replace")[-2000:]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            code = self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise SystemExit("the daemon did not stop within 30 s of SIGTERM") from None
        if code != 0:
            raise SystemExit(f"the daemon exited with status {code}: {self.tail()}")


@contextlib.contextmanager
def daemon(argv: Sequence[str], workdir: Path, tree: Path | None = None) -> Iterator[Daemon]:
    """The daemon of ``argv``; with ``tree``, that tree's code (PYTHONPATH, working
    directory: its simulators' ``python -m firmware_sim`` too). Without, ``ROOT`` as it
    is at the call (start_bench --against sets it), not as it was at import."""
    if tree is None:
        tree = ROOT
    workdir.mkdir(parents=True)
    notify = Notify(workdir / "notify.sock")
    stderr = workdir / "daemon.stderr"
    env = {**os.environ, "NOTIFY_SOCKET": str(notify.path)}
    if tree != ROOT:
        env["PYTHONPATH"] = str(tree)
    with open(stderr, "wb") as err:
        spawned = time.monotonic_ns()
        proc = subprocess.Popen(
            argv, cwd=tree, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err
        )
    d = Daemon(proc, notify, workdir, spawned, stderr)
    try:
        yield d
        d.stop()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        notify.close()


class Stream:
    """A subscriber on events.sock: JSON lines, each with the monotonic ns at which the
    chunk holding its end arrived."""

    def __init__(self, path: Path) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(str(path))
        self.sock.sendall(b'{"v":1,"op":"subscribe"}\n')
        self.sock.settimeout(STREAM_TIMEOUT)
        self._buffer = b""

    def lines(self) -> Iterator[tuple[int, bytes]]:
        while True:
            chunk = self.sock.recv(1 << 16)
            at = time.monotonic_ns()
            if not chunk:
                raise SystemExit("the daemon closed the event stream")
            *lines, self._buffer = (self._buffer + chunk).split(b"\n")
            for line in lines:
                yield at, line

    def close(self) -> None:
        self.sock.close()


def card_entries(stream: Stream) -> Iterator[tuple[int, dict[str, Any]]]:
    """The shoe's card_drawn entries on ``stream``, each with its arrival time (ns)."""
    for at, line in stream.lines():
        if b'"card_drawn"' not in line:
            continue
        entry = json.loads(line).get("entry", {})
        if entry.get("device") == "shoe" and entry.get("event") == "card_drawn":
            yield at, entry
