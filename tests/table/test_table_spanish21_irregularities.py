"""Spanish 21 irregularities of § 551.16 that the dealer declares or that the shoe
running out brings about: the discard rack reshuffled mid-round (g), cards drawn in
error (c)-(e), places missed in the deal (f), (h), a requested card not dealt (i), and
the partial Double Down Wager (551.11(a)). No I/O: synthetic device events and
console commands, as in ``tests/table/test_table_spanish21.py``."""

from __future__ import annotations

import json
import re
from collections import Counter
from decimal import Decimal
from typing import Any, ClassVar

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import rule, run_state_machine_as_test

from controller.rules.spanish21 import (
    DEALER,
    Hand,
    PlayError,
    dead_boxes,
    initial_deal_order,
    settle_box,
)
from controller.table.events import (
    CardNotDealt,
    DealerOverdraw,
    DealersCard,
    Decision,
    ExposedCard,
    FloorClear,
    ManualShuffle,
    MissedCard,
    Need,
    NoMoreBets,
    RefuseCard,
    Wager,
)
from drivers import messages as m
from tests.support.spanish21 import Dealer, Spanish21Machine, box, prompts

D = Decimal


def lines(d: Dealer) -> list[str]:
    return [json.dumps(e, default=str) for e in d.io.journal.entries]


def first_line_with(d: Dealer, token: str) -> dict[str, object]:
    """The first journal entry that names ``token``."""
    for entry, line in zip(d.io.journal.entries, lines(d), strict=True):
        if re.search(rf"\b{token}\b", line):
            return entry
    raise AssertionError(f"{token} is nowhere in the journal")


def hand(d: Dealer, number: int, index: int = 0) -> tuple[str, ...]:
    return d.table.hands_of(number)[index].cards


def last_irregularity(d: Dealer) -> dict[str, Any]:
    entry: dict[str, Any] = d.io.of_type("irregularity")[-1]
    return entry


# --------------------------------------------------------------------------- 551.16(g)


def round_one(d: Dealer) -> None:
    """A round that puts six cards in the discard rack with the burn: 2S, then 9C, 7H,
    5D, KS and the dealer's 3C."""
    d.deal({1: 10}, ["9C", "5D", "7H", "KS"])
    d.decide(1, "stand")
    d.do(DealersCard())
    d.cards(["3C"])
    assert d.need() is Need.WAGERS


@pytest.mark.reg("551.16(g)", "551.5(a)", "551.8(j)")
def test_a_shoe_that_runs_out_mid_round_is_completed_from_the_reshuffled_discard_rack() -> None:
    d = Dealer()
    d.open("2S")
    round_one(d)
    d.deal({1: 10}, ["8C", "6D", "4H", "2C"])  # the hole card 2C is the shoe's last card
    d.event(m.ShoeEmpty("shoe", d.id()))
    d.decide(1, "hit")  # 12: the box needs a card the shoe does not hold
    assert d.table.state == "rack_shuffle_due" and d.need() is Need.SHUFFLE
    ran_out = last_irregularity(d)
    assert ran_out["section"] == "551.16(g)" and ran_out["rack"] == 6
    assert prompts(d)[-1] == "SHOE EMPTY: SHUFFLE THE DISCARDS"
    # Nothing goes on until the discards are shuffled and cut.
    d.decide(1, "stand")
    assert d.last_refusal()["section"] == "551.16(g)"
    d.do(ManualShuffle())
    (rack,) = d.io.of_type("rack_shuffled")
    assert rack["cards"] == 6 and rack["how"] == "manual" and rack["shoe"] == 1
    assert len(d.io.of_type("shuffled")) == 1  # the same shoe, not a new one
    assert d.need() is Need.CARD and d.table.state == "rack_burn_due"
    d.card("9C")  # the first card of the reshuffled rack: burned face down
    burn = d.io.of_type("burn")[-1]
    assert burn == {
        "type": "burn",
        "card": "9C",
        "reason": "discard rack reshuffled",
        "section": "551.16(g)",
    }
    assert d.table.state == "playing" and d.table.turn == (1, 0) and d.need() is Need.CARD
    d.card("5D")  # the round goes on with the following cards: 17
    d.decide(1, "stand")
    d.do(DealersCard())
    d.cards(["KS"])  # the dealer's 8 draws to 18
    end = d.rounds()[-1]
    assert end["dealer"] == ["6D", "2C", "KS"] and box(end, 1)["hands"][0]["cards"] == [
        "8C",
        "4H",
        "5D",
    ]
    assert box(end, 1)["hands"][0]["net"] == -10
    # The round done, the shoe ends: every card is reshuffled for the next one.
    (shoe,) = d.io.of_type("shoe_end")
    assert shoe["reason"] == "shoe_empty" and shoe["burned"] == ["2S", "9C"]
    assert d.need() is Need.SHUFFLE and d.table.state == "shuffle_due"
    assert not d.io.of_type("halt")
    # 551.8(e): the hole card, dealt before the shoe ran out, stays sealed until turned.
    assert first_line_with(d, "2C")["type"] == "reveal"


