"""The console commands' command line: ``tablectl status``, ``events`` and ``send``."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import Any, Final, TextIO

from controller.client.connection import DEFAULT_RUNTIME_DIR, RUNTIME_DIR_ENV, ClientError
from controller.client.events import DEFAULT_LISTEN, events
from controller.client.send import DEFAULT_RESULT_TIMEOUT, send
from controller.client.status import status
from controller.errors import EXIT_OK, fail


def _add_runtime_dir(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--runtime-dir",
        metavar="DIR",
        help=f"the daemon's sockets (default: ${RUNTIME_DIR_ENV}, else {DEFAULT_RUNTIME_DIR}; "
        "a simulated table's --workdir)",
    )


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be more than 0 seconds, not {text}")
    return value


def add_parsers(subparsers: argparse._SubParsersAction[Any]) -> None:
    st = subparsers.add_parser(
        "status",
        help="the running table's state, shoe and round, and its devices' health",
        description="Ask the daemon (events.sock) for the table's state, shoe and round, "
        "and each device's health.",
    )
    _add_runtime_dir(st)
    st.add_argument("--json", action="store_true", help="one JSON object")

    ev = subparsers.add_parser(
        "events",
        help="the table's journal entries, one line each",
        description="Print the table's events, one line each, from events.sock. The API "
        "does not replay history: --journal FILE prints the journal's entries first "
        "(read-only). Without --follow, the live stream is read for --seconds "
        f"(default {DEFAULT_LISTEN:g}, or none after --journal).",
    )
    _add_runtime_dir(ev)
    ev.add_argument("--json", action="store_true", help="each line as the API's JSON message")
    ev.add_argument("--journal", metavar="FILE", help="print this journal's entries first")
    how_long = ev.add_mutually_exclusive_group()
    how_long.add_argument("--follow", "-f", action="store_true", help="stream until Ctrl-C")
    how_long.add_argument("--seconds", type=_seconds, metavar="S", help="stream for S seconds")

    se = subparsers.add_parser(
        "send",
        help="send a console command and print the table's result",
        description="Send a command to dealer.sock (floor.sock with --floor), wait for the "
        "table's result and print it. Fields as key=value (typed by the command's "
        "fields as the daemon lists them) or as one --json object. Exit 0 done, 3 "
        "refused by the table, 2 bad input, 1 the daemon not reachable.",
    )
    _add_runtime_dir(se)
    se.add_argument("--floor", action="store_true", help="a floorperson's command (floor.sock)")
    se.add_argument("--json", metavar="OBJECT", help="the fields as one JSON object")
    se.add_argument(
        "--json-out", action="store_true", help="print the result as the API's JSON message"
    )
    se.add_argument(
        "--timeout",
        type=_seconds,
        default=DEFAULT_RESULT_TIMEOUT,
        metavar="S",
        help=f"how long to wait for the result (default {DEFAULT_RESULT_TIMEOUT:g})",
    )
    se.add_argument("name", help="the command, e.g. wager (docs/api.md lists them)")
    se.add_argument("fields", nargs="*", metavar="key=value", help="the command's fields")


COMMANDS: Final[dict[str, Callable[[argparse.Namespace, TextIO], int]]] = {
    "status": status,
    "events": events,
    "send": send,
}


def run(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Run ``status``, ``events`` or ``send``; the exit code, every failure one line."""
    stream = out or sys.stdout
    try:
        return COMMANDS[args.command](args, stream)
    except ClientError as exc:
        return fail(str(exc), exc.status)
    except BrokenPipeError:
        # The reader (``| head``) is gone: nothing more to say, and nowhere to say it.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK
