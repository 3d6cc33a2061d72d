"""``firmware-sim {shoe,reader,shuffler}``: run one simulated device behind a pty.

Input a user can get wrong (card tokens, key file, faults file, paths) ends in one
line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Callable, Sequence
from typing import NoReturn

from drivers import messages as m
from drivers.identity import DEFAULT_FIRMWARE_VERSION, DEFAULT_MODEL
from drivers.keys import KeyFileError, load_key
from drivers.logs import structlog  # structlog without rich (drivers/logs.py)
from firmware_sim import decks, shuffle_models
from firmware_sim.control import one_line
from firmware_sim.devices import Firmware, Pace, ReaderFirmware, ShoeFirmware, ShufflerFirmware
from firmware_sim.endpoint import Identity
from firmware_sim.faults import FaultLayer, FaultSpec, load_faults
from firmware_sim.logsink import LogSink, processors
from firmware_sim.process import Simulator, Wire

PROG = "firmware-sim"
DEFAULT_DECKS = 8
IDENTITY_MAX = 32  # bytes of UTF-8, a DeviceInfo field limit

log = structlog.get_logger("firmware_sim")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        # One line, no usage block: the caller may be a script reading stderr.
        self.exit(2, f"{self.prog}: error: {message}\n")


def _int_in(lo: int, hi: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
        if not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"must be {lo}..{hi}, not {value}")
        return value

    return parse


def _identity_text(text: str) -> str:
    if not text or len(text.encode("utf-8")) > IDENTITY_MAX:
        raise argparse.ArgumentTypeError(f"must be 1..{IDENTITY_MAX} bytes of UTF-8")
    return text


def _common_options() -> _Parser:
    """The options every kind of device takes."""
    common = _Parser(add_help=False)
    common.add_argument("--link", required=True, metavar="PATH", help="symlink to the pty")
    common.add_argument("--key-file", required=True, metavar="FILE", help="device link key")
    common.add_argument(
        "--control", metavar="SOCKET_PATH", help="control socket (default: LINK.control)"
    )
    common.add_argument("--serial", type=_identity_text, help="serial number")
    common.add_argument("--model", type=_identity_text, help="model name")
    common.add_argument(
        "--firmware-version",
        type=_identity_text,
        default=DEFAULT_FIRMWARE_VERSION,
        help=f"default {DEFAULT_FIRMWARE_VERSION}",
    )
    common.add_argument(
        "--protocol-version",
        type=_int_in(0, 255),
        default=m.PROTOCOL_VERSION,
        help=f"protocol version announced (default {m.PROTOCOL_VERSION})",
    )
    common.add_argument("--faults", metavar="FILE.json", help="wire faults: seed, rates, script")
    common.add_argument(
        "--trace-writes",
        metavar="FILE",
        help="at exit, write 'event_id monotonic_ns' of each card frame's first write",
    )
    common.add_argument(
        "--log-level", choices=("debug", "info", "warning", "error"), default="info"
    )
    common.add_argument(
        "--exit-with-parent",
        action="store_true",
        help="stop when standard input reaches its end (the parent holds a pipe's other end)",
    )
    return common


def _shoe_options(shoe: argparse.ArgumentParser) -> None:
    stacked = shoe.add_mutually_exclusive_group()
    stacked.add_argument("--cards", metavar="TOKENS", help='stacked order, e.g. "AS KD CUT"')
    stacked.add_argument("--stack-file", metavar="FILE", help="stacked order from a file")
    shoe.add_argument("--decks", type=_int_in(1, decks.MAX_DECKS), help=f"default {DEFAULT_DECKS}")
    shoe.add_argument("--seed", type=int, help="reproducible shuffle (default: OS randomness)")
    shoe.add_argument("--spanish", action="store_true", help="48-card decks without tens")
    shoe.add_argument("--cut-at", type=_int_in(0, 0xFFFF), metavar="K", help="CUT K from the end")
    shoe.add_argument(
        "--pace", choices=[p.value for p in Pace], default=Pace.MANUAL.value, help="default manual"
    )
    shoe.add_argument(
        "--pace-ms", type=_int_in(1, 3_600_000), default=1500, help="realistic pace interval"
    )


def _shuffler_options(shuffler: argparse.ArgumentParser) -> None:
    shuffler.add_argument(
        "--decks", type=_int_in(1, decks.MAX_DECKS), default=DEFAULT_DECKS, help="default 8"
    )
    shuffler.add_argument("--spanish", action="store_true", help="48-card decks")
    shuffler.add_argument(
        "--shuffle-ms", type=_int_in(0, 3_600_000), default=0, help="shuffle duration"
    )
    shuffler.add_argument(
        "--shuffle-model",
        type=_shuffle_model,
        default=shuffle_models.DEFAULT,
        metavar="MODEL",
        help=f"how the control 'order' command shuffles: {shuffle_models.USAGE} "
        "(default random; docs/shuffle-monitor.md)",
    )
    shuffler.add_argument(
        "--seed", type=int, help="reproducible model shuffles (default: OS randomness)"
    )


def _shuffle_model(text: str) -> shuffle_models.ShuffleModel:
    try:
        return shuffle_models.parse_model(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def build_parser() -> argparse.ArgumentParser:
    common = _common_options()
    parser = _Parser(prog=PROG, description="Simulated table-device firmware on a pty.")
    sub = parser.add_subparsers(dest="kind", required=True, metavar="{shoe,reader,shuffler}")
    _shoe_options(sub.add_parser("shoe", parents=[common], help="electronic dealing shoe"))
    sub.add_parser("reader", parents=[common], help="Spanish 21 hole-card reader")
    _shuffler_options(sub.add_parser("shuffler", parents=[common], help="automated card shuffler"))
    return parser


def configure_logging(level: str, device: str) -> LogSink:
    """The JSON log on standard output, in batches the simulator's loop writes."""
    sink = LogSink(sys.stdout.fileno())
    structlog.configure(
        processors=processors(device),
        wrapper_class=structlog.make_filtering_bound_logger(getattr(logging, level.upper())),
        logger_factory=lambda *_args: sink,
        cache_logger_on_first_use=True,
    )
    return sink


