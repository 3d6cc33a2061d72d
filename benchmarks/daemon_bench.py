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
import contextlib
import json
import os
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from link_bench import floor_latencies, pct  # noqa: E402

READY_TIMEOUT = 30.0
STREAM_TIMEOUT = 60.0  # no event line for this long: the daemon is stuck
MB = 1024 * 1024

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
    elif word == "INSERT":
        counts["rows"] += 1
        counts["commits"] += not counts["open"]
connect = store.SqliteJournal._connect
def counted(self, seen):
    db = connect(self, seen)
    db.set_trace_callback(trace)
    return db
store.SqliteJournal._connect = counted
out = Path(sys.argv[sys.argv.index("--workdir") + 1]) / "commits.json"
atexit.register(lambda: out.write_text(json.dumps(counts)))
sys.exit(cli.main(["run", *sys.argv[1:]]))
"""


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
def daemon(argv: Sequence[str], workdir: Path) -> Iterator[Daemon]:
    workdir.mkdir(parents=True)
    notify = Notify(workdir / "notify.sock")
    stderr = workdir / "daemon.stderr"
    env = {**os.environ, "NOTIFY_SOCKET": str(notify.path)}
    with open(stderr, "wb") as err:
        spawned = time.monotonic_ns()
        proc = subprocess.Popen(
            argv, cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err
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
        for at, line in stream.lines():
            if b'"card_drawn"' not in line:
                continue
            entry = json.loads(line).get("entry", {})
            if entry.get("device") == "shoe" and entry.get("event") == "card_drawn":
                arrived.setdefault(int(entry["event_id"]), at)
                if len(arrived) >= cards:
                    break
        stream.close()
    written = {}
    for text in (workdir / "shoe.trace").read_text().splitlines():
        event_id, ns = text.split()
        written[int(event_id)] = int(ns)
    return [(at - written[i]) / 1e3 for i, at in arrived.items()]


# ----------------------------------------------------------------- throughput

CLK_TCK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User and system CPU of every thread of process ``pid`` (not its children)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


@dataclass
class Throughput:
    cards: int
    seconds: float
    cpu_s: float
    rows: int = 0
    commits: int = 0
    cards_total: int = 0


def throughput(tmp: Path, name: str, cards: int, seed: int) -> Throughput:
    """A pace-0 daemon from its first card to its ``cards``'th (see the module)."""
    workdir = tmp / name
    argv = [sys.executable, "-c", COUNTING, *run_args("baccarat", 0, seed, workdir)]
    seen = 0
    with daemon(argv, workdir) as d:
        d.wait_ready()
        stream = Stream(workdir / "events.sock")
        for _, line in stream.lines():
            if b'"card_drawn"' not in line:
                continue
            if seen == 0:
                began, cpu0 = time.monotonic(), cpu_seconds(d.proc.pid)
            seen += 1
            if seen > cards:
                break
        result = Throughput(cards, time.monotonic() - began, cpu_seconds(d.proc.pid) - cpu0)
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
            mem = memory(tmp, args.shoes, args.baseline_shoe, args.game, args.seed)
            base, last = mem.rss[args.baseline_shoe], mem.rss[args.shoes]
            after = [s for s in sorted(mem.rss) if s >= args.baseline_shoe]
            slope = statistics.linear_regression(after, [mem.rss[s] for s in after]).slope
            elapsed = mem.seconds[args.shoes] - mem.seconds[args.baseline_shoe]
            result.update(
                {
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
            )
        if "card" in parts:
            floor: list[float] = []
            lat: list[float] = []
            per_round = max(1, args.cards // args.rounds)
            for n in range(args.rounds):
                floor += floor_latencies(tmpdir, per_round, 1000)
                lat += card_path(tmp, f"card{n}", per_round, args.card_pace_ms, args.seed + n)
            result.update(
                {
                    "cards": len(lat),
                    "card_pace_ms": args.card_pace_ms,
                    "floor_p50_us": round(statistics.median(floor), 1),
                    "floor_p99_us": round(pct(floor, 0.99), 1),
                    "card_p50_us": round(statistics.median(lat), 1),
                    "card_p99_us": round(pct(lat, 0.99), 1),
                }
            )
        if "throughput" in parts:
            result.update(measure_throughput(tmp, args))
    if args.json:
        print(json.dumps(result, indent=2))
        return
    report(result, args)


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
        "rows_per_card": spread([r.rows / r.cards_total for r in runs], 2),
        "commits_per_card": spread([r.commits / r.cards_total for r in runs], 2),
        "bare_sqlite_commits_per_s": spread(bare, 0),
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
        n = r["throughput_cards"]
        print(f"| pace 0, {n} cards a run: cards/s, min / median / max | {r['cards_per_s']} | |")
        print(f"| daemon CPU per card, all threads | {r['cpu_us_per_card']} us | < 200 us |")
        print(f"| journal rows per card | {r['rows_per_card']} | |")
        print(f"| journal commits per card | {r['commits_per_card']} | |")
        print(f"| bare SQLite, 1-row commits/s | {r['bare_sqlite_commits_per_s']} | |")


if __name__ == "__main__":
    main()
