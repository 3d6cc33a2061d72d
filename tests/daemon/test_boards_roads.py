"""The bead plate and the big road held against shoes whose roads are drawn by hand
(/work/shared/SCOREBOARDS.md): every cell's row, column, winner and ties."""

from __future__ import annotations

from controller.boards.roads import Result, bead_plate, big_road, is_pair
from controller.boards.scoreboard import Scoreboard
from controller.boards.tablestate import TableState


def shoe(winners: str) -> list[Result]:
    """Rounds 1, 2, ... won as the letters say (spaces only separate streaks)."""
    letters = winners.replace(" ", "")
    return [Result(i + 1, w, False, False, False) for i, w in enumerate(letters)]  # type: ignore[arg-type]


def drawn(cells: list[dict[str, object]]) -> list[tuple[object, ...]]:
    """Each cell as (round, winner, row, col, ties)."""
    return [(c["round"], c["winner"], c["row"], c["col"], c["ties"]) for c in cells]


def test_a_shoe_that_starts_with_ties() -> None:
    results = shoe("TTBBPTPB")
    # Bead plate: down column 0, ties in their own cells, then column 1.
    assert drawn(bead_plate(results)) == [
        (1, "T", 0, 0, 0),
        (2, "T", 1, 0, 0),
        (3, "B", 2, 0, 0),
        (4, "B", 3, 0, 0),
        (5, "P", 4, 0, 0),
        (6, "T", 5, 0, 0),
        (7, "P", 0, 1, 0),
        (8, "B", 1, 1, 0),
    ]
    # Big road: the two leading ties carried onto the first circle, round 6's tie on
    # round 5's circle; no cell for a tie.
    assert drawn(big_road(results)) == [
        (3, "B", 0, 0, 2),
        (4, "B", 1, 0, 0),
        (5, "P", 0, 1, 1),
        (7, "P", 1, 1, 0),
        (8, "B", 0, 2, 0),
    ]


def test_ties_in_a_row_count_on_the_last_circle() -> None:
    assert drawn(big_road(shoe("PTTTB"))) == [(1, "P", 0, 0, 3), (5, "B", 0, 1, 0)]


