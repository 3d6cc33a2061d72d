"""``tablectl web`` (serve the pages) and ``tablectl web passwd USERS LOGIN --role
ROLE`` (set a login's password, read from standard input)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from controller.errors import EXIT_FAILURE, EXIT_OK, EXIT_USAGE


def add_parser(sub: Any) -> None:
    from controller.web.options import DEFAULT_LISTEN
    from controller.web.shifts import DEFAULT as SHIFTS

    web = sub.add_parser(
        "web",
        help="serve the dealer, floor, pit and scoreboard pages (docs/web.md)",
        description="Serve the table's pages; talks to the daemon through its sockets only.",
    )
    web.add_argument(
        "--runtime-dir",
        default="/run/tablectl",
        metavar="DIR",
        help="the daemon's sockets (default /run/tablectl)",
    )
    web.add_argument("--journal", metavar="FILE", help="the journal, read-only: history, verify")
    web.add_argument(
        "--listen",
        default=DEFAULT_LISTEN,
        metavar="HOST:PORT",
        help=f"where to serve (default {DEFAULT_LISTEN})",
    )
    web.add_argument("--users", metavar="FILE", help="the logins (tablectl web passwd)")
    web.add_argument("--tls-cert", metavar="FILE", help="serve HTTPS with this certificate")
    web.add_argument("--tls-key", metavar="FILE", help="the certificate's private key")
    web.add_argument(
        "--shifts",
        default=SHIFTS,
        metavar="HH:MM,...",
        help=f"when the pit's shifts start, local time (default {SHIFTS})",
    )
    web.add_argument("--log-level", default="info", choices=["debug", "info", "warning"])
    web.add_argument(
        "--simulated-devices",
        metavar="DIR",
        help="show /dealer's simulated devices panel for the manual table in DIR",
    )
    inner = web.add_subparsers(dest="web_command")
    passwd = inner.add_parser("passwd", help="set a login's password (read from stdin)")
    passwd.add_argument("users_file", metavar="USERS")
    passwd.add_argument("login", metavar="LOGIN")
    passwd.add_argument("--role", required=True, choices=["dealer", "floor"])


def _passwd(args: argparse.Namespace) -> int:
    from controller.web.users import UsersError, set_password

    password = sys.stdin.readline().rstrip("\n")
    try:
        set_password(Path(args.users_file), args.login, args.role, password)
    except UsersError as exc:
        print(f"tablectl: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    print(f"{args.users_file}: {args.login} ({args.role}) set")
    return EXIT_OK


def run(args: argparse.Namespace) -> int:
    if args.web_command == "passwd":
        return _passwd(args)
    from controller.web import app
    from controller.web.options import OptionsError, options

    try:
        chosen = options(args)
    except OptionsError as exc:
        print(f"tablectl: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        app.serve(chosen, app.tls(chosen))
    except OSError as exc:
        print(f"tablectl: error: --listen {args.listen}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_FAILURE
    return EXIT_OK
