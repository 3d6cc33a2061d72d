"""Card path benchmark: the firmware simulator writes a card frame -> the driver hands
the CardDrawn event to the consumer, beside a bare pyserial pseudo-terminal floor.

Run: make bench   (or .venv/bin/python benchmarks/link_bench.py [--cards N] [--json]
[--flat-only: only the host's and the simulator's CPU per card, dealt flat out])

Measured in one run, on this machine:
* floor: a separate process writes a frame-sized chunk (stamped with its monotonic
  time) to a pty master; the main process reads it from the slave with a bare
  pyserial port (select, then read). p50 and p99 of write -> read;
* card latency: `firmware-sim shoe --pace realistic --pace-ms 1` records when it
  writes each card frame (--trace-writes); the host's ShoeDriver reads, authenticates
  and decodes it and delivers a CardDrawn onto the event queue (time noted as it is
  put); a consumer thread takes it (time noted again) and commits it. p50 and p99 of
  write -> delivered, and of write -> taken by the consumer;
* host CPU per card: all host threads' CPU time while the simulator deals flat out
  (--pace instant), divided by the cards; the simulator's own CPU time beside it;
  with --prompts N (--flat-only), the consumer shows N prompts on the shoe's display
  for each card before it commits it, as the table does, corked (one write a card,
  DeviceDriver.cork) where the tree has it unless --no-cork, the simulator dealing
  a card every --deal-pace-ms (flat out it outruns its own reading of the prompts);
  the simulator's wake-ups (times scheduled in) per card beside;
* idle: host CPU share of a connected link with no cards (heartbeats only), and the
  simulator's own share, over --idle-seconds.
Both clocks are CLOCK_MONOTONIC, shared by all processes on the machine.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import queue
import select
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import tty
from dataclasses import dataclass
from pathlib import Path

import serial

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from drivers import messages as m  # noqa: E402
from drivers.device import DeviceDriver  # noqa: E402
from firmware_sim.harness import SimProcess  # noqa: E402


def logs_to_stderr() -> None:
    """The drivers' log lines (structlog's default: stdout) go to stderr, so that
    stdout holds the figures alone (``--json``)."""
    from drivers.logs import structlog

    structlog.configure(logger_factory=structlog.PrintLoggerFactory(sys.stderr))


try:
    from drivers.device import corked
except ImportError:  # a tree from before the cork: every frame its own write
    corked = None  # type: ignore[assignment]

KEY = bytes(range(32))
CARD_FRAME_LEN = 17 + 4 + 3  # a CARD_DRAWN frame


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# ----------------------------------------------------------------- floor


def floor_writer(link: str, count: int, gap_us: int) -> None:
    master, slave = os.openpty()
    tty.setraw(slave)
    os.symlink(os.ttyname(slave), link + ".tmp")
    os.replace(link + ".tmp", link)
    select.select([master], [], [])  # the reader says it is ready
    os.read(master, 64)
    for _ in range(count):
        os.write(master, time.monotonic_ns().to_bytes(8, "big") + bytes(CARD_FRAME_LEN - 8))
        time.sleep(gap_us / 1e6)
    select.select([master], [], [], 5)


def floor_latencies(tmp: str, count: int, gap_us: int) -> list[float]:
    link = f"{tmp}/floor"
    argv = [sys.executable, __file__, "--floor-writer", link, str(count), str(gap_us)]
    proc = subprocess.Popen(argv)
    while not os.path.exists(link):
        if proc.poll() is not None:
            raise SystemExit("floor writer did not start")
        time.sleep(0.01)
    port = serial.serial_for_url(link, timeout=0, exclusive=True)
    port.write(b"go")
    out: list[float] = []
    buf = bytearray()
    while len(out) < count:
        select.select([port.fileno()], [], [], 5)
        data = port.read(4096)
        got = time.monotonic_ns()
        buf += data
        while len(buf) >= CARD_FRAME_LEN:
            out.append((got - int.from_bytes(buf[:8], "big")) / 1e3)
            del buf[:CARD_FRAME_LEN]
    port.write(b"done")
    port.close()
    proc.wait(10)
    return out


# ----------------------------------------------------------------- card path


class StampingQueue(queue.SimpleQueue[m.Event]):
    """The event queue, noting when the driver delivers each card."""

    def __init__(self) -> None:
        self.delivered: dict[int, int] = {}

    def put(self, item: m.Event, block: bool = True, timeout: float | None = None) -> None:
        if isinstance(item, m.CardDrawn) and item.event_id is not None:
            self.delivered[item.event_id] = time.monotonic_ns()
        super().put(item, block, timeout)


def sim_sched(sim: SimProcess) -> tuple[float, int]:
    """(CPU seconds, times scheduled in) of a single-threaded simulator's process."""
    assert sim.process is not None
    fields = Path(f"/proc/{sim.process.pid}/schedstat").read_text().split()
    return int(fields[0]) / 1e9, int(fields[2])


