"""``tablectl bench SCENARIO.json --events OUT.jsonl``: the command line of the bench."""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

from controller.bench.loader import load_scenario
from controller.bench.runner import play
from controller.bench.scenario import BenchError, ScenarioError
from controller.errors import (
    EXIT_FAILURE,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    EXPECTED,
    fail,
)
from firmware_sim.harness import SimError


def add_parser(subparsers: argparse._SubParsersAction[Any]) -> argparse.ArgumentParser:
    """Add ``bench`` to the ``tablectl`` subcommands (whatever parser class they use)."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "bench",
        help="play a scenario on simulated devices and write the event stream",
        description="Play SCENARIO.json on the simulated shoe (and shuffler) through the "
        "real drivers and the table state machine; write one JSON object per line.",
    )
    parser.add_argument("scenario", metavar="SCENARIO.json", help="the scenario to play")
    parser.add_argument(
        "--events", required=True, metavar="OUT.jsonl", help="where to write the event stream"
    )
    parser.add_argument(
        "--log-level",
        default="warning",
        choices=["debug", "info", "warning", "error"],
        help="log lines on stderr (the event stream records everything regardless)",
    )
    return parser


def run(args: argparse.Namespace) -> int:
    try:
        scenario = load_scenario(args.scenario)
    except ScenarioError as exc:
        return fail(f"{args.scenario}: {exc}", EXIT_USAGE)
    try:
        out = open(args.events, "w", encoding="utf-8")  # noqa: SIM115 - closed below
    except OSError as exc:
        return fail(f"cannot write {args.events}: {exc.strerror or exc}", EXIT_USAGE)
    try:
        with out, tempfile.TemporaryDirectory(prefix="tablectl-bench-") as tmp:
            rounds, seconds = play(scenario, args.scenario, out, Path(tmp))
    except ScenarioError as exc:
        return fail(f"{args.scenario}: {exc}", EXIT_USAGE)  # the record up to here is kept
    except (BenchError, SimError, *EXPECTED, OSError) as exc:
        return fail(str(exc), EXIT_FAILURE)
    except KeyboardInterrupt:
        return fail("interrupted", EXIT_INTERRUPTED)
    rate = f"{rounds / seconds:.1f}" if seconds > 0 else "-"
    print(f"tablectl bench: {rounds} rounds in {seconds:.2f} s ({rate} rounds/s)", file=sys.stderr)
    return EXIT_OK
