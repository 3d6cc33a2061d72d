"""A stand-in for the daemon's ``events.sock`` that sends what the tests give it, for
what a real daemon never sends (an entry whose sealed card carries a value: its API
withholds one, docs/api.md): a real Unix socket speaking the API's JSON lines."""

from __future__ import annotations

import json
import socket
import threading
from pathlib import Path
from typing import Any


class FakeEvents:
    """``events.sock`` in ``runtime_dir``: ``subscribe`` gets ``entries`` as events,
    ``status`` the snapshot ``table``."""

    def __init__(
        self, runtime_dir: Path, entries: list[dict[str, Any]], table: dict[str, Any]
    ) -> None:
        self.entries, self.table = entries, table
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(str(runtime_dir / "events.sock"))
        self.server.listen()
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _send(self, conn: socket.socket, message: dict[str, Any]) -> None:
        conn.sendall(json.dumps({"v": 1, **message}).encode() + b"\n")

    def _serve(self, conn: socket.socket) -> None:
        with conn, conn.makefile("rb") as lines:
            for line in lines:
                op = json.loads(line).get("op")
                if op == "status":
                    self._send(
                        conn,
                        {
                            "type": "status",
                            "id": None,
                            "last_seq": len(self.entries),
                            "table": self.table,
                        },
                    )
                elif op == "subscribe":
                    self._send(conn, {"type": "subscribed", "id": None, "last_seq": 0})
                    for seq, entry in enumerate(self.entries, 1):
                        self._send(conn, {"type": "event", "seq": seq, "entry": entry})

    def close(self) -> None:
        self.server.close()