@pytest.mark.reg("551.16(g)", "551.16(k)", "551.5(a)")
def test_with_a_shuffler_the_discard_rack_is_shuffled_by_it_and_counted() -> None:
    d = Dealer()
    d.inspect()
    d.event(m.ShufflerAttached("shuffler", d.id()))
    d.event(m.ShuffleCompleted("shuffler", d.id(), 288))
    d.event(m.CardsLoaded("shoe", d.id(), 288))
    d.card("2S")
    round_one(d)
    d.deal({1: 10}, ["8C", "6D", "4H", "2C"])
    d.event(m.ShoeEmpty("shoe", d.id()))
    d.decide(1, "hit")
    d.do(ManualShuffle())
    assert d.last_refusal()["section"] == "551.16(k)"  # the shuffler is attached
    d.event(m.ShuffleCompleted("shuffler", d.id(), 288))  # a whole shoe's count
    refused = d.last_refusal()
    assert refused["section"] == "551.16(g)" and "holds 6" in str(refused["reason"])
    d.event(m.ShuffleCompleted("shuffler", d.id(), 6))
    d.event(m.CardsLoaded("shoe", d.id(), 6))  # the rack's cards into the shoe: no halt
    assert not d.io.of_type("halt")
    (rack,) = d.io.of_type("rack_shuffled")
    assert rack["how"] == "shuffler" and rack["cards"] == 6
    d.cards(["7H", "5D"])
    assert hand(d, 1) == ("8C", "4H", "5D")


@pytest.mark.reg("551.16(g)", "551.8(e)")
def test_the_shoe_runs_out_in_the_initial_deal_and_the_hole_card_comes_from_the_rack() -> None:
    d = Dealer()
    d.open("2S")
    round_one(d)
    d.deal({1: 10}, ["8C", "AD", "4H"])  # the shoe is out before the hole card
    d.event(m.ShoeEmpty("shoe", d.id()))
    assert d.need() is Need.SHUFFLE
    d.do(ManualShuffle())
    d.cards(["3C", "KS"])  # the burn, then the hole card: a dealer Blackjack
    assert d.table.state == "peek_due" and d.table.hole_dealt
    assert d.io.of_type("device")[-1]["card"] is None  # the hole card is sealed
    d.insert(blackjack=True)
    (shoe,) = d.io.of_type("shoe_end")  # a Blackjack ends the round and the shoe
    assert shoe["reason"] == "shoe_empty"
    assert d.rounds()[-1]["dealer"] == ["AD", "KS"]
    # KS was dealt in round one; out of the reshuffled rack it is the hole card, named
    # first by the reveal.
    entries = d.io.journal.entries
    start = entries.index(d.io.of_type("rack_shuffled")[0])
    named = [
        entries[i]["type"]
        for i, line in enumerate(lines(d))
        if i > start and re.search(r"\bKS\b", line)
    ]
    assert named[0] == "reveal"


@pytest.mark.reg("551.16(g)", "551.13(b)")
def test_the_shoe_runs_out_while_the_dealer_draws() -> None:
    d = Dealer()
    d.open("2S")
    round_one(d)
    d.deal({1: 10}, ["8C", "6D", "KH", "5C"])
    d.decide(1, "stand")
    d.event(m.ShoeEmpty("shoe", d.id()))
    d.do(DealersCard())  # the dealer's 11 draws, but the shoe is empty
    assert d.need() is Need.SHUFFLE
    d.do(ManualShuffle())
    d.cards(["9C", "7H"])  # burn 9C; the dealer draws 7H: 18
    end = d.rounds()[-1]
    assert end["dealer"] == ["6D", "5C", "7H"] and box(end, 1)["hands"][0]["outcome"] == "push"
    assert d.io.of_type("shoe_end")[0]["reason"] == "shoe_empty"


@pytest.mark.reg("551.16(g)")
def test_a_discard_rack_too_small_to_complete_the_round_ends_the_shoe() -> None:
    # Proposed ruling: a rack of fewer than two cards cannot give a burn and a card.
    d = Dealer()
    d.open("2S")
    d.deal({1: 10}, ["8C", "6D", "4H", "2C"])
    d.event(m.ShoeEmpty("shoe", d.id()))
    d.decide(1, "hit")
    (halt,) = d.io.of_type("halt")
    assert halt["cause"] == "shoe_empty" and halt["ends_shoe"] is True
    assert halt["section"] == "551.16(g)"
    d.do(FloorClear())
    (end,) = d.rounds()
    assert end["void"] is True and end["returned"] == {"1": 10}
    assert d.io.of_type("shoe_end")[0]["reason"] == "floorperson"


