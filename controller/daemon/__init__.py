"""``tablectl run``: the table's daemon. ``main``: the start-up, in order, its errors
as exit codes, and the signals; ``loop``: the table's one thread (``inbox``: its
queue); ``wiring``: the journal, the API's access, the drivers and the table of the
game in force; ``console``: what the daemon is handed for a simulated table;
``arguments``: the command's options. The daemon never imports the bench or the
simulators."""

from controller.daemon.arguments import Options
from controller.daemon.main import run
from controller.daemon.wiring import PublishingJournal, sealing_key

__all__ = ["Options", "PublishingJournal", "run", "sealing_key"]
