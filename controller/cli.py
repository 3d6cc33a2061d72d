"""The ``tablectl`` command line: ``run`` (the daemon, controller/daemon.py), the
console's ``status``, ``events`` and ``send`` (controller/client.py), ``bench``,
``analyze``, ``journal verify`` and ``journal export``. Exit codes: docs/cli.md."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from typing import NoReturn

import structlog

from controller import analyze, bench, client, daemon, export
from controller.journal import JournalError, verify

EXIT_OK = 0
EXIT_USAGE = 2
EXIT_FAILURE = 1
EXIT_INTERRUPTED = 130


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        # One line, not argparse's usage block: "tablectl: error: ...".
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def configure_logging(level: str = "warning", stream: object = None) -> None:
    """structlog as JSON lines, one event name per line; tracebacks without locals."""
    structlog.configure(
        processors=[
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.dict_tracebacks,
            structlog.processors.JSONRenderer(),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(
            logging.getLevelNamesMapping()[level.upper()]
        ),
        logger_factory=structlog.PrintLoggerFactory(stream or sys.stderr),  # type: ignore[arg-type]
        cache_logger_on_first_use=True,
    )


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="tablectl", description="Dealer-side controller for casino tables.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    run = sub.add_parser(
        "run",
        help="run one table: --config FILE, or simulated devices with an autoplay dealer",
        description="Run one table's daemon. With --config, the devices, journal and API "
        "of the file; without it (or with --simulate), firmware simulators on "
        "pseudo-terminals and an autoplay dealer, players and floorperson.",
    )
    daemon.add_arguments(run, _positive)
    run.add_argument("--log-level", default="warning", choices=["debug", "info", "warning"])
    client.add_parsers(sub)
    analyze.add_parser(sub)
    bench.add_parser(sub)
    journal_cmd = sub.add_parser("journal", help="check or read a table's journal")
    journal_sub = journal_cmd.add_subparsers(dest="journal_command", required=True)
    verify_cmd = journal_sub.add_parser(
        "verify", help="recompute the hash chain: name every edited, removed or moved row"
    )
    verify_cmd.add_argument("file", help="the journal (an SQLite file)")
    export.add_parser(journal_sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    configure_logging(getattr(args, "log_level", "warning"))
    try:
        return _dispatch(parser, args)
    except KeyboardInterrupt:  # ``run`` and ``events`` handle it; elsewhere no traceback
        print("tablectl: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def _dispatch(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    if args.command == "analyze":
        return analyze.run(args)
    if args.command == "bench":
        return bench.run(args)
    if args.command in client.COMMANDS:
        return client.run(args)
    if args.command == "journal":
        if args.journal_command == "export":
            return export.run(args)
        return journal_verify(args.file)
    if args.command == "run":
        try:
            run_options = daemon.options(args)
        except daemon.UsageError as exc:
            parser.error(str(exc))
        return daemon.run(run_options, sys.stdout)
    return EXIT_USAGE


def journal_verify(path: str) -> int:
    """Exit 0 when the chain is whole, 1 with one line per problem, 2 when unreadable."""
    try:
        verdict = verify(path)
    except JournalError as exc:
        print(f"tablectl: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    for problem in verdict.problems:
        print(f"{path}: {problem}")
    if verdict.problems:
        return EXIT_FAILURE
    print(f"{path}: {verdict.rows} rows, chain intact")
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
