"""What benchmarks/floor_bench.py measures of its processes, from /proc: CPU time
(``utime + stime`` of /proc/PID/stat), resident memory (``VmRSS`` of /proc/PID/status)
and the whole machine's busy time (/proc/stat), to tell how loaded it was by others."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterable
from pathlib import Path

TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """The CPU time (user + system) of ``pid`` so far; its threads included."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / TICK  # utime, stime: fields 14, 15


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def machine_busy() -> float:
    """The CPU seconds all processes have used so far (all cores, /proc/stat: user,
    nice, system; interrupts and softirqs, such as loopback traffic, are left out:
    /proc/PID/stat does not count them for any process either)."""
    values = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    return sum(values[:3]) / TICK


def settle(pids: list[int], per_process: float, limit: float) -> float:
    """Wait until ``pids`` together use at most ``per_process`` of a core each (measured
    over a second), at most ``limit`` seconds; the seconds waited."""
    began = time.monotonic()
    while time.monotonic() - began < limit:
        before = sum(cpu_seconds(p) for p in pids)
        time.sleep(1.0)
        if sum(cpu_seconds(p) for p in pids) - before <= per_process * len(pids):
            break
    return time.monotonic() - began


class Meter:
    """CPU of named groups of processes from ``start()`` to ``stop()``, the machine's
    busy CPU over the same time (``wall`` seconds), and the peak RSS of ``watched`` (sampled twice a
    second)."""

    def __init__(self, groups: dict[str, Iterable[int]], watched: int) -> None:
        self.groups = {name: list(pids) for name, pids in groups.items()}
        self.watched = watched
        self.peak_rss = 0.0
        self._done = threading.Event()
        self._sampler = threading.Thread(target=self._sample, daemon=True)
        self._before: dict[int, float] = {}
        self._busy0 = 0.0
        self.cpu: dict[str, list[float]] = {}  # group -> CPU seconds of each process
        self.busy = 0.0  # machine: busy CPU seconds, every process's
        self.wall = 0.0  # seconds from start() to stop()
        self._t0 = 0.0

    def _all(self) -> list[int]:
        return [pid for pids in self.groups.values() for pid in pids]

    def start(self) -> None:
        self._before = {pid: cpu_seconds(pid) for pid in self._all()}
        self._busy0 = machine_busy()
        self._t0 = time.monotonic()
        self._sampler.start()

    def _sample(self) -> None:
        while True:
            self.peak_rss = max(self.peak_rss, rss_mib(self.watched))
            if self._done.wait(0.5):
                return

    def stop(self) -> None:
        busy = machine_busy()
        self.wall = time.monotonic() - self._t0
        after = {pid: cpu_seconds(pid) for pid in self._all()}
        self._done.set()
        self._sampler.join()
        self.peak_rss = max(self.peak_rss, rss_mib(self.watched))
        self.busy = busy - self._busy0
        self.cpu = {
            name: [after[p] - self._before[p] for p in pids] for name, pids in self.groups.items()
        }
