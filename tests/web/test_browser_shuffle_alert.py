"""The floor console's shuffle-alert banner and its acknowledgement (issue 14), in a real
browser against a real ``tablectl web`` and a real simulated daemon: a table whose
shuffler riffles once (``--shuffle-model riffle:1``) plays into its third shoe, the
daemon journaling the second's alert. The web is started on that journal with the
daemon away: /floor shows the alert from the journal it reads. The daemon started again
ends the third shoe (the simulated shoe's cards loaded again mid-shoe), whose riffled
order alerts too, and plays on slowly enough that no other shoe ends: /floor shows the
latest alert (shoe, failed checks, smallest p-value) and the earlier one from the
daemon's status; the console's generic form offers ``acknowledge_shuffle_alert`` (in
``accepts`` while an alert waits) with its int field ``shoe`` filled in with the latest
alert's shoe; sending it journals the command with the login, and the banner goes: one
acknowledgement covers the earlier alert too."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

from tests.support.browser import chromium, open_page
from tests.support.floor import users_file  # in this process: no argon2 subprocesses
from tests.support.web import Web, commands_in, journal_entries, simulated_daemon, web_process

# Seed 11's first two shoes end after 159 rounds: the 170th is in the third.
RIFFLED = ["--shuffle-model", "riffle:1", "--seed", "11", "--rounds", "170", "--pace-ms", "0"]


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as b:
        yield b


def riffled_table(table: Path) -> None:
    """The riffled table's first run, to its end: its journal holds shoe 2's alert."""
    argv = [sys.executable, "-m", "controller.cli", "run", "--simulate", *RIFFLED]
    done = subprocess.run(
        [*argv, "--workdir", str(table)], stdin=subprocess.DEVNULL, capture_output=True, timeout=60
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]


def p_text(p: float) -> str:
    """A p-value as the page writes it (JavaScript's toExponential(1) below 0.001)."""
    if p >= 0.001:
        return f"{p:.3f}"
    mantissa, exponent = f"{p:.1e}".split("e")
    return f"{mantissa}e{int(exponent)}"


def test_the_floor_sees_the_alert_and_acknowledges_it_with_the_shoe_filled_in(
    browser: Browser, tmp_path: Path
) -> None:
    table = tmp_path / "table"
    riffled_table(table)
    with web_process(table, users_file(tmp_path / "users.toml")) as web:
        # The daemon away: the banner from the journal the web reads (its table model).
        floor = open_page(browser, web.base, "/floor", "fred", live=False).page
        floor.wait_for_selector("#shuffle-alert-text[data-shoe='2']")
        assert floor.inner_text("#link") == "daemon unreachable"
        # Slow enough that the next shoe does not end (no other alert comes) meanwhile.
        with simulated_daemon(table, "--pace-ms", "1000"):
            acknowledged(floor, web)
        floor.context.close()


def acknowledged(floor: Page, web: Web) -> None:
    """/floor with the daemon back: the alerts of shoes 2 and 3, then acknowledged."""
    floor.wait_for_selector("#shuffle-alert-text[data-shoe='3']")
    alerts = [e for _, e in journal_entries(web.journal) if e["type"] == "shuffle_alert"]
    assert [a["shoe"] for a in alerts] == [2, 3] and all(a["failed"] for a in alerts)
    latest, p_values = alerts[-1], alerts[-1]["p_values"]
    assert floor.inner_text("#shuffle-alert-text") == (
        f"Shuffle alert, shoe 3: {', '.join(latest['failed'])}; "
        f"smallest p-value {p_text(min(p_values.values()))} (also shoe 2)"
    )
    assert floor.locator("#shuffle-alert").get_attribute("role") == "alert"
    form = floor.locator("#commands [data-command=acknowledge_shuffle_alert]")
    form.wait_for()  # the specs asked again once the daemon is reached
    shoe = form.locator("input[name=shoe]")
    assert shoe.get_attribute("type") == "number" and shoe.input_value() == "3"
    form.locator("button").click()
    floor.wait_for_selector("#answer-text:has-text('acknowledge shuffle alert: done')")
    floor.wait_for_selector("#shuffle-alert[hidden]", state="attached")
    assert floor.locator("#shuffle-alert-text").count() == 0
    (sent,) = commands_in(web.journal, "acknowledge_shuffle_alert")
    assert sent["shoe"] == 3 and sent["login"] == "fred"
    # No alert waits now: the form is gone with it (the status's accepts).
    form.wait_for(state="detached")
