"""Void Spanish 21 rounds at the table (ruling R10): whatever voids the round, the void
returns only the stakes still on the layout, what the procedure settled before it stays
settled, and the round's record shows both per box, so the journal agrees with the
chips."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from controller.table.events import FloorClear, MissedCard, Need, Wager
from controller.table.halts import INTERRUPTED, Halt
from tests.support.spanish21 import Dealer, box

D = Decimal


def _settled_and_returned(end: dict[str, Any]) -> dict[str, tuple[Decimal, Decimal]]:
    boxes: dict[str, Any] = end["boxes"]
    return {b: (entry["settled"], entry["returned"]) for b, entry in boxes.items()}


def _outcomes(end: dict[str, Any], number: int) -> list[tuple[str, Decimal]]:
    return [(h["outcome"], h["net"]) for h in box(end, number)["hands"]]


def _settled_three_ways(d: Dealer) -> None:
    """Behind a 9: box 1 surrenders (half collected at once, 551.9(a)(1)), box 2's
    Blackjack is paid as the decisions begin (§ 635a.7(h)(1)(i)), box 3 doubles and
    rescues (551.11(d)); box 4 stands, its wager still on the layout."""
    d.open()
    d.deal(
        {1: 10, 2: 10, 3: 10, 4: 25},
        ["9C", "AS", "6D", "8S", "9H", "7S", "KD", "5H", "QC", "4C"],
    )
    d.decide(1, "surrender")
    d.decide(3, "double")
    d.cards(["2S"])
    d.decide(3, "rescue")
    d.decide(4, "stand")


@pytest.mark.reg("551.16(l)(1)", "551.9(a)(1)", "551.11(d)", "635a.7(h)(1)(i)")
def test_a_reader_void_keeps_a_surrender_a_paid_blackjack_and_a_rescue_settled() -> None:
    # Ruling R10: the campaign's round, which returned {"1": 10, "2": 10, "3": 20}.
    d = Dealer()
    _settled_three_ways(d)
    d.insert(armed=False)  # the hole card in the reader behind the 9
    d.do(FloorClear())
    (end,) = d.rounds()
    assert end["void"] is True and end["section"] == "551.16(l)(1)"
    assert end["returned"] == {"1": 0, "2": 0, "3": 0, "4": 25}
    assert _outcomes(end, 1) == [("surrender", -5)]
    assert _outcomes(end, 2) == [("win", 15)]
    assert _outcomes(end, 3) == [("rescue", -10)]
    assert _outcomes(end, 4) == [("dead", 0)]
    assert _settled_and_returned(end) == {
        "1": (-5, 0),
        "2": (15, 0),
        "3": (-10, 0),
        "4": (0, 25),
    }
    assert d.need() is Need.WAGERS


@pytest.mark.reg("551.16(a)", "551.11(d)")
def test_a_face_up_void_does_not_hand_back_a_double_down_already_taken_back() -> None:
    # Ruling R10; ruling R13: the second face-up card of the shoe voids the round.
    d = Dealer()
    d.open()
    d.deal({1: 10, 2: 10}, ["6D", "9C"])
    d.card("4H", face_up=True)  # the first: to the discard rack
    d.cards(["9H", "5H", "7S", "4C"])
    d.decide(1, "double")
    d.cards(["2S"])
    d.decide(1, "rescue")
    d.decide(2, "hit")
    d.card("5C", face_up=True)  # the second: the round is void
    (end,) = d.rounds()
    assert end["section"] == "551.16(a)"
    assert end["returned"] == {"1": 0, "2": 10}
    assert _settled_and_returned(end) == {"1": (-10, 0), "2": (0, 10)}
    assert d.need() is Need.SHUFFLE


@pytest.mark.reg("551.16(b)", "551.9(a)(1)", "551.10(d)", "551.7(d)")
def test_a_decks_removed_void_keeps_the_peeks_settlements() -> None:
    # Ruling R10 and R9: behind an ace the peek comes first, so the surrender is settled
    # at once; the Insurance lost at the peek and Match-the-Dealer stay settled.
    d = Dealer()
    d.open()
    d.deal({1: 10, 2: 10}, ["9C", "AS", "AH", "7S", "8D", "4C"], match={2: 5})
    d.do(Wager(1, "insurance", 5))
    d.insert(blackjack=False)
    assert [e["net"] for e in d.io.of_type("insurance")] == [-5]
    d.decide(1, "surrender")
    d.decide(2, "hit")
    d.cards(["TD"])  # the first ten: removed, play goes on
    d.do(FloorClear())
    d.cards(["TS"])  # the second: the round is void and the decks go
    d.do(FloorClear())
    (end,) = d.rounds()
    assert end["section"] == "551.16(b)"
    # Box 2's ace matches the ace up in another suit: 4 to 1 (551.7(e)(1)).
    assert box(end, 1)["insurance_net"] == -5 and box(end, 2)["match_the_dealer_net"] == 20
    assert _settled_and_returned(end) == {"1": (-10, 0), "2": (20, 10)}
    assert end["returned"] == {"1": 0, "2": 10}


@pytest.mark.reg("551.16(l)(1)", "635a.7(h)(1)(ii)", "551.9(a)(2)")
def test_a_restart_void_returns_a_blackjack_behind_an_ace_and_what_is_unsettled() -> None:
    # Ruling R10 for a round voided after a restart (controller/table/spanish21/table.py
    # ``_clear_interrupted``): behind an ace a Blackjack is announced, not paid, until the
    # hole card is turned (§ 635a.7(h)(1)(ii)), so it goes back with the doubled and
    # split hands; the surrender after the peek is settled.
    d = Dealer()
    d.open()
    d.deal(
        {1: 10, 2: 10, 3: 10, 4: 10},
        ["AS", "9C", "6D", "8S", "AH", "KD", "7S", "5H", "8C", "4C"],
    )
    d.insert(blackjack=False)
    d.decide(2, "surrender")
    d.decide(3, "double")
    d.cards(["9D"])
    d.decide(4, "split")
    d.cards(["3H"])
    d.table.interrupt(Halt(INTERRUPTED, None, "a restart found the round in play", seal="s"))
    d.do(FloorClear())  # no card: the hole card is not known, the round is void
    (end,) = d.rounds()
    assert end["void"] is True and end["section"] is None
    assert _outcomes(end, 1) == [("dead", 0)]  # the Blackjack, not paid yet
    assert _settled_and_returned(end) == {
        "1": (0, 10),
        "2": (-5, 0),
        "3": (0, 20),
        "4": (0, 20),
    }
    assert end["returned"] == {"1": 10, "2": 0, "3": 20, "4": 20}


@pytest.mark.reg("551.16(h)", "551.16(l)(1)")
def test_a_dead_box_and_its_match_the_dealer_wager_go_back_with_the_void() -> None:
    # Ruling R10: a box dealt no card is dead, its wagers returned as the round ends,
    # the Match-the-Dealer wager with them (551.16(h)); neither was paid or collected,
    # so the void returns both.
    d = Dealer()
    d.open()
    d.deal({1: 10, 2: 25, 3: 10}, ["9C", "8D", "7H", "6S", "5C"], match={2: 5})
    d.do(MissedCard(2, 1))
    d.do(MissedCard(2, 2))
    d.cards(["KD"])  # the hole card, behind a 7
    d.insert(armed=False)
    d.do(FloorClear())
    (end,) = d.rounds()
    assert box(end, 2)["match_the_dealer_net"] == 0 and _outcomes(end, 2) == [("dead", 0)]
    assert end["returned"] == {"1": 10, "2": 30, "3": 10}


@pytest.mark.reg("551.16(b)", "551.7(b)")
def test_wagers_of_a_round_not_dealt_go_back_with_their_match_the_dealer() -> None:
    # Ruling R10: a second ten between rounds ends the shoe before the round is dealt;
    # everything on the layout goes back, the Match-the-Dealer wager too.
    d = Dealer()
    d.open()
    d.do(Wager(1, "spanish21", 10))
    d.do(Wager(1, "match_the_dealer", 5))
    d.do(Wager(2, "spanish21", 25))
    for ten in ("TD", "TS"):
        d.cards([ten])
        d.do(FloorClear())
    (returned,) = d.io.of_type("wagers_returned")
    assert returned["returned"] == {"1": 15, "2": 25}
    assert not d.rounds() and d.need() is Need.SHUFFLE
