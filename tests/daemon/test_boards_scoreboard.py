"""The scoreboard against real journals of simulated tables (``tablectl run
--simulate``): the bead plate cell by cell against the journal's results, the board
cleared at a new shoe, nothing shown before a result is final; a void round from a
real bench run; Spanish 21's dealer totals; bad input."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from controller.boards.history import history
from controller.boards.scoreboard import DEALER_TOTALS, BoardError, Scoreboard
from tests.support.boards import journal_rows, settled, simulated_journal
from tests.support.cli import tablectl
from tests.support.paths import EXAMPLES

Rows = list[tuple[int, str, dict[str, Any]]]
VALUES = {"A": 1, **{str(n): n for n in range(2, 10)}, "T": 0, "J": 0, "Q": 0, "K": 0}


@pytest.fixture(scope="module")
def two_shoes(tmp_path_factory: pytest.TempPathFactory) -> Rows:
    """A Midibaccarat table's 100 rounds: its first shoe ends after 83 (seed 3)."""
    path = simulated_journal(tmp_path_factory.mktemp("midi"), "midibaccarat", 100, seed=3)
    return journal_rows(path)


def expected_beads(ends: list[dict[str, Any]]) -> list[dict[str, object]]:
    """The bead plate worked out here from round_end entries: column-major, six high;
    pairs and naturals from the cards themselves."""

    def pair(cards: list[str]) -> bool:
        return cards[0][0] == cards[1][0]

    def natural(cards: list[str]) -> bool:
        return (VALUES[cards[0][0]] + VALUES[cards[1][0]]) % 10 >= 8

    return [
        {
            "row": i % 6,
            "col": i // 6,
            "round": e["round"],
            "winner": e["result"][0].upper(),
            "ties": 0,
            "banker_pair": pair(e["banker"]),
            "player_pair": pair(e["player"]),
            "natural": natural(e["banker"]) or natural(e["player"]),
        }
        for i, e in enumerate(ends)
    ]


def fed(board: Scoreboard, rows: Rows) -> Scoreboard:
    for seq, _ts, entry in rows:
        board.feed(seq, entry)
    return board


def test_the_bead_plate_is_the_journals_results_and_a_new_shoe_clears_it(two_shoes: Rows) -> None:
    shuffles = [i for i, (_, _, e) in enumerate(two_shoes) if e["type"] == "shuffled"]
    assert len(shuffles) == 2  # two shoes in the run
    first, second = two_shoes[: shuffles[1]], two_shoes[shuffles[1] :]
    board = fed(Scoreboard("midibaccarat"), first)
    view = board.view()
    ends = settled(first)
    assert len(ends) == 83 and view["shoe"] == 1
    assert view["bead_plate"] == {"rows": 6, "columns": 14, "cells": expected_beads(ends)}
    counts = view["counts"]
    assert counts == {
        "rounds": 83,
        "banker": sum(e["result"] == "banker" for e in ends),
        "player": sum(e["result"] == "player" for e in ends),
        "tie": sum(e["result"] == "tie" for e in ends),
        "banker_pair": sum(c["banker_pair"] for c in expected_beads(ends)),
        "player_pair": sum(c["player_pair"] for c in expected_beads(ends)),
        "natural": sum(e["natural"] for e in ends),
    }
    assert counts["tie"] > 0 and counts["banker_pair"] + counts["player_pair"] > 0

    board.feed(*two_shoes[shuffles[1]][::2])  # the second shoe's shuffle
    cleared = board.view()
    assert cleared["shoe"] == 2 and cleared["counts"]["rounds"] == 0
    assert cleared["bead_plate"]["cells"] == cleared["big_road"]["cells"] == []

    view = fed(board, second).view()
    ends = settled(second)
    assert len(ends) == 17 and {e["shoe"] for e in ends} == {2}
    assert view["bead_plate"]["cells"] == expected_beads(ends)


