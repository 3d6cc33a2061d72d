"""What every component of the Spanish 21 table has: the table it belongs to."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from controller.table.spanish21.table import Spanish21Table


class Part:
    """One component of the table: it owns its state and the procedure around it. Through
    the table it records, prompts, stops play, fires triggers and reads the others."""

    def __init__(self, table: Spanish21Table) -> None:
        self._table = table
