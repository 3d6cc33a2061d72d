"""Failpoints: named places where a crash test makes the process die on the spot.

``TABLECTL_FAILPOINTS`` (read once, at import) names them, comma-separated; ``NAME``
kills the process with SIGKILL the first time it reaches ``reached(NAME)``, and
``NAME@N`` the Nth time. Unset (every real table), ``ARMED`` is empty and a failpoint
costs one truth test. The crash campaign (docs/reliability.md) uses them to land a
kill in a window too narrow for a timer: between two rows of one input, half-way
through creating a journal or writing a key file.

The names in use:

- ``journal.committed:TYPE``: a row of type TYPE is durable in the journal.
- ``journal.creating``: a new journal file (still ``.journal.db.creating``) has its
  SQLite header and not yet its schema, its first row or its name.
- ``journal.placed``: a new journal is in place, its sealing key not yet
  (controller/journal/create.py).
- ``key.writing``: a key file (a device's, or the new journal's sealing key) has been
  partly written under its temporary name (drivers/durable.py).
"""

from __future__ import annotations

import os
import signal
from collections import Counter
from typing import Final


def _armed(setting: str) -> dict[str, int]:
    armed: dict[str, int] = {}
    for item in filter(None, (part.strip() for part in setting.split(","))):
        name, _, nth = item.partition("@")
        armed[name] = int(nth) if nth.isdigit() and int(nth) > 0 else 1
    return armed


ARMED: Final = _armed(os.environ.get("TABLECTL_FAILPOINTS", ""))
_seen: Counter[str] = Counter()


def reached(name: str) -> None:
    """Die here if ``name`` is armed and this is its Nth time; otherwise nothing."""
    nth = ARMED.get(name)
    if nth is None:
        return
    _seen[name] += 1
    if _seen[name] == nth:
        os.kill(os.getpid(), signal.SIGKILL)
