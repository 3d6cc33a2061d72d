"""Chromium driven by Playwright for the web's tests: Debian's /usr/bin/chromium (the
Makefile installs it; ``playwright install`` cannot download one here), a login, and a
record of every WebSocket message each page receives."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from playwright.sync_api import Browser, Page, sync_playwright

from tests.support.web import CHROMIUM, CHROMIUM_ARGS, PASSWORDS


@contextmanager
def chromium() -> Iterator[Browser]:
    assert os.access(CHROMIUM, os.X_OK), f"{CHROMIUM} is missing: apt-get install chromium"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@dataclass
class Recorded:
    """A page and every WebSocket message it received, in order."""

    page: Page
    frames: list[str] = field(default_factory=list)


def open_page(
    browser: Browser, base: str, path: str, login: str | None = None, live: bool = True
) -> Recorded:
    """The page at ``path``, logged in as ``login``; ``live``: once its WebSocket is up
    and the daemon reached."""
    page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    recorded = Recorded(page)

    def on_socket(ws: Any) -> None:
        ws.on("framereceived", lambda payload: recorded.frames.append(str(payload)))

    page.on("websocket", on_socket)
    if login is not None:
        page.goto(f"{base}/login?next={path}")
        page.fill("input[name=login]", login)
        page.fill("input[name=password]", PASSWORDS[login][1])
        page.click("button[type=submit]")
        page.wait_for_url(f"**{path}")
    else:
        page.goto(base + path)
    # Selectors, not wait_for_function: the pages' Content-Security-Policy forbids eval.
    page.wait_for_selector(
        "#link:text-is('live')" if live else "#link:not(:text-is('connecting…'))"
    )
    return recorded
