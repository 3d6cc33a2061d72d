"""Start-up benchmark: how long a command takes to start, against the interpreter's
own start, measured in the same run, interleaved.

Run: .venv/bin/python benchmarks/start_bench.py [--runs 5] [--json]

Each run, in this order, each as its own process from just before the spawn:
* **python -c pass**: the interpreter's start, the floor of every command;
* **import controller.daemon.main**: the daemon's module imported alone, nothing run;
* **READY=1**: `tablectl run --simulate --pace-ms 0 --workdir TMP` to the arrival
  of READY=1 on NOTIFY_SOCKET (benchmarks/daemon_harness.py's `daemon`; the simulators'
  spawn, imports and handshakes included), then its resident set (VmRSS of the
  daemon process) and SIGTERM;
* **analyze**: `tablectl analyze baccarat --decks 8` to its exit (stdout discarded).

Figures: min / median / max of the runs for each, and each against python -c pass.

Bytecode: an installed tablectl (the Debian package, docs/packaging.md) has its modules
compiled when it is installed and reads them from then on (its systemd unit sets
PYTHONDONTWRITEBYTECODE=1, which stops writing, not reading). A checkout run under
PYTHONDONTWRITEBYTECODE=1, as here, never writes its bytecode and compiles every module
it imports at every start. So the benchmark first compiles each tree's packages
(``compileall``, into their ``__pycache__``) and measures what an installed daemon
pays; ``--no-compile`` measures the trees as they are (from source where they hold no
bytecode).
With --against TREE (e.g. `git archive main | tar -x -C /tmp/main`), each run measures
TREE's code too, right after this tree's (TREE first on PYTHONPATH, for the simulators
too): before and after in the same run.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

import daemon_harness  # noqa: E402
from daemon_harness import MB, daemon, rss_bytes, run_args, tablectl  # noqa: E402

PACKAGES = ("controller", "drivers", "firmware_sim")


def compiled(tree: Path) -> None:
    """``tree``'s packages compiled to bytecode, as an install compiles them."""
    argv = [sys.executable, "-m", "compileall", "-q", *(str(tree / p) for p in PACKAGES)]
    subprocess.run(argv, stdout=subprocess.DEVNULL, check=True)


def exited(argv: Sequence[str]) -> float:
    """Seconds from spawn to exit of ``argv`` (which must succeed)."""
    start = time.perf_counter()
    subprocess.run(argv, cwd=daemon_harness.ROOT, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def ready(workdir: Path, rss: list[float]) -> float:
    """Seconds from spawn to READY=1 of a simulated table; its VmRSS then into ``rss``."""
    with daemon([*tablectl(), *run_args("baccarat", 0, 1, workdir)], workdir) as d:
        seconds = d.wait_ready()
        rss.append(rss_bytes(d.proc.pid) / MB)
    return seconds


def steps(figures: dict[str, list[float]]) -> dict[str, Callable[[Path], float]]:
    """Each measure, by name: a function of a fresh temporary directory."""
    analyze = [*tablectl()[:-1], "analyze", "baccarat", "--decks", "8"]
    return {
        "pass": lambda tmp: exited([sys.executable, "-c", "pass"]),
        "import": lambda tmp: exited([sys.executable, "-c", "import controller.daemon.main"]),
        "ready": lambda tmp: ready(tmp / "ready", figures["ready_rss"]),
        "analyze": lambda tmp: exited(analyze),
    }


def measure(runs: int, trees: Sequence[str]) -> dict[str, dict[str, list[float]]]:
    """``runs`` rounds, each measure of each tree once per round; a tree other than
    this one ("") is put first on PYTHONPATH (its processes import its code)."""
    figures = {tree: {name: [] for name in (*MEASURES, "ready_rss")} for tree in trees}
    with tempfile.TemporaryDirectory(prefix="start-bench-") as tmpdir:
        for n in range(runs):
            for tree in trees:
                for name, step in steps(figures[tree]).items():
                    tmp = Path(tmpdir) / f"{n}-{len(tree)}-{name}"
                    tmp.mkdir()
                    with pythonpath(tree):
                        figures[tree][name].append(step(tmp))
    return figures


@contextlib.contextmanager
def pythonpath(tree: str) -> Iterator[None]:
    """The processes spawned meanwhile run ``tree``'s code (this one's if ""): it is
    their working directory, which is sys.path[0] for ``-c`` and ``-m`` (the
    simulators), and first on PYTHONPATH, for the console script."""
    saved = os.environ.get("PYTHONPATH")
    if tree:
        os.environ["PYTHONPATH"] = str(Path(tree).resolve())
        daemon_harness.ROOT = Path(tree).resolve()  # the cwd of daemon_harness.daemon's spawn
    try:
        yield
    finally:
        daemon_harness.ROOT = ROOT
        if saved is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = saved


def spread(values: list[float]) -> dict[str, float]:
    return {
        "min": round(min(values), 3),
        "median": round(statistics.median(values), 3),
        "max": round(max(values), 3),
    }


MEASURES = {
    "pass": "python -c pass",
    "import": "python -c 'import controller.daemon.main'",
    "ready": "run --simulate: spawn -> READY=1",
    "analyze": "analyze baccarat --decks 8",
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument(
        "--against",
        metavar="TREE",
        help="also measure the code in TREE (a checkout, e.g. of main), interleaved",
    )
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument(
        "--no-compile",
        action="store_true",
        help="do not compile the trees' bytecode first (see the docstring: Bytecode)",
    )
    args = ap.parse_args()
    trees = ["", args.against] if args.against else [""]
    if not args.no_compile:
        for tree in trees:
            compiled(Path(tree).resolve() if tree else ROOT)
    figures = measure(args.runs, trees)
    if args.json:
        result = {t or "this": {k: spread(v) for k, v in f.items()} for t, f in figures.items()}
        bytecode = "as found" if args.no_compile else "compiled"
        print(json.dumps({"runs": args.runs, "bytecode": bytecode, **result}, indent=2))
        return
    bytecode = "bytecode as found" if args.no_compile else "bytecode compiled"
    head = f"measure ({args.runs} runs, interleaved, {bytecode})"
    print(f"| {head} | min | median | max | median / pass |")
    print("|---|---|---|---|---|")
    for tree, values in figures.items():
        floor = statistics.median(values["pass"])
        where = f" ({tree})" if tree else ""
        for name, label in MEASURES.items():
            s = spread(values[name])
            ratio = statistics.median(values[name]) / floor
            print(
                f"| {label}{where} | {s['min']} s | {s['median']} s | {s['max']} s | {ratio:.1f}x |"
            )
        s = spread(values["ready_rss"])
        print(
            f"| daemon VmRSS at READY=1{where} | {s['min']} MB | {s['median']} MB "
            f"| {s['max']} MB | |"
        )


if __name__ == "__main__":
    main()
