"""The floor console's shuffle-alert banner and its acknowledgement (issue 14), in a real
browser against a real ``tablectl web`` and a real simulated daemon: a table that has
played a few rounds, its journal then given a ``shuffle_alert`` row written with the
project's journal class (the row the daemon writes at a shoe's end), the daemon started
again on it. /floor shows the alert (shoe, failed checks, smallest p-value); the
console's generic form offers ``acknowledge_shuffle_alert`` with its int field ``shoe``
filled in with the alert's shoe; sending it journals the command with the login, and
the banner goes."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser

from controller.journal import SqliteJournal
from tests.support.browser import chromium, open_page
from tests.support.floor import users_file  # in this process: no argon2 subprocesses
from tests.support.web import Web, commands_in, simulated_daemon, web_process

ALERT = {"type": "shuffle_alert", "shoe": 1, "game": "baccarat", "confidence": 0.99,
         "window": 10, "threshold": 5e-6, "failed": ["rising_sequences", "spearman@window"],
         "p_values": {"rising_sequences": 3.2e-7, "spearman@window": 1e-6, "chi2": 0.41},
         "tests": [{"name": "rising_sequences", "statistic": 2.0, "p_value": 3.2e-7, "n": 416}],
         "tested_on": "2026-12-02T04:30:00+00:00"}  # fmt: skip


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as b:
        yield b


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Web]:
    root = tmp_path_factory.mktemp("shufflealert")
    table = root / "table"
    argv = [sys.executable, "-m", "controller.cli", "run", "--simulate", "--rounds", "2"]
    argv += ["--pace-ms", "0", "--seed", "5", "--workdir", str(table)]
    done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    with SqliteJournal(table / "journal.db") as journal:
        journal.record(ALERT)
    users = users_file(root / "users.toml")
    # Slow enough that the shoe does not end (and no other alert comes) meanwhile.
    with simulated_daemon(table, "--pace-ms", "1000"), web_process(table, users) as w:
        yield w


def test_the_floor_console_shows_the_alert(browser: Browser, web: Web) -> None:
    floor = open_page(browser, web.base, "/floor", "fred").page
    floor.wait_for_selector("#shuffle-alert-text")
    assert floor.inner_text("#shuffle-alert-text") == (
        "Shuffle alert, shoe 1: rising_sequences, spearman@window; smallest p-value 3.2e-7"
    )
    assert floor.locator("#shuffle-alert").get_attribute("role") == "alert"
    floor.context.close()


def test_the_floor_acknowledges_it_with_the_shoe_filled_in(browser: Browser, web: Web) -> None:
    floor = open_page(browser, web.base, "/floor", "fred").page
    floor.wait_for_selector("#shuffle-alert-text")
    form = floor.locator("#commands [data-command=acknowledge_shuffle_alert]")
    form.wait_for(timeout=10_000)
    shoe = form.locator("input[name=shoe]")
    assert shoe.get_attribute("type") == "number" and shoe.input_value() == "1"
    form.locator("button").click()
    floor.wait_for_selector("#answer-text:has-text('acknowledge shuffle alert: done')")
    floor.wait_for_selector("#shuffle-alert[hidden]", state="attached")
    assert floor.locator("#shuffle-alert-text").count() == 0
    (sent,) = commands_in(web.journal, "acknowledge_shuffle_alert")
    assert sent["shoe"] == 1 and sent["login"] == "fred"
    floor.context.close()
