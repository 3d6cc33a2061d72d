"""/scoreboard in a real browser against a whole shoe a real simulated daemon played
(``tablectl run --simulate --pace-ms 0``): its bead plate, round by round, and its
counts are the journal's results; the web reads them from the journal read-only, the
daemon gone (so the board stays up while the table is away)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.support.browser import chromium, open_page
from tests.support.web import journal_entries, users_file, web_process

SEED = "3"
WINNER = {"banker": "B", "player": "P", "tie": "T"}


def _played(workdir: Path, rounds: int) -> list[dict[str, object]]:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "controller.cli",
            "run",
            "--simulate",
            "--plain",
            "--pace-ms",
            "0",
            "--seed",
            SEED,
            "--rounds",
            str(rounds),
            "--workdir",
            str(workdir),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return [e for _, e in journal_entries(workdir / "journal.db") if e["type"] == "round_end"]


def test_the_bead_plate_is_the_journals_shoe(tmp_path: Path) -> None:
    # How many rounds the seeded shoe holds, then a table that plays just that shoe.
    first = _played(tmp_path / "probe", 120)
    whole = sum(1 for e in first if e["shoe"] == 1)
    assert 0 < whole < len(first), "the probe played past its first shoe"
    ends = _played(tmp_path / "table", whole)
    assert [e["shoe"] for e in ends] == [1] * whole
    users = users_file(tmp_path / "users.toml")
    with chromium() as browser, web_process(tmp_path / "table", users) as web:
        board = open_page(browser, web.base, "/scoreboard", live=False)
        page = board.page
        page.wait_for_selector(f"#bead .bead[data-round='{ends[-1]['round']}']")
        beads = page.locator("#bead .bead")
        shown = [
            (
                int(beads.nth(i).get_attribute("data-round") or 0),
                beads.nth(i).inner_text(),
                "natural" in (beads.nth(i).get_attribute("class") or ""),
            )
            for i in range(beads.count())
        ]
        settled = [e for e in ends if not e["void"]]
        assert shown == [
            (e["round"], WINNER[str(e["result"])], bool(e["natural"])) for e in settled
        ]
        counts = {k: sum(1 for e in settled if e["result"] == k) for k in WINNER}
        assert page.inner_text("#count-text").startswith(
            f"Banker {counts['banker']} · Player {counts['player']} · Tie {counts['tie']}"
        )
        road = page.locator("#road .road")
        assert (
            road.count() == len(settled) - counts["tie"]
        )  # a tie marks a cell, no cell of its own
        page.close()
