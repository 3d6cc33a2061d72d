"""``tablectl status``, ``events`` and ``send``: the console API's client side.

Each command opens one connection to a socket of the daemon's runtime directory
(``--runtime-dir``, else ``$TABLECTL_RUNTIME_DIR``, else ``/run/tablectl``) and speaks
the JSON lines of docs/api.md (``connection``). Exit codes (docs/cli.md): 0 done, 1 the
daemon cannot be reached or cannot serve the request, 2 bad input (ours or as the API
judged it), 3 a command the table refused. Every failure is one line on stderr.

Nothing here prints a value the user typed back: a floorperson's card may be the hole
card (551.8(e)); errors name the field or the argument's position instead.
"""

from controller.client.cli import COMMANDS, add_parsers, run
from controller.client.connection import ClientError, Connection, NoAnswer

__all__ = ["COMMANDS", "ClientError", "Connection", "NoAnswer", "add_parsers", "run"]
