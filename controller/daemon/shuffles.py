"""The shuffle-quality monitor beside the table (issue 14, docs/shuffle-monitor.md
"Alerts"): never on the card path, and never in the daemon's memory.

The monitor is a process of its own (controller/shuffle_watch.py), started once a shoe
has ended (at start, when the journal holds a shoe's end or an alert already: a table
that never ends a shoe, a test's few rounds, needs none): it reads the journal
read-only from row 1, tests each shoe at its end and answers on a pipe. Here, a thread
relays what it says: a ``shuffle_alert`` row, handed
to the table's thread through its inbox and written there between two inputs, in a
commit of its own (a daemon row, which a replay skips: controller/recovery); and the
alerts waiting, for the API's ``status`` and for ``submit``, which refuses a
floorperson's ``acknowledge_shuffle_alert`` for a shoe with no alert waiting (error
``no_shuffle_alert``) before it reaches the table. A restart neither loses an alert
(one not written before a crash is found again from the rows) nor writes one twice.
An alert never stops play; nor does the monitor's failure, which is logged and shown
in the status (``state``).

The table's thread only wakes the monitor (a non-blocking write of one line) when a
row it must read is durable: a shoe's end, an alert, an acknowledgement.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
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
from controller.journal import JournalError, open_read_only
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
        self._said = 0  # views received
        self._settled = 0
        self._settle: int | None = None  # a settle asked for before the process was up
        self._writing = threading.Lock()  # one line at a time into its pipe
        self._proc: subprocess.Popen[str] | None = None
        self._ended = threading.Event()  # a shoe has ended: the monitor has work
        self._stopping = False
        self.caught_up = threading.Event()  # the monitor has read the rows at start
        self._thread = threading.Thread(target=self._run, name="shuffle-relay", daemon=True)

    # ------------------------------------------------------------------ the daemon's

    def start(self) -> None:
        """The relay's thread; the monitor's process once a shoe has ended (in the
        journal already, or from now on): a table that never ends a shoe needs none."""
        if self.settings.monitor:
            self._thread.start()

    def stop(self) -> None:
        """Close the monitor's input and wait for it to exit (again: nothing)."""
        with self._lock:
            self._stopping = True
            proc = self._proc
        self._ended.set()
        if proc is not None and proc.returncode is None:
            with contextlib.suppress(OSError):
                assert proc.stdin is not None
                proc.stdin.close()
            try:
                proc.wait(timeout=STOP_WAIT)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if self._thread.is_alive():
            self._thread.join(timeout=STOP_WAIT)

    def observe(self, entry: Mapping[str, object]) -> None:
        kind = entry.get("type")
        if kind == "shoe_end":
            self._ended.set()
        if kind in _WAKES or (kind == "command" and entry.get("command") == ACKNOWLEDGE):
            self._tell("read\n")

    def settle(self, seq: int, timeout: float) -> bool:
        """Wait until the monitor has read the rows up to ``seq`` and said their alerts
        (or it is gone, or ``timeout`` seconds); whether it has. Nothing to wait for
        while no shoe has ended."""
        if not self._thread.is_alive() or not self._ended.is_set():
            return False
        with self._lock:
            self._settle = seq
        self._tell(f"settle {seq}\n")
        with self._lock:
            return self._lock.wait_for(
                lambda: self._settled >= seq or not self._thread.is_alive(), timeout
            )

    def state(self) -> str:
        """For the status: "off" (not configured), "waiting" (no shoe has ended yet),
        "starting", "watching" (it has read the rows at start) or "stopped" (its
        process ended: the log says why)."""
        if not self.settings.monitor:
            return "off"
        with self._lock:
            proc = self._proc
        if proc is None:
            return "waiting" if self._thread.is_alive() else "stopped"
        if proc.poll() is not None or not self._thread.is_alive():
            return "stopped"
        return "watching" if self.caught_up.is_set() else "starting"

    def submit(self, command: Command, ticket: Ticket) -> bool:
        if isinstance(command, AcknowledgeShuffleAlert):
            problem = acknowledge_problem(command.shoe, self._waiting_shoes())
            if problem is not None:
                raise Refused(REFUSED, problem)
        return self._forward(command, ticket)

    def mark(self) -> tuple[str, int]:
        """What the status shows of the monitor, in brief: its state, and how many times
        what it said of the alerts has changed."""
        with self._lock:
            said = self._said
        return self.state(), said

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
        with self._writing, contextlib.suppress(BlockingIOError, ValueError, OSError):
            proc.stdin.write(line)
            proc.stdin.flush()

    # ------------------------------------------------------------------ the relay

    def _run(self) -> None:
        if not self._has_work():
            self._ended.wait()
        with self._lock:
            if self._stopping:
                return
            self._proc = self._spawn()
            settle = self._settle
        if settle is not None:  # asked for while it was starting
            self._tell(f"settle {settle}\n")
        self._relay(self._proc)

    def _has_work(self) -> bool:
        """Whether the journal holds a shoe's end or an alert already (a restart: the
        monitor reads it at once, and the status shows the alerts that wait); a journal
        it cannot read is the monitor's to say."""
        try:
            db = open_read_only(self.path)
        except JournalError:
            return True
        try:
            found = db.execute(
                "SELECT 1 FROM rows WHERE instr(body, ?) > 0 OR instr(body, ?) > 0 LIMIT 1",
                ('"type":"shoe_end"', f'"type":"{ALERT}"'),
            ).fetchall()
        except sqlite3.Error:
            return True
        finally:
            db.close()
        return bool(found)

    def _spawn(self) -> subprocess.Popen[str]:
        argv = [sys.executable, "-m", "controller.shuffle_watch", self.path]
        argv += ["--confidence", str(self.settings.confidence)]
        argv += ["--window", str(self.settings.window)]
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,  # a traceback is its last word, read as such
            text=True,
            env={**os.environ, **_ENV},
        )
        assert proc.stdin is not None
        os.set_blocking(proc.stdin.fileno(), False)  # the table's thread never waits
        return proc

    def _relay(self, proc: subprocess.Popen[str]) -> None:
        assert proc.stdout is not None
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
                self._said += 1
            if "settled" in message:
                self._settled = int(message["settled"])
            self._lock.notify_all()
        if "caught_up" in message:
            cpu = round(float(message.get("cpu_s", 0)), 3)
            log.info("shuffle_monitor_caught_up", rows=message["caught_up"], cpu_s=cpu)
            self.caught_up.set()
        return message.get("error")
