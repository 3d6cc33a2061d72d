"""Idle benchmark: a connected daemon with nothing to do, its CPU and wake-ups per thread.

Run: .venv/bin/python benchmarks/idle_bench.py [--runs 3] [--seconds 60] [--against TREE]

Each run starts `tablectl run --simulate --game baccarat --pace-ms 3600000` (connected,
the simulated dealer's next action an hour away) and, with --against TREE (a copy of
another tree, e.g. `git archive main | tar -x -C /tmp/main`), the same command from
that tree (PYTHONPATH and working directory TREE) at the same time, so both are
measured over the same seconds of the same machine. After --settle seconds, over
--seconds: each daemon's CPU share of a core (all threads, /proc/PID/task/*/schedstat)
and its wake-ups per second (voluntary context switches, /proc/PID/task/*/status),
per thread (named by `py-spy dump` when py-spy is on PATH or beside this Python) and
in all; and its simulators' CPU share.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from daemon_harness import ROOT, Daemon, daemon, run_args
from sim_bench import children

IDLE_PACE_MS = 3_600_000
Sample = dict[str, tuple[int, int]]  # thread -> (CPU ns, voluntary context switches)


def threads(pid: int, names: dict[str, str]) -> Sample:
    """CPU ns and voluntary switches of each live thread of ``pid``."""
    out: Sample = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            cpu = int(Path(f"/proc/{pid}/task/{tid}/schedstat").read_text().split()[0])
            status = Path(f"/proc/{pid}/task/{tid}/status").read_text()
        except FileNotFoundError:
            continue  # the thread ended meanwhile
        vol = int(re.search(r"^voluntary_ctxt_switches:\s+(\d+)", status, re.M)[1])  # type: ignore[index]
        out[names.get(tid, f"tid {tid}")] = (cpu, vol)
    return out


def thread_names(pid: int) -> dict[str, str]:
    """Python's thread names by native id, from py-spy dump (empty without py-spy)."""
    spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    if not Path(spy).exists():
        return {}
    dump = subprocess.run([spy, "dump", "--pid", str(pid)], capture_output=True, text=True)
    return dict(re.findall(r'^Thread (\d+) \(\w+\): "([^"]+)"', dump.stdout, re.M))


def spawn(tree: Path, workdir: Path, seed: int) -> contextlib.AbstractContextManager[Daemon]:
    """The idle daemon of ``tree``, its simulators started from that tree too."""
    argv = [sys.executable, "-m", "controller.cli", "run"]
    return daemon([*argv, *run_args("baccarat", IDLE_PACE_MS, seed, workdir)], workdir, tree)


def measure(trees: list[Path], tmp: Path, settle: float, seconds: float, seed: int) -> list[dict]:
    """One run: every tree's idle daemon over the same ``seconds``."""
    with contextlib.ExitStack() as stack:
        ds = [stack.enter_context(spawn(t, tmp / f"d{i}", seed)) for i, t in enumerate(trees)]
        for d in ds:
            d.wait_ready()
        time.sleep(settle)
        names = [thread_names(d.proc.pid) for d in ds]
        sims = [children(d.proc.pid) for d in ds]
        before = [threads(d.proc.pid, n) for d, n in zip(ds, names, strict=True)]
        sims_before = [{k: sim_cpu(p) for k, p in s.items()} for s in sims]
        t0 = time.monotonic()
        time.sleep(seconds)
        after = [threads(d.proc.pid, n) for d, n in zip(ds, names, strict=True)]
        sims_after = [{k: sim_cpu(p) for k, p in s.items()} for s in sims]
        wall = time.monotonic() - t0
    out = []
    for b, a, sb, sa in zip(before, after, sims_before, sims_after, strict=True):
        per = {
            t: ((a[t][0] - b[t][0]) / wall / 1e7, (a[t][1] - b[t][1]) / wall) for t in a if t in b
        }
        row: dict = {"threads": per}
        row["cpu_percent"] = sum(c for c, _ in per.values())
        row["wakeups_per_s"] = sum(w for _, w in per.values())
        for kind in sa:
            row[f"{kind}_cpu_percent"] = (sa[kind] - sb[kind]) / wall / 1e7
        out.append(row)
    return out


def sim_cpu(pid: int) -> int:
    """CPU ns of every thread of a simulator's process."""
    return sum(c for c, _ in threads(pid, {}).values())


def spread(values: list[float]) -> str:
    values = sorted(values)
    return f"{values[0]:.3f} / {statistics.median(values):.3f} / {values[-1]:.3f}"


def report(labels: list[str], runs: list[list[dict]]) -> None:
    print("| measure (min / median / max) | " + " | ".join(labels) + " |")
    print("|---|" + "---|" * len(labels))
    keys = [("daemon CPU (% of a core)", "cpu_percent"), ("daemon wake-ups/s", "wakeups_per_s")]
    keys += [(f"{k} simulator CPU (%)", f"{k}_cpu_percent") for k in ("shoe", "shuffler")]
    for label, key in keys:
        cells = [
            spread([r[i][key] for r in runs if key in r[i]] or [0.0]) for i in range(len(labels))
        ]
        print(f"| {label} | " + " | ".join(cells) + " |")
    for name in runs[0][0]["threads"]:
        for what, j in (("CPU (%)", 0), ("wake-ups/s", 1)):
            cells = [
                spread([r[i]["threads"].get(name, (0.0, 0.0))[j] for r in runs])
                for i in range(len(labels))
            ]
            print(f"| thread {name}: {what} | " + " | ".join(cells) + " |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--settle", type=float, default=3.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--against", type=Path, help="another tree, measured at the same time")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    trees = [ROOT] + ([args.against.resolve()] if args.against else [])
    labels = ["this tree"] + ([str(args.against)] if args.against else [])
    runs = []
    with tempfile.TemporaryDirectory(prefix="idle-bench-") as tmp:
        for n in range(args.runs):
            run = measure(trees, Path(tmp) / f"run{n}", args.settle, args.seconds, args.seed + n)
            runs.append(run)
            summary = [(round(r["cpu_percent"], 3), round(r["wakeups_per_s"], 1)) for r in run]
            print(f"run {n + 1}: (CPU %, wake-ups/s) {summary}", file=sys.stderr, flush=True)
    if args.json:
        print(json.dumps(runs, indent=2))
        return
    report(labels, runs)


if __name__ == "__main__":
    main()
