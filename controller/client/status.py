"""``tablectl status``: the running table's state, shoe and round, and its devices."""

from __future__ import annotations

import argparse
import json
from typing import Any, TextIO

from controller.client.connection import Connection, runtime_dir
from controller.errors import EXIT_OK


def status(args: argparse.Namespace, out: TextIO) -> int:
    path = runtime_dir(args) / "events.sock"
    with Connection(path) as conn:
        reply = conn.expect({"op": "status"}, "status")
    if args.json:
        out.write(json.dumps({"last_seq": reply.get("last_seq"), "table": reply.get("table")}))
        out.write("\n")
    else:
        out.write(_status_text(reply.get("table"), reply.get("last_seq")))
    return EXIT_OK


def _status_text(table: Any, last_seq: Any) -> str:
    journal = (
        "journal: none streamed yet"
        if last_seq is None
        else f"journal: last entry streamed {last_seq}"
    )
    if not isinstance(table, dict):
        return f"table: starting (no status yet)\n{journal}\n"
    devices = table.get("devices") or {}
    health = ", ".join(f"{name} {state}" for name, state in devices.items()) or "(none)"
    state = table.get("state") if table.get("ready") else "connecting the devices"
    return (
        f"table {table.get('id')} ({table.get('game')}): {state}\n"
        f"shoe {table.get('shoe')}, round {table.get('round')}, "
        f"{table.get('rounds_played')} rounds played\n"
        f"devices: {health}\n"
        f"{journal}\n"
    )
