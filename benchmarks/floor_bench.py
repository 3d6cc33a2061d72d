"""A floor on one box (issue 13): N tables publishing their journals into one Mosquitto
through the real ``tablectl uplink``, one floor subscriber, and what it costs.

Run: .venv/bin/python benchmarks/floor_bench.py [--tables 10,50,200] [--mode paced,full]
     [--seconds 120] [--rounds-per-hour 70] [--full-rows R] [--poll-ms 50] [--queue N]
     [--pits P]
     [--out FILE] [--workdir DIR] [--smoke]

- The shoe: one real simulated Baccarat table (``tablectl run --simulate --game
  baccarat --rounds 70 --pace-ms 0 --seed 13``) makes a journal once; its rows are the
  rows every table replays (benchmarks/journal_replay.py: the daemon's journal writer,
  ``SqliteJournal``, one row a commit, into N fresh journals, the commit time of each
  row recorded once ``record`` returned).
- paced: each table deals ``--rounds-per-hour`` rounds an hour (a Baccarat table deals
  60 to 80), its rows evenly spaced (the shoe's rows per round x rounds per hour), each
  table starting at a random point of its first interval, for ``--seconds``.
- full: each table appends ``--full-rows`` rows (default 60000 / N, the shoe's rows
  over again as needed) as fast as the writer can; the run ends when the floor has
  every row.
- One Mosquitto (benchmarks/floor_brokers.py: tests/support/mosquitto.py's, with
  examples/mosquitto/tablectl.conf, its ACL, TLS, a password per table, logging as the
  example does; ``--queue``: its max_queued_messages), or with ``--pits P`` one per pit
  bridged into the floor's. N ``tablectl uplink --config`` processes (``--poll-ms``
  their poll_ms; started 10 at a time, measured once their start-up CPU is over), one
  ``controller.floor`` Follower in this process subscribed to every table, a persistent
  session.
- Measured from the writer's go to the floor's last row: journal messages the floor
  received a second, the lag from a row's commit to the floor's receipt (p50, p99), the
  CPU of each uplink (/proc/PID/stat utime + stime), the broker's CPU and peak RSS
  (/proc/PID/status VmRSS, sampled twice a second), the writer's and this process's
  (the floor's) CPU, the CPU every other process on the machine used meanwhile (how
  shared it was), rows lost (committed, never handed on by the floor), duplicates (the
  follower's count of rows received again) and the gaps it saw. Exit 1 if a row was
  lost or an uplink failed.

``--smoke``: 3 tables, 5 seconds, both modes (a check that it all runs).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.floor_brokers import Brokers, password  # noqa: E402
from benchmarks.floor_procs import Meter, settle  # noqa: E402
from benchmarks.floor_receiver import FloorReceiver  # noqa: E402
from benchmarks.floor_report import Result, lag_of, report, row  # noqa: E402
from tests.support.mosquitto import Broker  # noqa: E402

SOURCE = ["run", "--simulate", "--game", "baccarat", "--rounds", "70", "--pace-ms", "0",
          "--seed", "13", "--plain"]  # fmt: skip
CLI = [sys.executable, "-m", "controller.cli"]
UPLINK = [*CLI, "uplink", "--config"]
BATCH = 10  # uplinks started together
SETTLED = 0.02  # of a core per uplink at most before the run starts (idle is ~0.005)
FULL_TOTAL = 60_000  # rows of a full-speed run, all tables (less than the broker's queue)
DRAIN = 60.0  # seconds the floor has, after the last commit, to receive the rest


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", default="10,50,200", help="N, comma-separated")
    parser.add_argument("--mode", default="paced,full", help="paced, full or both")
    parser.add_argument("--seconds", type=float, default=120.0, help="a paced run's length")
    parser.add_argument("--rounds-per-hour", type=float, default=70.0)
    parser.add_argument("--full-rows", type=int, help="rows per table, full (60000 / N)")
    parser.add_argument("--poll-ms", type=int, default=50, help="the uplinks' [uplink] poll_ms")
    parser.add_argument(
        "--queue", type=int, help="the broker's max_queued_messages (default: the example's)"
    )
    parser.add_argument(
        "--pits", type=int, default=0, help="a broker per pit bridged into the floor's (0: one)"
    )
    parser.add_argument("--out", type=Path, help="also write the markdown table here")
    parser.add_argument("--workdir", type=Path, help="keep journals and logs here")
    parser.add_argument("--smoke", action="store_true", help="3 tables, 5 s, both modes")
    args = parser.parse_args(argv)
    if args.smoke:
        args.tables, args.seconds, args.full_rows = "3", 5.0, args.full_rows or 1000
    args.sizes = [int(n) for n in args.tables.split(",")]
    args.modes = args.mode.split(",")
    if any(m not in ("paced", "full") for m in args.modes) or min(args.sizes) < 1:
        parser.error("--mode: paced and/or full; --tables: positive numbers")
    return args


@dataclass
class Shoe:
    journal: Path
    rows: int
    rounds: int

    @property
    def per_round(self) -> float:
        return self.rows / self.rounds


def make_shoe(work: Path) -> Shoe:
    """The real daemon's journal of one simulated Baccarat table: the rows replayed."""
    where = work / "shoe"
    subprocess.run([*CLI, *SOURCE, "--workdir", str(where)], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    from controller.journal import open_read_only

    db = open_read_only(where / "journal.db")
    try:
        (rows,) = db.execute("SELECT count(*) FROM rows").fetchone()
        (rounds,) = db.execute(
            'SELECT count(*) FROM rows WHERE body LIKE \'%"type":"round_end"%\''
        ).fetchone()
    finally:
        db.close()
    return Shoe(where / "journal.db", int(rows), int(rounds))


def table_ids(n: int) -> list[str]:
    return [f"BAC-{i:03d}" for i in range(1, n + 1)]


def broker_section(broker: Broker, user: str, secret: Path) -> str:
    return (
        f'[broker]\nhost = "127.0.0.1"\nport = {broker.port}\ncafile = "{broker.certs.ca}"\n'
        f'username = "{user}"\npassword_file = "{secret}"\n'
    )


def secret_file(path: Path, secret: str) -> Path:
    """A password file as the uplink and the floor require it: readable by its owner."""
    path.write_text(secret + "\n")
    path.chmod(0o400)
    return path


def uplink_config(run: Path, broker: Broker, table: str, poll_ms: int) -> Path:
    home = run / table
    (home / "state").mkdir(parents=True, exist_ok=True)
    secret = secret_file(home / "password", password(table))
    conf = home / "uplink.toml"
    conf.write_text(
        f'table_id = "{table}"\njournal = "{home / "journal.db"}"\n'
        f'state_dir = "{home / "state"}"\n{broker_section(broker, table, secret)}'
        f"[uplink]\nwindow = 64\npoll_ms = {poll_ms}\n"
    )
    return conf


def floor_config(run: Path, broker: Broker) -> Path:
    (run / "floor").mkdir(parents=True, exist_ok=True)
    secret = secret_file(run / "floor" / "password", password("floor"))
    conf = run / "floor" / "floor.toml"
    conf.write_text(
        f'client_id = "floor-bench"\nstate_dir = "{run / "floor" / "state"}"\n'
        + broker_section(broker, "floor", secret)
    )
    return conf


def start_uplinks(configs: list[Path]) -> list[subprocess.Popen[bytes]]:
    procs = []
    for i, conf in enumerate(configs):
        with (conf.parent / "uplink.log").open("wb") as log:
            cmd = [*UPLINK, str(conf)]
            procs.append(subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT))
        if i % BATCH == BATCH - 1:
            time.sleep(0.5)
    return procs


