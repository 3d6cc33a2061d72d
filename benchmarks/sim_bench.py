"""Simulator benchmark: the simulated devices' CPU per card and everyone's idle wake-ups.

Run: .venv/bin/python benchmarks/sim_bench.py [--parts card,idle] [--runs 3] [--json]

Measured, in --runs interleaved runs, each part beside its reference:
* card: `tablectl run --simulate --game baccarat --pace-ms 0 --seed S --workdir TMP`
  as its own process. A subscriber on events.sock counts the shoe's `card_drawn`
  lines; between the --skip-th card and --cards cards later, the CPU time of the
  shoe simulator's process (`/proc/PID/task/*/schedstat`, nanoseconds), of the
  shuffler simulator and of the daemon (all threads), divided by those cards; and the
  shoe simulator's wake-ups (times scheduled in) per card.
  Reference, right after in the same run: the link alone, link_bench.py's flat deal
  (`firmware-sim shoe --pace instant` into a bare ShoeDriver and a consumer that
  commits): the host's CPU per card (all threads of this process), and the
  simulator's own (its process, the whole deal).
* idle: one daemon at `--pace-ms 3600000` (connected, the dealer waiting) and, at
  the same time, the link alone (link_bench.py's idle pair: a manual shoe simulator
  and a ShoeDriver in this process). After --settle seconds, over --idle-seconds:
  CPU share of a core and wake-ups per second (times scheduled in, from schedstat)
  of the daemon, each of its simulators, the bare host driver's I/O thread and its
  simulator.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from daemon_harness import Stream, daemon, run_args, tablectl
from link_bench import KEY, deal, logs_to_stderr

from drivers import messages as m
from firmware_sim.harness import SimProcess

IDLE_PACE_MS = 3_600_000  # the simulated dealer's next action is an hour away


def sched(pid: int) -> tuple[int, int]:
    """(CPU ns, times scheduled in) of every live thread of ``pid`` (of thread ``-pid``
    alone when negative)."""
    cpu = runs = 0
    tasks = [str(-pid)] if pid < 0 else os.listdir(f"/proc/{pid}/task")
    pid = abs(pid) if pid > 0 else os.getpid()
    for task in tasks:
        try:
            fields = Path(f"/proc/{pid}/task/{task}/schedstat").read_text().split()
        except FileNotFoundError:
            continue  # the thread ended meanwhile
        cpu += int(fields[0])
        runs += int(fields[2])
    return cpu, runs


def children(pid: int) -> dict[str, int]:
    """The simulators a daemon started, by kind: {"shoe": pid, ...}."""
    found: dict[str, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            argv = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) != pid or b"firmware_sim" not in argv:
            continue
        found[argv[argv.index(b"firmware_sim") + 1].decode()] = int(entry)
    return found


def snapshot(pids: dict[str, int]) -> dict[str, tuple[int, int]]:
    return {name: sched(pid) for name, pid in pids.items()}


# ----------------------------------------------------------------- card


def daemon_card(tmp: Path, name: str, skip: int, cards: int, seed: int) -> dict[str, float]:
    """CPU microseconds per card of the shoe, the shuffler and the daemon at pace 0."""
    workdir = tmp / name
    counted = 0
    start: dict[str, tuple[int, int]] = {}
    with daemon([*tablectl(), *run_args("baccarat", 0, seed, workdir)], workdir) as d:
        d.wait_ready()
        pids = {"daemon": d.proc.pid, **children(d.proc.pid)}
        stream = Stream(workdir / "events.sock")
        for _, line in stream.lines():
            if b'"card_drawn"' not in line or b'"device"' not in line:
                continue
            counted += 1
            if counted == skip:
                start = snapshot(pids)
            elif counted == skip + cards:
                end = snapshot(pids)
                break
        stream.close()
    out = {who: (end[who][0] - start[who][0]) / cards / 1e3 for who in pids}
    out["shoe_wakeups"] = (end["shoe"][1] - start["shoe"][1]) / cards
    return out


def link_card(tmp: Path, name: str, cards: int) -> dict[str, float]:
    """The link alone: host and simulator CPU microseconds per card, dealt flat out."""
    dealt = deal(tmp, name, cards, ["--pace", "instant"])
    n = len(dealt.taken)
    return {"link_host": dealt.host_cpu / n * 1e6, "link_sim": dealt.sim_cpu / n * 1e6}


# ----------------------------------------------------------------- idle


def driver_thread(drv: object) -> int:
    """The native id of a started driver's I/O thread (this process's other threads,
    such as the daemon's notify socket reader, are not the link's)."""
    thread = getattr(drv, "_thread", None)
    assert isinstance(thread, threading.Thread) and thread.native_id is not None
    return thread.native_id


def idle(tmp: Path, name: str, settle: float, seconds: float, seed: int) -> dict[str, float]:
    """CPU % of a core and wake-ups/s of an idle daemon and its simulators, and of the
    link alone at the same time."""
    workdir = tmp / name
    argv = [*tablectl(), *run_args("baccarat", IDLE_PACE_MS, seed, workdir)]
    sim = SimProcess("shoe", tmp, KEY, ["--decks", "1", "--pace", "manual"], name=name).start()
    events: queue.SimpleQueue[m.Event] = queue.SimpleQueue()
    drv = sim.driver(events)
    drv.start()
    try:
        with daemon(argv, workdir) as d:
            d.wait_ready()
            if not drv.connected.wait(10):
                raise SystemExit("idle: the bare simulator did not connect")
            assert sim.process is not None
            pids = {
                "daemon": d.proc.pid,
                **{f"daemon_{k}": p for k, p in children(d.proc.pid).items()},
                "link_host": -driver_thread(drv),
                "link_sim": sim.process.pid,
            }
            time.sleep(settle)
            before, t0 = snapshot(pids), time.monotonic()
            time.sleep(seconds)
            after, wall = snapshot(pids), time.monotonic() - t0
    finally:
        drv.stop()
        sim.stop()
    out: dict[str, float] = {}
    for who in pids:
        out[f"{who}_cpu_percent"] = (after[who][0] - before[who][0]) / wall / 1e7
        out[f"{who}_wakeups_per_s"] = (after[who][1] - before[who][1]) / wall
    return out


# ----------------------------------------------------------------- report


def spread(runs: list[dict[str, float]], key: str) -> str:
    values = sorted(r[key] for r in runs if key in r)
    if not values:
        return "-"
    digits = 3 if values[-1] < 10 else 1
    mid = statistics.median(values)
    return f"{values[0]:.{digits}f} / {mid:.{digits}f} / {values[-1]:.{digits}f}"


def report(card: list[dict[str, float]], idle_runs: list[dict[str, float]]) -> None:
    print("| measure (min / median / max) | value |")
    print("|---|---|")
    rows: list[tuple[str, str, list[dict[str, float]]]] = [
        ("shoe simulator CPU per card, daemon at pace 0 (us)", "shoe", card),
        ("shoe simulator wake-ups per card, same runs", "shoe_wakeups", card),
        ("shuffler simulator CPU per card, same runs (us)", "shuffler", card),
        ("daemon CPU per card, all threads, same runs (us)", "daemon", card),
        ("reference: the link alone, host CPU per card (us)", "link_host", card),
        ("the link alone, its simulator's CPU per card (us)", "link_sim", card),
    ]
    for who in ("daemon", "daemon_shoe", "daemon_shuffler", "link_host", "link_sim"):
        rows.append((f"idle: {who} CPU (% of a core)", f"{who}_cpu_percent", idle_runs))
        rows.append((f"idle: {who} wake-ups per second", f"{who}_wakeups_per_s", idle_runs))
    for label, key, runs in rows:
        if runs:
            print(f"| {label} | {spread(runs, key)} |")


def main() -> None:
    logs_to_stderr()
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parts", default="card,idle", help="any of card,idle")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--skip", type=int, default=100, help="card: cards before measuring")
    ap.add_argument("--cards", type=int, default=2000, help="card: cards measured")
    ap.add_argument("--settle", type=float, default=3.0, help="idle: seconds before measuring")
    ap.add_argument("--idle-seconds", type=float, default=60.0)
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args()
    parts = set(args.parts.split(","))
    card: list[dict[str, float]] = []
    idle_runs: list[dict[str, float]] = []
    steps: list[Callable[[Path, int], None]] = []
    if "card" in parts:
        steps.append(
            lambda tmp, n: card.append(
                {
                    **daemon_card(tmp, f"card{n}", args.skip, args.cards, args.seed + n),
                    **link_card(tmp, f"link{n}", 3000),
                }
            )
        )
    if "idle" in parts:
        steps.append(
            lambda tmp, n: idle_runs.append(
                idle(tmp, f"idle{n}", args.settle, args.idle_seconds, args.seed + n)
            )
        )
    with tempfile.TemporaryDirectory(prefix="sim-bench-") as tmpdir:
        for n in range(args.runs):
            for step in steps:
                step(Path(tmpdir), n)
                print(f"run {n + 1}: {(card + idle_runs)[-1]}", file=sys.stderr, flush=True)
    if args.json:
        print(json.dumps({"card": card, "idle": idle_runs}, indent=2))
        return
    report(card, idle_runs)


if __name__ == "__main__":
    main()