@pytest.mark.reg("551.16(g)")
def test_a_rack_reshuffled_twice_in_one_round() -> None:
    d = Dealer()
    d.open("2S")
    round_one(d)
    d.deal({1: 10}, ["2D", "6D", "3H", "2C"])
    d.event(m.ShoeEmpty("shoe", d.id()))
    d.decide(1, "hit")
    d.do(ManualShuffle())
    d.cards(["9C", "AC"])  # burn; the hit: 2+3+A = 16 soft
    d.card("4S", face_up=True)  # found face up: to the discard rack (551.16(a))
    d.event(m.ShoeEmpty("shoe", d.id()))  # the reloaded rack was short
    d.decide(1, "hit")
    assert d.need() is Need.SHUFFLE
    assert d.io.of_type("irregularity")[-1]["rack"] == 2  # the burn 9C and the 4S
    d.do(ManualShuffle())
    d.cards(["4S", "9C"])  # burn 4S; 9C to the box: 2+3+A+9 = 15 hard
    assert hand(d, 1) == ("2D", "3H", "AC", "9C")
    assert len(d.io.of_type("rack_shuffled")) == 2


# --------------------------------------------------------------------------- 551.16(c)


@pytest.mark.reg("551.16(c)", "551.8(e)")
def test_unseen_cards_drawn_in_error_before_the_deal_are_its_first_cards_and_stay_sealed() -> None:
    d = Dealer()
    d.open()
    d.do(Wager(1, "spanish21", 10))
    d.cards(["9C", "5D", "7H", "QS"])  # drawn in error before "no more bets"
    errors = d.io.of_type("irregularity")
    assert [e["section"] for e in errors] == ["551.16(c)"] * 4
    assert all(e["card"] is None for e in errors)
    d.do(NoMoreBets())  # the held cards are the next cards: the whole initial deal
    assert hand(d, 1) == ("9C", "7H") and d.table.up_card == "5D" and d.table.hole_dealt
    assert not any(re.search(r"\bQS\b", line) for line in lines(d))
    d.decide(1, "stand")
    d.do(DealersCard())
    assert first_line_with(d, "QS")["type"] == "reveal"


@pytest.mark.reg("551.16(c)")
def test_an_unseen_card_drawn_in_error_before_the_peek_is_the_first_card_after_it() -> None:
    d = Dealer()
    d.open()
    d.deal({1: 10}, ["9C", "KD", "5H", "7S"])
    d.cards(["6C"])  # the reader is armed, no card is due
    d.insert(blackjack=False)
    d.decide(1, "hit")
    assert hand(d, 1) == ("9C", "5H", "6C")


# --------------------------------------------------------------------------- 551.16(d)


def offered(d: Dealer) -> None:
    """Boxes 1 (9C 4S, 13) and 2 (5H 6C, 11) against a 6D up card and a KD hole card;
    8H drawn in error before box 1 has decided, and exposed."""
    d.open()
    d.deal({1: 10, 2: 10}, ["9C", "5H", "6D", "4S", "6C", "KD"])
    d.cards(["8H"])
    d.do(ExposedCard())


@pytest.mark.reg("551.16(d)")
def test_an_exposed_card_is_offered_and_a_player_who_refuses_it_gets_no_more_cards() -> None:
    d = Dealer()
    offered(d)
    exposed = last_irregularity(d)
    assert exposed["section"] == "551.16(d)" and exposed["card"] == "8H"
    d.do(RefuseCard(2))  # box 1 is offered it first
    assert d.last_refusal()["section"] == "551.16(d)"
    d.do(RefuseCard(1))
    d.decide(1, "hit")
    refused = d.last_refusal()
    assert refused["section"] == "551.16(d)" and refused["box"] == 1
    assert d.table.turn == (2, 0)
    d.decide(2, "hit")  # box 2 takes it as the next card
    assert hand(d, 2) == ("5H", "6C", "8H")
    d.decide(2, "stand")
    d.do(DealersCard())
    d.cards(["3C"])  # the dealer's 16 draws: 19
    end = d.rounds()[-1]
    assert box(end, 1)["hands"][0] == {
        "cards": ["9C", "4S"],
        "total": 13,
        "outcome": "lose",
        "net": D(-10),
    }
    assert box(end, 2)["hands"][0]["outcome"] == "push"


@pytest.mark.reg("551.16(d)")
def test_an_exposed_card_refused_by_every_player_is_the_dealers_if_he_draws() -> None:
    d = Dealer()
    offered(d)
    d.do(RefuseCard(1))
    d.do(RefuseCard(2))
    d.do(RefuseCard(2))  # offered to nobody now: the dealer is next
    assert "the dealer" in str(d.last_refusal()["reason"])
    d.do(DealersCard())  # 16: the dealer draws the exposed card
    end = d.rounds()[-1]
    assert end["dealer"] == ["6D", "KD", "8H"] and end["dealer_total"] == 24
    assert [box(end, b)["hands"][0]["outcome"] for b in (1, 2)] == ["win", "win"]


