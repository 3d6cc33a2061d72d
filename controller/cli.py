"""The ``tablectl`` command line: ``run`` (the daemon, controller/daemon/), the
console's ``status``, ``events`` and ``send`` (controller/client.py), ``bench``
(controller/bench/), ``analyze``, ``journal verify`` and ``journal export``, the pages'
``web`` (controller/web/), ``uplink`` (controller/uplink/), the floor's ``floor``
(controller/floor/), and the technician's ``keygen``, ``device info`` and ``config
check`` (controller/technician/).
Exit codes: docs/cli.md.

A command's module is imported only when that command is given, so ``tablectl run
--config FILE`` loads neither the bench nor the simulators, and ``run --simulate`` and
``bench`` load them only then. A command line that names no command (``--help``, a
mistake) builds every command's parser, to list them all.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn, TypeAlias

from controller.errors import EXIT_FAILURE, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE
from controller.logformat import configure_logging  # structlog without rich (drivers/logs.py)
from controller.version import VersionAction

Subparsers: TypeAlias = "argparse._SubParsersAction[Any]"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        # One line, not argparse's usage block: "tablectl: error: ...".
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def _run_parser(sub: Subparsers) -> None:
    from controller.daemon import arguments

    run = sub.add_parser(
        "run",
        help="run one table: --config FILE, or simulated devices with an autoplay dealer",
        description="Run one table's daemon. With --config, the devices, journal and API "
        "of the file; without it (or with --simulate), firmware simulators on "
        "pseudo-terminals and an autoplay dealer, players and floorperson; with "
        "--simulate --manual, the same devices played by hand through the API's sockets "
        "(docs/manual.md).",
    )
    arguments.add_arguments(run, _positive)
    run.add_argument("--log-level", default="warning", choices=["debug", "info", "warning"])


def _run(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    from controller import logformat
    from controller.daemon import arguments
    from controller.daemon import main as daemon

    logformat.catch_uncaught()  # the daemon's stderr holds its log lines alone
    try:
        options = arguments.options(args)
    except arguments.UsageError as exc:
        parser.error(str(exc))
    if options.config is not None:
        return daemon.run(options, sys.stdout)
    # Only a simulated table loads the bench and the simulators, whose module checks
    # the shuffle model's text (the daemon's own arguments never import a simulator).
    from controller.bench.simulated import SimulatedTable
    from firmware_sim.shuffle_models import parse_model

    try:
        parse_model(options.shuffle_model)
    except ValueError as exc:
        parser.error(f"argument --shuffle-model: {exc}")
    simulated = SimulatedTable(
        options.game,
        options.seed,
        options.workdir,
        manual=options.manual,
        shuffle_model=options.shuffle_model,
    )
    if options.web is not None:
        from controller.bench.webconsoles import WebConsoles

        simulated.web = WebConsoles(options.web, manual=options.manual)
    return daemon.run(options, sys.stdout, simulated)


def _client_parsers(sub: Subparsers) -> None:
    from controller import client

    client.add_parsers(sub)


def _client(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    from controller import client

    return client.run(args)


def _analyze_parser(sub: Subparsers) -> None:
    from controller import analyze

    analyze.add_parser(sub)


def _analyze(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    from controller import analyze

    return analyze.run(args)


def _bench_parser(sub: Subparsers) -> None:
    from controller import bench

    bench.add_parser(sub)


def _bench(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    from controller import bench

    return bench.run(args)


def _journal_parsers(sub: Subparsers) -> None:
    from controller import export

    journal_cmd = sub.add_parser("journal", help="check or read a table's journal")
    journal_sub = journal_cmd.add_subparsers(dest="journal_command", required=True)
    verify_cmd = journal_sub.add_parser(
        "verify", help="recompute the hash chain: name every edited, removed or moved row"
    )
    verify_cmd.add_argument("file", help="the journal (an SQLite file)")
    export.add_parser(journal_sub)


def _journal(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    if args.journal_command == "export":
        from controller import export

        return export.run(args)
    return journal_verify(args.file)


def _shuffle_report_parser(sub: Subparsers) -> None:
    from controller import shuffle_report

    shuffle_report.add_parser(sub)


def _shuffle_report(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    from controller import shuffle_report

    return shuffle_report.run(args)


def _web_parser(sub: Subparsers) -> None:
    from controller.web import cli as web

    web.add_parser(sub)


def _web(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    from controller.web import cli as web

    return web.run(args)


def _floor_parser(sub: Subparsers) -> None:
    from controller.floor import cli as floor

    floor.add_parser(sub)


def _floor(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    from controller.floor import cli as floor

    return floor.run(args)


def _uplink_parser(sub: Subparsers) -> None:
    from controller.uplink import cli as uplink

    uplink.add_parser(sub)


def _uplink(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    from controller.uplink import cli as uplink

    return uplink.run(args)


def _technician_parsers(sub: Subparsers) -> None:
    from controller import technician

    technician.add_parsers(sub)


def _technician(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    from controller import technician

    return technician.run(args)


Adder: TypeAlias = Callable[[Subparsers], None]
Runner: TypeAlias = Callable[[argparse.ArgumentParser, argparse.Namespace], int]

# Each command: what adds its parser and what runs it, in the order ``--help`` lists
# them; a command's module is imported by these alone.
_COMMANDS: dict[str, tuple[Adder, Runner]] = {
    "run": (_run_parser, _run),
    "status": (_client_parsers, _client),
    "events": (_client_parsers, _client),
    "send": (_client_parsers, _client),
    "analyze": (_analyze_parser, _analyze),
    "bench": (_bench_parser, _bench),
    "journal": (_journal_parsers, _journal),
    "shuffle-report": (_shuffle_report_parser, _shuffle_report),
    "web": (_web_parser, _web),
    "uplink": (_uplink_parser, _uplink),
    "floor": (_floor_parser, _floor),
    "keygen": (_technician_parsers, _technician),
    "device": (_technician_parsers, _technician),
    "config": (_technician_parsers, _technician),
}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The ``tablectl`` parser: with a ``command``, that command's alone, importing its
    module and no other; otherwise every command's."""
    parser = _Parser(prog="tablectl", description="Dealer-side controller for casino tables.")
    parser.add_argument("--version", action=VersionAction)
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    if command in _COMMANDS:
        _COMMANDS[command][0](sub)
    else:
        for add in dict.fromkeys(adder for adder, _ in _COMMANDS.values()):
            add(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(words[0] if words else None)
    args = parser.parse_args(words)
    configure_logging(getattr(args, "log_level", "warning"))
    try:
        return _COMMANDS[args.command][1](parser, args)
    except KeyboardInterrupt:  # ``run`` and ``events`` handle it; elsewhere no traceback
        print("tablectl: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def journal_verify(path: str) -> int:
    """Exit 0 when the chain is whole, 1 with one line per problem, 2 when unreadable."""
    from controller.journal import JournalError, verify

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
