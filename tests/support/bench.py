"""``tablectl bench`` run in the test's process on a scenario, and the lines it wrote."""

from __future__ import annotations

import argparse
import json
from collections.abc import Collection
from pathlib import Path
from typing import Any

import pytest

from controller.bench import add_parser, run
from tests.support.paths import EXAMPLES

FAULTS = [
    {"kind": "corrupt", "rate": 0.02},
    {"kind": "drop", "rate": 0.02},
    {"kind": "duplicate", "rate": 0.02},
    {"kind": "unplug", "device": "shoe", "at_card": 100, "duration_ms": 300},
]


def bench(scenario: Path, out: Path) -> int:
    parser = argparse.ArgumentParser(prog="tablectl")
    add_parser(parser.add_subparsers())
    return run(parser.parse_args(["bench", str(scenario), "--events", str(out)]))


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def example(name: str) -> dict[str, Any]:
    """The example scenario ``name`` (tests/spec/examples) as data, to change."""
    scenario: dict[str, Any] = json.loads((EXAMPLES / f"{name}.json").read_text())
    return scenario


def expected(name: str) -> list[dict[str, Any]]:
    out = lines(EXAMPLES / f"{name}.expected.jsonl")
    for entry in out:
        entry.pop("note", None)
    return out


def contract(got: list[dict[str, Any]], want: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The round_end and shoe_end lines, cut to the fields the contract names."""
    ends = [e for e in got if e["type"] in ("round_end", "shoe_end")]
    assert len(ends) == len(want)
    return [{k: e.get(k, "<missing>") for k in w} for e, w in zip(ends, want, strict=True)]


def assert_clean_run(events: list[dict[str, Any]]) -> None:
    kinds = {e["type"] for e in events}
    assert not kinds & {"refused", "internal_error", "irregularity"}
    assert events[0]["type"] == "bench_start" and events[-1]["type"] == "bench_end"
    assert events[-1]["rounds_per_second"] > 0


def write(tmp_path: Path, scenario: object) -> Path:
    """The scenario as a file: a string as it is (bad JSON too), anything else as JSON."""
    path = tmp_path / "scenario.json"
    path.write_text(scenario if isinstance(scenario, str) else json.dumps(scenario))
    return path


def play(tmp_path: Path, scenario: dict[str, Any], never: Collection[str]) -> list[dict[str, Any]]:
    """The lines of a bench run of ``scenario`` that exits 0, with no line of a type in
    ``never`` and ``bench_end`` the last."""
    out = tmp_path / "events.jsonl"
    assert bench(write(tmp_path, scenario), out) == 0
    events = lines(out)
    assert not {e["type"] for e in events} & set(never)
    assert events[-1]["type"] == "bench_end"
    return events


def of(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == kind]


def refusal(tmp_path: Path, scenario: object, capsys: pytest.CaptureFixture[str]) -> str:
    """The one line of a bench run that refuses ``scenario``: exit 2, the line names the
    scenario's file, and no events file is written (nothing started)."""
    path = write(tmp_path, scenario)
    out = tmp_path / "events.jsonl"
    assert bench(path, out) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"tablectl: error: {path}: "), line
    assert not out.exists()
    return line
