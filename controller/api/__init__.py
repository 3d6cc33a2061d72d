"""The daemon's console API: JSON lines over Unix stream sockets (docs/api.md).

Three sockets in the runtime directory, each checked against its peer's credentials
(``SO_PEERCRED``, and ``SO_PEERGROUPS`` for supplementary groups; ``access``):

* ``dealer.sock``: the dealer's commands, and the event stream;
* ``floor.sock``: the floorperson's commands, and the event stream;
* ``events.sock``: the event stream only (displays, monitors).

Which socket takes a command is decided in one place, ``ROLES``; the commands
themselves are discovered from ``controller.table.events`` at import (``commands``).

Threads (``server``): one I/O thread owns every socket; the table's thread only calls
``publish`` (and ``handling``), which never touch a socket. Each client has a bounded
queue; a client whose queue overflows is sent one ``overflow`` notice and dropped
(``fanout``). Commands go the other way through ``submit`` (``requests``).

The hole card never leaves through this API before the reveal (551.8(e)): the table
records it ``"card": null, "sealed": true``, and an entry that nevertheless carries a
card value under ``sealed`` is withheld here as well, as a ``withheld`` notice
(``sealed``, the filter every reader of the stream shares).
"""

from controller.api.access import Access, Peer, peer_of
from controller.api.commands import (
    COMMANDS,
    ROLES,
    SOCKETS,
    CommandSpec,
    FieldSpec,
    Role,
    discover,
)
from controller.api.errors import ApiError, RegistryError
from controller.api.fanout import DROP_GRACE, QUEUE_LIMIT
from controller.api.listeners import BACKLOG, SOCKET_MODE
from controller.api.requests import MAX_LINE, Submit, Ticket
from controller.api.sealed import carries_sealed_card
from controller.api.server import MAX_CLIENTS, ApiServer
from controller.api.wire import VERSION

__all__ = [
    "BACKLOG",
    "COMMANDS",
    "DROP_GRACE",
    "MAX_CLIENTS",
    "MAX_LINE",
    "QUEUE_LIMIT",
    "ROLES",
    "SOCKETS",
    "SOCKET_MODE",
    "VERSION",
    "Access",
    "ApiError",
    "ApiServer",
    "CommandSpec",
    "FieldSpec",
    "Peer",
    "RegistryError",
    "Role",
    "Submit",
    "Ticket",
    "carries_sealed_card",
    "discover",
    "peer_of",
]