@dataclass
class Dealt:
    written: dict[int, int]  # event id -> ns of its frame's first write
    delivered: dict[int, int]  # ... -> ns of the CardDrawn put on the queue
    taken: dict[int, int]  # ... -> ns of the consumer's take
    host_cpu: float  # seconds, all threads of this process
    sim_cpu: float  # seconds, the simulator's process, from the driver's start
    sim_runs: int = 0  # times the simulator was scheduled in, likewise


PROMPTS = ("PLAYER DRAWS", "BANKER DRAWS", "BANKER WINS 7-5", "NO MORE BETS")


def deal(
    tmp: Path, name: str, cards: int, pace: list[str], prompts: int = 0, cork: bool = True
) -> Dealt:
    """Deal ``cards`` cards through a bare ShoeDriver and a consumer that shows
    ``prompts`` prompts for each (corked, with ``cork``, where the tree can) and commits."""
    trace = tmp / f"{name}.trace"
    decks = min(64, -(-cards // 52))
    sim = SimProcess(
        "shoe",
        tmp,
        KEY,
        ["--decks", str(decks), "--seed", "1", *pace, "--trace-writes", str(trace)],
        name=name,
    ).start()
    cards = min(cards, decks * 52)
    events = StampingQueue()
    drv: DeviceDriver = sim.driver(events)
    taken: dict[int, int] = {}
    done = threading.Event()
    shown = (PROMPTS * prompts)[:prompts]
    display = drv.display  # type: ignore[attr-defined]  # a shoe's driver

    def around() -> contextlib.AbstractContextManager[None]:
        return corked([drv]) if cork and corked is not None else contextlib.nullcontext()

    def consume() -> None:
        while len(taken) < cards:
            event = events.get()
            if isinstance(event, m.CardDrawn) and event.event_id is not None:
                taken[event.event_id] = time.monotonic_ns()
                with around():
                    for text in shown:
                        display(text)
                    drv.commit(event.event_id)
        done.set()

    threading.Thread(target=consume, daemon=True).start()
    cpu0, (sim0, runs0) = time.process_time(), sim_sched(sim)
    drv.start()
    if not done.wait(300):
        raise SystemExit(f"{name}: only {len(taken)} of {cards} cards arrived")
    cpu, (sim_cpu, runs) = time.process_time() - cpu0, sim_sched(sim)
    sim_cpu, runs = sim_cpu - sim0, runs - runs0
    drv.stop()
    sim.stop()
    written = {}
    for line in trace.read_text().splitlines():
        event_id, ns = line.split()
        written[int(event_id)] = int(ns)
    return Dealt(written, events.delivered, taken, cpu, sim_cpu, runs)


def idle_shares(tmp: Path, seconds: float) -> tuple[float, float]:
    sim = SimProcess("shoe", tmp, KEY, ["--decks", "1", "--pace", "manual"], name="idle").start()
    events: queue.SimpleQueue[m.Event] = queue.SimpleQueue()
    drv = sim.driver(events)
    drv.start()
    if not drv.connected.wait(10):
        raise SystemExit("idle: the simulator did not connect")
    time.sleep(1.0)
    pid = sim.process.pid if sim.process else 0
    c0, s0, w0 = time.process_time(), cpu_seconds(pid), time.monotonic()
    time.sleep(seconds)
    wall = time.monotonic() - w0
    host, simulated = (time.process_time() - c0) / wall, (cpu_seconds(pid) - s0) / wall
    drv.stop()
    sim.stop()
    return host, simulated


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--floor-writer":
        floor_writer(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
        return
    logs_to_stderr()
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cards", type=int, default=3000, help="cards per measurement (max 3328)")
    ap.add_argument("--rounds", type=int, default=5, help="alternating floor/card rounds")
    ap.add_argument("--idle-seconds", type=float, default=10.0)
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument("--flat-only", action="store_true", help="only the flat-out deal's CPU")
    ap.add_argument("--prompts", type=int, default=0, help="flat: prompts shown a card")
    ap.add_argument("--no-cork", action="store_true", help="flat: each frame its own write")
    ap.add_argument("--deal-pace-ms", type=int, default=0, help="flat: a card every N ms")
    args = ap.parse_args()
    if args.flat_only:
        with tempfile.TemporaryDirectory() as tmpdir:
            pace = ["--pace", "instant"]
            if args.deal_pace_ms:  # the simulator flat out outruns its own reading of prompts
                pace = ["--pace", "realistic", "--pace-ms", str(args.deal_pace_ms)]
            flat = deal(Path(tmpdir), "flat", args.cards, pace, args.prompts, not args.no_cork)
        n = len(flat.taken)
        print(
            json.dumps(
                {
                    "host_cpu_us_per_card": round(flat.host_cpu / n * 1e6, 1),
                    "sim_cpu_us_per_card": round(flat.sim_cpu / n * 1e6, 1),
                    "sim_wakeups_per_card": round(flat.sim_runs / n, 2),
                    "corked": corked is not None and not args.no_cork,
                }
            )
        )
        return
    result = measure(args)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    report(result, args.rounds)


def measure(args: argparse.Namespace) -> dict[str, float]:
    """Floor and card path in alternating rounds, a flat-out deal, an idle link."""
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        # Alternating rounds, so that both see the same machine.
        floor: list[float] = []
        lat: list[float] = []
        lat_taken: list[float] = []
        per_round = max(1, args.cards // args.rounds)
        paced = ["--pace", "realistic", "--pace-ms", "1"]
        for n in range(args.rounds):
            floor += floor_latencies(tmpdir, per_round, 1000)
            d = deal(tmp, f"paced{n}", per_round, paced)
            lat += [(d.delivered[i] - d.written[i]) / 1e3 for i in d.taken]
            lat_taken += [(d.taken[i] - d.written[i]) / 1e3 for i in d.taken]
        flat = deal(tmp, "flat", args.cards, ["--pace", "instant"])
        idle_host, idle_sim = idle_shares(tmp, args.idle_seconds)
    return {
        "cards": len(lat),
        "floor_p50_us": round(statistics.median(floor), 1),
        "floor_p99_us": round(pct(floor, 0.99), 1),
        "card_p50_us": round(statistics.median(lat), 1),
        "card_p99_us": round(pct(lat, 0.99), 1),
        "card_p99_over_floor_p99": round(pct(lat, 0.99) / pct(floor, 0.99), 2),
        "taken_p50_us": round(statistics.median(lat_taken), 1),
        "taken_p99_us": round(pct(lat_taken, 0.99), 1),
        "host_cpu_us_per_card": round(flat.host_cpu / len(flat.taken) * 1e6, 1),
        "sim_cpu_us_per_card": round(flat.sim_cpu / len(flat.taken) * 1e6, 1),
        "host_idle_cpu_percent": round(idle_host * 100, 3),
        "sim_idle_cpu_percent": round(idle_sim * 100, 3),
    }


def report(r: dict[str, float], rounds: int) -> None:
    print(
        f"{r['cards']} cards per measurement, one every ~1 ms for latency, "
        f"in {rounds} alternating floor/card rounds"
    )
    print("| measure | value | target |")
    print("|---|---|---|")
    print(f"| pty floor, write -> pyserial read, p50 | {r['floor_p50_us']} us | |")
    print(f"| pty floor, write -> pyserial read, p99 | {r['floor_p99_us']} us | |")
    print(f"| card frame written -> CardDrawn delivered, p50 | {r['card_p50_us']} us | |")
    print(f"| card frame written -> CardDrawn delivered, p99 | {r['card_p99_us']} us | < 1000 us |")
    print(f"| delivered p99 / floor p99 | {r['card_p99_over_floor_p99']}x | < 5x |")
    print(f"| card frame written -> taken by consumer, p50 | {r['taken_p50_us']} us | |")
    print(f"| card frame written -> taken by consumer, p99 | {r['taken_p99_us']} us | |")
    print(f"| host CPU per card, dealt flat out | {r['host_cpu_us_per_card']} us | < 100 us |")
    print(f"| simulator CPU per card, dealt flat out | {r['sim_cpu_us_per_card']} us | |")
    print(f"| host CPU, connected idle link | {r['host_idle_cpu_percent']} % | < 1 % |")
    print(f"| simulator CPU, connected idle link | {r['sim_idle_cpu_percent']} % | |")


if __name__ == "__main__":
    main()
