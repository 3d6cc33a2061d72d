"""The bench's record: the table's journal as JSON lines."""

from __future__ import annotations

import json
from collections.abc import Mapping
from decimal import Decimal
from typing import TextIO

from controller.journal.observed import ObservedJournal


class JsonlJournal(ObservedJournal):
    """The bench's record: one JSON object per line, flushed before ``record`` returns,
    so a card is on file before it is acknowledged to the shoe."""

    def __init__(self, out: TextIO) -> None:
        super().__init__()
        self._out = out

    def _write(self, entry: Mapping[str, object]) -> None:
        self._out.write(json.dumps(entry, default=json_value) + "\n")
        self._out.flush()


def json_value(value: object) -> object:
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    raise TypeError(f"{type(value).__name__} is not JSON")
