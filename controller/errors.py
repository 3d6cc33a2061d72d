"""The controller's base error and the exit codes every ``tablectl`` command uses.

An error a user can cause (a bad file, a bad option, a device that is not there) is
raised as a ``TablectlError`` (or, from the drivers, a ``drivers.errors.DriverError``)
whose message is one line; the command prints it with ``fail`` and exits non-zero,
never with a traceback. Exit codes: docs/cli.md.
"""

from __future__ import annotations

import sys
from typing import Final, TextIO

from drivers.errors import DriverError

EXIT_OK: Final = 0
EXIT_FAILURE: Final = 1  # the command ran and failed: a device, a journal, a broken chain
EXIT_USAGE: Final = 2  # the command cannot run as given: an option, a file, a value
EXIT_INTERRUPTED: Final = 130  # Ctrl-C


class TablectlError(Exception):
    """Base of every error the controller raises on purpose; the message is one line."""


# What a command catches at its top and reports in one line: its own errors and the
# drivers'. Anything else is a bug and keeps its traceback.
EXPECTED: Final = (TablectlError, DriverError)


def fail(message: str, status: int = EXIT_FAILURE, stream: TextIO | None = None) -> int:
    """Print ``message`` as one ``tablectl: error:`` line and return ``status``."""
    print(f"tablectl: error: {' '.join(str(message).split())}", file=stream or sys.stderr)
    return status
