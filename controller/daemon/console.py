"""What the daemon is handed for a simulated table (``tablectl run --simulate``): the
simulated hardware, and once the table exists the console that plays at it.

The daemon never imports the simulators or the bench: the bench builds both
(``controller.bench.simulated.SimulatedTable``) and the command line hands them to
``controller.daemon.main.run``. A real table has neither: its devices are the
configuration's and its console is the API's clients.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Protocol

from controller.config import Config
from controller.journal.observed import ObservedJournal
from controller.table.core import Table
from drivers import messages as m
from drivers.device import DeviceDriver


class Console(Protocol):
    """The dealer, players and floorperson at a simulated table, on the table's thread.

    The daemon hands each device event to the table, then to ``saw``; once every
    device's connection is journaled it calls ``start``, then ``step`` whenever the
    dealer's pace allows; ``finish`` when the daemon stops. The console follows the
    table by its journal and acts through the table's own commands.
    """

    @property
    def polling(self) -> bool:
        """Looking at a device's light rather than waiting for an event: the loop steps
        the console again within ``poll_interval`` seconds."""

    @property
    def poll_interval(self) -> float: ...

    def pace(self, ms: int) -> None:
        """The dealer's pace, ``ms`` between two actions; at 0 (as fast as the table
        takes them) the dealer may draw at once the cards the procedure fixes."""

    def saw(self, event: m.Event) -> None:
        """The table has handled ``event``."""

    def start(self) -> None:
        """The devices are connected: what the floorperson does first."""

    def step(self) -> bool:
        """The console's next action; False when it waits for an event."""

    def finish(self) -> None:
        """The daemon stops."""


class SimulatedHardware(Protocol):
    """A simulated table's devices, in the order the daemon's start-up meets them:
    ``configure`` (the table's configuration, before anything is opened), ``prepare``
    (where the table's files go, before the journal opens), ``start`` (the simulated
    devices spawned, once the API is up), ``usb_backend`` (for the reader's driver),
    ``console`` (once the table exists) and ``ready`` (before the drivers start)."""

    @property
    def errors(self) -> tuple[type[Exception], ...]:
        """What a simulated device's failure raises: one line and exit 1, as a real
        device's."""

    def configure(self, cleanup: contextlib.ExitStack) -> Config:
        """The simulated table's configuration; what must last until the daemon exits
        (a temporary directory) goes on ``cleanup``."""

    def prepare(self) -> None:
        """Make the directory the configuration names for the journal and sockets."""

    def start(self, cleanup: contextlib.ExitStack) -> None:
        """Start the simulated devices without waiting for them (``ready``); their stop
        goes on ``cleanup``."""

    def ready(self) -> None:
        """Return once every simulated device is up, ready for the drivers."""

    def usb_backend(self) -> object | None:
        """The pyusb backend through which the reader's driver reaches the simulated
        reader; None without a reader."""

    def console(
        self, table: Table, journal: ObservedJournal, drivers: Mapping[str, DeviceDriver]
    ) -> Console:
        """The console that plays at ``table``, following ``journal``, on the simulated
        devices through ``drivers``."""