def test_a_streak_longer_than_six_turns_right_along_the_last_row() -> None:
    results = shoe("BBBBBBBB PP B")
    assert drawn(big_road(results)) == [
        *((n, "B", n - 1, 0, 0) for n in range(1, 7)),
        (7, "B", 5, 1, 0),  # the dragon tail, along row 5
        (8, "B", 5, 2, 0),
        (9, "P", 0, 1, 0),  # the next streak: column 1, at the top
        (10, "P", 1, 1, 0),
        (11, "B", 0, 2, 0),
    ]
    # 11 rounds: column 0 full, column 1 down to row 4.
    beads = bead_plate(results)
    assert [(c["row"], c["col"]) for c in beads] == [(i % 6, i // 6) for i in range(11)]


def test_a_streak_meeting_a_dragon_tail_turns_above_it() -> None:
    results = shoe("BBBBBBB PPPPPPP BBBBBB P")
    assert drawn(big_road(results)) == [
        *((n, "B", n - 1, 0, 0) for n in range(1, 7)),
        (7, "B", 5, 1, 0),  # tail of column 0 along row 5
        *((n, "P", n - 8, 1, 0) for n in range(8, 13)),  # rows 0-4 of column 1
        (13, "P", 4, 2, 0),  # row 5 of column 1 is the tail: turns along row 4
        (14, "P", 4, 3, 0),
        *((n, "B", n - 15, 2, 0) for n in range(15, 19)),  # rows 0-3 of column 2
        (19, "B", 3, 3, 0),  # above column 2's row 4 (P's tail): along row 3
        (20, "B", 3, 4, 0),
        (21, "P", 0, 3, 0),  # the next streak: the top of column 3
    ]


def test_a_new_streak_skips_a_column_whose_top_a_tail_took() -> None:
    # Each streak one shorter, each tail one row higher: the fifth streak's tail runs
    # along row 0, so the next streak starts in the first column with a free top.
    results = shoe("BBBBBBBBB PPPPPPPP BBBBBBB PPPPPP BBBBB PPPP B")
    cells = big_road(results)
    assert drawn(cells[-10:-5]) == [
        (31, "B", 0, 4, 0),
        (32, "B", 1, 4, 0),  # (row 2, column 4) is the tail before: along row 1
        (33, "B", 1, 5, 0),
        (34, "B", 1, 6, 0),
        (35, "B", 1, 7, 0),
    ]
    assert drawn(cells[-5:]) == [
        (36, "P", 0, 5, 0),
        (37, "P", 0, 6, 0),  # (row 1, column 5) is B's tail: along row 0
        (38, "P", 0, 7, 0),
        (39, "P", 0, 8, 0),
        (40, "B", 0, 9, 0),  # columns 6, 7, 8 have their tops taken
    ]
    positions = [(c["row"], c["col"]) for c in cells]
    assert len(positions) == len(set(positions)) == 40


def test_pairs_are_the_first_two_cards_of_equal_rank() -> None:
    assert is_pair(["KD", "KS", "4H"])
    assert is_pair(["10H", "TD"])
    assert not is_pair(["KD", "QD"])  # both worth 0, not of equal rank
    assert not is_pair(["KD", "4H", "KS"])  # the third card does not count
    assert not is_pair(["KD"])
    assert not is_pair(["KD", None])  # a card not known


def round_end(
    number: int, result: str | None, player: list[str], banker: list[str]
) -> dict[str, object]:
    """A round_end entry as the Baccarat table writes it (controller/table/baccarat/)."""
    return {
        "type": "round_end", "round": number, "game": "baccarat", "void": result is None,
        "player": player, "banker": banker, "result": result, "shoe": 1,
        "natural": any(len(h) == 2 for h in (player, banker)),
    }  # fmt: skip


def test_the_board_marks_pairs_and_naturals_and_skips_a_void_round() -> None:
    board = Scoreboard("baccarat")
    entries = [
        {"type": "shuffled", "shoe": 1, "cards": 416, "how": "shuffler"},
        round_end(1, "tie", ["4S", "4D", "KH"], ["3C", "AD", "3H"]),  # player pair
        round_end(2, "banker", ["KD", "QD", "2S"], ["9H", "KS"]),  # no pair: K and Q
        round_end(3, None, ["10H", "TD"], []),  # void: never shown
        round_end(4, "banker", ["7S", "AD", "5C"], ["10H", "TD", "8S"]),  # banker pair
        round_end(5, "player", ["5S", "4H"], ["2C", "3D"]),
    ]
    for seq, entry in enumerate(entries, 1):
        board.feed(seq, entry)
    view = board.view()
    beads = view["bead_plate"]["cells"]  # type: ignore[index]
    marks = [
        (c["round"], c["winner"], c["banker_pair"], c["player_pair"], c["natural"]) for c in beads
    ]
    assert marks == [
        (1, "T", False, True, False),
        (2, "B", False, False, True),
        (4, "B", True, False, False),
        (5, "P", False, False, True),
    ]
    road = view["big_road"]["cells"]  # type: ignore[index]
    assert [(c["round"], c["row"], c["col"], c["ties"], c["banker_pair"]) for c in road] == [
        (2, 0, 0, 1, False),  # round 1's tie carried onto the first circle
        (4, 1, 0, 0, True),
        (5, 0, 1, 0, False),
    ]
    assert view["counts"] == {
        "rounds": 4, "banker": 2, "player": 1, "tie": 1,
        "banker_pair": 1, "player_pair": 1, "natural": 2,
    }  # fmt: skip
    board.feed(7, {"type": "halt", "cause": "device_lost", "device": "shoe"})
    assert board.view()["state"] == "play stopped: floorperson called"
    board.feed(8, {"type": "shuffled", "shoe": 2, "cards": 416, "how": "shuffler"})
    cleared = board.view()
    assert cleared["counts"]["rounds"] == 0 and cleared["shoe"] == 2  # type: ignore[index]


def test_insurance_wagered_in_the_round_leaves_the_table_dealing() -> None:
    state = TableState()
    state.feed({"type": "no_more_bets", "round": 3, "section": "551.6(d)"})
    state.feed({"type": "wager", "round": 3, "box": 1, "bet": "insurance", "amount": "5"})
    assert state.view() == {"state": "no more bets: dealing", "shoe": None, "round": 3}
    state.feed({"type": "round_end", "round": 3, "void": False, "shoe": 1})
    state.feed({"type": "wager", "round": 4, "box": 1, "bet": "spanish21", "amount": "5"})
    assert state.view() == {"state": "place your bets", "shoe": 1, "round": 3}


def test_a_round_end_of_another_shoe_clears_the_board_one_without_a_shoe_does_not() -> None:
    board = Scoreboard("midibaccarat")
    first = round_end(1, "banker", ["2S", "3D"], ["8H", "KS"])
    board.feed(1, first)
    board.feed(2, {**round_end(2, "player", ["9S", "KD"], ["2H", "3C"]), "shoe": None})
    assert [c["round"] for c in board.view()["bead_plate"]["cells"]] == [1, 2]  # type: ignore[index]
    board.feed(3, {**round_end(1, "tie", ["9S", "KD"], ["9H", "KC"]), "shoe": 2})
    view = board.view()
    assert view["shoe"] == 2 and view["counts"]["rounds"] == 1  # type: ignore[index]