def _shoe_cards(args: argparse.Namespace) -> list[str]:
    if args.cards is not None or args.stack_file is not None:
        shuffled = {
            "--decks": args.decks is not None,
            "--seed": args.seed is not None,
            "--spanish": args.spanish,
            "--cut-at": args.cut_at is not None,
        }
        for option, used in shuffled.items():
            if used:
                raise ValueError(f"{option} cannot be combined with a stacked shoe")
        if args.cards is not None:
            return decks.parse_tokens(args.cards)
        return decks.load_stack_file(args.stack_file)
    return decks.build_shoe(
        args.decks or DEFAULT_DECKS,
        spanish=args.spanish,
        rng=decks.make_rng(args.seed),
        cut_at=args.cut_at,
    )


def _check_link_path(path: str) -> None:
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise ValueError(f"link directory {directory} does not exist")
    if os.path.lexists(path) and not os.path.islink(path):
        raise ValueError(f"link path {path} exists and is not a symlink")


def _shuffler(
    args: argparse.Namespace, identity: Identity, key: bytes, wire: Wire
) -> ShufflerFirmware:
    return ShufflerFirmware(
        identity,
        key,
        wire.write,
        card_count=args.decks * decks.deck_size(args.spanish),
        shuffle_time=args.shuffle_ms / 1000,
        model=args.shuffle_model,
        rng=decks.make_rng(args.seed),
    )


def build(args: argparse.Namespace, log_sink: LogSink | None = None) -> Simulator:
    """The simulator the arguments describe; ValueError, KeyFileError or OSError for bad
    input or an unusable environment."""
    kind = m.DeviceKind[args.kind.upper()]
    _check_link_path(args.link)
    key = load_key(args.key_file)
    spec = load_faults(args.faults) if args.faults else FaultSpec()
    identity = Identity(
        kind=kind,
        model=args.model or DEFAULT_MODEL[kind],
        serial=args.serial or f"{DEFAULT_MODEL[kind]}-0001",
        firmware_version=args.firmware_version,
        protocol_version=args.protocol_version,
    )
    wire = Wire(FaultLayer(kind, spec))
    firmware: Firmware
    if kind is m.DeviceKind.SHOE:
        cards = _shoe_cards(args)
        if decks.real_cards(cards) > 0xFFFF:
            raise ValueError("a shoe holds at most 65535 cards")
        firmware = ShoeFirmware(
            identity,
            key,
            wire.write,
            cards=cards,
            rng=decks.make_rng(args.seed),
            pace=Pace(args.pace),
            pace_interval=args.pace_ms / 1000,
        )
    elif kind is m.DeviceKind.READER:
        firmware = ReaderFirmware(identity, key, wire.write)
    else:
        firmware = _shuffler(args, identity, key, wire)
    control = args.control or args.link + ".control"
    return Simulator(
        firmware,
        wire,
        link_path=args.link,
        control_path=control,
        trace_path=args.trace_writes,
        parent_fd=0 if args.exit_with_parent else None,
        log_sink=log_sink,
    )


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    sink = configure_logging(args.log_level, args.kind)
    try:
        return _run(args, sink)
    finally:
        sink.flush()


def _run(args: argparse.Namespace, sink: LogSink) -> int:
    try:
        sim = build(args, sink)
    except (ValueError, KeyFileError, OSError) as exc:
        print(f"{PROG}: error: {one_line(str(exc))}", file=sys.stderr)
        return 2
    try:
        sim.run()
    except Exception as exc:
        # A bug, not bad input: the whole story goes to the log, one line to stderr.
        log.exception("sim_crashed")
        print(f"{PROG}: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    return 0
