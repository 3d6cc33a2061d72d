"""Failed logins, counted per login and per client address: after ``limit`` failures
within ``window`` seconds, further attempts on that key are refused (HTTP 429 with a
Retry-After) until the oldest failure leaves the window."""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable
from typing import Final

LIMIT: Final = 5
WINDOW: Final = 300.0  # seconds


class FailedLogins:
    def __init__(
        self,
        limit: int = LIMIT,
        window: float = WINDOW,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.limit = limit
        self.window = window
        self._clock = clock
        self._failures: dict[str, deque[float]] = {}

    def _recent(self, key: str) -> deque[float]:
        now = self._clock()
        failures = self._failures.get(key)
        if failures is None:
            return deque()
        while failures and failures[0] <= now - self.window:
            failures.popleft()
        if not failures:
            del self._failures[key]
        return failures

    def retry_after(self, *keys: str) -> int:
        """Seconds until any of ``keys`` may try again (0: now)."""
        wait = 0.0
        for key in keys:
            failures = self._recent(key)
            if len(failures) >= self.limit:
                wait = max(wait, failures[0] + self.window - self._clock())
        return math.ceil(wait) if wait > 0 else 0

    def failed(self, *keys: str) -> None:
        """A failure for each of ``keys``. Keys whose failures have all left the window
        are forgotten, and a key keeps only its last ``limit`` (all the check needs),
        so logins invented by the thousand cost memory for one window at most."""
        now = self._clock()
        for stale in [k for k, times in self._failures.items() if times[-1] <= now - self.window]:
            del self._failures[stale]
        for key in keys:
            self._failures.setdefault(key, deque(maxlen=self.limit)).append(now)

    def __len__(self) -> int:
        """The keys with a failure still counted."""
        return len(self._failures)
