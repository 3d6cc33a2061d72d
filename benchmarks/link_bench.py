"""Card path benchmark: simulator frame write -> driver event, against a bare pty floor.

Run: .venv/bin/python benchmarks/link_bench.py [--cards N] [--idle-seconds S] [--json]

Three figures, measured in one run:
* latency from the device process writing a card frame to the host driver handing
  the CardDrawn event to the consumer thread (p50, p99), beside the floor: the same
  device process writing the same number of bytes to the same kind of
  pseudo-terminal, read by a bare pyserial port in the same way (select + read);
* host CPU time (all threads) per card with cards sent flat out;
* host CPU share of a connected, idle link (heartbeats only).
The device side runs in its own process, as the firmware simulator does, so the
two sides do not share a GIL.
"""

from __future__ import annotations

import argparse
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
from pathlib import Path

import serial

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from drivers import messages as m  # noqa: E402
from drivers.device import ShoeDriver  # noqa: E402
from drivers.transport import SerialTransport  # noqa: E402
from firmware_sim.endpoint import DeviceEndpoint, Identity  # noqa: E402

KEY = bytes(range(32))
IDENT = Identity(m.DeviceKind.SHOE, "BENCH-SHOE", "B-1", "1.0")
CARD_FRAME_LEN = 17 + 4 + 3


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


# ----------------------------------------------------------------- device process


def device_main(link: str, mode: str, count: int, gap_us: int, out: str) -> None:
    master, slave = os.openpty()
    tty.setraw(slave)
    tmp = link + ".tmp"
    os.symlink(os.ttyname(slave), tmp)
    os.replace(tmp, link)
    stamps: dict[int, int] = {}
    pending_stamp: list[int] = []

    def write(data: bytes) -> None:
        if pending_stamp and data[6] == m.MsgType.CARD_DRAWN:
            stamps.setdefault(pending_stamp.pop(), time.monotonic_ns())
        os.write(master, data)

    if mode == "floor":
        # Wait for the reader to say it is ready, then write timestamped chunks.
        select.select([master], [], [])
        os.read(master, 64)
        for _ in range(count):
            now = time.monotonic_ns()
            os.write(master, now.to_bytes(8, "big") + bytes(CARD_FRAME_LEN - 8))
            time.sleep(gap_us / 1e6)
        select.select([master], [], [], 5)
        return

    ep = DeviceEndpoint(IDENT, KEY, write, lambda t, p: None)
    idle_until = time.monotonic() + gap_us / 1e6  # idle mode: stay connected this long
    sent = 0
    next_send = 0.0
    started = None
    while True:
        now = time.monotonic()
        can_send = ep.established and sent < count and len(ep.backlog) < 8
        if can_send and (mode in ("flat", "idle") or now >= next_send):
            pending_stamp.append(ep.next_event_id)
            ep.emit(m.MsgType.CARD_DRAWN, m.card_body("A", "S", False))
            sent += 1
            next_send = now + gap_us / 1e6
            started = started or now
            continue
        if sent >= count and not ep.backlog and (mode != "idle" or now >= idle_until):
            break
        deadline = ep.link.next_deadline()
        if ep.established and sent < count and mode != "idle":
            deadline = min(deadline, next_send if mode != "flat" else now + 0.001)
        ready, _, _ = select.select([master], [], [], max(0.0, deadline - time.monotonic()))
        if ready:
            ep.receive(os.read(master, 4096))
        ep.poll()
    Path(out).write_text(json.dumps({str(k): v for k, v in stamps.items()}))


def spawn_device(
    link: str, mode: str, count: int, gap_us: int, out: str
) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [sys.executable, __file__, "--device", link, mode, str(count), str(gap_us), out]
    )
    deadline = time.monotonic() + 10
    while not os.path.exists(link):
        if time.monotonic() > deadline or proc.poll() is not None:
            raise SystemExit("benchmark device did not start")
        time.sleep(0.01)
    return proc


# ----------------------------------------------------------------- host side


def floor_latencies(tmp: str, count: int, gap_us: int) -> list[float]:
    link = f"{tmp}/floor"
    proc = spawn_device(link, "floor", count, gap_us, f"{tmp}/floor.json")
    port = serial.serial_for_url(link, timeout=0, exclusive=True)
    fd = port.fileno()
    port.write(b"go")
    out: list[float] = []
    buf = bytearray()
    while len(out) < count:
        select.select([fd], [], [], 5)
        data = port.read(4096)
        got = time.monotonic_ns()
        buf += data
        while len(buf) >= CARD_FRAME_LEN:
            sent = int.from_bytes(buf[:8], "big")
            del buf[:CARD_FRAME_LEN]
            out.append((got - sent) / 1e3)
    port.write(b"done")
    port.close()
    proc.wait(10)
    return out


