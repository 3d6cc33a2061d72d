"""The web's own guard of the hole card (551.8(e)): an entry whose sealed card carries
a value, which the daemon's API never sends, is dropped by the web too, whoever sends
it: a stand-in ``events.sock`` sends one between two ordinary entries, and neither
the page's WebSocket messages, its DOM nor the web's log ever hold the card."""

from __future__ import annotations

from pathlib import Path

from tests.support.browser import chromium, open_page
from tests.support.fakedaemon import FakeEvents
from tests.support.web import users_file, web_process

CARD = "QS"
ENTRIES = [
    {"type": "journal", "format": 1, "game": "spanish21", "table": "t", "sealing_key": "00"},
    {"type": "wager", "round": 1, "box": 1, "bet": "spanish21", "amount": "10"},
    {"type": "dealt", "round": 1, "to": "dealer", "card": CARD, "sealed": True, "face_up": False},
    {"type": "prompt", "text": "BOX 1: 12", "shown": True, "section": "551.8(f)"},
]
TABLE = {
    "id": "t",
    "game": "spanish21",
    "ready": True,
    "state": "playing",
    "shoe": 1,
    "round": 1,
    "rounds_played": 0,
    "devices": {},
    "seq": 4,
}


def test_a_sealed_card_with_a_value_is_never_relayed(tmp_path: Path) -> None:
    users = users_file(tmp_path / "users.toml")
    fake = FakeEvents(tmp_path, ENTRIES, TABLE)
    try:
        with chromium() as browser, web_process(tmp_path, users, journal=False) as web:
            dealer = open_page(browser, web.base, "/dealer", "dana")
            dealer.page.wait_for_selector("body[data-seq='4']")  # the stream went on after it
            assert "BOX 1: 12" in dealer.page.inner_text("#prompt")
            assert dealer.frames and all(CARD not in frame for frame in dealer.frames)
            assert CARD not in dealer.page.content()
            dealer.page.close()
            log = web.log()
    finally:
        fake.close()
    assert '"web_entry_withheld"' in log and '"seq": 3' in log
    assert CARD not in log
