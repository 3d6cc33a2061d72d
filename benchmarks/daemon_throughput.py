"""The daemon benchmark's throughput part (benchmarks/daemon_bench.py --parts
throughput): a pace-0 daemon's cards per second, its own CPU per card (all its threads,
and its main thread alone: the table loop with the simulated console, which runs on it),
its threads' wake-ups per card (voluntary context switches, /proc/PID/task/*/status),
and its journal's rows and commits per card, beside bare SQLite's one-row commits in the
same directory."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sqlite3
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from daemon_harness import Stream, card_entries, daemon, run_args

# The daemon as `tablectl run`, its journal's rows and commits counted (throughput).
COUNTING = """
import atexit, json, sys
from pathlib import Path
from controller import cli
from controller.journal import store
counts = {"rows": 0, "commits": 0, "open": False}
def trace(sql):
    word = sql.lstrip().split(None, 1)[0].upper() if sql.strip() else ""
    if word == "BEGIN":
        counts["open"] = True
    elif word in ("COMMIT", "ROLLBACK"):
        counts["commits"] += word == "COMMIT"
        counts["open"] = False
    elif word == "INSERT":  # outside a transaction: its own (one statement, any rows)
        counts["commits"] += not counts["open"]
connect = store.SqliteJournal._connect
journals = []
def counted(self, seen):
    db = connect(self, seen)
    db.set_trace_callback(trace)
    journals.append((self, seen.last.seq))
    return db
store.SqliteJournal._connect = counted
out = Path(sys.argv[sys.argv.index("--workdir") + 1]) / "commits.json"
def written():
    counts["rows"] = sum(journal.last_seq - start for journal, start in journals)
    out.write_text(json.dumps(counts))
atexit.register(written)
sys.exit(cli.main(["run", *sys.argv[1:]]))
"""


CLK_TCK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int, tid: int | None = None) -> float:
    """User and system CPU of every thread of process ``pid`` (not its children), or
    of its thread ``tid`` alone."""
    stat = Path(f"/proc/{pid}/stat" if tid is None else f"/proc/{pid}/task/{tid}/stat")
    fields = stat.read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def wakeups(pid: int) -> int:
    """Voluntary context switches of every thread of process ``pid``: each time one
    slept (a wait for input, the GIL, a lock, the disk) and was woken."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):  # a thread that ended meanwhile
            for line in (task / "status").read_text().splitlines():
                if line.startswith("voluntary_ctxt_switches:"):
                    total += int(line.split()[1])
    return total


@dataclass
class Throughput:
    cards: int
    seconds: float
    cpu_s: float
    table_cpu_s: float = 0.0  # the main thread's: the table loop and the simulated console
    rows: int = 0
    commits: int = 0
    cards_total: int = 0
    wakeups: int = 0  # all threads' voluntary context switches


def throughput(tmp: Path, name: str, cards: int, seed: int) -> Throughput:
    """A pace-0 daemon from its first card to its ``cards``'th (see the module)."""
    workdir = tmp / name
    argv = [sys.executable, "-c", COUNTING, *run_args("baccarat", 0, seed, workdir)]
    seen = 0
    with daemon(argv, workdir) as d:
        d.wait_ready()
        stream = Stream(workdir / "events.sock")
        for _ in card_entries(stream):
            if seen == 0:
                began, cpu0 = time.monotonic(), cpu_seconds(d.proc.pid)
                table0 = cpu_seconds(d.proc.pid, d.proc.pid)
                woken0 = wakeups(d.proc.pid)
            seen += 1
            if seen > cards:
                break
        result = Throughput(cards, time.monotonic() - began, cpu_seconds(d.proc.pid) - cpu0)
        result.table_cpu_s = cpu_seconds(d.proc.pid, d.proc.pid) - table0
        result.wakeups = wakeups(d.proc.pid) - woken0
        stream.close()
    counted = json.loads((workdir / "commits.json").read_text())
    db = sqlite3.connect(workdir / "journal.db")
    try:
        (result.cards_total,) = db.execute(
            'SELECT count(*) FROM rows WHERE body LIKE \'%"event":"card_drawn"%\''
        ).fetchone()
    finally:
        db.close()
    result.rows, result.commits = counted["rows"], counted["commits"]
    return result


def bare_sqlite(directory: Path, commits: int = 2000) -> float:
    """Single-row commits per second, WAL and synchronous=FULL, in ``directory``."""
    path = directory / "bare.db"
    db = sqlite3.connect(path, isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")
        db.execute("CREATE TABLE rows (seq INTEGER PRIMARY KEY, body TEXT)")
        body = "x" * 200
        began = time.perf_counter()
        for _ in range(commits):
            db.execute("INSERT INTO rows (body) VALUES (?)", (body,))
        return commits / (time.perf_counter() - began)
    finally:
        db.close()
        for leftover in directory.glob("bare.db*"):
            leftover.unlink()


def spread(values: Sequence[float], digits: int = 1) -> list[float]:
    """Min, median and max."""
    return [round(v, digits) for v in (min(values), statistics.median(values), max(values))]


def measure_throughput(tmp: Path, args: argparse.Namespace) -> dict[str, object]:
    """Daemons at pace 0 and bare SQLite, in alternating runs: min, median, max."""
    runs, bare = [], []
    for n in range(args.throughput_runs):
        bare.append(bare_sqlite(tmp))
        runs.append(throughput(tmp, f"throughput{n}", args.throughput_cards, args.seed + n))
    return {
        "throughput_cards": args.throughput_cards,
        "cards_per_s": spread([r.cards / r.seconds for r in runs]),
        "cpu_us_per_card": spread([r.cpu_s / r.cards * 1e6 for r in runs]),
        "table_thread_cpu_us_per_card": spread([r.table_cpu_s / r.cards * 1e6 for r in runs]),
        "wakeups_per_card": spread([r.wakeups / r.cards for r in runs], 2),
        "rows_per_card": spread([r.rows / r.cards_total for r in runs], 2),
        "commits_per_card": spread([r.commits / r.cards_total for r in runs], 2),
        "bare_sqlite_commits_per_s": spread(bare, 0),
    }


def report_throughput(r: dict[str, object]) -> None:
    n = r["throughput_cards"]
    print(f"| pace 0, {n} cards a run: cards/s, min / median / max | {r['cards_per_s']} | |")
    print(f"| daemon CPU per card, all threads | {r['cpu_us_per_card']} us | < 200 us |")
    table = r["table_thread_cpu_us_per_card"]
    print(f"| of which the main thread (table loop and simulated console) | {table} us | |")
    print(f"| the daemon's threads' wake-ups per card | {r['wakeups_per_card']} | |")
    print(f"| journal rows per card | {r['rows_per_card']} | |")
    print(f"| journal commits per card | {r['commits_per_card']} | |")
    print(f"| bare SQLite, 1-row commits/s | {r['bare_sqlite_commits_per_s']} | |")