def driver_run(
    tmp: str, name: str, mode: str, count: int, gap_us: int
) -> tuple[list[float], float, ShoeDriver, subprocess.Popen[bytes]]:
    link = f"{tmp}/{name}"
    stamps_file = f"{tmp}/{name}.json"
    q: queue.SimpleQueue[m.Event] = queue.SimpleQueue()
    proc = spawn_device(link, mode, count, gap_us, stamps_file)
    drv = ShoeDriver(name, lambda: SerialTransport(link), KEY, q, [IDENT.firmware_hash])
    delivered: dict[int, int] = {}
    cpu0 = 0.0

    def consume() -> None:
        while len(delivered) < count:
            event = q.get()
            if isinstance(event, m.CardDrawn) and event.event_id is not None:
                delivered[event.event_id] = time.monotonic_ns()
                drv.commit(event.event_id)

    consumer = threading.Thread(target=consume, daemon=True)
    cpu0 = time.process_time()
    drv.start()
    consumer.start()
    consumer.join(120)
    cpu = time.process_time() - cpu0
    proc.wait(30)
    stamps = {int(k): v for k, v in json.loads(Path(stamps_file).read_text()).items()}
    lat = [(delivered[i] - stamps[i]) / 1e3 for i in stamps if i in delivered]
    return lat, cpu, drv, proc


def idle_share(tmp: str, seconds: float) -> float:
    link = f"{tmp}/idle"
    q: queue.SimpleQueue[m.Event] = queue.SimpleQueue()
    proc = spawn_device(link, "idle", 1, int((seconds + 3) * 1e6), f"{tmp}/idle.json")
    drv = ShoeDriver("idle", lambda: SerialTransport(link), KEY, q, [IDENT.firmware_hash])
    drv.start()
    card = None
    while card is None:
        event = q.get(timeout=10)
        if isinstance(event, m.CardDrawn):
            card = event
    drv.commit(card.event_id or 0)
    time.sleep(0.5)
    c0, w0 = time.process_time(), time.monotonic()
    time.sleep(seconds)
    share = (time.process_time() - c0) / (time.monotonic() - w0)
    drv.stop()
    proc.wait(10)
    return share


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--device":
        link, mode, count, gap, out = sys.argv[2:7]
        device_main(link, mode, int(count), int(gap), out)
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cards", type=int, default=5000)
    ap.add_argument("--gap-us", type=int, default=500, help="pause between cards for latency")
    ap.add_argument("--idle-seconds", type=float, default=10.0)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        floor = floor_latencies(tmp, args.cards, args.gap_us)
        lat, _, drv, _ = driver_run(tmp, "paced", "paced", args.cards, args.gap_us)
        drv.stop()
        _, cpu, drv, _ = driver_run(tmp, "flat", "flat", args.cards, 0)
        drv.stop()
        idle = idle_share(tmp, args.idle_seconds)
    result = {
        "cards": args.cards,
        "floor_p50_us": statistics.median(floor),
        "floor_p99_us": pct(floor, 0.99),
        "card_p50_us": statistics.median(lat),
        "card_p99_us": pct(lat, 0.99),
        "p99_ratio_to_floor": pct(lat, 0.99) / pct(floor, 0.99),
        "cpu_us_per_card": cpu / args.cards * 1e6,
        "idle_cpu_percent": idle * 100,
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"cards per run: {args.cards}, paced every {args.gap_us} us for latency")
    print("| measure | value | target |")
    print("|---|---|---|")
    print(f"| pty floor latency p50 | {result['floor_p50_us']:.0f} us | |")
    print(f"| pty floor latency p99 | {result['floor_p99_us']:.0f} us | |")
    print(f"| card latency p50 | {result['card_p50_us']:.0f} us | |")
    print(f"| card latency p99 | {result['card_p99_us']:.0f} us | < 1000 us |")
    print(f"| card p99 / floor p99 | {result['p99_ratio_to_floor']:.1f}x | < 5x |")
    print(f"| host CPU per card, flat out | {result['cpu_us_per_card']:.0f} us | < 100 us |")
    print(f"| host CPU, idle connected link | {result['idle_cpu_percent']:.2f} % | < 1 % |")


if __name__ == "__main__":
    main()
