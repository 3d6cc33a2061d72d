"""structlog, imported without rich.

structlog imports rich when it is installed, for its console renderer and its
tracebacks' reprs; rich brings pygments. Every process here (the daemon, the CLI's
commands, the firmware simulators) logs JSON lines through ``JSONRenderer`` and needs
neither, and they were over a third of a simulator's imports and a tenth of the
daemon's. A process's entry point imports structlog from here, before anything else
imports it (``from drivers.logs import structlog``); every later ``import structlog``
gets the same module. Without rich, structlog shows a traceback's locals with
``repr`` (its documented fallback). rich itself stays importable: the daemon's view
on a terminal imports it when it draws.
"""

from __future__ import annotations

import sys
from types import ModuleType
from typing import TYPE_CHECKING

__all__ = ["structlog"]


def _without_rich() -> ModuleType:
    if "structlog" in sys.modules or "rich" in sys.modules:
        import structlog as loaded

        return loaded
    sys.modules["rich"] = None  # type: ignore[assignment]  # "import rich" fails: ImportError
    try:
        import structlog as lean
    finally:
        del sys.modules["rich"]
    return lean


if TYPE_CHECKING:
    import structlog
else:
    structlog = _without_rich()
