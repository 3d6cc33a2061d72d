"""``tablectl events``: the journal's entries (``--journal``), then the live stream."""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Final, TextIO

from controller.api.sealed import carries_sealed_card
from controller.api.wire import VERSION
from controller.client.connection import ClientError, Connection, NoAnswer, runtime_dir
from controller.errors import EXIT_FAILURE, EXIT_OK, EXIT_USAGE
from controller.export import read_rows
from controller.journal import JournalError

DEFAULT_LISTEN: Final = 5.0  # seconds ``events`` listens without --follow or --journal

Show = Callable[[TextIO, Mapping[str, Any]], None]


def events(args: argparse.Namespace, out: TextIO) -> int:
    """The journal's entries (``--journal``), then the live stream: for ever with
    ``--follow``, for ``--seconds`` otherwise (none after a journal, unless given)."""
    listen = _listen_for(args)
    show = _show_json if args.json else _show_text
    conn: Connection | None = None
    if listen is None or listen > 0:
        conn = Connection(runtime_dir(args) / "events.sock")
    try:
        if conn is not None:
            # Subscribed before the journal is read: nothing falls between the two.
            conn.expect({"op": "subscribe"}, "subscribed")
        shown = _show_journal(args.journal, show, out) if args.journal else 0
        if conn is not None:
            _show_stream(conn, listen, shown, show, out)
    except KeyboardInterrupt:
        return EXIT_OK  # Ctrl-C is how a follower stops
    finally:
        if conn is not None:
            conn.close()
    return EXIT_OK


def _listen_for(args: argparse.Namespace) -> float | None:
    """How long to read the live stream, in seconds; None: until Ctrl-C."""
    if args.follow:
        return None
    seconds: float | None = args.seconds
    if seconds is not None:
        return seconds
    return 0.0 if args.journal else DEFAULT_LISTEN


def _show_journal(path: str, show: Show, out: TextIO) -> int:
    """Show every entry of the journal at ``path``; the last one's seq (0: none)."""
    shown = 0
    for seq, entry in _journal_rows(path):
        show(out, {"v": VERSION, "type": "event", "seq": seq, "entry": entry})
        shown = seq
    return shown


def _show_stream(
    conn: Connection, listen: float | None, shown: int, show: Show, out: TextIO
) -> None:
    """Show the stream's entries after entry ``shown``, for ``listen`` seconds."""
    for message in _stream(conn, listen):
        streamed = message.get("seq")
        if isinstance(streamed, int) and streamed <= shown:
            continue  # printed from the journal already
        if message.get("type") == "overflow":
            raise ClientError(
                f"{conn.path}: the daemon dropped this client for reading too "
                f"slowly (missed from entry {message.get('missed_from')})",
                EXIT_FAILURE,
            )
        if message.get("type") in ("event", "withheld"):
            show(out, message)


def _journal_rows(path: str) -> Iterator[tuple[int, dict[str, Any]]]:
    # Read-only: the daemon may be writing it.
    try:
        rows = read_rows(path)
    except JournalError as exc:
        raise ClientError(str(exc), EXIT_USAGE) from None
    for row in rows:
        yield row.seq, row.entry


def _stream(conn: Connection, seconds: float | None) -> Iterator[dict[str, Any]]:
    deadline = None if seconds is None else time.monotonic() + seconds
    while True:
        if deadline is None:
            yield conn.receive(None)
            continue
        left = deadline - time.monotonic()
        if left <= 0:
            return
        try:
            yield conn.receive(left)
        except NoAnswer:
            return  # the time is up


def _show_json(out: TextIO, message: Mapping[str, Any]) -> None:
    out.write(json.dumps(message, separators=(",", ":")) + "\n")
    out.flush()


def _show_text(out: TextIO, message: Mapping[str, Any]) -> None:
    seq = message.get("seq")
    if message.get("type") == "withheld":
        line = f"{seq} withheld {message.get('entry_type')}: {message.get('reason')}"
    else:
        entry = dict(message.get("entry") or {})
        if carries_sealed_card(entry):  # 551.8(e): as the API would
            line = f"{seq} withheld {entry.get('type')}: a card marked sealed carries a value"
        else:
            kind = entry.pop("type", "?")
            rest = json.dumps(entry, separators=(",", ":"), sort_keys=True) if entry else ""
            line = f"{seq} {kind} {rest}".rstrip()
    out.write(line + "\n")
    out.flush()
