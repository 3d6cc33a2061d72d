"""The floor of benchmarks/floor_bench.py: the real subscriber of ``tablectl floor``
(controller/floor/follower.py ``Follower``, its settings read from a floor.toml as the
command reads them), run in the benchmark's process, keeping when each row arrived.

The follower hands ``on_row`` each row once (it drops the duplicates QoS 1 may bring,
by ``seq``, and counts them); ``received`` is ``time.time()`` when paho delivered the
message, so the writer stamps its commits with the same clock (``clock``)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from controller.floor import settings as floor_settings
from controller.floor.follower import Follower


class FloorReceiver:
    clock = "time"  # the clock of ``received``: time.time()

    def __init__(self, config: Path) -> None:
        settings = floor_settings.load(config)
        self.follower = Follower(settings, on_row=self._row, on_status=self._status)
        self.receipts: list[tuple[str, int, float]] = []  # (table, seq, received)
        self.online: set[str] = set()  # tables whose retained status says online
        self._seen: set[tuple[str, int]] = set()

    def _row(self, table: str, seq: int, message: Any, received: float) -> None:
        self.receipts.append((table, seq, received))
        self._seen.add((table, seq))

    def _status(self, table: str, status: dict[str, Any], received: float) -> None:
        if status.get("online"):
            self.online.add(table)
        else:
            self.online.discard(table)

    def start(self, limit: float = 10.0) -> None:
        self.follower.start()
        if not self.follower.connected.wait(limit):
            raise RuntimeError("the floor did not connect to the broker")
        time.sleep(0.5)  # its subscription acknowledged before the first row

    def stop(self) -> None:
        self.follower.stop()

    def distinct(self) -> int:
        return len(self._seen)

    @property
    def duplicates(self) -> int:
        """Rows the follower received again and dropped (QoS 1's redeliveries)."""
        return int(self.follower.counts()["duplicates"])

    @property
    def gaps(self) -> int:
        return int(self.follower.counts()["gaps"])
