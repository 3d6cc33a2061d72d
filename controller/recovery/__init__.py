"""Rebuilding a table after a restart from its journal (event sourcing).

Every input a table takes, a device event or a console command, is journaled before
it is acted on (``controller.table.core``), and the table is deterministic. So
``resume`` builds a fresh table, puts into it the state of the journal's last
``snapshot`` row (``snapshots``), and feeds it the journaled inputs after that row
in order, with its journal and devices switched to sinks (``sinks``): nothing is
recorded twice and nothing reaches a device. Each line the rebuilt table writes is
checked against the journal's as it is written; a difference means the journal cannot
be replayed, and the daemon does not start on a guess (``RecoveryError``, one line
naming the row; nothing is written).

The last input's work may run past the journal's end: the process died before it
wrote all of it. Those lines follow from journaled inputs alone, so ``resume`` writes
them, in order, before its own ``resumed`` row: a round whose last card was journaled
is settled in the journal, not left hanging.

Sealed cards (551.8(e), ``controller.table.seal``): a card journaled sealed is given
back to the replay by the row that released it (``opened``). One never released is
not known to the procedure: the hole card of a round that was in play. The replay
reads its value from the seal under the table's key, so that the table counts and
checks it as it did, or, without the key, puts in its place a stand-in, a token no
shoe holds (``controller.rules.cards.stand_in``) of a rank that agrees with the
reader's recorded answer; it does not act on a last input whose work would turn the
card over, depend on it or show it. The round then needs a floorperson (an
``interrupted_round`` halt,
``rounds``): every card known, the clear lets play go on; the hole card not known, the
floorperson enters it as read from the layout, checked against its seal, or the clear
voids the round.

``resume`` appends one ``resumed`` row describing what it found; the halt follows.
A later replay meets that row and stops the table there again in the same way.
Nothing journaled is changed. The daemon's rows (``DAEMON_ROWS``: the journal's
header, ``resumed``, ``snapshot``) are never taken for the table's output.
"""

from controller.recovery.inputs import (
    DAEMON_ROWS,
    INPUTS,
    JOURNAL,
    RESUMED,
    SNAPSHOT,
    RecoveryError,
    decode,
    openings,
)
from controller.recovery.positions import driver_positions
from controller.recovery.replay import resume
from controller.recovery.rounds import Interrupted
from controller.recovery.snapshots import SNAPSHOT_EVERY, Snapshots, from_last_snapshot

__all__ = [
    "DAEMON_ROWS",
    "INPUTS",
    "JOURNAL",
    "RESUMED",
    "SNAPSHOT",
    "SNAPSHOT_EVERY",
    "Interrupted",
    "RecoveryError",
    "Snapshots",
    "decode",
    "driver_positions",
    "from_last_snapshot",
    "openings",
    "resume",
]