@pytest.mark.reg("551.16(d)", "551.8(i)")
def test_an_exposed_card_nobody_can_use_goes_to_the_discard_rack() -> None:
    d = Dealer()
    d.open()
    d.deal({1: 10}, ["9C", "9D", "8S", "QC"])  # the dealer stands on 19
    d.cards(["5H"])
    d.do(ExposedCard())
    d.do(ExposedCard())
    assert "already" in str(d.last_refusal()["reason"])
    d.do(RefuseCard(1))
    d.do(DealersCard())
    discard = last_irregularity(d)
    assert discard["card"] == "5H" and discard["to"] == "discard_rack"
    assert discard["section"] == "551.16(d)"
    d.deal({1: 10}, ["2C"])  # 5H is not the next round's card
    assert hand(d, 1) == ("2C",)
    d.cards(["CUT", "3D", "4D", "6H"])
    d.decide(1, "stand")
    d.do(DealersCard())
    d.cards(["KH"])
    assert d.io.of_type("shoe_end")[0]["discarded"] == ["5H"]


@pytest.mark.reg("551.16(d)", "551.16(c)")
def test_an_exposed_card_is_declared_only_once_each_player_has_his_first_two_cards() -> None:
    d = Dealer()
    d.open()
    d.do(ExposedCard())  # no round in play
    assert d.last_refusal()["section"] == "551.16(d)"
    d.deal({1: 10}, ["9C", "9D", "8S", "QC"])
    d.do(ExposedCard())  # nothing drawn in error
    assert "no card drawn in error" in str(d.last_refusal()["reason"])
    d.do(RefuseCard(1))  # nothing is offered
    assert d.last_refusal()["reason"] == "no exposed card is being offered"


# --------------------------------------------------------------------------- 551.16(e)


@pytest.mark.reg("551.16(e)")
def test_the_card_a_dealer_on_17_draws_for_himself_goes_to_the_discard_rack() -> None:
    d = Dealer()
    d.open()
    d.do(DealerOverdraw())  # no round yet
    assert d.last_refusal()["section"] == "551.16(e)"
    d.deal({1: 10}, ["9C", "9D", "8S", "8C"])  # the dealer has 17
    d.decide(1, "stand")
    d.do(DealersCard())
    d.do(DealerOverdraw())  # nothing drawn yet
    assert "no card has left" in str(d.last_refusal()["reason"])
    d.cards(["5H"])  # the dealer draws for himself on 17
    d.do(DealerOverdraw())
    discard = last_irregularity(d)
    assert discard["section"] == "551.16(e)" and discard["card"] == "5H"
    assert discard["to"] == "discard_rack" and discard["round"] == 1
    d.deal({1: 10}, ["2C"])
    assert hand(d, 1) == ("2C",)  # 5H is no card of this round
    d.do(DealerOverdraw())  # during a round
    assert d.last_refusal()["section"] == "551.16(e)"


@pytest.mark.reg("551.16(e)", "551.16(c)", "551.13(c)")
def test_a_dealer_who_stood_under_17_does_not_discard_the_card_drawn_after() -> None:
    # The letter of (e) is a dealer on 17; under 17 (551.13(c), ruling R7) the card is
    # one drawn in error and used as the next card (c).
    d = Dealer()
    d.open()
    d.deal({1: 10}, ["QC", "5D", "6D", "KH"])
    d.decide(1, "hit")
    d.cards(["9S"])  # bust: the dealer's 15 stands
    d.do(DealersCard())
    d.cards(["7C"])
    d.do(DealerOverdraw())
    refused = d.last_refusal()
    assert refused["section"] == "551.16(e)" and "stood on 15" in str(refused["reason"])
    d.deal({1: 10}, [])
    assert hand(d, 1) == ("7C",)


# --------------------------------------------------------------------------- 551.16(f)


@pytest.mark.reg("551.16(f)", "551.8(d)", "551.7(d)")
def test_a_dealer_who_missed_his_first_card_deals_the_players_then_himself() -> None:
    d = Dealer()
    d.open()
    # The dealer skips his own first card: 7H goes to box 1, 6S to box 2.
    d.deal({1: 10, 2: 10}, ["9C", "8D", "7H", "6S"], match={1: 5})
    d.do(MissedCard(None, 1))
    entry = last_irregularity(d)
    assert entry["section"] == "551.16(f)" and entry["box"] == DEALER
    assert entry["reassigned"] == [
        {"card": "7H", "from": DEALER, "to": 1},
        {"card": "6S", "from": 1, "to": 2},
    ]
    assert hand(d, 1) == ("9C", "7H") and hand(d, 2) == ("8D", "6S")
    assert d.table.up_card is None and prompts(d)[-1] == "MISSED CARD: NEXT CARD TO DEALER"
    d.cards(["9H", "KD"])  # his first card, then his second
    assert d.table.up_card == "9H" and d.table.hole_dealt and d.need() is Need.DECISION
    # 551.7(d): Match-the-Dealer is settled on the cards as corrected (9C matches 9H).
    (match,) = d.io.of_type("match_the_dealer")
    assert match["net"] == 5 * 4
    assert not [line for line in lines(d) if re.search(r"\bKD\b", line)]  # sealed


