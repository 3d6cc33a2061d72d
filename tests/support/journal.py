"""An in-memory journal: the table's record as a list."""

from __future__ import annotations

from collections.abc import Mapping


class MemoryJournal:
    """Keeps every entry, in order; durable for as long as the process lives."""

    def __init__(self) -> None:
        self.entries: list[dict[str, object]] = []

    def record(self, entry: Mapping[str, object]) -> None:
        self.entries.append(dict(entry))

    def of_type(self, kind: str) -> list[dict[str, object]]:
        return [e for e in self.entries if e.get("type") == kind]
