"""Restart benchmark: READY=1 after a restart against a fresh start, whatever the
journal's length, and the restart's resident memory.

Run: .venv/bin/python benchmarks/restart_bench.py [--rows 2000,20000,100000]
     [--game spanish21] [--runs 3] [--json]

For each journal length, in a fresh work directory:
* the journal: `tablectl run --simulate --pace-ms 0` plays until its journal holds
  that many rows (polled read-only), then is killed with SIGKILL, as a crash would;
* then, --runs times, alternately: a **restart** on that journal and a **fresh
  start** in an empty work directory; each from just before the spawn to the arrival
  of READY=1 on NOTIFY_SOCKET (benchmarks/daemon_harness.py's `Notify`), at
  `--pace-ms 2000` so that nothing is played before it stops, then the
  peak resident set of the daemon process (VmHWM in /proc/PID/status, not its
  simulators), then SIGTERM. A restart's journal grows by the rows of its own start
  and stop (the devices' connections, the halt for the fresh simulators' shoe), so
  each restart replays a few rows more;
* the restart's `resumed` row says how many rows it replayed, and from which
  snapshot;
* **whole replay** (in this process, for what snapshots buy): the same journal's rows
  replayed by `controller.recovery.resume` from row 1 against from the last snapshot,
  the rows read included; seconds and the peak of Python's allocations
  (tracemalloc);
* the snapshot rows of the journal: how many, and their size.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT))

from daemon_harness import Daemon, daemon, run_args, tablectl  # noqa: E402

from controller.games import game as registry  # noqa: E402
from controller.journal import SqliteJournal  # noqa: E402
from controller.journal.sealkey import load_key  # noqa: E402
from controller.recovery import from_last_snapshot, resume  # noqa: E402
from controller.table.seal import Sealer  # noqa: E402
from tools.diagrams import NullDevices, NullJournal  # noqa: E402

MB = 1024 * 1024
PACE_MS = 2000  # the dealer's pace on a measured start


def peak_rss(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmHWM for pid {pid}")


def journal_rows(path: Path) -> int:
    if not path.exists():
        return 0
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        (last,) = db.execute("SELECT MAX(seq) FROM rows").fetchone()
    except sqlite3.OperationalError:
        return 0  # the schema is not written yet
    finally:
        db.close()
    return int(last or 0)


def play_until(game: str, workdir: Path, rows: int, seed: int) -> float:
    """Play until the journal holds ``rows`` rows, then SIGKILL; the seconds it took."""
    started = time.monotonic()
    with open(workdir.parent / f"play{rows}.stderr", "wb") as err:
        proc = subprocess.Popen(
            [*tablectl(), *run_args(game, 0, seed, workdir)],
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
    try:
        while journal_rows(workdir / "journal.db") < rows:
            if proc.poll() is not None:
                raise SystemExit(f"the daemon stopped while playing (status {proc.returncode})")
            time.sleep(0.2)
    finally:
        proc.kill()
        proc.wait()
    return time.monotonic() - started


@contextlib.contextmanager
def _started(game: str, workdir: Path, seed: int) -> Iterator[Daemon]:
    """The daemon on the table's ``workdir``; its notify socket and stderr in a
    directory of their own (the table's may exist: a restart)."""
    beside = Path(tempfile.mkdtemp(prefix="notify", dir=workdir.parent)) / "d"
    # A slow dealer: the start is measured, not the play after it.
    with daemon([*tablectl(), *run_args(game, PACE_MS, seed, workdir)], beside) as d:
        yield d


def started(game: str, workdir: Path, seed: int) -> tuple[float, int]:
    """Seconds to READY=1 and the daemon's peak resident set, then SIGTERM."""
    with _started(game, workdir, seed) as d:
        ready = d.wait_ready()
        return ready, peak_rss(d.proc.pid)


def last_resumed(path: Path) -> dict[str, Any]:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        for (body,) in db.execute("SELECT body FROM rows ORDER BY seq DESC"):
            entry = json.loads(body)
            if entry.get("type") == "resumed":
                return dict(entry)
    finally:
        db.close()
    raise SystemExit("the restart wrote no resumed row")


def snapshot_sizes(path: Path) -> list[int]:
    """The size of each snapshot row's body, in bytes."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return [
            len(body)
            for (body,) in db.execute("SELECT body FROM rows")
            if json.loads(body).get("type") == "snapshot"
        ]
    finally:
        db.close()


def whole_replay(game: str, workdir: Path) -> dict[str, float]:
    """Replay the journal from row 1 and from its last snapshot, in this process."""
    entry = registry(game)
    make = functools.partial(entry.table, entry.defaults())
    key = load_key(workdir / "journal.sealkey")
    out: dict[str, float] = {}
    for name, read in (
        ("whole", lambda j: list(j.rows())),
        ("from_snapshot", from_last_snapshot),
    ):
        # A directory of its own: the copy's checkpoint and tail records go with it.
        place = Path(tempfile.mkdtemp(prefix=f"replay-{name}-", dir=workdir.parent))
        copy = place / "journal.db"
        _copy(workdir / "journal.db", copy)
        with SqliteJournal(copy) as journal:
            tracemalloc.start()
            t0 = time.perf_counter()
            rows = read(journal)
            resume(
                rows,
                make,
                journal=NullJournal(),
                devices=NullDevices(),
                sealer=Sealer(key) if key else Sealer(),
                gaming_day=lambda: "2000-01-01",
            )
            out[f"{name}_seconds"] = time.perf_counter() - t0
            out[f"{name}_peak_mb"] = tracemalloc.get_traced_memory()[1] / MB
            out[f"{name}_rows"] = len(rows)
            tracemalloc.stop()
        shutil.rmtree(place)
    return out


def _copy(source: Path, copy: Path) -> None:
    """The journal as it stands, its write-ahead log included."""
    src = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    dst = sqlite3.connect(copy)
    try:
        src.backup(dst)
    finally:
        src.close()
        dst.close()


def measure(tmp: Path, game: str, rows: int, runs: int, seed: int) -> dict[str, Any]:
    table = tmp / f"table{rows}"
    played = play_until(game, table, rows, seed)
    length = journal_rows(table / "journal.db")
    replay = whole_replay(game, table)
    sizes = snapshot_sizes(table / "journal.db")
    restarts: list[tuple[float, int]] = []
    fresh: list[tuple[float, int]] = []
    replayed: list[int] = []
    for n in range(runs):
        restarts.append(started(game, table, seed))
        replayed.append(int(last_resumed(table / "journal.db")["rows"]))
        fresh.append(started(game, tmp / f"fresh{rows}-{n}", seed))
    restart_s = statistics.median(r for r, _ in restarts)
    fresh_s = statistics.median(f for f, _ in fresh)
    return {
        "rows": length,
        "played_seconds": played,
        "journal_mb": (table / "journal.db").stat().st_size / MB,
        "restart_ready_seconds": [r for r, _ in restarts],
        "fresh_ready_seconds": [f for f, _ in fresh],
        "restart_over_fresh": restart_s / fresh_s,
        "restart_peak_rss_mb": max(m for _, m in restarts) / MB,
        "fresh_peak_rss_mb": max(m for _, m in fresh) / MB,
        "rows_replayed": replayed,
        "snapshots": len(sizes),
        "snapshot_bytes_median": statistics.median(sizes) if sizes else 0,
        "snapshot_bytes_max": max(sizes, default=0),
        **replay,
    }


def report(results: Sequence[dict[str, Any]]) -> str:
    lines = [
        "| rows | READY restart, median | READY fresh, median | restart / fresh "
        "| rows replayed | peak RSS restart | peak RSS fresh |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in results:
        lines.append(
            f"| {r['rows']:,} | {statistics.median(r['restart_ready_seconds']):.2f} s "
            f"| {statistics.median(r['fresh_ready_seconds']):.2f} s "
            f"| {r['restart_over_fresh']:.2f}x | {max(r['rows_replayed']):,} "
            f"| {r['restart_peak_rss_mb']:.1f} MB | {r['fresh_peak_rss_mb']:.1f} MB |"
        )
    lines += [
        "",
        "| rows | whole replay | from the last snapshot | whole, peak alloc "
        "| from snapshot, peak alloc | snapshot rows |",
        "|---|---|---|---|---|---|",
    ]
    for r in results:
        lines.append(
            f"| {r['rows']:,} | {r['whole_seconds']:.2f} s ({r['whole_rows']:,} rows) "
            f"| {r['from_snapshot_seconds']:.3f} s ({r['from_snapshot_rows']:,} rows) "
            f"| {r['whole_peak_mb']:.1f} MB | {r['from_snapshot_peak_mb']:.1f} MB "
            f"| {r['snapshots']} of {r['snapshot_bytes_median']:,.0f} B, at most "
            f"{r['snapshot_bytes_max']:,} B |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", default="2000,20000,100000")
    parser.add_argument("--game", default="spanish21")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    results = []
    with tempfile.TemporaryDirectory(prefix="restart-bench") as tmp:
        for rows in (int(n) for n in args.rows.split(",")):
            results.append(measure(Path(tmp), args.game, rows, args.runs, args.seed))
            print(f"{rows} rows measured", file=sys.stderr, flush=True)
    print(json.dumps(results, indent=2) if args.json else report(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
