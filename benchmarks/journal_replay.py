"""The tables of benchmarks/floor_bench.py: one process appending a real shoe's rows to
N journals with the daemon's own writer (controller/journal ``SqliteJournal``, each row
committed, WAL, ``synchronous=FULL``), one thread a table, and recording when each row
was committed (``time.time()`` once ``record`` returned: the row is durable then).

Run: python benchmarks/journal_replay.py SPEC   (a JSON file; floor_bench.py writes it)

SPEC: ``source`` (the journal whose rows are replayed, read-only, over and over),
``journals`` (the N paths, created empty), ``mode`` ("paced": each table one row every
``interval`` seconds, its first at a random point of its first interval; "full": each
table as fast as its thread can, ``rows`` rows), ``seconds`` (how long the tables write
at most), ``clock`` ("time" or "monotonic": the clock of the commit times, the floor's)
and ``out`` (where the commit times go: JSON, table index -> list of times, row ``seq``
k at k-1).

Protocol on stdin/stdout: the journals are created, then ``ready`` is printed; on a line
``go`` on stdin the tables write for ``seconds``; then the times are written to ``out``
and ``done <rows> <CPU seconds since go>`` is printed.
"""

from __future__ import annotations

import json
import random
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from controller.journal import SqliteJournal, open_read_only  # noqa: E402


def shoe_rows(source: Path) -> list[dict[str, Any]]:
    """The source journal's entries, in order (read-only: the journal is untouched)."""
    db = open_read_only(source)
    try:
        return [json.loads(body) for (body,) in db.execute("SELECT body FROM rows ORDER BY seq")]
    finally:
        db.close()


class Table:
    """One journal and the commit time of each row written to it."""

    def __init__(self, path: Path, entries: list[dict[str, Any]], clock: Any) -> None:
        self.journal = SqliteJournal(path)
        self.entries = entries
        self.clock = clock
        self.committed: list[float] = []

    def append(self) -> None:
        entry = self.entries[len(self.committed) % len(self.entries)]
        self.journal.record(entry)
        self.committed.append(self.clock())

    def paced(self, start: float, interval: float, until: float, stop: threading.Event) -> None:
        due = start + random.uniform(0.0, interval)
        while due < until:
            if stop.wait(max(0.0, due - time.time())):
                return
            self.append()
            due += interval

    def full(self, until: float, rows: int, stop: threading.Event) -> None:
        while len(self.committed) < rows and time.time() < until and not stop.is_set():
            self.append()


def write(tables: list[Table], spec: dict[str, Any]) -> None:
    """Every table in its own thread, until each has written what ``spec`` says."""
    stop = threading.Event()
    start = time.time()
    until = start + float(spec["seconds"])
    if spec["mode"] == "paced":
        jobs = [(t.paced, (start, float(spec["interval"]), until, stop)) for t in tables]
    else:
        jobs = [(t.full, (until, int(spec["rows"]), stop)) for t in tables]
    threads = [threading.Thread(target=job, args=args, daemon=True) for job, args in jobs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if spec["mode"] == "paced":
        stop.wait(max(0.0, until - time.time()))  # a paced run lasts its seconds


def run(spec: dict[str, Any]) -> int:
    entries = shoe_rows(Path(spec["source"]))
    clock = time.monotonic if spec.get("clock") == "monotonic" else time.time
    tables = [Table(Path(p), entries, clock) for p in spec["journals"]]
    print("ready", flush=True)
    if sys.stdin.readline().strip() != "go":
        return 1
    cpu = time.process_time()
    write(tables, spec)
    cpu = time.process_time() - cpu
    for table in tables:
        table.journal.close()
    times = {str(i): t.committed for i, t in enumerate(tables)}
    Path(spec["out"]).write_text(json.dumps(times), encoding="utf-8")
    print(f"done {sum(len(t.committed) for t in tables)} {cpu:.3f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(run(json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))))
