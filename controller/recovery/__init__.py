"""Rebuilding a table after a restart from its journal (event sourcing).

Every input a table takes, a device event or a console command, is journaled before
it is acted on (``controller.table.core``), and the table is deterministic. So
``resume`` builds a fresh table and feeds it the journaled inputs in order, with its
journal and devices switched to sinks (``sinks``): nothing is recorded twice and
nothing reaches a device. Each line the rebuilt table would have written is checked
against the journal's; a difference means the journal cannot be replayed, and the
daemon does not start on a guess (``RecoveryError``, one line).

Sealed cards (551.8(e), ``controller.table.seal``): a card journaled sealed is given
back to the replay by the row that released it (``opened``). One never released is
not known: the hole card of a round that was in play. The replay stands a card in for
it, one that agrees with the reader's recorded answer, and stops before anything that
would turn it over. The round then needs a floorperson (an ``interrupted_round``
halt, ``rounds``): every card known, the clear lets play go on; the hole card not
known, the floorperson enters it as read from the layout, checked against its seal,
or the clear voids the round with the wagers returned.

``resume`` appends one ``resumed`` row describing what it found; the halt follows.
A later replay meets that row and stops the table there again in the same way.
Nothing journaled is changed.
"""

from controller.recovery.inputs import INPUTS, RESUMED, RecoveryError, decode, openings
from controller.recovery.positions import driver_positions
from controller.recovery.replay import resume
from controller.recovery.rounds import Interrupted

__all__ = [
    "INPUTS",
    "RESUMED",
    "Interrupted",
    "RecoveryError",
    "decode",
    "driver_positions",
    "openings",
    "resume",
]
