"""``tablectl floor --config FILE``: follow every table on the floor's broker and serve
the pit across tables (docs/floor.md). A bad configuration is one line and exit 2; a
taken address one line and exit 1; SIGTERM or SIGINT ends it with exit 0, its state
saved and its broker session kept."""

from __future__ import annotations

import argparse
import os
from typing import Any

from controller.errors import EXIT_FAILURE, EXIT_OK, EXIT_USAGE, fail


def add_parser(sub: Any) -> None:
    from controller.floor.settings import DEFAULT

    floor = sub.add_parser(
        "floor",
        help="follow every table on the floor's MQTT broker and serve their pit (docs/floor.md)",
        description="The floor's subscriber: every table's journal and status from the "
        "broker (a persistent MQTT session), each table's last seq kept, duplicates dropped "
        "and gaps shown; /pit for every table, what needs a floorperson first.",
    )
    floor.add_argument(
        "--config", default=DEFAULT, metavar="FILE", help=f"the floor's TOML (default {DEFAULT})"
    )
    floor.add_argument("--log-level", default="info", choices=["debug", "info", "warning"])


def run(args: argparse.Namespace) -> int:
    from controller.floor import web
    from controller.floor.floorpit import FloorPit
    from controller.floor.follower import Follower, FollowerError
    from controller.floor.settings import SettingsError, load

    try:
        settings = load(args.config)
        if settings.web is None:
            raise SettingsError(f"{args.config}: [web] is missing: where to serve /pit")
        floor = FloorPit()
        follower = Follower(settings, floor.on_row, floor.on_status)
    except SettingsError as exc:
        return fail(str(exc), EXIT_USAGE)
    except FollowerError as exc:
        return fail(f"{args.config}: {exc}", EXIT_USAGE)
    floor.know(follower.tracks())
    try:
        web.serve(settings.web, floor, follower)
    except OSError as exc:
        listen = f"{settings.web.host}:{settings.web.port}"
        reason = os.strerror(exc.errno) if exc.errno else str(exc)
        return fail(f"{args.config}: [web] listen {listen}: {reason}", EXIT_FAILURE)
    return EXIT_OK