@pytest.mark.reg("551.16(f)")
def test_a_missed_card_is_declared_once_the_deal_has_passed_it() -> None:
    d = Dealer()
    d.open()
    d.do(MissedCard(None, 1))  # no deal under way
    assert d.last_refusal()["section"] == "551.16(f)"
    d.deal({1: 10}, ["9C"])
    d.do(MissedCard(None, 1))  # the dealer's card is the next: he deals it now
    assert "dealt now" in str(d.last_refusal()["reason"])
    d.do(MissedCard(None, 2))
    assert "not due yet" in str(d.last_refusal()["reason"])
    d.cards(["8D", "7H"])
    d.do(MissedCard(None, 2))  # his second card is next: the deal goes on as it is
    assert last_irregularity(d)["reassigned"] == []
    d.do(MissedCard(None, 2))
    assert "already" in str(d.last_refusal()["reason"])
    d.do(MissedCard(None, 3))
    assert d.last_refusal()["section"] == "551.16(f)"
    d.cards(["KS"])
    assert d.table.up_card == "8D" and d.table.hole_dealt


# --------------------------------------------------------------------------- 551.16(h)


@pytest.mark.reg("551.16(h)", "551.7(d)")
def test_a_box_dealt_no_card_is_dead_and_its_wagers_returned() -> None:
    d = Dealer()
    d.open()
    # Box 2 is passed over twice: 8D goes to box 3, 7H is the up card, 6S and 5C are
    # the second cards of boxes 1 and 3.
    d.deal({1: 10, 2: 25, 3: 10}, ["9C", "8D", "7H", "6S", "5C"], match={2: 5})
    d.do(MissedCard(2, 1))
    d.do(MissedCard(2, 2))
    dead = last_irregularity(d)
    assert dead["section"] == "551.16(h)" and "dealt no card" in str(dead["reason"])
    assert hand(d, 1) == ("9C", "6S") and hand(d, 3) == ("8D", "5C")
    assert d.table.up_card == "7H" and hand(d, 2) == ()
    d.cards(["KD"])  # the hole card
    assert d.table.turn == (1, 0)
    d.decide(1, "stand")
    assert d.table.turn == (3, 0)  # box 2 takes no decision
    d.decide(3, "stand")
    d.do(DealersCard())
    end = d.rounds()[-1]
    assert box(end, 2) == {
        "hands": [{"cards": [], "total": 0, "outcome": "dead", "net": 0}],
        "match_the_dealer_net": 0,
    }
    assert not [e for e in d.io.of_type("match_the_dealer") if e["box"] == 2]
    d.deal({2: 25}, [])  # the player is dealt in on the next round
    assert d.table.state == "dealing"


@pytest.mark.reg("551.16(h)", "551.7(d)")
def test_a_box_dealt_one_card_takes_its_second_after_the_other_players() -> None:
    d = Dealer()
    d.open()
    # Box 2 is passed over on the first card: 8D is the up card, 7H box 1's second.
    d.deal({1: 10, 2: 10}, ["9C", "8D", "7H", "6S"], match={2: 5})
    d.do(MissedCard(2, 1, late=True))
    assert hand(d, 1) == ("9C", "7H") and hand(d, 2) == ("6S",) and d.table.up_card == "8D"
    assert prompts(d)[-1] == "MISSED CARD: NEXT CARD TO BOX 2"
    d.cards(["8C", "QS"])  # box 2's second card, then the hole card
    assert hand(d, 2) == ("6S", "8C") and d.table.hole_dealt
    (match,) = d.io.of_type("match_the_dealer")  # on box 2's two cards: 8C matches 8D
    assert match["box"] == 2 and match["net"] == 5 * 4


@pytest.mark.reg("551.16(h)", "551.10(a)")
def test_a_box_dealt_one_card_whose_player_declines_a_later_second_is_dead() -> None:
    # Proposed ruling: the option declined leaves a one-card hand, called dead.
    d = Dealer()
    d.open()
    d.deal({1: 10, 2: 10}, ["9C", "AD", "7H", "6S"])
    d.do(MissedCard(2, 1, late=False))
    assert hand(d, 2) == ("6S",) and d.table.hands_of(2)[0].dead
    d.cards(["5C"])  # the hole card is next
    assert d.table.insurance_open
    d.do(Wager(2, "insurance", 5))
    assert d.last_refusal()["section"] == "551.16(h)"
    d.do(Wager(1, "insurance", 5))
    d.insert(blackjack=False)
    assert d.table.turn == (1, 0)
    d.decide(1, "stand")
    d.do(DealersCard())
    d.cards(["2C"])  # soft 16 draws: 18
    end = d.rounds()[-1]
    assert box(end, 2)["hands"] == [{"cards": ["6S"], "total": 6, "outcome": "dead", "net": 0}]
    assert box(end, 1)["hands"][0]["net"] == -10 and box(end, 1)["insurance_net"] == -5


