"""Journal start-up check benchmark: what the daemon's opening of its journal costs as
the journal grows (controller/journal/inspect.py), and what the full check it leaves to
the background costs (controller/journal/fullcheck.py).

Run: .venv/bin/python benchmarks/journal_bench.py [--sizes 2000,20000,100000] [--json]

First one real journal: `tablectl run --simulate --game spanish21 --rounds R
--pace-ms 0 --seed 1 --workdir TMP` as its own process (R from --real-rounds), stopped
cleanly by its --rounds; then the same command with TABLECTL_FAILPOINTS killing it with
SIGKILL at its last round's end (journal.committed:round_end@R), so its checkpoint lags.
Then synthetic journals of each size, built fast: the daemon's own creation (the header
row and sealing key, `open_table_journal`), then rows inserted in one transaction with
the real chain, their bodies cycled from the real journal's, and the checkpoint and tail
record written as the writer writes them.

For each journal, in three states:
* clean stop: the checkpoint at the last row (what a stopped daemon leaves);
* after a kill: the checkpoint CHECKPOINT_EVERY - 1 rows behind the end (the worst a
  kill leaves: just before the next checkpoint was due);
* no checkpoint: a journal written before there were checkpoints (its first start under
  this code reads the whole chain once).
the time of `open_table_journal(path, identity)` and its close: the start-up check
(read-only: marks, checkpoint, tail record, the chain from the checkpoint's row), the
read-write connection, the checkpoint and tail written, the header and key checked.
Each run starts from a fresh copy of the journal's files (the copy is not timed); the
median and the maximum of --runs runs. Beside it, at each size: SQLite's quick_check
alone and the whole full check (quick_check, then every row's hash and link), which
run in the background after start.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from controller.journal import CHECKPOINT_EVERY, SqliteJournal  # noqa: E402
from controller.journal.chain import row_hash  # noqa: E402
from controller.journal.checkpoint import Checkpoint, Tail  # noqa: E402
from controller.journal.fullcheck import full_check  # noqa: E402
from controller.journal.header import Identity, open_table_journal  # noqa: E402
from controller.journal.sqlite import open_read_only  # noqa: E402

IDENTITY = Identity("simulated", "spanish21", seals=True)  # what `run --simulate` writes
FILES = ("journal.db", "journal.db-wal", "journal.checkpoint", "journal.tail", "journal.sealkey")


def tablectl(workdir: Path, rounds: int, env: dict[str, str] | None = None) -> int:
    args = ["run", "--simulate", "--game", "spanish21", "--rounds", str(rounds)]
    args += ["--pace-ms", "0", "--seed", "1", "--workdir", str(workdir)]
    done = subprocess.run(
        [sys.executable, "-m", "controller.cli", *args],
        capture_output=True,
        env={**os.environ, **(env or {})},
        timeout=1800,
    )
    return done.returncode


def bodies(journal: Path) -> list[str]:
    db = open_read_only(journal)
    try:
        return [body for (body,) in db.execute("SELECT body FROM rows WHERE seq > 1")]
    finally:
        db.close()


def synthetic(workdir: Path, rows: int, sample: list[str]) -> None:
    """A journal of ``rows`` rows (the header first) with the real chain."""
    path = workdir / "journal.db"
    journal, _ = open_table_journal(path, IDENTITY)
    seq, prev = journal.last.seq, journal.last.hash
    journal.close()
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("BEGIN")
    ts = "2026-12-01T10:00:00.000000+00:00"
    for n in range(seq + 1, rows + 1):
        body = sample[n % len(sample)]
        digest = row_hash(n, ts, prev, body)
        db.execute("INSERT INTO rows VALUES (?, ?, ?, ?, ?)", (n, ts, body, prev, digest))
        seq, prev = n, digest
    db.execute("COMMIT")
    db.close()
    Checkpoint(workdir / "journal.checkpoint", None).advance(seq, prev)
    Tail(workdir / "journal.tail", seq, prev).close()


def stated(source: Path, target: Path, state: str) -> None:
    """``target`` holding ``source``'s journal files, its checkpoint as ``state`` says."""
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir()
    for name in FILES:
        if (source / name).exists():
            shutil.copy2(source / name, target / name)
    if state == "no checkpoint":
        (target / "journal.checkpoint").unlink()
    elif state == "after a kill":
        mark = json.loads((target / "journal.checkpoint").read_text())
        behind = max(1, mark["seq"] - (CHECKPOINT_EVERY - 1))
        db = open_read_only(target / "journal.db")
        try:
            (digest,) = db.execute("SELECT hash FROM rows WHERE seq = ?", (behind,)).fetchone()
        finally:
            db.close()
        Checkpoint(target / "journal.checkpoint", None).advance(behind, digest)


