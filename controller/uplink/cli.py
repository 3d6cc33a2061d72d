"""``tablectl uplink --config FILE``: the table's journal, read-only, to the floor's
MQTT broker (docs/uplink.md).

Bad input (the configuration, its files, the TLS files, the journal, a cursor from
another journal) is one line on stderr and a non-zero exit before anything connects;
anything the broker or the network does afterwards is a log line and a retry.
SIGTERM or SIGINT: nothing more is published but the offline status, the connection
is closed cleanly, exit 0.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import select
import signal
import ssl
import sys
from types import FrameType
from typing import Any

from controller.errors import EXIT_FAILURE, EXIT_OK, EXIT_USAGE


def add_parser(sub: Any) -> None:
    from controller.uplink.settings import DEFAULT_PATH

    uplink = sub.add_parser(
        "uplink",
        help="publish the table's journal to the floor's MQTT broker (docs/uplink.md)",
        description="Read the table's journal read-only and publish every row to the "
        "floor's MQTT broker, store-and-forward from a durable cursor.",
    )
    uplink.add_argument(
        "--config",
        default=DEFAULT_PATH,
        metavar="FILE",
        help=f"the uplink's configuration (default {DEFAULT_PATH})",
    )
    uplink.add_argument("--log-level", default="info", choices=["debug", "info", "warning"])


class Stop:
    """Set by SIGTERM or SIGINT; ``wait`` sleeps until then (the signal's wake-up byte
    ends the ``select``), so a stop during a back-off is immediate."""

    def __init__(self) -> None:
        self._set = False
        self._read, self._write = os.pipe()
        os.set_blocking(self._read, False)
        os.set_blocking(self._write, False)

    def install(self) -> None:
        signal.set_wakeup_fd(self._write)
        signal.signal(signal.SIGTERM, self._handle)
        signal.signal(signal.SIGINT, self._handle)

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        self._set = True

    def is_set(self) -> bool:
        return self._set

    def wait(self, seconds: float) -> None:
        if not self._set:
            select.select([self._read], [], [], seconds)
        with contextlib.suppress(BlockingIOError):
            os.read(self._read, 512)


def _fail(message: str, code: int) -> int:
    print(f"tablectl: error: {message}", file=sys.stderr)
    return code


def run(args: argparse.Namespace) -> int:
    from controller import logformat
    from controller.journal import JournalError
    from controller.uplink import settings as config
    from controller.uplink.cursor import Cursor, CursorError
    from controller.uplink.link import tls_context
    from controller.uplink.outbox import Outbox
    from controller.uplink.publisher import Uplink
    from controller.uplink.status import rebuild
    from drivers.logs import structlog

    stop = Stop()
    stop.install()  # from here on a SIGTERM is a clean stop, even while starting
    try:
        settings = config.load(args.config)
        context = tls_context(settings)
    except config.SettingsError as exc:
        return _fail(str(exc), EXIT_USAGE)
    except (OSError, ssl.SSLError) as exc:
        return _fail(
            f"{args.config}: broker: the CA, certificate or key cannot be used: {exc}", EXIT_USAGE
        )
    logformat.catch_uncaught()
    log = structlog.get_logger("controller.uplink").bind(table=settings.table_id)
    try:
        outbox = Outbox(settings.journal)
        cursor = Cursor(settings.state_dir, settings.table_id)
        _check_cursor(outbox, cursor)
        status = rebuild(outbox, cursor.seq)
    except (JournalError, CursorError) as exc:
        return _fail(str(exc), EXIT_FAILURE)
    log.info("uplink_started", journal=str(settings.journal), cursor=cursor.seq)
    try:
        Uplink(settings, outbox, cursor, status, context, log).run(stop)
    except (JournalError, CursorError) as exc:
        log.error("uplink_failed", error=str(exc))
        return _fail(str(exc), EXIT_FAILURE)
    finally:
        outbox.close()
    return EXIT_OK


def _check_cursor(outbox: Any, cursor: Any) -> None:
    """The cursor's row is in this journal, with the hash it had: else the cursor is
    another journal's, and resuming from it would skip rows or publish none."""
    from controller.uplink.cursor import CursorError

    if cursor.seq == 0:
        return
    found = outbox.hash_of(cursor.seq)
    if found != cursor.hash:
        what = "has no such row" if found is None else "has another row there"
        raise CursorError(
            f"{cursor.path}: acknowledged up to row {cursor.seq}, but {outbox.path} {what}: "
            "another journal's cursor (remove it to publish this journal from row 1)"
        )
