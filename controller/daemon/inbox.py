"""The table thread's one input queue: device events from the drivers, console
commands from the API, the signal handler's request to stop, a halt found off the
table's thread and a row to write for one, in order."""

from __future__ import annotations

import queue
import threading
import time
from typing import Final

from controller.api import Ticket
from controller.table.events import Command
from controller.table.halts import Halt
from drivers import messages as m

COMMAND_LIMIT: Final = 64  # console commands waiting for the table; more: "busy"


class Stop:
    """The signal handler's request to stop, queued behind what came before it."""

    def __init__(self, signum: int) -> None:
        self.signum = signum


class Interrupt:
    """Play to be stopped for a floorperson for a cause found off the table's thread
    (the journal's full check, controller/daemon/integrity.py)."""

    def __init__(self, halt: Halt) -> None:
        self.halt = halt


class Note:
    """A row the daemon writes between two inputs for a component off the table's
    thread (the shuffle monitor's ``shuffle_alert``, controller/daemon/shuffles.py)."""

    def __init__(self, entry: dict[str, object]) -> None:
        self.entry = entry


Item = m.Event | tuple[Command, Ticket] | Stop | Interrupt | Note


class Inbox:
    """The table thread's one input queue. Device events are always taken (a driver
    must never block; the device keeps each event until it is committed anyway);
    console commands only while fewer than ``limit`` wait (``submit`` answers False,
    and the API tells the client "busy"). ``queue.SimpleQueue.put`` is reentrant, so
    the signal handler queues its stop here too."""

    def __init__(self, limit: int = COMMAND_LIMIT) -> None:
        self._queue: queue.SimpleQueue[Item] = queue.SimpleQueue()
        self._limit = limit
        self._commands = 0
        self._lock = threading.Lock()
        self.emptied_at = time.monotonic()  # when the table last caught up

    def put(self, item: m.Event, block: bool = True, timeout: float | None = None) -> None:
        self._queue.put(item)

    def submit(self, command: Command, ticket: Ticket) -> bool:
        with self._lock:
            if self._commands >= self._limit:
                return False
            self._commands += 1
        self._queue.put((command, ticket))
        return True

    def stop(self, signum: int) -> None:
        self._queue.put(Stop(signum))

    def interrupt(self, halt: Halt) -> None:
        self._queue.put(Interrupt(halt))

    def note(self, entry: dict[str, object]) -> None:
        self._queue.put(Note(entry))

    def get(self, timeout: float) -> Item | None:
        try:
            item = self._queue.get(timeout=timeout) if timeout > 0 else self._queue.get_nowait()
        except queue.Empty:
            self.emptied_at = time.monotonic()
            return None
        if isinstance(item, tuple):
            with self._lock:
                self._commands -= 1
        return item