@pytest.mark.reg("551.16(h)")
def test_a_round_whose_every_hand_is_dead_is_void() -> None:
    d = Dealer()
    d.open()
    d.deal({1: 10}, ["9C"])  # the dealer passed box 1 and took his own first card
    d.do(MissedCard(1, 1, late=False))
    (end,) = d.rounds()
    assert end["void"] is True and end["section"] == "551.16(h)"
    assert end["dealer"] == ["9C"] and end["returned"] == {"1": 10}
    assert d.need() is Need.WAGERS


@pytest.mark.reg("551.16(h)", "551.8(e)")
def test_a_missed_box_declared_after_the_dealers_own_second_card_voids_the_round() -> None:
    # Proposed ruling: the table took the hole card for a player's card; the deal
    # cannot be corrected without that record, so the floorperson voids the round.
    d = Dealer()
    d.open()
    d.deal({1: 10, 2: 10}, ["9C", "8D", "7H", "6S"])  # box 2 passed over twice
    d.do(MissedCard(2, 1))
    d.do(MissedCard(2, 2))
    (halt,) = d.io.of_type("halt")
    assert halt["cause"] == "missed_card_late" and halt["section"] == "551.16(h)"
    d.do(FloorClear())
    (end,) = d.rounds()
    assert end["void"] is True and end["section"] == "551.16(h)"
    assert end["returned"] == {"1": 10, "2": 10}
    assert d.need() is Need.WAGERS and not d.io.of_type("shoe_end")


@pytest.mark.reg("551.16(h)")
def test_a_missed_box_is_declared_only_for_a_box_in_the_deal() -> None:
    d = Dealer()
    d.open()
    d.deal({1: 10}, ["9C", "8D"])
    d.do(MissedCard(3, 1))
    assert d.last_refusal()["section"] == "551.16(h)"
    d.do(MissedCard(1, 2))  # box 1's second card is the next one
    assert "dealt now" in str(d.last_refusal()["reason"])
    command = d.io.of_type("command")[-1]
    assert command["command"] == "missed_card" and command["late"] is True


# --------------------------------------------------------------------------- 551.16(i)


@pytest.mark.reg("551.16(i)", "551.8(h)")
def test_a_card_not_dealt_comes_after_the_other_players_before_the_hole_card() -> None:
    d = Dealer()
    d.open()
    d.deal({1: 10, 2: 10, 3: 10}, ["9C", "5H", "7S", "6D", "2H", "3H", "8C", "KD"])
    d.decide(1, "hit")  # the dealer moves on without dealing it
    d.do(CardNotDealt(2, late=True))
    assert d.last_refusal()["section"] == "551.16(i)"
    d.do(CardNotDealt(1, late=True))
    assert d.table.turn == (2, 0) and d.need() is Need.DECISION
    d.decide(2, "hit")
    d.cards(["4C"])
    d.decide(2, "stand")
    d.decide(3, "stand")
    assert d.table.turn == (1, 0) and d.need() is Need.CARD
    d.do(DealersCard())  # not before box 1 has its card
    assert d.last_refusal()["section"] == "551.8(h)"
    d.cards(["2S"])
    assert hand(d, 1) == ("9C", "2H", "2S") and hand(d, 2) == ("5H", "3H", "4C")
    d.decide(1, "stand")
    assert d.need() is Need.REVEAL


@pytest.mark.reg("551.16(i)")
def test_a_card_not_dealt_lets_the_player_call_the_hand_dead() -> None:
    d = Dealer()
    d.open()
    d.deal({1: 10, 2: 10}, ["9C", "5H", "6S", "6D", "3H", "KD"])
    d.do(CardNotDealt(1, late=False))  # no card requested yet
    assert d.last_refusal()["section"] == "551.16(i)"
    d.decide(1, "hit")
    d.do(CardNotDealt(1, late=False))
    assert d.table.hands_of(1)[0].dead and d.table.turn == (2, 0)
    d.decide(2, "hit")
    d.do(CardNotDealt(2, late=True))  # nobody else is waiting: the card is due now
    assert "dealt now" in str(d.last_refusal()["reason"])
    d.cards(["4C"])
    d.decide(2, "stand")
    d.do(DealersCard())
    d.cards(["2C"])
    end = d.rounds()[-1]
    assert box(end, 1)["hands"][0] == {
        "cards": ["9C", "6D"],
        "total": 15,
        "outcome": "dead",
        "net": 0,
    }


@pytest.mark.reg("551.16(d)", "551.16(e)", "551.16(f)", "551.16(h)", "551.16(i)")
def test_each_declared_error_is_journaled_with_its_fields_even_when_refused() -> None:
    d = Dealer()
    d.open()
    commands: list[Any] = [
        ExposedCard(),
        RefuseCard(3),
        DealerOverdraw(),
        MissedCard(None, 1),
        MissedCard(2, 2, late=False),
        CardNotDealt(4, late=True),
    ]
    for command in commands:
        d.do(command)
    rows = [{k: v for k, v in e.items() if k != "type"} for e in d.io.of_type("command")]
    assert rows[-6:] == [
        {"command": "exposed_card"},
        {"command": "refuse_card", "box": 3},
        {"command": "dealer_overdraw"},
        {"command": "missed_card", "box": None, "card": 1, "late": True},
        {"command": "missed_card", "box": 2, "card": 2, "late": False},
        {"command": "card_not_dealt", "box": 4, "late": True},
    ]
    sections = [r["section"] for r in d.refusals()[-6:]]
    assert sections == [
        "551.16(d)",
        "551.16(d)",
        "551.16(e)",
        "551.16(f)",
        "551.16(h)",
        "551.16(i)",
    ]


