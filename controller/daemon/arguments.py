"""``tablectl run``'s options: the table's configuration file, or a simulated table and
how it plays."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from controller.games import NAMES

if TYPE_CHECKING:
    from controller.config import Game

DEFAULT_PACE_MS: Final = 250  # the simulated dealer's pace, so a person can follow


@dataclass(frozen=True)
class Options:
    config: str | None  # None: the simulated table
    game: Game
    rounds: int | None  # stop after this many rounds (None: until a signal)
    pace_ms: int
    seed: int | None
    workdir: str | None  # the simulated table's files; None: a temporary directory
    plain: bool = False  # one plain line per journal entry on stdout, terminal or not
    manual: bool = False  # the simulated table played by hand, through the API (docs/manual.md)
    web: str | None = None  # HOST:PORT of the simulated table's web consoles (None: none)
    shuffle_model: str = "random"  # the simulated shuffler's (firmware_sim/shuffle_models.py)


def add_arguments(parser: argparse.ArgumentParser, positive: Callable[[str], int]) -> None:
    parser.add_argument(
        "--config", metavar="FILE", help="the table's configuration (docs/config.md)"
    )
    parser.add_argument(
        "--simulate",
        action="store_true",
        help="run on simulated devices with an autoplay dealer, or played by hand with "
        "--manual (the default without --config)",
    )
    parser.add_argument(
        "--game", choices=NAMES, default="baccarat", help="the simulated table's game"
    )
    parser.add_argument(
        "--manual",
        action="store_true",
        help="with --simulate: no autoplay dealer; wagers and decisions come from the "
        "API's sockets and the simulated devices act only when asked "
        "(controller/simpanel.py, docs/manual.md)",
    )
    parser.add_argument("--rounds", type=positive, help="stop after this many rounds")
    parser.add_argument(
        "--pace-ms",
        type=int,
        default=DEFAULT_PACE_MS,
        help=f"the simulated dealer's time per action (default {DEFAULT_PACE_MS}; 0: at once)",
    )
    _shoe_arguments(parser)
    parser.add_argument(
        "--plain",
        action="store_true",
        help="write one plain line per journal entry on stdout (TYPE key=value ...), "
        "terminal or not; without it a terminal shows the live table and any other "
        "stdout gets only the last line",
    )
    parser.add_argument(
        "--web",
        metavar="HOST:PORT",
        help="also serve the simulated table's web consoles there (tablectl web, "
        "docs/web.md), with this run's logins printed at start",
    )
    parser.add_argument(
        "--workdir",
        metavar="DIR",
        help="keep the simulated table's journal, sockets and devices in DIR "
        "(default: a temporary directory, removed at exit)",
    )


def _shoe_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seed", type=int, help="the simulated shoe's seed (default: random)")
    parser.add_argument(
        "--shuffle-model",
        metavar="MODEL",
        default="random",
        help="how the simulated shuffler shuffles, each shoe after the first its order "
        "of the shoe before: random (default), riffle:K, strip:K or clumpy:P "
        "(docs/shuffle-monitor.md)",
    )


class UsageError(ValueError):
    """Options that do not go together; the message is one line."""


def options(args: argparse.Namespace) -> Options:
    """The run's options; UsageError for options that do not go together."""
    simulated_only = [
        flag
        for flag, given in (
            ("--simulate", args.simulate),
            ("--game", args.game != "baccarat"),
            ("--seed", args.seed is not None),
            ("--workdir", args.workdir is not None),
            ("--pace-ms", args.pace_ms != DEFAULT_PACE_MS),
            ("--rounds", args.rounds is not None),
            ("--manual", args.manual),
            ("--web", args.web is not None),
            ("--shuffle-model", args.shuffle_model != "random"),
        )
        if given
    ]
    if args.config is not None and simulated_only:
        raise UsageError(f"{simulated_only[0]} is for a simulated table, not with --config")
    if args.manual and args.pace_ms != DEFAULT_PACE_MS:
        raise UsageError("--pace-ms is the autoplay dealer's pace, not with --manual")
    if args.pace_ms < 0:
        raise UsageError(f"--pace-ms must be 0 or more, not {args.pace_ms}")
    if args.web is not None:
        _check_listen(args.web)
    return Options(
        args.config,
        args.game,
        args.rounds,
        0 if args.manual else args.pace_ms,  # by hand: the console answers at once
        args.seed,
        args.workdir,
        args.plain,
        args.manual,
        args.web,
        args.shuffle_model,
    )


def _check_listen(listen: str) -> None:
    host, sep, port = listen.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise UsageError(f"--web must be HOST:PORT (a port 1-65535), not {listen!r}")