def timed(prepare: Callable[[], None], work: Callable[[], object], runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        prepare()
        began = time.perf_counter()
        work()
        times.append(time.perf_counter() - began)
    return times


def start_check(source: Path, scratch: Path, state: str, runs: int) -> dict[str, object]:
    path = scratch / "journal.db"
    checked: list[int] = []

    def open_and_close() -> None:
        journal, _ = open_table_journal(path, IDENTITY)
        checked.append(journal.inspection.checked)
        journal.close()

    times = timed(lambda: stated(source, scratch, state), open_and_close, runs)
    return {
        "state": state,
        "rows checked": checked[-1],
        "median ms": round(statistics.median(times) * 1000, 2),
        "max ms": round(max(times) * 1000, 2),
    }


def background(source: Path, runs: int) -> dict[str, float]:
    path = source / "journal.db"

    def quick() -> None:
        db = open_read_only(path)
        try:
            db.execute("PRAGMA quick_check").fetchone()
        finally:
            db.close()

    with SqliteJournal(path) as journal:
        quick_times = timed(lambda: None, quick, runs)
        full_times = timed(lambda: None, lambda: full_check(journal), max(1, runs // 2))
    return {
        "quick_check ms": round(statistics.median(quick_times) * 1000, 2),
        "full check ms": round(statistics.median(full_times) * 1000, 2),
    }


def measure(name: str, source: Path, scratch: Path, runs: int) -> list[dict[str, object]]:
    rows = len(bodies(source / "journal.db")) + 1
    size = sum((source / f).stat().st_size for f in FILES if (source / f).exists())
    found = []
    for state in ("clean stop", "after a kill", "no checkpoint"):
        found.append({"journal": name, "rows": rows, "MB": round(size / 2**20, 1)})
        found[-1].update(start_check(source, scratch, state, runs))
    found[-1].update(background(source, runs))
    return found


def real(base: Path, rounds: int, runs: int) -> list[dict[str, object]]:
    clean, killed = base / "real-clean", base / "real-killed"
    for workdir in (clean, killed):
        workdir.mkdir()
    assert tablectl(clean, rounds) == 0
    env = {"TABLECTL_FAILPOINTS": f"journal.committed:round_end@{rounds}"}
    assert tablectl(killed, rounds, env) == -signal.SIGKILL
    found = measure(f"real, {rounds} rounds", clean, base / "scratch", runs)
    killed_run = start_check(killed, base / "scratch", "as killed", runs)
    found.append({"journal": f"real, {rounds} rounds, killed", **killed_run})
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2000,20000,100000")
    parser.add_argument("--real-rounds", type=int, default=40)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="journal-bench-") as tmp:
        base = Path(tmp)
        results = real(base, args.real_rounds, args.runs)
        sample = bodies(base / "real-clean" / "journal.db")
        for size in (int(s) for s in args.sizes.split(",")):
            source = base / f"synthetic-{size}"
            source.mkdir()
            began = time.perf_counter()
            synthetic(source, size, sample)
            print(f"built {size} rows in {time.perf_counter() - began:.1f} s", file=sys.stderr)
            results += measure(f"synthetic, {size} rows", source, base / "scratch", args.runs)
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    columns = ["journal", "rows", "MB", "state", "rows checked", "median ms", "max ms"]
    columns += ["quick_check ms", "full check ms"]
    print("| " + " | ".join(columns) + " |")
    print("|" + "---|" * len(columns))
    for result in results:
        print("| " + " | ".join(str(result.get(c, "")) for c in columns) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
