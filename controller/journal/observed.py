"""A journal that the table's own thread can watch: how many entries of each type were
written, the last of each, and callbacks run with every entry once it is durable. The
bench's dealer, the daemon's autoplay console and the live view follow the table this
way, by its record, never by reaching into its state.

``batch()`` groups what one input writes: the entries are kept as one transaction
(``_transaction``), and the watchers, and whatever waited for them to be durable
(``when_durable``: a device's acknowledgement), run once it has committed."""

from __future__ import annotations

import contextlib
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Callable, Iterator, Mapping

Watcher = Callable[[Mapping[str, object]], None]


class ObservedJournal(ABC):
    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.last: dict[str, Mapping[str, object]] = {}  # the last entry of each type
        self.watchers: list[Watcher] = []
        # A batch's entries (with what ``_write`` returned) and its callbacks, until
        # it commits; None: no batch, every entry is durable when it is written.
        self._held: list[tuple[object, Mapping[str, object]]] | None = None
        self._waiting: list[Callable[[], None]] = []

    @property
    def last_refusal(self) -> Mapping[str, object]:
        return self.last.get("refused", {})

    def record(self, entry: Mapping[str, object]) -> None:
        """Write ``entry`` (``_write``), then tell the watchers once it is durable: now,
        or when the batch it is written in commits."""
        written = self._write(entry)
        kind = str(entry.get("type"))
        self.counts[kind] += 1
        self.last[kind] = entry
        if self._held is None:
            self._durable(written, entry)
        else:
            self._held.append((written, entry))

    @property
    def held(self) -> int:
        """How many entries the open batch holds, not durable yet (0 outside a batch)."""
        return 0 if self._held is None else len(self._held)

    def held_from(self, start: int) -> list[Mapping[str, object]]:
        """The open batch's entries from the ``start``'th on, in the order written."""
        return [] if self._held is None else [entry for _, entry in self._held[start:]]

    def when_durable(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` once every entry written so far is durable."""
        if self._held is None:
            callback()
        else:
            self._waiting.append(callback)

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """The entries written inside, durable together when it ends; then the callbacks
        waiting for them, then the watchers of each entry, in order. Nested, the outer
        batch commits. An exception inside: nothing of it is durable, nobody is told."""
        if self._held is not None:
            yield
            return
        self._held = []
        try:
            with self._transaction():
                yield
            held, waiting = self._held, self._waiting
        finally:
            self._held, self._waiting = None, []
        for callback in waiting:
            callback()
        self._all_durable(held)

    def _all_durable(self, held: list[tuple[object, Mapping[str, object]]]) -> None:
        """A batch's entries are durable (each with what ``_write`` returned for it)."""
        for written, entry in held:
            self._durable(written, entry)

    def _durable(self, written: object, entry: Mapping[str, object]) -> None:
        """``entry`` is durable (``written``: what ``_write`` returned for it)."""
        for watch in self.watchers:
            watch(entry)

    @abstractmethod
    def _write(self, entry: Mapping[str, object]) -> object:
        """Keep ``entry``; durable when this returns, or, inside ``_transaction``, when
        that ends. What it returns is handed to ``_durable``."""

    def _transaction(self) -> contextlib.AbstractContextManager[object]:
        """Around a batch: what makes its entries durable together. Here every entry is
        durable when it is written."""
        return contextlib.nullcontext()