# --------------------------------------------------------------------------- 551.11(a)


@pytest.mark.reg("551.11(a)", "551.11(b)")
def test_a_double_down_for_less_than_the_original_wager() -> None:
    d = Dealer()
    d.open()
    d.deal({1: 10}, ["6C", "9D", "5H", "7S"])
    d.do(Decision(1, "double", 11))
    assert d.last_refusal()["section"] == "551.11(a)"
    d.do(Decision(1, "hit", 5))
    assert d.last_refusal()["reason"] == "an amount goes only with a double down"
    d.do(Decision(1, "double", "five"))
    assert d.last_refusal()["section"] == "551.11(a)"
    d.do(Decision(1, "double", 0))
    assert d.last_refusal()["section"] == "551.11(a)"
    d.do(Decision(1, "double", 5))
    decision = d.io.of_type("decision")[-1]
    assert decision["amount"] == 5 and decision["section"] == "551.11(a)"
    assert d.io.of_type("command")[-1]["amount"] == 5
    d.cards(["9C"])  # 20
    d.do(DealersCard())
    d.cards(["2C"])  # the dealer's 16 draws: 18
    assert box(d.rounds()[-1], 1)["hands"][0]["net"] == 15  # 1 to 1 on 10 + 5


@pytest.mark.reg("551.11(a)")
def test_a_double_down_without_an_amount_is_for_the_whole_original_wager() -> None:
    d = Dealer()
    d.open()
    d.deal({1: 10}, ["6C", "9D", "5H", "7S"])
    d.decide(1, "double")
    assert d.io.of_type("decision")[-1]["amount"] == 10
    d.cards(["2H"])  # 13
    d.do(DealersCard())
    d.cards(["3C"])  # 19
    assert box(d.rounds()[-1], 1)["hands"][0]["net"] == -20


@pytest.mark.reg("551.11(d)", "551.11(a)")
def test_a_partial_double_down_rescued_forfeits_the_original_wager_only() -> None:
    d = Dealer(chip_unit="0.5")  # a double down is chips too (ruling R16): half-dollar chips
    d.open()
    d.deal({1: 10}, ["6C", "9D", "5H", "7S"])
    d.do(Decision(1, "double", D("2.5")))
    d.cards(["2H"])
    d.decide(1, "rescue")
    d.do(DealersCard())
    end = d.rounds()[-1]
    assert box(end, 1)["hands"][0]["outcome"] == "rescue"
    assert box(end, 1)["hands"][0]["net"] == -10


@pytest.mark.reg("551.11(c)", "551.11(d)")
def test_a_dealer_blackjack_collects_only_the_original_wager_of_a_partial_double() -> None:
    # Reachable only if no peek took place (ruling R9): the rules settle it as written.
    doubled = Hand(("5S", "6H", "9C"), D(10), double_wager=D(5))
    (result,) = settle_box([doubled], ["AD", "KC"])
    assert (result.outcome, result.net, result.section) == ("lose", -10, "551.11(c)")
    rescued = Hand(("5S", "6S", "2D"), D(10), double_wager=D(5), rescued=True)
    assert settle_box([rescued], ["AD", "KC"])[0].net == -10
    lost = Hand(("9S", "4H", "KC"), D(10), double_wager=D(5))  # 23
    assert settle_box([lost], ["9D", "8C"])[0].net == -15


# --------------------------------------------------------------------------- the rules


@pytest.mark.reg("551.16(f)", "551.16(h)", "551.8(d)")
def test_the_deal_order_after_missed_places() -> None:
    def places(order: Any) -> list[tuple[object, int, bool]]:
        return [(c.to, c.nth, c.face_up) for c in order]

    # The dealer's missed first card comes after the players' first two (f).
    assert places(initial_deal_order([1, 2], passed_over={(DEALER, 1)})) == [
        (1, 1, True),
        (2, 1, True),
        (1, 2, True),
        (2, 2, True),
        (DEALER, 1, True),
        (DEALER, 2, False),
    ]
    # A box left with one card gets its second after every other player's second (h).
    assert places(initial_deal_order([1, 2, 3], passed_over={(2, 1)}, second_card_later={2})) == [
        (1, 1, True),
        (3, 1, True),
        (DEALER, 1, True),
        (1, 2, True),
        (2, 2, True),
        (3, 2, True),
        (2, 2, True),
        (DEALER, 2, False),
    ]
    # No card at all: the box is out of the deal, and dead.
    assert places(initial_deal_order([1, 2], passed_over={(1, 1), (1, 2)})) == [
        (2, 1, True),
        (DEALER, 1, True),
        (2, 2, True),
        (DEALER, 2, False),
    ]
    assert dead_boxes([1, 2, 3], {(1, 1), (1, 2), (2, 2), (3, 1)}, {3}) == {1, 2}
    with pytest.raises(PlayError):
        initial_deal_order([1], passed_over={(4, 1)})


