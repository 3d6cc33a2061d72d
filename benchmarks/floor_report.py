"""The figures of benchmarks/floor_bench.py: one run's ``Result``, the lags, rows lost
and duplicates from the floor's receipts and the writer's commit times, and the
markdown table."""

from __future__ import annotations

import statistics
from dataclasses import dataclass


@dataclass
class Result:
    tables: int
    mode: str
    committed: int
    received: int  # journal messages the floor got, duplicates included
    lost: int  # committed rows the floor never handed on
    duplicates: int  # rows received again, dropped by the follower (by seq)
    passed: int  # rows handed on more than once (the follower's dedup failing): 0
    gaps: int  # gaps the follower saw
    seconds: float  # go -> the floor's last row (the meter's time)
    lags: list[float]  # seconds, commit -> receipt, one per row received first
    uplink_cpu: list[float]  # CPU seconds of each uplink over ``seconds``
    broker_cpu: float  # the floor's broker
    pits_cpu: list[float]  # each pit's broker, bridged into it (none: one broker)
    broker_rss: float  # MiB, peak
    writer_cpu: float
    floor_cpu: float
    others: float  # CPU seconds of every other process on the machine meanwhile
    cores: int
    load: str  # /proc/loadavg before the run
    failures: list[str]  # uplinks that exited or logged a traceback


def lag_of(receipts: list[tuple[str, int, float]], commits: dict[str, list[float]],
           tables: list[str]) -> tuple[list[float], int, int]:  # fmt: skip
    """Lags of first receipts, rows lost, duplicates."""
    index = {t: str(i) for i, t in enumerate(tables)}
    seen: set[tuple[str, int]] = set()
    lags, duplicates = [], 0
    for table, seq, at in receipts:
        if (table, seq) in seen:
            duplicates += 1
            continue
        seen.add((table, seq))
        lags.append(at - commits[index[table]][seq - 1])
    committed = sum(len(c) for c in commits.values())
    lost = committed - len(seen)
    return lags, lost, duplicates


def percentile(values: list[float], q: float) -> float:
    if len(values) < 2:
        return values[0] if values else float("nan")
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]


HEADER = (
    "| N | mode | rows | msgs/s | lag p50 | lag p99 | uplink CPU per table | broker CPU "
    "| broker RSS | writer CPU | floor CPU | others' CPU | lost | dup | gaps |\n"
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
)


def row(r: Result) -> str:
    per = statistics.mean(r.uplink_cpu)
    core = lambda cpu: f"{100 * cpu / r.seconds:.1f} %"  # noqa: E731
    pits = f" + {len(r.pits_cpu)} pits {core(sum(r.pits_cpu))}" if r.pits_cpu else ""
    return (
        f"| {r.tables} | {r.mode} | {r.committed} | {r.received / r.seconds:.0f} "
        f"| {1000 * percentile(r.lags, 50):.0f} ms | {1000 * percentile(r.lags, 99):.0f} ms "
        f"| {per:.2f} s = {core(per)} | {core(r.broker_cpu)}{pits} | {r.broker_rss:.1f} MiB "
        f"| {core(r.writer_cpu)} | {core(r.floor_cpu)} | {core(r.others)} "
        f"| {r.lost} | {r.duplicates + r.passed} | {r.gaps} |"
    )


def report(results: list[Result], setup: str, command: str) -> str:
    lines = [
        f"Command: `{command}`",
        "",
        f"{setup} CPU as % of one core ({results[0].cores} cores); others': every other "
        "process on the machine meanwhile.",
        "",
        HEADER,
        *[row(r) for r in results],
        "",
        "Load average before each run: "
        + "; ".join(f"{r.tables} {r.mode}: {r.load}" for r in results),
    ]
    for r in results:
        lines += [f"FAILURE {r.tables} {r.mode}: {f}" for f in r.failures[:10]]
    return "\n".join(lines) + "\n"
