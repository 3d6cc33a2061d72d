"""The live view's screen drawn from real journals (bench runs of the example scenarios)
with rich's own console at 80 columns and 24 lines: every frame fits, and it shows
the totals, busts, outcomes, nets and commission the round's ``round_end`` gives."""

from __future__ import annotations

import io
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from controller.daemon.screen import CARD_BACK, render
from controller.daemon.view import HOLD, LiveView
from controller.tableview import TableModel
from tests.support.tableview import bench_entries

SCENARIOS = {
    "baccarat": "baccarat-eight-decks",
    "midibaccarat": "midibaccarat-cover-card-at-hand-start",
    "spanish21": "spanish21-six-decks",
}
UNPLUG = [{"kind": "unplug", "device": "shoe", "at_card": 40, "duration_ms": 200}]
LOG = "/var/lib/tablectl/a-rather-long-work-directory-for-the-table/tablectl.log"


def screen(view: Mapping[str, Any], height: int = 24) -> list[str]:
    console = Console(width=80, height=height, record=True, file=io.StringIO())
    console.print(render(view, f"tablectl · {view['game']} table t-01", "", LOG, height))
    return console.export_text().splitlines()


def frames(
    game: str, fed: list[dict[str, Any]], at: tuple[str, ...] = ()
) -> list[tuple[dict[str, Any], list[str]]]:
    """The screen after each entry (of the types ``at``, or every one): the entry it
    followed, the screen's lines."""
    model = TableModel(game)
    drawn = []
    for seq, entry in enumerate(fed, start=1):
        model.feed(seq, entry)
        if not at or entry["type"] in at:
            drawn.append((entry, screen(model.view())))
    return drawn


@pytest.mark.parametrize("game", sorted(SCENARIOS))
def test_every_frame_fits_80_by_24(game: str, tmp_path: Path) -> None:
    fed = bench_entries(tmp_path, SCENARIOS[game], faults=UNPLUG)
    assert any(e["type"] == "halt" for e in fed[:700])
    for entry, lines in frames(game, fed[:700]):  # past the halt and its clear
        assert len(lines) <= 24, (entry, lines)
        assert max(len(line) for line in lines) <= 80, (entry, lines)
        assert lines[-1].startswith("Ctrl-C stops · log: …")  # the path's end is kept
        assert lines[-1].endswith("the-table/tablectl.log")
        assert "_" not in lines[1]  # the state in words


@pytest.mark.parametrize("game", ["baccarat", "midibaccarat"])
def test_baccarat_result_on_screen(game: str, tmp_path: Path) -> None:
    fed = bench_entries(tmp_path, SCENARIOS[game])
    ends = 0
    for entry, lines in frames(game, fed, at=("round_end",)):
        if entry["void"]:
            continue
        ends += 1
        text = "\n".join(lines)
        assert f"Player {entry['player_total']}, Banker {entry['banker_total']}" in text
        winner = {"player": "Player wins", "banker": "Banker wins", "tie": "Tie"}
        assert f"Round {entry['round']}: {winner[entry['result']]}" in text
        for seat, settled in entry.get("seats", {}).items():
            row = next(line for line in lines if re.match(rf"seat {seat}\b", line))
            net = str(settled["net"])
            assert (net if net.startswith("-") or net == "0" else f"+{net}") in row
            if settled["vigorish"]:
                assert f"vig {settled['vigorish']}" in row
    assert ends > 70
    assert any("natural" in "\n".join(lines) for _, lines in frames(game, fed, ("round_end",)))


def test_spanish21_result_on_screen(tmp_path: Path) -> None:
    fed = bench_entries(tmp_path, SCENARIOS["spanish21"])
    busts = 0
    for entry, lines in frames("spanish21", fed, at=("round_end",)):
        for box, settled in entry["boxes"].items():
            rows = [n for n, line in enumerate(lines) if line.startswith(f"box {box} ")]
            assert len(rows) == 1, lines
            for offset, hand in enumerate(settled["hands"]):
                row = lines[rows[0] + offset]
                words = {"lose": "lose", "win": "win", "push": "push"}.get(hand["outcome"])
                assert words is None or words in row, (row, hand)
                total = hand["total"]
                busts += total > 21
                assert (f"{total} BUST" if total > 21 else str(total)) in row
        assert f"Round {entry['round']}: dealer {entry['dealer_total']}" in "\n".join(lines)
    assert busts > 0


def test_the_hole_card_is_a_card_back_on_screen(tmp_path: Path) -> None:
    fed = bench_entries(tmp_path, SCENARIOS["spanish21"])
    sealed = 0
    for entry, lines in frames("spanish21", fed, at=("dealt",)):
        if entry.get("sealed"):
            dealer = next(line for line in lines if line.startswith("dealer "))
            assert CARD_BACK in dealer
            sealed += 1
    assert sealed == 29


def test_one_round_played_is_singular(tmp_path: Path) -> None:
    fed = bench_entries(tmp_path, SCENARIOS["baccarat"])
    first = next(n for n, e in enumerate(fed) if e["type"] == "round_end")
    lines = frames("baccarat", fed[: first + 1])[-1][1]
    assert "· 1 round played" in lines[0]


def test_a_halt_on_screen_says_what_clearing_needs(tmp_path: Path) -> None:
    fed = bench_entries(tmp_path, SCENARIOS["spanish21"], faults=UNPLUG)
    halted = [lines for _, lines in frames("spanish21", fed, at=("prompt",))]
    stopped = [lines for lines in halted if "prompt: STOP: CALL THE FLOOR" in lines]
    assert stopped
    text = "\n".join(stopped[0])
    assert "state: stopped: call the floorperson" in text
    assert "to clear: the device connected again, then the floor's clear" in text
    devices = next(line for line in stopped[0] if line.startswith("devices:"))
    assert devices.count("shoe") == 1 and "shoe lost" in devices


def test_the_result_is_held_three_seconds(tmp_path: Path) -> None:
    """The next round's first wager follows the result at once (pace 0); the view still
    shows the finished round until HOLD seconds have passed."""
    fed = bench_entries(tmp_path, SCENARIOS["spanish21"])
    view = LiveView(io.StringIO(), "t", {}, game="spanish21", tty=True)
    end = next(n for n, e in enumerate(fed) if e["type"] == "round_end")
    wager = next(n for n, e in enumerate(fed) if e["type"] == "wager" and n > end)
    for entry in fed[: wager + 1]:
        view.observe(entry)
    assert view.model.view()["result"] is None  # the model has moved on
    held = view.shown()
    assert held["result"]["round"] == 1 and held["hands"][0]["cards"] == fed[end]["dealer"]
    later = view.shown(now=10**9)
    assert later["result"] is None and later["round"] == 2
    assert HOLD >= 3
