"""Daemon benchmark: `tablectl run --simulate` as a process, measured from outside.

Run: make bench   (or .venv/bin/python benchmarks/daemon_bench.py [--shoes N] [--json])

Measured, each part on its own daemon(s), in a fresh work directory each:
* start-up: spawn `tablectl run --simulate --pace-ms 0 --workdir TMP` with
  NOTIFY_SOCKET naming an AF_UNIX datagram socket the benchmark binds; time from
  just before the spawn to the arrival of the READY=1 datagram (the daemon sends it
  once every simulated device's connection is journaled). --startup-runs runs,
  median and max; each daemon is stopped with SIGTERM after READY=1;
* memory: one daemon (`--pace-ms 0`) playing shoes back to back (its autoplay
  console loads the next seeded shoe after each shoe_end). The benchmark subscribes
  to events.sock and, at each shoe_end entry it receives, reads VmRSS from
  /proc/PID/status of the daemon process itself (not the simulators). RSS when
  shoe --baseline-shoe ends against when shoe --shoes ends; the daemon gets SIGTERM
  then. Also: the least-squares slope of RSS over the shoes after the baseline, and
  the journal file's size on disk;
* card path: the shoe simulator records when it first writes each card frame
  (firmware_sim --trace-writes, CLOCK_MONOTONIC ns, saved when it stops); a subscriber
  on events.sock notes the CLOCK_MONOTONIC arrival of each `device` entry with
  `event: card_drawn` (matched by its shoe `event_id`). Frame written -> event line
  received: the simulator's pty write, the driver (CRC, HMAC, link), the daemon's
  queue, the table, the SQLite commit, the API's thread, the Unix socket. The daemon
  offers no option to trace its simulators, so for this part it is started through a
  three-line wrapper that appends --trace-writes to the simulated shoe's arguments
  and then calls the same `controller.cli.main`. Beside it, the pseudo-terminal floor
  of benchmarks/link_bench.py (`floor_latencies`, imported), in alternating rounds;
* throughput: one daemon at `--pace-ms 0`, started through a wrapper that counts the
  journal's rows and commits (SQLite's trace callback on the journal's connection:
  every COMMIT, and every INSERT outside a transaction) and writes them at exit. From
  the first card_drawn line on events.sock to the --throughput-cards'th: cards per
  second, the daemon process's CPU (utime + stime of /proc/PID/stat: all its threads,
  not its simulators) per card, rows and commits per card. Beside it, in alternating
  rounds, bare SQLite in the same directory (WAL, synchronous=FULL): single-row
  commits per second.
time.monotonic is CLOCK_MONOTONIC, one clock for every process on the machine.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from daemon_harness import (
    MB,
    Stream,
    card_entries,
    daemon,
    rss_bytes,
    run_args,
    tablectl,
)
from daemon_throughput import measure_throughput, report_throughput
from link_bench import floor_latencies, pct

# The daemon as `tablectl run`, the shoe simulator tracing its card writes (card path).
TRACING = """
import sys
from controller import cli
from controller.bench import simulated
plain = simulated.simulators
def simulators(scenario, workdir, key):
    sims = plain(scenario, workdir, key)
    sims["shoe"].args += ("--trace-writes", str(workdir / "shoe.trace"))
    return sims
