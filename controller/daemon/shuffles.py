"""The shuffle-quality monitor beside the table (issue 14, docs/shuffle-monitor.md
"Alerts"): never on the card path, and never in the daemon's memory.

The monitor is a process of its own (controller/shuffle_watch.py), started with the
daemon: it reads the journal read-only from row 1, tests each shoe at its end and
answers on a pipe. Here, a thread relays what it says: a ``shuffle_alert`` row, handed
to the table's thread through its inbox and written there between two inputs, in a
commit of its own (a daemon row, which a replay skips: controller/recovery); and the
alerts waiting, for the API's ``status`` and for ``submit``, which refuses a
floorperson's ``acknowledge_shuffle_alert`` for a shoe with no alert waiting (error
``no_shuffle_alert``) before it reaches the table. A restart neither loses an alert
(one not written before a crash is found again from the rows) nor writes one twice.
An alert never stops play; nor does the monitor's failure, which is logged.

The table's thread only wakes the monitor (a non-blocking write of one line) when a
row it must read is durable: a shoe's end, an alert, an acknowledgement.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Mapping
from typing import Any

import structlog

from controller.api import Ticket
from controller.api.wire import Refused
from controller.boards.shufflealerts import ACKNOWLEDGE, ALERT, acknowledge_problem
from controller.config import ShuffleSettings
from controller.table.events import AcknowledgeShuffleAlert, Command

log = structlog.get_logger("controller.daemon")

REFUSED = "no_shuffle_alert"
STOP_WAIT = 5.0  # seconds the monitor gets to exit once its input is closed
_WAKES = ("shoe_end", ALERT)
# One thread of BLAS is all the monitor's small matrices need, and all a 2-core box
# under a table should give them.
_ENV = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "PYTHONUNBUFFERED": "1"}


class ShuffleWatch:
    """``observe``: a watcher of the rows written (the table's thread); ``submit``: the
    API's, in front of ``forward``; ``post``: how an alert row reaches the table's
    thread (``Inbox.note``)."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        settings: ShuffleSettings,
        forward: Callable[[Command, Ticket], bool],
        post: Callable[[dict[str, object]], None],
    ) -> None:
        self.path = str(path)
        self.settings = settings
        self._forward = forward
        self._post = post
        self._lock = threading.Condition()  # notified at each answer (``settle``)
        self._view: dict[str, Any] | None = None
        self._settled = 0
        self._proc: subprocess.Popen[str] | None = None
        self.caught_up = threading.Event()  # the monitor has read the rows at start
        self._thread = threading.Thread(target=self._relay, name="shuffle-relay", daemon=True)

    # ------------------------------------------------------------------ the daemon's

    def start(self) -> None:
        if not self.settings.monitor:
            return
        argv = [sys.executable, "-m", "controller.shuffle_watch", self.path]
        argv += ["--confidence", str(self.settings.confidence)]
        argv += ["--window", str(self.settings.window)]
        self._proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,  # a traceback is its last word, read as such
            text=True,
            env={**os.environ, **_ENV},
        )
        assert self._proc.stdin is not None
        os.set_blocking(self._proc.stdin.fileno(), False)  # the table's thread never waits
        self._thread.start()

    def stop(self) -> None:
        """Close the monitor's input and wait for it to exit (again: nothing)."""
        proc = self._proc
        if proc is None or proc.returncode is not None:
            return
        with contextlib.suppress(OSError):
            assert proc.stdin is not None
            proc.stdin.close()
        try:
            proc.wait(timeout=STOP_WAIT)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        self._thread.join(timeout=STOP_WAIT)

    def observe(self, entry: Mapping[str, object]) -> None:
        kind = entry.get("type")
        if kind in _WAKES or (kind == "command" and entry.get("command") == ACKNOWLEDGE):
            self._tell("read\n")

    def settle(self, seq: int, timeout: float) -> bool:
        """Wait until the monitor has read the rows up to ``seq`` and said their alerts
        (or it is gone, or ``timeout`` seconds); whether it has."""
        if self._proc is None or not self._thread.is_alive():
            return False
        self._tell(f"settle {seq}\n")
        with self._lock:
            return self._lock.wait_for(
                lambda: self._settled >= seq or not self._thread.is_alive(), timeout
            )

    def submit(self, command: Command, ticket: Ticket) -> bool:
        if isinstance(command, AcknowledgeShuffleAlert):
            problem = acknowledge_problem(command.shoe, self._waiting_shoes())
            if problem is not None:
                raise Refused(REFUSED, problem)
        return self._forward(command, ticket)

    def view(self) -> dict[str, Any] | None:
        """The alerts waiting, as ``ShuffleAlerts.view``: None when none waits."""
        with self._lock:
            return self._view

    def waiting(self) -> bool:
        return bool(self._waiting_shoes())

    def _waiting_shoes(self) -> list[int]:
        with self._lock:
            return list(self._view["shoes"]) if self._view else []

    def _tell(self, line: str) -> None:
        proc = self._proc
        if proc is None or proc.stdin is None:
            return
        # A full pipe holds wake-ups enough; a monitor gone is said by the relay.
        with contextlib.suppress(BlockingIOError, BrokenPipeError, ValueError, OSError):
            proc.stdin.write(line)
            proc.stdin.flush()

    # ------------------------------------------------------------------ the relay

    def _relay(self) -> None:
        proc = self._proc
        assert proc is not None and proc.stdout is not None
        error = None
        for line in proc.stdout:
            try:
                message = json.loads(line)
            except ValueError:
                message = None
            if isinstance(message, dict):
                error = self._take(message) or error
            elif line.strip():
                error = line.strip()  # not its protocol: a warning, a traceback's line
        code = proc.wait()
        with self._lock:
            self._lock.notify_all()
        if code != 0:
            log.error("shuffle_monitor_stopped", status=code, detail=error)

    def _take(self, message: Mapping[str, Any]) -> str | None:
        if "alert" in message:
            self._post(message["alert"])
        with self._lock:
            if "view" in message:
                self._view = message["view"]
            if "settled" in message:
                self._settled = int(message["settled"])
            self._lock.notify_all()
        if "caught_up" in message:
            cpu = round(float(message.get("cpu_s", 0)), 3)
            log.info("shuffle_monitor_caught_up", rows=message["caught_up"], cpu_s=cpu)
            self.caught_up.set()
        return message.get("error")