def wait_connected(
    floor: FloorReceiver, tables: list[str], procs: list[subprocess.Popen[bytes]], limit: float
) -> None:
    """Every uplink's retained status, online, seen by the floor; or RuntimeError."""
    deadline = time.monotonic() + limit
    while True:
        missing = [t for t in tables if t not in floor.online]
        if not missing:
            return
        dead = [t for t, p in zip(tables, procs, strict=True) if p.poll() is not None]
        if dead or time.monotonic() > deadline:
            raise RuntimeError(f"uplinks not online: {missing[:5]}, exited: {dead[:5]}")
        time.sleep(0.2)


def full_rows(args: argparse.Namespace, n: int) -> int:
    return int(args.full_rows or max(1, FULL_TOTAL // n))


def writer(run: Path, shoe: Shoe, tables: list[str], mode: str, args: argparse.Namespace,
           clock: str) -> tuple[subprocess.Popen[str], Path]:  # fmt: skip
    interval = 3600.0 / (args.rounds_per_hour * shoe.per_round)
    spec = {
        "source": str(shoe.journal),
        "journals": [str(run / t / "journal.db") for t in tables],
        "mode": mode,
        "interval": interval,
        "seconds": args.seconds if mode == "paced" else 3600.0,
        "rows": full_rows(args, len(tables)),
        "clock": clock,
        "out": str(run / "commits.json"),
    }
    for t in tables:
        (run / t).mkdir(parents=True, exist_ok=True)
    (run / "spec.json").write_text(json.dumps(spec))
    cmd = [sys.executable, str(ROOT / "benchmarks" / "journal_replay.py"), str(run / "spec.json")]
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    return proc, run / "commits.json"


def drain(floor: FloorReceiver, committed: int) -> None:
    """Until the floor has ``committed`` distinct rows, or DRAIN seconds without one."""
    last, since = -1, time.monotonic()
    while (got := floor.distinct()) < committed:
        if got != last:
            last, since = got, time.monotonic()
        elif time.monotonic() - since > DRAIN:
            return
        time.sleep(0.1)


def failures(configs: list[Path], procs: list[subprocess.Popen[bytes]]) -> list[str]:
    out = []
    for conf, proc in zip(configs, procs, strict=True):
        log = (conf.parent / "uplink.log").read_text(errors="replace")
        if proc.poll() is not None or "Traceback" in log:
            out.append(f"{conf.parent.name}: exit {proc.poll()}, log {conf.parent / 'uplink.log'}")
    return out


def stop_all(procs: list[subprocess.Popen[bytes]]) -> list[int | None]:
    for proc in procs:
        if proc.poll() is None:
            proc.terminate()
    codes = []
    for proc in procs:
        try:
            codes.append(proc.wait(timeout=20))
        except subprocess.TimeoutExpired:
            proc.kill()
            codes.append(None)
    return codes


def run_one(work: Path, shoe: Shoe, n: int, mode: str, args: argparse.Namespace) -> Result:
    run = work / (f"{n}-{mode}" + (f"-{args.pits}pits" if args.pits else ""))
    shutil.rmtree(run, ignore_errors=True)  # a former run's sessions and cursors
    tables = table_ids(n)
    brokers = Brokers(run, tables, args.pits, args.queue)
    brokers.start()
    broker = brokers.floor
    pid, pits = brokers.pids()
    floor = FloorReceiver(floor_config(run, broker))
    uplinks: list[subprocess.Popen[bytes]] = []
    try:
        floor.start()
        feed, out = writer(run, shoe, tables, mode, args, floor.clock)
        configs = [uplink_config(run, brokers.of(i), t, args.poll_ms) for i, t in enumerate(tables)]
        uplinks = start_uplinks(configs)
        wait_connected(floor, tables, uplinks, 30.0 + n / 2)
        settle([p.pid for p in uplinks], SETTLED, 60.0 + n)  # their start-up is over
        load = Path("/proc/loadavg").read_text().strip()
        groups = {"uplink": [p.pid for p in uplinks], "broker": [pid], "pits": pits,
                  "floor": [os.getpid()]}  # fmt: skip
        meter = Meter(groups, pid)
        meter.start()
        assert feed.stdin is not None and feed.stdout is not None
        feed.stdin.write("go\n")
        feed.stdin.flush()
        _, rows, cpu = feed.stdout.readline().split()
        committed, writer_cpu = int(rows), float(cpu)
        feed.wait()
        drain(floor, committed)
        meter.stop()
        broken = failures(configs, uplinks)
    finally:
        codes = stop_all(uplinks)
        floor.stop()
        brokers.stop()
    broken += [
        f"uplink {t}: exit {c} on SIGTERM" for t, c in zip(tables, codes, strict=True) if c != 0
    ]
    commits = json.loads(out.read_text())
    lags, lost, passed = lag_of(floor.receipts, commits, tables)
    counts = floor.follower.counts()
    ours = [*meter.cpu["uplink"], *meter.cpu["pits"], meter.cpu["broker"][0],
            meter.cpu["floor"][0], writer_cpu]  # fmt: skip
    return Result(n, mode, committed, counts["received"], lost, counts["duplicates"], passed,
                  counts["gaps"], meter.wall, lags,
                  meter.cpu["uplink"], meter.cpu["broker"][0], meter.cpu["pits"], meter.peak_rss,
                  writer_cpu, meter.cpu["floor"][0],
                  meter.busy - sum(ours), os.cpu_count() or 1, load, broken)  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    command = "python benchmarks/floor_bench.py " + " ".join(sys.argv[1:] if argv is None else argv)
    with tempfile.TemporaryDirectory(prefix="floor-bench-") as scratch:
        work = args.workdir or Path(scratch)
        shoe = make_shoe(work)
        results = []
        for n in args.sizes:
            for mode in args.modes:
                results.append(run_one(work, shoe, n, mode, args))
                print(row(results[-1]), file=sys.stderr, flush=True)
    interval = 3600.0 / (args.rounds_per_hour * shoe.per_round)
    setup = (
        f"Shoe: {shoe.rows} rows, {shoe.rounds} rounds ({shoe.per_round:.1f} rows a round); "
        f"paced: {args.rounds_per_hour:g} rounds/hour = a row every {interval:.2f} s per table, "
        f"{args.seconds:g} s; full: rows (column) as fast as the writer can."
    )
    text = report(results, setup, command.strip())
    print(text, end="")
    if args.out is not None:
        args.out.write_text(text)
    bad = any(r.lost or r.passed or r.failures for r in results)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
