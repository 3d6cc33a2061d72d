"""The failed-login counter (controller/web/ratelimit.py) forgets what left its window:
a flood of invented logins does not grow the web process for longer than that."""

from __future__ import annotations

from controller.web.ratelimit import FailedLogins


def test_failures_past_the_window_are_forgotten_and_a_key_keeps_only_its_limit() -> None:
    now = [1000.0]
    limiter = FailedLogins(limit=5, window=300.0, clock=lambda: now[0])
    for n in range(1000):
        limiter.failed(f"login:invented{n}", "addr:192.0.2.7")
    assert len(limiter) == 1001
    assert limiter.retry_after("addr:192.0.2.7") == 300  # limited, as before
    assert len(limiter._failures["addr:192.0.2.7"]) == 5
    now[0] += 301.0
    assert limiter.retry_after("addr:192.0.2.7") == 0
    limiter.failed("login:dana", "addr:192.0.2.8")
    assert len(limiter) == 2
