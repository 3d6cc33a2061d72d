"""A round of Baccarat and one of Spanish 21 played entirely from the pages, in a real
browser, on a table played by hand (``tablectl run --simulate --manual``): each step
what /dealer says the table waits for, the cards drawn and the shuffle started from its
simulated devices panel, the reader inspection from /floor; the journal's round
checked against the page, every command journaled with its login. Spanish 21: every
WebSocket message and the DOM after each step scanned for the hole card before its
reveal (551.8(e))."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from tests.support.browser import Recorded, chromium, open_page
from tests.support.web import journal_entries, simulated_daemon, users_file, web_process

STEPS = 300


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as b:
        yield b


class Hands:
    """The dealer's and the floor's pages of one table, and what they saw."""

    def __init__(self, dealer: Recorded, floor: Recorded, journal: Path) -> None:
        self.dealer, self.floor, self.journal = dealer, floor, journal
        self.snapshots: list[tuple[int, str]] = []  # (data-seq, the DOM's text)
        self.web_log = ""  # the web process's log, once it has stopped

    @property
    def page(self) -> Page:
        return self.dealer.page

    def seq(self) -> int:
        return int(self.page.get_attribute("body", "data-seq") or 0)

    def need(self) -> str:
        return self.page.get_attribute("body", "data-need") or ""

    def settle(self, before: int) -> None:
        """Until the page shows an entry after ``before`` and its status is as of it."""
        self.page.wait_for_selector(f"body:not([data-seq='{before}'])", timeout=10_000)
        self.page.wait_for_timeout(60)  # the status that follows the entries
        self.snapshots.append((self.seq(), self.page.content()))

    def panel(self, action: str) -> None:
        before = self.seq()
        self.page.click(f"[data-panel={action}]")
        self.page.wait_for_selector("#panel-text")
        text = self.page.inner_text("#panel-text")
        assert text.endswith("done"), text
        self.page.evaluate("document.getElementById('panel-answer').replaceChildren()")
        self.settle(before)

    def command(
        self, page: Page, name: str, fields: dict[str, str] | None = None, label: str | None = None
    ) -> str:
        before = self.seq()
        page.evaluate("document.getElementById('answer').replaceChildren()")
        form = page.locator(f"#commands [data-command={name}]")
        if label is not None:
            form = form.filter(has=page.locator(f"button:text-is('{label}')"))
        for field, value in (fields or {}).items():
            form.locator(f"input[name={field}]").fill(value)
        form.locator("button").click()
        page.wait_for_selector("#answer-text")
        answer = page.inner_text("#answer-text")
        if answer.endswith(": done"):
            self.settle(before)
        return answer


def _last(journal: Path, kind: str) -> dict[str, Any]:
    return [e for _, e in journal_entries(journal) if e["type"] == kind][-1]


def _step(hands: Hands, wager: dict[str, str], wagered: list[bool]) -> None:
    need = hands.need()
    dealer = hands.page
    if dealer.locator("#commands [data-command=offer_answer]").count():
        offer = _last(hands.journal, "offer")
        fields = {"what": str(offer["what"]), "seat": str(offer["seat"]), "answer": "decline"}
        assert hands.command(dealer, "offer_answer", fields).endswith("done")
    elif need == "shuffle":
        hands.panel("shuffle")
    elif need == "card":
        hands.panel("draw")
    elif need == "peek":
        hands.panel("insert_hole_card")
    elif need == "wagers" and not wagered:
        assert hands.command(dealer, "wager", wager).endswith("done")
        wagered.append(True)
    elif need == "wagers":
        assert hands.command(dealer, "no_more_bets").endswith("done")
    elif need == "inspection":
        assert hands.command(hands.floor.page, "inspect_reader").endswith("done")
    elif need == "decision":
        assert hands.command(dealer, "decision", label="decision stand").endswith("done")
    elif need == "reveal":
        assert hands.command(dealer, "dealers_card").endswith("done")
    else:
        dealer.wait_for_timeout(50)  # a device's answer on its way


def _play(hands: Hands, wager: dict[str, str]) -> None:
    wagered: list[bool] = []
    for _ in range(STEPS):
        if any(e["type"] == "round_end" for _, e in journal_entries(hands.journal)):
            hands.page.wait_for_selector("#result-text:has-text('Round 1')")
            return
        _step(hands, wager, wagered)
    raise AssertionError(f"the round did not end; the table needs {hands.need()}")


def _table(browser: Browser, root: Path, game: str) -> Iterator[Hands]:
    users = users_file(root / "users.toml")
    table = root / "table"
    with (
        simulated_daemon(table, "--manual", "--game", game, "--seed", "7"),
        web_process(table, users, "--simulated-devices", str(table)) as w,
    ):
        dealer = open_page(browser, w.base, "/dealer", "dana")
        floor = open_page(browser, w.base, "/floor", "fred")
        hands = Hands(dealer, floor, table / "journal.db")
        yield hands
        dealer.page.close()
        floor.page.close()
        hands.web_log = w.log()


def test_a_baccarat_round_played_from_the_dealers_page(browser: Browser, tmp_path: Path) -> None:
    for hands in _table(browser, tmp_path, "baccarat"):
        hands.page.wait_for_selector("body[data-need=shuffle]")
        # A refused command shows the table's reason and section, as the journal has it.
        while hands.need() != "wagers":
            _step(hands, {}, [True])  # no wager: up to the wagers
        answer = hands.command(hands.page, "wager", {"seat": "99", "bet": "banker", "amount": "10"})
        refused = _last(hands.journal, "refused")
        assert answer == f"wager refused: {refused['reason']} ({refused['section']})"
        _play(hands, {"seat": "1", "bet": "banker", "amount": "25"})
        entries = [e for _, e in journal_entries(hands.journal)]
        (end,) = [e for e in entries if e["type"] == "round_end"]
        shown = hands.page.inner_text("#result-text")
        assert f"player {end['player_total']}, banker {end['banker_total']}" in shown
        assert "seat 1" in hands.page.inner_text("#result")
        commands = [e for e in entries if e["type"] == "command"]
        assert commands and {e["login"] for e in commands} == {"dana"}


def _seen(entries: list[tuple[int, dict[str, Any]]], upto: int) -> set[str]:
    """The cards the journal shows face up up to ``upto`` (dealt or burned)."""
    return {
        str(e.get("card"))
        for s, e in entries
        if s <= upto and e.get("type") in ("dealt", "burn") and not e.get("sealed")
    }


# The page's CSRF token is 43 random URL-safe characters: a card's two characters turn
# up in it about once in a hundred pages. It is no card shown, so it is not scanned.
_CSRF = re.compile(r'(name="csrf" (?:content|value)=")[^"]*')


def _leaks(text: str, hole: str, nonce: str, shown_before: set[str]) -> bool:
    text = _CSRF.sub(r"\1", text)
    return nonce in text or (hole not in shown_before and hole in text)


def test_a_spanish21_round_from_the_pages_never_shows_the_hole_card_early(
    browser: Browser, tmp_path: Path
) -> None:
    for hands in _table(browser, tmp_path, "spanish21"):
        _play(hands, {"seat": "1", "bet": "spanish21", "amount": "10"})
        entries = journal_entries(hands.journal)
        (reveal_seq, reveal) = next((s, e) for s, e in entries if e["type"] == "reveal")
        hole, nonce = reveal["card"], reveal["opened"][0]["nonce"]
        sealed = [s for s, e in entries if e["type"] == "dealt" and e.get("sealed")]
        assert sealed and sealed[0] < reveal_seq

        frames = [json.loads(f) for f in hands.dealer.frames + hands.floor.frames]
        early = [f for f in frames if f["view"]["seq"] < reveal_seq]
        assert any(f["view"]["seq"] >= sealed[0] for f in early), "no frame while it was sealed"
        for frame in early:
            text = json.dumps(frame)
            assert not _leaks(text, hole, nonce, _seen(entries, frame["view"]["seq"])), frame[
                "view"
            ]["seq"]
        doms = [(s, html) for s, html in hands.snapshots if sealed[0] <= s < reveal_seq]
        assert doms, "no page seen while the hole card was sealed"
        for seq, html in doms:
            assert not _leaks(html, hole, nonce, _seen(entries, seq)), seq
            assert "face down" in html
        # After the reveal the page shows it.
        assert hole in hands.page.inner_text("#hands")
    # Nor in the web's log, which names no card at all.
    assert nonce not in hands.web_log and '"card"' not in hands.web_log
    assert "web_command" in hands.web_log
