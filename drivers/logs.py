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

structlog's standard-library and native loggers import asyncio for their ``a*``
coroutine methods alone, which nothing here calls; asyncio is a fifth of a
simulator's imports. Unless something has imported it already, structlog is handed a
stand-in for asyncio while it is imported: the first name structlog looks up in it
imports the real asyncio; anyone else's ``import asyncio`` gets the real one.
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType
from typing import TYPE_CHECKING

__all__ = ["structlog"]


def _forwarding(name: str) -> ModuleType:
    """A stand-in for the module ``name``: each of its names, looked up, imports the
    real module (once) and is that module's."""
    stand_in = ModuleType(name)

    def forward(attr: str) -> object:
        real = importlib.import_module(name)
        if real is stand_in:  # looked up while structlog is imported: not there
            raise AttributeError(f"module {name!r} has no attribute {attr!r}")
        return getattr(real, attr)

    stand_in.__getattr__ = forward  # type: ignore[method-assign]  # PEP 562
    return stand_in


def _without_rich() -> ModuleType:
    if "structlog" in sys.modules or "rich" in sys.modules:
        import structlog as loaded

        return loaded
    stand_in = None if "asyncio" in sys.modules else _forwarding("asyncio")
    if stand_in is not None:
        sys.modules["asyncio"] = stand_in
    sys.modules["rich"] = None  # type: ignore[assignment]  # "import rich" fails: ImportError
    try:
        import structlog as lean
    finally:
        del sys.modules["rich"]
        if stand_in is not None and sys.modules.get("asyncio") is stand_in:
            del sys.modules["asyncio"]  # the next "import asyncio" loads the real one
    return lean


if TYPE_CHECKING:
    import structlog
else:
    structlog = _without_rich()
