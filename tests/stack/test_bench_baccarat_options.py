"""The Baccarat / Midibaccarat dealing option and the dealing shoe through ``tablectl
bench``, over real pseudo-terminals: the simulated shoe as a process, the real driver,
the table machine.

- The players-reveal ("squeeze") option, ``rules.dealing: "players_reveal"`` (545.9(d),
  543.9(c)(3)): each hand's cards, and its third card, are handed to the highest wager
  on that hand; of equal highest wagers, to the one closest to the dealer moving
  counterclockwise, the highest seat number (ruling R2: seats are numbered from the
  dealer's far left); a hand nobody wagered on is turned face up by the dealer.
- The dealing shoe (545.7, 545.14): offered from seat one once the cards are in the
  shoe, and passed whenever the Banker's Hand loses.

The bench is dealer and players but never answers an offer or gives anything up, so
every offer closes with no answer and the dealer calling the game stays the curator;
what a player's answer would do is proved at the table in
``tests/table/test_table_baccarat_offers.py``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.support.baccarat import GAMES
from tests.support.bench import of
from tests.support.bench import play as bench_play

SQUEEZE = {"baccarat": "545.9(d)", "midibaccarat": "543.9(c)(3)"}
CUT = {"baccarat": "545.5(b)", "midibaccarat": "543.5(c)"}
BURN = ["AS", "2S"]  # 545.5(f): the ace, then one more card


def play(tmp_path: Path, data: dict[str, Any]) -> list[dict[str, Any]]:
    events = bench_play(tmp_path, data, never={"refused", "internal_error", "irregularity"})
    assert events[0]["type"] == "bench_start"
    return events


# --------------------------------------------------------------------------- players reveal

# Four rounds; the cover card comes out as round 3's first card, so round 4 is the last
# hand (545.10(e), ruling R1) and the shoe ends after it. Seats 1-9 fit both games.
SQUEEZE_SHOE = [
    *BURN,
    *("7C", "6H", "KD", "KS"),  # round 1: Player 7, Banker 6, both stay
    *("2C", "KH", "3D", "QC", "4S", "5H"),  # round 2: Player 5, Banker 0, both draw
    "CUT",
    *("2D", "4H", "3C", "5S"),  # round 3: Banker natural 9
    *("9H", "2H", "KC", "3H"),  # round 4: Player natural 9
]
SQUEEZE_ROUNDS = [
    # The highest wager on each hand, whatever its seat number.
    {
        "wagers": {
            "3": {"player": 50},
            "7": {"player": 25},
            "4": {"banker": 100},
            "9": {"banker": 20},
        }
    },
    # Seats 2 and 8 wager an equally high 100 on the Banker: seat 8 is closer to the
    # dealer counterclockwise; seat 9 is closer still but wagered less. A Tie Bet is
    # not a wager on either hand.
    {
        "wagers": {
            "2": {"banker": 100},
            "5": {"player": 10},
            "6": {"tie": 5},
            "8": {"banker": 100},
            "9": {"banker": 50},
        }
    },
    # Nobody wagers on the Player's Hand (the Tie Bet does not count).
    {"wagers": {"1": {"tie": 10}, "7": {"banker": 30}}},
    # Nobody wagers on the Banker's Hand.
    {"wagers": {"1": {"tie": 5}, "6": {"player": 5}}},
]
# (round, hand, seat the cards are handed to; None: the dealer turns them face up)
HANDED = [
    (1, "player", 3),
    (1, "banker", 4),
    (2, "player", 5),
    (2, "banker", 8),
    (2, "player", 5),  # the Player's third card, to the seat that had the hand
    (2, "banker", 8),  # the Banker's third card
    (3, "player", None),
    (3, "banker", 7),
    (4, "player", 6),
    (4, "banker", None),
]


def squeeze_scenario(game: str, dealing: str) -> dict[str, Any]:
    return {
        "game": game,
        "rules": {"dealing": dealing},
        "shoe": SQUEEZE_SHOE,
        "rounds": SQUEEZE_ROUNDS,
    }


@GAMES
@pytest.mark.reg("545.9(d)", "543.9(c)(3)")
def test_players_reveal_hands_each_hand_to_its_highest_wager(tmp_path: Path, game: str) -> None:
    events = play(tmp_path, squeeze_scenario(game, "players_reveal"))
    rounds = of(events, "round_end")
    assert [(r["result"], len(r["player"]), len(r["banker"])) for r in rounds] == [
        ("player", 2, 2),
        ("player", 3, 3),
        ("banker", 2, 2),
        ("player", 2, 2),
    ]
    assert not any(r["void"] for r in rounds)
    (end,) = of(events, "shoe_end")
    assert end["reason"] == "last_hand" and end["rounds"] == 4
    handed = [(e["round"], e["hand"], e["seat"]) for e in of(events, "cards_handed")]
    assert handed == HANDED
    # Each record is shown on the shoe's display right after it, citing the option.
    for i, entry in enumerate(events):
        if entry["type"] != "cards_handed":
            continue
        prompt = events[i + 1]
        hand = entry["hand"].upper()
        text = f"{hand} TO SEAT {entry['seat']}" if entry["seat"] else f"{hand} FACE UP"
        assert prompt == {"type": "prompt", "text": text, "shown": True, "section": SQUEEZE[game]}
    # The hands are handed once all four initial cards are out (545.9(d)(1)-(3)), before
    # the Point Counts are announced; a third card as soon as it is dealt ((4), (5)).
    for number in range(1, 5):
        dealt = [i for i, e in enumerate(events) if e["type"] == "dealt" and e["round"] == number]
        given = [
            i for i, e in enumerate(events) if e["type"] == "cards_handed" and e["round"] == number
        ]
        assert given[:2] == [dealt[3] + 1, dealt[3] + 3]  # each followed by its prompt
        announced = next(
            i
            for i, e in enumerate(events[dealt[3] :], dealt[3])
            if e["type"] == "prompt" and re.fullmatch(r"PLAYER \d", e["text"])
        )
        assert given[1] < announced
        assert [i - 1 for i in given[2:]] == dealt[4:]


@GAMES
@pytest.mark.reg("545.9(c)", "543.9(c)(1)")
def test_face_up_dealing_hands_no_cards_to_players(tmp_path: Path, game: str) -> None:
    events = play(tmp_path, squeeze_scenario(game, "face_up"))
    assert len(of(events, "round_end")) == 4
    assert of(events, "cards_handed") == []
    texts = [e["text"] for e in of(events, "prompt")]
    assert not [t for t in texts if " TO SEAT " in t or t.endswith(" FACE UP")]


# --------------------------------------------------------------------------- the dealing shoe

# Four rounds; the cover card comes out as round 3's first card: round 4 is the last hand.
SHOE_SHOE = [
    *BURN,
    *("2D", "4H", "3C", "5S"),  # round 1: Banker natural 9, the Banker wins
    *("7C", "6H", "KD", "KS"),  # round 2: Player 7, Banker 6, the Banker loses
    "CUT",
    *("8C", "8D", "KH", "QS"),  # round 3: natural 8 each, a tie
    *("9H", "2H", "KC", "3H"),  # round 4, the last hand: the Banker loses
]
SHOE_ROUNDS = [
    {"wagers": {"1": {"player": 10}, "5": {"banker": 20}}},
    {"wagers": {"3": {"banker": 15}}},
    {"wagers": {"9": {"tie": 5}}},
    {"wagers": {"2": {"player": 25}}},
]


def shoe_lines(events: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """The offers, their ends, the shoe given up, the PASS THE SHOE prompts, and where
    each round is closed to wagers and ends, in the order written."""
    out: list[tuple[Any, ...]] = []
    for e in events:
        kind = e["type"]
        if kind == "offer":
            out.append((kind, e["what"], e["seat"], e["section"]))
        elif kind == "offer_closed":
            out.append((kind, e["what"], e["holder"], e["how"], e["section"]))
        elif kind == "relinquished":
            out.append((kind, e["what"], e["seat"], e["compulsory"], e["section"]))
        elif kind == "offer_withdrawn":
            out.append((kind, e["what"]))
        elif kind == "prompt" and e["text"] == "PASS THE SHOE":
            out.append((kind, e["text"], e["section"]))
        elif kind == "no_more_bets":
            out.append((kind, e["round"]))
        elif kind == "round_end":
            out.append((kind, e["round"], e["result"]))
        elif kind == "shoe_end":
            out.append((kind, e["reason"]))
    return out


@pytest.mark.reg("545.5(b)", "545.7(b)", "545.7(d)(2)", "545.14(a)(1)", "545.14(b)")
def test_the_shoe_is_offered_from_seat_one_and_passed_when_the_banker_loses(
    tmp_path: Path,
) -> None:
    data = {"game": "baccarat", "shoe": SHOE_SHOE, "rounds": SHOE_ROUNDS}
    events = play(tmp_path, data)
    dealer = ("offer_closed", "shoe", "dealer", "no_answer", "545.7(d)(2)")
    passed = [
        ("prompt", "PASS THE SHOE", "545.14(a)(1)"),
        # The dealer calling the game was the curator: nobody took the shoe.
        ("relinquished", "shoe", None, True, "545.14(a)(1)"),
        # 545.14(b): to the right of the previous curator, the dealer's right.
        ("offer", "shoe", 14, "545.14(b)"),
    ]
    assert shoe_lines(events) == [
        # 545.5(b): the cut is offered from the highest seat; the cards go in the shoe
        # unanswered, so the dealer cut.
        ("offer", "cut", 14, "545.5(b)"),
        ("offer_closed", "cut", "dealer", "no_answer", "545.5(b)"),
        # 545.7(b): the cards burned and in the shoe, the shoe is offered to seat one;
        # unanswered at "no more bets", the dealer calling the game deals (545.7(d)(2)).
        ("offer", "shoe", 1, "545.7(b)"),
        dealer,
        ("no_more_bets", 1),
        ("round_end", 1, "banker"),  # the Banker wins: the shoe stays
        ("no_more_bets", 2),
        ("round_end", 2, "player"),  # the Banker loses: the shoe is passed
        *passed,
        dealer,
        ("no_more_bets", 3),
        ("round_end", 3, "tie"),  # a tie is not a loss of the Banker's Hand
        ("no_more_bets", 4),
        # The last hand: the Banker loses and the shoe is passed, but the shoe ends
        # with the hand (545.10(e)), so it is not offered again.
        ("round_end", 4, "player"),
        ("prompt", "PASS THE SHOE", "545.14(a)(1)"),
        ("shoe_end", "last_hand"),
    ]
    # The offer of round 1 is made before its bets are asked for; the pass before the
    # next round's.
    (first,) = [e for e in of(events, "offer") if e["section"] == "545.7(b)"]
    bets = [i for i, e in enumerate(events) if e.get("text") == "PLACE YOUR BETS"]
    assert events.index(first) + 1 == bets[0]
    (again,) = [e for e in of(events, "offer") if e["section"] == "545.14(b)"]
    assert events.index(again) + 1 == bets[2]


@pytest.mark.reg("543.5(c)", "543.9(c)")
def test_midibaccarat_has_no_curator_the_shoe_is_never_offered(tmp_path: Path) -> None:
    data = {"game": "midibaccarat", "shoe": SHOE_SHOE, "rounds": SHOE_ROUNDS}
    events = play(tmp_path, data)
    # The dealer deals Midibaccarat (543.9(c)): the Banker loses in rounds 2 and 4, and
    # nothing about the shoe is offered, given up or prompted.
    assert shoe_lines(events) == [
        ("offer", "cut", 9, "543.5(c)"),
        ("offer_closed", "cut", "dealer", "no_answer", "543.5(c)"),
        ("no_more_bets", 1),
        ("round_end", 1, "banker"),
        ("no_more_bets", 2),
        ("round_end", 2, "player"),
        ("no_more_bets", 3),
        ("round_end", 3, "tie"),
        ("no_more_bets", 4),
        ("round_end", 4, "player"),
        ("shoe_end", "last_hand"),
    ]