@pytest.mark.reg("551.16(d)")
def test_a_hand_that_refused_a_card_takes_no_more() -> None:
    refused = Hand(("9C",), D(10), from_split=True, refused=True)
    assert refused.finished and not refused.needs_card
    with pytest.raises(PlayError):
        Hand(("9C", "4S"), D(10), refused=True, drawing=True)
    with pytest.raises(PlayError):
        Hand(("9C", "4S"), D(10), refused=True, stood=True)
    assert settle_box([Hand(("9C", "4S"), D(10), refused=True)], ["9D", "8C"])[0].net == -10


# --------------------------------------------------------------------------- invariants


class RackMachine(Spanish21Machine):
    """Spanish21Machine's dealer and invariants with shoes whose cutting card comes at
    the very end or not at all, so shoes run out mid-round (551.16(g)) and the
    discard rack is reshuffled; and with the dealer's declared errors (551.16(d)-(i))
    and partial double downs thrown in. The test rebuilds the rack from the journal's
    own record of the discards, and checks the table's count against it."""

    seen: ClassVar[Counter[str]] = Counter()  # what the journals held, over all examples

    def __init__(self) -> None:
        super().__init__()
        self.racks = 0
        self.rack_start = 0  # where the cards now in play left the discard rack

    def deliver(self) -> None:
        shuffles = self.shuffles
        super().deliver()
        if self.shuffles > shuffles:
            self.rack_start = self.shoe_start
            self.shoe.remove("CUT")
            if self.rng.random() < 0.5:
                self.shoe.insert(len(self.shoe) - self.rng.randint(0, 2), "CUT")
        racks = self.ops.of_type("rack_shuffled")
        if len(racks) > self.racks:
            self.racks = len(racks)
            here = max(i for i, e in enumerate(self.entries) if e["type"] == "rack_shuffled")
            rack = self.rack_cards(self.rack_start, here)
            assert racks[-1]["cards"] == len(rack)
            self.shoe = self.rng.sample(rack, len(rack))
            self.rack_start = here

    def rack_cards(self, start: int, end: int) -> list[str]:
        """The discard rack as the journal records it: burns, cards found face up or
        sent there, and each finished round's cards."""
        rack: list[str] = []
        for entry in self.entries[start:end]:
            kind: Any = entry["type"]
            if kind == "burn":
                rack.append(str(entry["card"]))
            elif kind == "irregularity" and entry.get("card") is not None:
                if entry["section"] == "551.16(a)" or entry.get("to") == "discard_rack":
                    rack.append(str(entry["card"]))
            elif kind == "round_end":
                done: Any = entry
                rack += [str(c) for c in done["dealer"]]
                rack += [
                    str(c) for b in done["boxes"].values() for h in b["hands"] for c in h["cards"]
                ]
        return rack

    @rule(
        command=st.one_of(
            st.just(ExposedCard()),
            st.builds(RefuseCard, st.integers(0, 8)),
            st.just(DealerOverdraw()),
            st.builds(
                MissedCard,
                st.one_of(st.none(), st.integers(0, 8)),
                st.integers(0, 3),
                st.booleans(),
            ),
            st.builds(CardNotDealt, st.integers(0, 8), st.booleans()),
            st.builds(Decision, st.integers(1, 7), st.just("double"), st.integers(-1, 12)),
        )
    )
    def dealer_error(self, command: Any) -> None:
        self.d.do(command)
        self.deliver()

    def secret_search_start(self) -> int:
        # A card of the reshuffled rack is named by the lines of its first time out,
        # so the search for the hole card starts where the rack was reshuffled.
        return self.rack_start

    def teardown(self) -> None:
        self.seen.update(str(e["type"]) for e in self.entries)
        self.seen.update(str(e["section"]) for e in self.entries if "section" in e)


@pytest.mark.reg("551.16(g)", "551.16(d)", "551.16(h)", "551.16(i)", "551.8(e)")
def test_the_hole_card_stays_sealed_and_every_card_accounted_through_rack_reshuffles() -> None:
    RackMachine.seen.clear()
    run_state_machine_as_test(
        RackMachine,
        settings=settings(max_examples=80, stateful_step_count=60, deadline=None, derandomize=True),
    )
    # The examples reached the irregularities, not just the ordinary procedure.
    seen = RackMachine.seen
    assert seen["rack_shuffled"] and seen["551.16(g)"] and seen["551.16(d)"]
    assert seen["551.16(h)"] and seen["551.16(i)"]