simulated.simulators = simulators
sys.exit(cli.main(["run", *sys.argv[1:]]))
"""


# ----------------------------------------------------------------- start-up


def startup(tmp: Path, runs: int, game: str, seed: int) -> list[float]:
    seconds = []
    for n in range(runs):
        workdir = tmp / f"startup{n}"
        with daemon([*tablectl(), *run_args(game, 0, seed, workdir)], workdir) as d:
            seconds.append(d.wait_ready())
    return seconds


# ----------------------------------------------------------------- memory


@dataclass
class Memory:
    shoes: int
    baseline_shoe: int
    rss: dict[int, int] = field(default_factory=dict)  # shoe -> daemon VmRSS at its end
    seconds: dict[int, float] = field(default_factory=dict)  # shoe -> since READY=1
    rounds: int = 0
    journal_bytes: int = 0


def memory(tmp: Path, shoes: int, baseline_shoe: int, game: str, seed: int) -> Memory:
    workdir = tmp / "memory"
    result = Memory(shoes, baseline_shoe)
    with daemon([*tablectl(), *run_args(game, 0, seed, workdir)], workdir) as d:
        d.wait_ready()
        ready = time.monotonic()
        stream = Stream(workdir / "events.sock")
        for _, line in stream.lines():
            if b'"shoe_end"' not in line and b'"round_end"' not in line:
                continue  # most lines: not worth parsing
            message = json.loads(line)
            entry = message.get("entry", {})
            if entry.get("type") == "round_end":
                result.rounds += 1
            if entry.get("type") != "shoe_end":
                continue
            shoe = int(entry["shoe"])
            result.rss[shoe] = rss_bytes(d.proc.pid)
            result.seconds[shoe] = time.monotonic() - ready
            if shoe % 10 == 0 or shoe == shoes:
                print(
                    f"memory: shoe {shoe} ended at {result.seconds[shoe]:.0f} s, "
                    f"daemon VmRSS {result.rss[shoe] / MB:.1f} MB",
                    file=sys.stderr,
                    flush=True,
                )
            if shoe >= shoes:
                break
        stream.close()
    result.journal_bytes = (workdir / "journal.db").stat().st_size
    return result


# ----------------------------------------------------------------- card path


def card_path(tmp: Path, name: str, cards: int, pace_ms: int, seed: int) -> list[float]:
    """Microseconds from the shoe simulator's first write of each card frame to the
    arrival of its card_drawn event line, for ``cards`` cards."""
    workdir = tmp / name
    argv = [sys.executable, "-c", TRACING, *run_args("baccarat", pace_ms, seed, workdir)]
    arrived: dict[int, int] = {}
    with daemon(argv, workdir) as d:
        d.wait_ready()
        stream = Stream(workdir / "events.sock")
        for at, entry in card_entries(stream):
            arrived.setdefault(int(entry["event_id"]), at)
            if len(arrived) >= cards:
                break
        stream.close()
    written = {}
    for text in (workdir / "shoe.trace").read_text().splitlines():
        event_id, ns = text.split()
        written[int(event_id)] = int(ns)
    return [(at - written[i]) / 1e3 for i, at in arrived.items()]


# ----------------------------------------------------------------- report


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--parts", default="startup,memory,card", help="any of startup,memory,card,throughput"
    )
    ap.add_argument("--game", default="baccarat", help="the simulated game (start-up, memory)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--startup-runs", type=int, default=10)
    ap.add_argument("--shoes", type=int, default=1000, help="memory: the shoe measured last")
    ap.add_argument("--baseline-shoe", type=int, default=10, help="memory: measured against")
    ap.add_argument("--cards", type=int, default=1500, help="card path: cards in all")
    ap.add_argument("--rounds", type=int, default=3, help="card path: alternating rounds")
    ap.add_argument("--card-pace-ms", type=int, default=10, help="card path: dealer's pace")
    ap.add_argument("--throughput-cards", type=int, default=3000, help="throughput: cards a run")
    ap.add_argument("--throughput-runs", type=int, default=3, help="throughput: runs")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args()
    parts = set(args.parts.split(","))
    known = {"startup", "memory", "card", "throughput"}
    if not parts <= known:
        ap.error(f"--parts: unknown {sorted(parts - known)}")
    if "memory" in parts and args.shoes <= args.baseline_shoe:
        ap.error("--shoes must be above --baseline-shoe")
    result: dict[str, object] = {"parts": sorted(parts)}
    with tempfile.TemporaryDirectory(prefix="daemon-bench-") as tmpdir:
        tmp = Path(tmpdir)
        if "startup" in parts:
            ready = startup(tmp, args.startup_runs, args.game, args.seed)
            result["ready_runs"] = len(ready)
            result["ready_median_s"] = round(statistics.median(ready), 3)
            result["ready_max_s"] = round(max(ready), 3)
        if "memory" in parts:
            result.update(memory_figures(tmp, args))
        if "card" in parts:
            result.update(card_figures(tmp, args))
        if "throughput" in parts:
            result.update(measure_throughput(tmp, args))
    if args.json:
        print(json.dumps(result, indent=2))
        return
    report(result, args)


def memory_figures(tmp: Path, args: argparse.Namespace) -> dict[str, object]:
    """One daemon playing ``--shoes`` shoes: its resident memory shoe by shoe."""
    mem = memory(tmp, args.shoes, args.baseline_shoe, args.game, args.seed)
    base, last = mem.rss[args.baseline_shoe], mem.rss[args.shoes]
    after = [s for s in sorted(mem.rss) if s >= args.baseline_shoe]
    slope = statistics.linear_regression(after, [mem.rss[s] for s in after]).slope
    elapsed = mem.seconds[args.shoes] - mem.seconds[args.baseline_shoe]
    return {
        "shoes": args.shoes,
        "baseline_shoe": args.baseline_shoe,
        "rounds": mem.rounds,
        "seconds_per_shoe": round(elapsed / (args.shoes - args.baseline_shoe), 2),
        "rss_baseline_mb": round(base / MB, 2),
        "rss_last_mb": round(last / MB, 2),
        "rss_growth_percent": round((last - base) / base * 100, 2),
        "rss_max_mb": round(max(mem.rss.values()) / MB, 2),
        "rss_slope_kb_per_shoe": round(slope / 1024, 2),
        "journal_mb": round(mem.journal_bytes / MB, 1),
    }


def card_figures(tmp: Path, args: argparse.Namespace) -> dict[str, object]:
    """The card path against the pty floor, in alternating rounds."""
    floor: list[float] = []
    lat: list[float] = []
    per_round = max(1, args.cards // args.rounds)
    for n in range(args.rounds):
        floor += floor_latencies(str(tmp), per_round, 1000)
        lat += card_path(tmp, f"card{n}", per_round, args.card_pace_ms, args.seed + n)
    return {
        "cards": len(lat),
        "card_pace_ms": args.card_pace_ms,
        "floor_p50_us": round(statistics.median(floor), 1),
        "floor_p99_us": round(pct(floor, 0.99), 1),
        "card_p50_us": round(statistics.median(lat), 1),
        "card_p99_us": round(pct(lat, 0.99), 1),
    }


def report(r: dict[str, object], args: argparse.Namespace) -> None:
    print("| measure | value | target |")
    print("|---|---|---|")
    if "ready_runs" in r:
        runs = r["ready_runs"]
        print(f"| spawn -> READY=1, median of {runs} | {r['ready_median_s']} s | < 1 s |")
        print(f"| spawn -> READY=1, max of {runs} | {r['ready_max_s']} s | < 1 s |")
    if "shoes" in r:
        base, last = r["baseline_shoe"], r["shoes"]
        print(f"| daemon VmRSS at the end of shoe {base} | {r['rss_baseline_mb']} MB | |")
        print(f"| daemon VmRSS at the end of shoe {last} | {r['rss_last_mb']} MB | < 60 MB |")
        print(f"| growth, shoe {base} -> shoe {last} | {r['rss_growth_percent']} % | < 5 % |")
        print(f"| daemon VmRSS, highest at a shoe's end | {r['rss_max_mb']} MB | |")
        print(f"| RSS slope after shoe {base} | {r['rss_slope_kb_per_shoe']} KiB/shoe | |")
        print(f"| rounds played, time per shoe | {r['rounds']}, {r['seconds_per_shoe']} s | |")
        print(f"| journal on disk after shoe {last} | {r['journal_mb']} MB | |")
    if "cards" in r:
        pace = r["card_pace_ms"]
        print(f"| pty floor, write -> pyserial read, p50 | {r['floor_p50_us']} us | |")
        print(f"| pty floor, write -> pyserial read, p99 | {r['floor_p99_us']} us | |")
        path = f"card frame written -> event line on events.sock (pace {pace} ms)"
        print(f"| {path}, p50 | {r['card_p50_us']} us | |")
        print(f"| {path}, p99 | {r['card_p99_us']} us | |")
        print(f"| ({r['cards']} cards) | | |")
    if "cards_per_s" in r:
        report_throughput(r)


if __name__ == "__main__":
    main()
