"""The shuffle monitor's own process (controller/shuffle_watch.py), measured from outside.

Run: .venv/bin/python benchmarks/shuffle_watch_bench.py [--shoes N] [--model M] [--json]

1. A journal: `tablectl run --simulate --game baccarat --pace-ms 0 --shuffle-model M`
   for about N shoes (80 rounds a shoe), in a fresh work directory.
2. The monitor on it, as the daemon starts it (`python -m controller.shuffle_watch
   JOURNAL`, OPENBLAS_NUM_THREADS=1), twice: on the whole journal, and on a journal of
   its rows up to its first shoe's end (written again: journals are append-only), so the
   difference is the cost of the shoes alone, without the start (imports, the first
   read). For each: wall time from the spawn to its ``caught_up`` line, the process's
   CPU (utime + stime of /proc/PID/stat) then, the CPU its first pass took as it says
   (``time.process_time`` around the pass: the imports left out), and its VmHWM /
   VmRSS. The CPU per shoe: the passes' difference over the shoes'.
3. In this process, the split of that cost (``split``): reading the rows the monitor
   needs, and the orders and the tests on them, the least of 3 runs each.
4. The daemon's own resident memory is benchmarks/daemon_bench.py's (``--parts
   memory``): the monitor's is not in it.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

ROUNDS_PER_SHOE = 81  # 8 decks of Baccarat to the cover card (benchmarks/daemon_bench.py)


def _journal(workdir: Path, shoes: int, model: str) -> Path:
    argv = [sys.executable, "-m", "controller.cli", "run", "--simulate", "--game", "baccarat"]
    argv += ["--rounds", str(shoes * ROUNDS_PER_SHOE), "--pace-ms", "0", "--seed", "1"]
    argv += ["--shuffle-model", model, "--workdir", str(workdir)]
    subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, check=True, timeout=3600)
    return workdir / "journal.db"


def _first_shoe(journal: Path, dest: Path) -> Path:
    """A new journal of the same rows up to its first ``shoe_end`` (the journal is
    append-only: the rows are written again, with the project's journal)."""
    from controller.export import read_rows
    from controller.journal import SqliteJournal

    rows = read_rows(journal)
    out = SqliteJournal(dest, header=rows[0].entry)
    with out.transaction():
        for row in rows[1:]:
            out.record(row.entry)
            if row.entry.get("type") == "shoe_end":
                break
    out.close()
    return dest


def _cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _memory(pid: int) -> dict[str, float]:
    found = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmHWM", "VmRSS"):
            found[key] = int(value.split()[0]) / 1024
    return found


def measure(journal: Path) -> dict[str, Any]:
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    began = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "controller.shuffle_watch", str(journal)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stdout is not None and proc.stdin is not None
    alerts, rows, passed = 0, 0, 0.0
    for line in proc.stdout:
        message = json.loads(line)
        alerts += "alert" in message
        if "caught_up" in message:
            rows, passed = message["caught_up"], message["cpu_s"]
            break
    wall = time.monotonic() - began
    cpu, memory = _cpu(proc.pid), _memory(proc.pid)
    proc.stdin.close()
    proc.wait(timeout=30)
    return {
        "rows": rows,
        "wall_s": wall,
        "cpu_s": cpu,
        "pass_cpu_s": passed,
        "alerts": alerts,
        **memory,
    }


def split(journal: Path, runs: int = 3) -> dict[str, float]:
    """In this process, the least of ``runs``: the CPU per shoe of reading the rows the
    monitor needs (``selected``: fetched, found by their text, decoded), and of the
    orders and tests on them (``ShoeTester``), each over every shoe of the journal."""
    from controller.journal import open_read_only
    from controller.shuffle.verdicts import ShoeTester
    from controller.shuffle_watch import selected

    db = open_read_only(journal)
    ((last,),) = db.execute("SELECT max(seq) FROM rows").fetchall()
    rows = list(selected(db, 0, last))
    shoes = sum(1 for _, entry in rows if entry.get("type") == "shoe_end")
    reading = testing = float("inf")
    for _ in range(runs):
        began = time.process_time()
        list(selected(db, 0, last))
        reading = min(reading, time.process_time() - began)
        tester, began = ShoeTester(), time.process_time()
        for seq, entry in rows:
            tester.feed(seq, entry)
        testing = min(testing, time.process_time() - began)
    db.close()
    return {"reading_ms": 1000 * reading / shoes, "testing_ms": 1000 * testing / shoes}


def shoes_in(journal: Path) -> int:
    with sqlite3.connect(journal) as db:
        ((n,),) = db.execute(
            "SELECT count(*) FROM rows WHERE json_extract(body, '$.type') = 'shoe_end'"
        ).fetchall()
    return int(n)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shoes", type=int, default=20)
    parser.add_argument("--model", default="random")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        journal = _journal(Path(tmp), args.shoes, args.model)
        short = _first_shoe(journal, Path(tmp) / "first.db")
        whole, first = measure(journal), measure(short)
        shoes = shoes_in(journal) - 1
        parts = split(journal)
    per_shoe = (whole["pass_cpu_s"] - first["pass_cpu_s"]) / shoes
    found = {"model": args.model, "shoes": shoes + 1, "whole": whole, "first_shoe": first}
    found["cpu_ms_per_shoe"] = per_shoe * 1000
    found.update(parts)
    if args.json:
        print(json.dumps(found, indent=2))
        return 0
    for name, m in (("whole journal", whole), ("first shoe only", first)):
        print(
            f"{name}: {m['rows']} rows, caught up in {m['wall_s']:.2f} s wall, "
            f"{m['cpu_s']:.2f} s CPU ({m['pass_cpu_s']:.3f} s of it reading), "
            f"{m['alerts']} alert(s), "
            f"VmHWM {m['VmHWM']:.1f} MB, VmRSS {m['VmRSS']:.1f} MB"
        )
    print(
        f"{args.model}, {shoes + 1} shoes: the monitor's CPU per shoe after the first "
        f"{found['cpu_ms_per_shoe']:.1f} ms (rows read, orders, tests)"
    )
    print(
        f"of which, least of 3 in one process: reading the rows it needs "
        f"{parts['reading_ms']:.2f} ms a shoe, the orders and tests {parts['testing_ms']:.2f} ms"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
