"""The pages in a real browser (Chromium, driven by Playwright) against a real
``tablectl web`` and a real simulated daemon dealing by itself: each role's login and
page, a floor command refused to a dealer login, a command without its CSRF token
refused, failed logins limited."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from tests.support.browser import chromium, open_page
from tests.support.web import (
    Web,
    commands_in,
    journal_entries,
    simulated_daemon,
    users_file,
    web_process,
)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as b:
        yield b


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Web]:
    root = tmp_path_factory.mktemp("browser")
    users = users_file(root / "users.toml")
    with (
        simulated_daemon(root / "table", "--pace-ms", "50"),
        web_process(root / "table", users) as w,
    ):
        yield w


def test_the_scoreboard_is_public_and_fills_live(browser: Browser, web: Web) -> None:
    board = open_page(browser, web.base, "/scoreboard")
    # The robot plays on: rounds reach the bead plate as their round_end is journaled.
    board.page.wait_for_selector("#bead .bead", timeout=30_000)
    beads = board.page.locator("#bead .bead").count()
    ended = [
        e for _, e in journal_entries(web.journal) if e["type"] == "round_end" and not e["void"]
    ]
    assert 1 <= beads <= len(ended)
    assert board.page.get_by_text("Log in").count() == 1  # no session: no console link
    board.page.close()


def test_each_role_logs_in_to_its_console(browser: Browser, web: Web) -> None:
    dealer = open_page(browser, web.base, "/dealer", "dana")
    assert dealer.page.locator("header h1").inner_text() == "Dealer"
    dealer.page.wait_for_selector("#table-state")
    assert "Log out dana (dealer)" in dealer.page.inner_text("nav")
    assert dealer.page.locator("#commands [data-command]").count() >= 1
    # A dealer's login is not the floor's.
    response = dealer.page.goto(web.base + "/floor")
    assert response is not None and response.status == 403
    assert "needs a floor login" in dealer.page.inner_text("#error")
    floor = open_page(browser, web.base, "/floor", "fred")
    floor.page.wait_for_selector("#table-state")
    assert floor.page.locator("#commands [data-command=reshuffle]").count() in (0, 1)
    floor.page.click("#verify")
    floor.page.wait_for_selector("#verdict:has-text('chain intact')")
    pit = floor.page.context.new_page()
    pit.goto(web.base + "/pit")
    pit.wait_for_selector("#shift p")
    assert "Drop" in pit.inner_text("#shift")
    for page in (dealer.page, floor.page, pit):
        page.close()


def _post(page: object, name: str, args: dict[str, object], token: bool) -> dict[str, object]:
    script = """async ([name, args, token]) => {
      const csrf = document.querySelector('meta[name="csrf"]').content;
      const headers = {"Content-Type": "application/json"};
      if (token) headers["X-CSRF-Token"] = csrf;
      const r = await fetch("/api/command", {method: "POST", headers,
        body: JSON.stringify({name, args})});
      return {status: r.status, body: await r.json()};
    }"""
    return page.evaluate(script, [name, args, token])  # type: ignore[attr-defined, no-any-return]


def test_a_floor_command_is_refused_to_a_dealer_login(browser: Browser, web: Web) -> None:
    dealer = open_page(browser, web.base, "/dealer", "dana")
    answer = _post(dealer.page, "permit_wagering", {"player": "p9"}, token=True)
    assert answer["status"] == 403
    assert answer["body"] == {  # type: ignore[comparison-overlap]
        "outcome": "refused_by_web",
        "message": "permit_wagering is a floor command: a dealer login may not send it",
    }
    assert dealer.page.locator("[data-command=permit_wagering]").count() == 0
    time.sleep(0.3)
    assert commands_in(web.journal, "permit_wagering") == []
    dealer.page.close()


def test_a_command_without_the_csrf_token_is_refused(browser: Browser, web: Web) -> None:
    dealer = open_page(browser, web.base, "/dealer", "dana")
    answer = _post(dealer.page, "call_floor", {"reason": "csrf probe"}, token=False)
    assert answer["status"] == 403 and "CSRF" in str(answer["body"])
    with_token = _post(dealer.page, "call_floor", {"reason": "csrf probe"}, token=True)
    assert with_token["status"] == 200, with_token
    calls = [e for e in commands_in(web.journal, "call_floor") if e.get("reason") == "csrf probe"]
    assert len(calls) == 1 and calls[0]["login"] == "dana"  # the one with its token alone
    dealer.page.close()


def test_failed_logins_are_limited_in_the_browser(browser: Browser, tmp_path: Path) -> None:
    users = users_file(tmp_path / "users.toml")
    with web_process(tmp_path, users, journal=False) as w:
        page = browser.new_page()
        page.goto(w.base + "/login")
        statuses = []
        for _ in range(6):
            page.fill("input[name=login]", "dana")
            page.fill("input[name=password]", "wrong")
            with page.expect_response(
                lambda r: r.url.endswith("/login") and r.request.method == "POST"
            ) as reply:
                page.click("button[type=submit]")
            statuses.append(reply.value.status)
        assert statuses == [401] * 5 + [429]
        assert "Too many failed logins: try again in" in page.inner_text("#error")
        page.close()


def test_a_page_waits_for_the_daemon_and_follows_it_when_it_comes(
    browser: Browser, tmp_path: Path
) -> None:
    users = users_file(tmp_path / "users.toml")
    table = tmp_path / "table"
    table.mkdir()
    with web_process(table, users, journal=False) as w:
        board = open_page(browser, w.base, "/scoreboard", live=False)
        board.page.wait_for_selector("#link:text-is('daemon unreachable')")
        with simulated_daemon(table, "--pace-ms", "50"):
            board.page.wait_for_selector("#link:text-is('live')", timeout=20_000)
            board.page.wait_for_selector("#bead .bead", timeout=30_000)
        # The daemon gone again: the page says so, and keeps the shoe's results.
        board.page.wait_for_selector("#link:text-is('daemon unreachable')", timeout=10_000)
        assert board.page.locator("#bead .bead").count() >= 1
        board.page.close()


def test_a_new_table_in_the_same_place_replaces_the_old_ones_view(
    browser: Browser, tmp_path: Path
) -> None:
    users = users_file(tmp_path / "users.toml")
    table = tmp_path / "table"
    with simulated_daemon(table, "--pace-ms", "0", "--rounds", "30") as first:
        assert first.wait(60) == 0  # a first table plays its rounds and ends
    old = journal_entries(table / "journal.db")[-1][0]
    with web_process(table, users) as w:  # it reads the first table's journal
        dealer = open_page(browser, w.base, "/dealer", "dana", live=False)
        dealer.page.wait_for_selector(f"body[data-seq='{old}']")
        for name in ("journal.db", "journal.db-wal", "journal.db-shm", "journal.checkpoint"):
            (table / name).unlink(missing_ok=True)
        (table / "journal.tail").unlink(missing_ok=True)
        with simulated_daemon(table, "--pace-ms", "200"):  # a new journal from seq 1
            dealer.page.wait_for_selector("#link:text-is('live')", timeout=20_000)
            # The page starts the new table's view at 0, then its entries come: wait for
            # them (a read at once can land between the two; 0 stays 0 if the web drops
            # the new rows as seen already, and the wait fails).
            new = f"body:not([data-seq='{old}']):not([data-seq='0'])"
            dealer.page.wait_for_selector(new, timeout=10_000)
            seq = int(dealer.page.get_attribute("body", "data-seq") or 0)
            assert 0 < seq < old  # the new table's entries, not dropped as seen already
            dealer.page.wait_for_selector(f"body:not([data-seq='{seq}'])", timeout=10_000)
        dealer.page.close()
