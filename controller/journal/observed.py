"""A journal that the table's own thread can watch: how many entries of each type were
written, the last of each, and callbacks run with every entry once it is durable. The
bench's dealer, the daemon's autoplay console and the live view follow the table this
way, by its record, never by reaching into its state."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Callable, Mapping

Watcher = Callable[[Mapping[str, object]], None]


class ObservedJournal(ABC):
    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.last: dict[str, Mapping[str, object]] = {}  # the last entry of each type
        self.watchers: list[Watcher] = []

    @property
    def last_refusal(self) -> Mapping[str, object]:
        return self.last.get("refused", {})

    def record(self, entry: Mapping[str, object]) -> None:
        """Write ``entry`` durably (``_write``), then tell the watchers."""
        self._write(entry)
        kind = str(entry.get("type"))
        self.counts[kind] += 1
        self.last[kind] = entry
        for watch in self.watchers:
            watch(entry)

    @abstractmethod
    def _write(self, entry: Mapping[str, object]) -> None:
        """Keep ``entry``; durable when this returns."""
