"""The simulated dealer's console, its own costs, each against main's way in the same
process, interleaved (controller/bench/baccarat.py, firmware_sim/control.py).

Run: .venv/bin/python benchmarks/console_bench.py [--runs N] [--json]

* **autoplay**: a round's seeded wagers (7 seats, half of them wagering, 45/45/10 on
  banker / player / tie, 10, 25, 50 or 100), as ``BaccaratConsole.autoplay`` draws
  them, against main's loop (``choices`` with the weights, ``choice`` of an int made a
  Decimal, a dict a seat, then the Wager commands made from it). Both must give the same
  wagers from the same seed (checked first). Microseconds a round, thread CPU.
* **control**: one request and its reply on a shoe simulator's control socket (the
  ``unreadable`` command: an empty reply, as small as a draw's), by ``SimControl``'s
  ``request``, by ``post`` then ``answer``, and by main's client (copied here: a socket
  with a timeout, ``json.dumps``, ``json.loads``). Thread CPU and wall microseconds a
  request, the simulator's own time included in the wall time. ``post_answer`` answers
  at once (the reply is not there yet: the worst case); ``post_answer_later`` after a
  0.5 ms sleep, as the console does after the table's work, beside ``sleep_alone``, the
  same sleep without the request: the difference of their CPU is the request's.
Each run times every variant once, in turn; min / median / max over ``--runs``.
"""

from __future__ import annotations

import argparse
import json
import random
import socket
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from decimal import Decimal
from functools import partial
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from controller.bench.baccarat import BaccaratConsole  # noqa: E402
from controller.rules.baccarat import BETS  # noqa: E402
from controller.table.events import Wager  # noqa: E402
from firmware_sim.control import SimControl  # noqa: E402
from firmware_sim.harness import SimProcess  # noqa: E402

KEY = bytes(range(32))
ROUNDS = 20_000
REQUESTS = 3_000
LATER = 0.0005  # s between a post and its answer (post_answer_later)


def main_wagers(rng: random.Random) -> list[Wager]:
    """Main's autoplay and the Wager commands ``wagers`` made from it."""
    wagers: dict[int, dict[str, Decimal]] = {}
    for seat in range(1, 8):
        if rng.random() < 0.5:
            bet = rng.choices(BETS, weights=(45, 45, 10))[0]
            wagers[seat] = {bet: Decimal(rng.choice((10, 25, 50, 100)))}
    return [Wager(s, b, a) for s, bets in sorted(wagers.items()) for b, a in bets.items()]


def console_wagers(rng: random.Random) -> Callable[[], list[Wager]]:
    console = cast(BaccaratConsole, SimpleNamespace(rng=rng))
    return lambda: BaccaratConsole.autoplay(console)


def per_round(make: Callable[[], list[Wager]]) -> float:
    start = time.thread_time()
    for _ in range(ROUNDS):
        make()
    return (time.thread_time() - start) / ROUNDS * 1e6


class MainClient:
    """Main's ``SimControl.request`` (a313610), for the reference."""

    def __init__(self, path: str) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(5.0)
        self.sock.connect(path)
        self.buf = bytearray()

    def request(self, cmd: str, **fields: object) -> dict[str, Any]:
        self.sock.sendall(json.dumps({"cmd": cmd, **fields}).encode() + b"\n")
        while (nl := self.buf.find(b"\n")) < 0:
            self.buf += self.sock.recv(65536)
        raw = bytes(self.buf[:nl])
        del self.buf[: nl + 1]
        reply = json.loads(raw)
        assert reply.get("ok") is True
        return dict(reply)


def per_request(one: Callable[[], object]) -> tuple[float, float]:
    cpu, wall = time.thread_time(), time.perf_counter()
    for _ in range(REQUESTS):
        one()
    return (
        (time.thread_time() - cpu) / REQUESTS * 1e6,
        (time.perf_counter() - wall) / REQUESTS * 1e6,
    )


def control_variants(path: str) -> dict[str, Callable[[], object]]:
    client, posting, main = SimControl(path), SimControl(path), MainClient(path)

    def post_then_answer() -> None:
        posting.post("unreadable")
        posting.answer()

    def post_answer_later() -> None:
        posting.post("unreadable")
        time.sleep(LATER)  # the table's work meanwhile: the reply is there when read
        posting.answer()

    return {
        "main_request": lambda: main.request("unreadable"),
        "request": lambda: client.request("unreadable"),
        "post_answer": post_then_answer,
        "post_answer_later": post_answer_later,
        "sleep_alone": lambda: time.sleep(LATER),
    }


def figures(values: list[float]) -> list[float]:
    return [round(min(values), 2), round(statistics.median(values), 2), round(max(values), 2)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    for seed in range(50):  # the same wagers first
        a, b = random.Random(seed), random.Random(seed)
        make = console_wagers(b)
        assert all(main_wagers(a) == make() for _ in range(50))
    times: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        sim = SimProcess("shoe", Path(tmp), KEY).start()
        try:
            variants = control_variants(str(sim.control_path))
            for _ in range(args.runs):
                reference = partial(main_wagers, random.Random(1))
                times.setdefault("autoplay_main_us", []).append(per_round(reference))
                autoplay = console_wagers(random.Random(1))
                times.setdefault("autoplay_us", []).append(per_round(autoplay))
                for name, one in variants.items():
                    cpu, wall = per_request(one)
                    times.setdefault(f"{name}_cpu_us", []).append(cpu)
                    times.setdefault(f"{name}_wall_us", []).append(wall)
        finally:
            sim.stop()
    result = {name: figures(v) for name, v in times.items()}
    if args.json:
        print(json.dumps(result, indent=2))
        return
    for name, (lo, med, hi) in result.items():
        print(f"{name:24} {lo:9.2f} / {med:9.2f} / {hi:9.2f}")


if __name__ == "__main__":
    main()
