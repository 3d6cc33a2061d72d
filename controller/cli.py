"""The ``tablectl`` command line.

Until the table state machine and daemon exist, ``tablectl run --simulate`` starts the
firmware simulators on pseudo-terminals, connects the real drivers to them (the
reader through pyusb) and shows the devices and the cards as they are read.
"""

from __future__ import annotations

import argparse
import logging
import queue
import secrets
import signal
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn

import structlog

from controller import analyze, bench
from controller.journal import JournalError, verify
from controller.view import LiveView
from drivers import messages as m
from drivers.device import DeviceDriver, ReaderDriver, ShoeDriver, ShufflerDriver
from drivers.errors import TablectlError
from drivers.transport import SerialTransport
from drivers.usb import UsbTransport
from firmware_sim.harness import SimError, SimProcess
from firmware_sim.usb_backend import PRODUCT_ID, VENDOR_ID, SimUsbBackend

EXIT_OK = 0
EXIT_USAGE = 2
EXIT_FAILURE = 1


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
    run = sub.add_parser("run", help="run the controller")
    run.add_argument(
        "--simulate",
        action="store_true",
        help="start the firmware simulators on pseudo-terminals and connect to them",
    )
    run.add_argument("--cards", type=_positive, help="stop after this many cards (default: shoe)")
    run.add_argument("--decks", type=_positive, default=1, help="decks in the simulated shoe")
    run.add_argument("--pace-ms", type=_positive, default=250, help="simulated dealing pace")
    run.add_argument("--seed", type=int, help="seed for the simulated shuffle (default: random)")
    run.add_argument("--log-level", default="warning", choices=["debug", "info", "warning"])
    analyze.add_parser(sub)
    bench.add_parser(sub)
    journal_cmd = sub.add_parser("journal", help="check or read a table's journal")
    journal_sub = journal_cmd.add_subparsers(dest="journal_command", required=True)
    verify_cmd = journal_sub.add_parser(
        "verify", help="recompute the hash chain: name every edited, removed or moved row"
    )
    verify_cmd.add_argument("file", help="the journal (an SQLite file)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    configure_logging(getattr(args, "log_level", "warning"))
    if args.command == "analyze":
        return analyze.run(args)
    if args.command == "bench":
        return bench.run(args)
    if args.command == "journal":
        return journal_verify(args.file)
    if args.command == "run":
        if not args.simulate:
            print(
                "tablectl: error: only --simulate is available until the daemon lands",
                file=sys.stderr,
            )
            return EXIT_USAGE
        try:
            return run_simulated(args)
        except (TablectlError, SimError) as exc:
            print(f"tablectl: error: {exc}", file=sys.stderr)
            return EXIT_FAILURE
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


def run_simulated(args: argparse.Namespace) -> int:
    stop_requested = False

    def on_signal(signum: int, _frame: object) -> None:
        nonlocal stop_requested
        stop_requested = True

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    key = secrets.token_bytes(32)
    events: queue.SimpleQueue[m.Event] = queue.SimpleQueue()
    with tempfile.TemporaryDirectory(prefix="tablectl-sim-") as tmp:
        work = Path(tmp)
        shoe_args = ["--decks", str(args.decks), "--pace", "realistic"]
        shoe_args += ["--pace-ms", str(args.pace_ms)]
        if args.seed is not None:
            shoe_args += ["--seed", str(args.seed)]
        sims = [
            SimProcess("shoe", work, key, shoe_args),
            SimProcess("reader", work, key),
            SimProcess("shuffler", work, key, ["--decks", str(args.decks)]),
        ]
        drivers: list[DeviceDriver] = []
        try:
            for sim in sims:
                sim.start()
            approved = [sim.firmware_hash for sim in sims]
            shoe_path, reader_path, shuffler_path = (str(s.link_path) for s in sims)
            shoe = ShoeDriver("shoe", lambda: SerialTransport(shoe_path), key, events, approved)
            reader = ReaderDriver(
                "reader",
                lambda: UsbTransport(VENDOR_ID, PRODUCT_ID, backend=SimUsbBackend(reader_path)),
                key,
                events,
                approved,
            )
            shuffler = ShufflerDriver(
                "shuffler", lambda: SerialTransport(shuffler_path), key, events, approved
            )
            drivers = [shoe, reader, shuffler]
            for drv in drivers:
                drv.start()
            view = LiveView(sys.stdout, [d.name for d in drivers])
            by_name = {d.name: d for d in drivers}
            return _consume(events, by_name, view, args, lambda: stop_requested)
        finally:
            for drv in drivers:
                drv.stop()
            for sim in sims:
                sim.stop()


def _consume(
    events: queue.SimpleQueue[m.Event],
    drivers: dict[str, DeviceDriver],
    view: LiveView,
    args: argparse.Namespace,
    stopping: Callable[[], bool],
) -> int:
    cards = 0
    view.draw()
    while not stopping():
        try:
            event = events.get(timeout=0.2)
        except queue.Empty:
            continue
        view.apply(event)
        driver = drivers[event.device]
        if isinstance(event, m.DeviceConnected):
            if isinstance(driver, ReaderDriver):
                driver.self_test()
            if isinstance(driver, ShufflerDriver):
                driver.start_shuffle()
        if isinstance(event, m.CardDrawn):
            cards += 1
            shoe = drivers["shoe"]
            if isinstance(shoe, ShoeDriver):
                shoe.display(f"CARD {cards}")
        if event.event_id is not None:
            # No journal yet: the card is shown, then acknowledged to the device.
            driver.commit(event.event_id)
        view.draw()
        if isinstance(event, m.ShoeEmpty) or (args.cards and cards >= args.cards):
            time.sleep(0.2)
            break
    view.finish()
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