def test_the_big_road_holds_the_shoes_results_in_order(two_shoes: Rows) -> None:
    shuffle = next(i for i, (_, _, e) in enumerate(two_shoes) if e.get("shoe") == 2)
    first = two_shoes[:shuffle]
    road = fed(Scoreboard("midibaccarat"), first).view()["big_road"]
    ends = settled(first)
    cells = road["cells"]
    decided = [e for e in ends if e["result"] != "tie"]
    assert [c["round"] for c in cells] == [e["round"] for e in decided]
    assert sum(c["ties"] for c in cells) == len(ends) - len(decided)
    assert len({(c["row"], c["col"]) for c in cells}) == len(cells)
    assert all(0 <= c["row"] < 6 for c in cells)
    for before, after in itertools.pairwise(cells):
        if before["winner"] != after["winner"]:
            assert after["row"] == 0  # a new streak starts at the top
        else:  # down the column, or right along the row
            step = (after["row"] - before["row"], after["col"] - before["col"])
            assert step in ((1, 0), (0, 1)) or (step[0] == 0 and step[1] > 0)


def test_nothing_shows_before_the_rounds_result_is_final(two_shoes: Rows) -> None:
    board = Scoreboard("midibaccarat")
    for seq, _ts, entry in two_shoes:
        if entry["type"] == "round_end" and entry["round"] == 10:
            break
        board.feed(seq, entry)
    view = board.view()
    assert [c["round"] for c in view["bead_plate"]["cells"]] == list(range(1, 10))
    assert view["state"] == "no more bets: dealing"  # round 10's cards are out


def test_an_entry_seen_already_changes_nothing(two_shoes: Rows) -> None:
    board = fed(Scoreboard("midibaccarat"), two_shoes[:400])
    before = board.view()
    fed(board, two_shoes[:400])  # the journal and the live stream overlap
    assert board.view() == before


def test_a_void_round_never_appears(tmp_path: Path) -> None:
    """A real bench run whose stacked shoe runs out mid-round: that round is void
    (543.14(e)) and takes no cell."""
    scenario = json.loads((EXAMPLES / "midibaccarat-cover-card-at-hand-start.json").read_text())
    scenario["shoe"] = [c for c in scenario["shoe"] if c != "CUT"][:60]
    (tmp_path / "short.json").write_text(json.dumps(scenario))
    run = tablectl("bench", str(tmp_path / "short.json"), "--events", str(tmp_path / "out.jsonl"))
    assert run.returncode == 0, run.stderr
    entries = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    ends = [e for e in entries if e["type"] == "round_end"]
    assert ends[-1]["void"] is True and not any(e["void"] for e in ends[:-1])
    board = Scoreboard("midibaccarat")
    for seq, entry in enumerate(entries, 1):
        board.feed(seq, entry)
    cells = board.view()["bead_plate"]["cells"]
    assert [c["round"] for c in cells] == [e["round"] for e in ends[:-1]]
    assert cells == expected_beads(ends[:-1])


def test_spanish21_shows_the_state_and_the_dealers_recent_totals(tmp_path: Path) -> None:
    path = simulated_journal(tmp_path, "spanish21", 30, seed=5)
    rows = journal_rows(path)
    board = Scoreboard("spanish21")
    for seq, entry, _at in history(path):
        board.feed(seq, entry)
    view = board.view()
    ends = settled(rows)
    assert len(ends) == 30 and view["shoe"] == 2  # the first shoe ends after 19 rounds
    assert view["rounds"] == sum(e["shoe"] == 2 for e in ends) == 11
    assert (
        view["dealer_totals"]
        == [  # the last 20, whatever their shoe
            {
                "shoe": e["shoe"],
                "round": e["round"],
                "dealer_total": e["dealer_total"],
                "busted": e["dealer_total"] > 21,
                "blackjack": e["dealer_total"] == 21 and len(e["dealer"]) == 2,
            }
            for e in ends[-DEALER_TOTALS:]
        ]
    )
    assert any(t["busted"] for t in view["dealer_totals"])
    assert view["state"] == "place your bets" and view["round"] == ends[-1]["round"]
    assert "bead_plate" not in view
    json.dumps(view)  # plain JSON


def test_a_game_there_is_none_of_is_refused_in_one_line() -> None:
    with pytest.raises(BoardError) as refused:
        Scoreboard("poker")
    assert str(refused.value) == (
        "no game 'poker': expected one of baccarat, midibaccarat, spanish21"
    )
