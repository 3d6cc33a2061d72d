"""The Spanish 21 table machine fed synthetic device events and console commands: no
I/O. Each rule's test cites the subsection it proves."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from hypothesis import settings

from controller.table.events import (
    DealersCard,
    FloorClear,
    ManualShuffle,
    Need,
    NewDealer,
    NoMoreBets,
    Wager,
)
from drivers import messages as m
from tests.support.spanish21 import Dealer, Spanish21Machine, box
from tests.support.tables import DAY

# --------------------------------------------------------------------------- the deal


@pytest.mark.reg("551.8(d)", "635a.7(e)")
def test_initial_deal_goes_box_by_box_from_box_1_then_the_dealer() -> None:
    # Ruling R2: box 1 is on the dealer's far left.
    d = Dealer()
    d.open()
    d.deal({5: 10, 2: 10}, ["2C", "3C", "9D", "4C", "5C", "6C"])
    dealt = [(e["to"], e["card"], e["face_up"]) for e in d.io.of_type("dealt")]
    assert dealt == [
        (2, "2C", True),
        (5, "3C", True),
        ("dealer", "9D", True),
        (2, "4C", True),
        (5, "5C", True),
        ("dealer", None, False),
    ]
    assert d.need() is Need.DECISION and d.table.turn == (2, 0)


@pytest.mark.reg("551.8(e)", "551.8(h)")
def test_the_hole_card_is_sealed_everywhere_until_the_dealer_turns_it() -> None:
    d = Dealer()
    d.open()
    d.deal({1: 10}, ["8C", "9D", "7H", "QS"])
    d.decide(1, "stand")
    hole_lines = [json.dumps(e, default=str) for e in d.io.journal.entries]
    assert not any("QS" in line for line in hole_lines)
    assert not any("Q" in text for text in d.io.shown)
    sealed = [e for e in d.io.journal.entries if e.get("sealed")]
    assert [e["type"] for e in sealed] == ["device", "dealt"]
    assert all(e["card"] is None for e in sealed)
    d.do(DealersCard())
    (reveal,) = d.io.of_type("reveal")
    assert reveal["card"] == "QS" and reveal["section"] == "551.8(h)"
    lines = [json.dumps(e, default=str) for e in d.io.journal.entries]
    first = next(i for i, line in enumerate(lines) if "QS" in line)
    assert d.io.journal.entries[first]["type"] == "reveal"
    (end,) = d.rounds()
    assert end["dealer"] == ["9D", "QS"] and end["dealer_total"] == 19


@pytest.mark.reg("551.7(d)", "635a.7(f)", "551.7(a)", "551.7(e)")
def test_match_the_dealer_is_settled_before_any_other_card_and_before_the_reader() -> None:
    d = Dealer()
    d.open()
    # Box 1: KD and KH against a KD up card: one same-suit and one other-suit match.
    d.deal({1: 10, 3: 10}, ["KD", "5C", "KD", "KH", "9S", "4C"], match={1: 5, 3: 5})
    types = d.types()
    hole = max(i for i, e in enumerate(d.io.journal.entries) if e["type"] == "dealt")
    settled = [i for i, t in enumerate(types) if t == "match_the_dealer"]
    armed = types.index("reader_armed")
    assert hole < settled[0] and settled[-1] < armed
    # § 635a.7(f): from the dealer's right, box 3 before box 1.
    nets = [(e["box"], e["net"]) for e in d.io.of_type("match_the_dealer")]
    assert nets == [(3, Decimal(-5)), (1, Decimal(5 * 9 + 5 * 4))]


@pytest.mark.reg("551.10(a)", "551.10(b)", "551.10(d)", "551.9(b)")
def test_insurance_only_against_an_ace_and_only_before_the_peek() -> None:
    d = Dealer()
    d.open()
    d.deal({1: 10}, ["9C", "KD", "7H", "5S"])
    d.do(Wager(1, "insurance", 5))
    assert d.last_refusal()["section"] == "551.10(a)"
    d.insert(blackjack=False)
    d.decide(1, "stand")
    d.do(DealersCard())
    d.cards(["3C"])
    assert "insurance_net" not in box(d.rounds()[-1], 1)

    d.deal({1: 10}, ["9C", "AD", "7H", "5S"])
    assert d.table.insurance_open
    d.do(Wager(1, "insurance", 6))  # more than half the wager
    assert d.last_refusal()["section"] == "551.10(b)"
    d.do(Wager(1, "insurance", 5))
    d.insert()
    assert not d.table.insurance_open
    refused = len(d.refusals())
    d.do(Wager(1, "insurance", 5))
    assert len(d.refusals()) == refused + 1
    d.event(m.PeekResult("reader", d.id(), False))
    # 551.10(d): collected as soon as the peek finds no Blackjack, before any card.
    (insurance,) = d.io.of_type("insurance")
    types = [t for t in d.types() if t != "prompt"]
    assert insurance["net"] == -5 and types[-2:] == ["peek", "insurance"]
    d.decide(1, "stand")
    d.do(DealersCard())
    d.cards(["2C"])
    assert box(d.rounds()[-1], 1)["insurance_net"] == -5


@pytest.mark.reg("551.10(c)", "635a.7(g)", "551.6(b)(3)")
def test_a_dealer_blackjack_found_by_the_peek_ends_the_round() -> None:
    d = Dealer()
    d.open()
    d.deal({1: 10, 2: 10}, ["AS", "9C", "AD", "KH", "7D", "QC"])
    d.do(Wager(2, "insurance", 5))
    d.insert(blackjack=True)
    (end,) = d.rounds()
    assert end["dealer"] == ["AD", "QC"] and end["dealer_total"] == 21
    assert box(end, 1)["hands"][0]["outcome"] == "win"  # ruling R3: 3 to 2
    assert box(end, 1)["hands"][0]["net"] == 15
    assert box(end, 2)["hands"][0]["net"] == -10 and box(end, 2)["insurance_net"] == 10
    assert d.need() is Need.WAGERS


# --------------------------------------------------------------------------- the reader


@pytest.mark.parametrize(
    ("up", "target"),
    [("AC", m.PeekTarget.TEN_VALUE), ("KC", m.PeekTarget.ACE), ("JD", m.PeekTarget.ACE)],
)
@pytest.mark.reg("551.8(e)", "635a.7(g)")
def test_the_reader_is_armed_behind_an_ace_king_queen_or_jack(
    up: str, target: m.PeekTarget
) -> None:
    d = Dealer()
    d.open()
    d.deal({1: 10}, ["9C", up, "7H"])
    assert d.io.arms == []  # not before the hole card
    d.cards(["5S"])
    assert d.io.arms == [target] and d.need() is Need.PEEK
    d.decide(1, "stand")  # 551.8(f), ruling R9: no decision before the peek
    assert d.last_refusal()["section"] == "551.8(e)"


@pytest.mark.parametrize("up", ["2C", "7S", "9H"])
@pytest.mark.reg("551.8(e)")
def test_the_reader_is_never_armed_behind_another_up_card(up: str) -> None:
    d = Dealer()
    d.open()
    d.deal({1: 10}, ["9C", up, "7H", "5S"])
    assert d.io.arms == [] and d.need() is Need.DECISION


@pytest.mark.reg("551.16(m)", "551.8(e)", "551.2(e)")
def test_a_reader_answer_the_shoe_contradicts_is_a_malfunction_until_repaired() -> None:
    d = Dealer()
    d.open()
    d.deal({1: 10}, ["9C", "KD", "7H", "AS"])  # the dealer has a Blackjack
    d.insert(blackjack=False)
    (halt,) = d.io.of_type("halt")
    assert halt["cause"] == "reader_malfunction" and halt["section"] == "551.16(m)"
    assert "AS" not in json.dumps(halt, default=str)
    assert d.need() is Need.FLOOR and d.table.repair_needed
    d.do(FloorClear())  # no repair recorded: play stays stopped
    assert d.need() is Need.FLOOR and "551.16(m)" in str(d.last_refusal()["reason"])
    d.do(NoMoreBets())
    assert d.need() is Need.FLOOR
    d.do(FloorClear(repair="replaced"))
    # 551.2(e): the replaced reader is inspected before it is used; then the peek again.
    assert d.need() is Need.INSPECTION
    d.inspect()
    assert d.need() is Need.PEEK and d.io.arms == [m.PeekTarget.ACE, m.PeekTarget.ACE]
    d.insert(blackjack=True)
    assert d.rounds()[-1]["dealer"] == ["KD", "AS"]


@pytest.mark.parametrize(
    "trouble",
    [
        m.ReaderMalfunction("reader", 1, 9),
        m.ReaderTamper("reader", 1),
        m.DeviceFault("reader", 1, 2, 0),  # any fault the reader reports
    ],
    ids=["malfunction", "tamper", "fault"],
)
@pytest.mark.reg("551.16(m)")
def test_a_malfunctioning_reader_stops_dealing_until_a_floorperson_records_the_repair(
    trouble: m.Event,
) -> None:
    d = Dealer()
    d.open()
    d.event(trouble)
    assert d.need() is Need.FLOOR and d.table.repair_needed
    (halt,) = d.io.of_type("halt")
    assert halt["section"] == "551.16(m)"
    d.do(Wager(1, "spanish21", 10))
    assert str(d.last_refusal()["reason"]).startswith("play is stopped")
    d.do(FloorClear(repair="repaired"))
    assert d.need() is Need.INSPECTION
    d.do(Wager(1, "spanish21", 10))
    d.do(NoMoreBets())
    assert d.last_refusal()["section"] == "551.2(e)"
    d.inspect()
    d.do(NoMoreBets())
    assert d.table.state == "dealing"


@pytest.mark.reg("551.2(e)")
def test_the_reader_is_inspected_before_the_first_round_of_each_gaming_day() -> None:
    d = Dealer()
    d.do(ManualShuffle())
    d.card("2S")
    assert d.need() is Need.INSPECTION
    d.do(Wager(1, "spanish21", 10))
    d.do(NoMoreBets())
    assert d.last_refusal()["section"] == "551.2(e)"
    d.inspect(ok=False)  # the self-test fails: a malfunction (551.16(m))
    assert d.need() is Need.FLOOR and d.table.repair_needed
    d.do(FloorClear(repair="repaired"))
    d.inspect()
    (inspected,) = d.io.of_type("reader_inspected")
    assert inspected["day"] == DAY
    d.do(NoMoreBets())
    d.cards(["9C", "5D", "7H", "5S"])
    d.decide(1, "stand")
    d.do(DealersCard())
    d.cards(["KC"])
    d.day = "2026-03-03"
    assert d.need() is Need.INSPECTION


@pytest.mark.reg("551.2(e)", "551.8(e)")
def test_a_gaming_day_that_ends_mid_round_wants_a_new_inspection_before_the_arming() -> None:
    # Ruling R15: the inspection counts for the gaming day in force at the moment of
    # arming. The day changes while the cards are dealt: the peek waits for the
    # floorperson's inspection of the new day, then the reader is armed.
    d = Dealer()
    d.open()
    d.deal({1: 10}, ["9C", "KD", "7H"])
    d.day = "2026-03-03"
    d.cards(["5S"])  # the hole card behind a king: the peek is due
    assert not d.io.of_type("reader_armed") and d.need() is Need.INSPECTION
    d.insert(armed=False)  # put in anyway: the reader was not armed, it reads nothing
    assert d.last_refusal()["section"] == "551.8(e)"
    d.inspect()
    assert [e["day"] for e in d.io.of_type("reader_inspected")] == [DAY, "2026-03-03"]
    (armed,) = d.io.of_type("reader_armed")
    assert armed["target"] == "ace" and d.need() is Need.PEEK
    d.insert(blackjack=False)
    assert d.need() is Need.DECISION


@pytest.mark.reg("551.16(l)", "551.16(l)(1)", "551.7(f)")
def test_the_reader_used_behind_another_up_card_voids_the_round_after_the_floorperson() -> None:
    d = Dealer()
    d.open()
    d.deal({1: 10, 2: 25}, ["9C", "8C", "7H", "5S", "6D", "4S"], match={2: 5})
    d.insert(armed=False)
    (irregularity,) = d.io.of_type("irregularity")
    assert irregularity["section"] == "551.16(l)"
    (halt,) = d.io.of_type("halt")
    assert halt["cause"] == "reader_misuse" and d.need() is Need.FLOOR
    d.do(FloorClear())
    (end,) = d.rounds()
    assert end["void"] is True and end["section"] == "551.16(l)(1)"
    assert [h["outcome"] for b in (1, 2) for h in box(end, b)["hands"]] == ["dead", "dead"]
    assert end["returned"] == {"1": 10, "2": 25}
    assert box(end, 2)["match_the_dealer_net"] == -5  # settled before the reader: it stands
    assert d.need() is Need.WAGERS


@pytest.mark.reg("551.16(l)(2)")
def test_a_reader_that_shows_players_nothing_lets_play_go_on() -> None:
    d = Dealer(reader_reveals_hole_card=False)
    d.open()
    d.deal({1: 10}, ["9C", "8C", "7H", "5S"])
    d.insert(armed=False)
    d.do(FloorClear())
    assert d.io.of_type("play_continues") and d.need() is Need.DECISION
    d.decide(1, "stand")
    d.do(DealersCard())
    d.cards(["4D"])
    assert d.rounds()[-1]["void"] is False


@pytest.mark.reg("551.8(e)")
def test_an_insertion_the_reader_was_not_armed_for_reads_nothing() -> None:
    d = Dealer()
    d.open()
    d.deal({1: 10}, ["9C", "KC", "7H", "5S"])
    d.insert(armed=False)
    assert d.last_refusal()["section"] == "551.8(e)" and d.need() is Need.PEEK
    d.insert(blackjack=False)
    assert d.need() is Need.DECISION


# --------------------------------------------------------------------------- decisions


@pytest.mark.reg("551.8(f)", "635a.7(h)")
def test_decisions_go_box_by_box_from_box_1() -> None:
    d = Dealer()
    d.open()
    d.deal({1: 10, 3: 10}, ["9C", "2D", "5H", "7C", "8S", "4C"])
    d.decide(3, "stand")
    assert d.last_refusal()["section"] == "551.8(f)"
    d.decide(1, "stand")
    d.decide(3, "stand")
    assert d.need() is Need.REVEAL


@pytest.mark.reg("551.9(a)")
def test_surrender_comes_before_any_other_decision() -> None:
    d = Dealer()
    d.open()
    d.deal({1: 10, 2: 10}, ["9C", "2D", "6D", "7C", "7S", "4C"])
    d.decide(1, "hit")
    d.cards(["2H"])
    d.decide(1, "surrender")
    assert d.last_refusal()["section"] == "551.9(a)"
    d.decide(1, "stand")
    d.decide(2, "surrender")
    d.do(DealersCard())
    d.cards(["QD"])
    end = d.rounds()[-1]
    assert box(end, 2)["hands"][0] == {
        "cards": ["2D", "7S"],
        "total": 9,
        "outcome": "surrender",
        "net": Decimal(-5),
    }


@pytest.mark.reg("551.12(b)", "551.12(a)", "551.12(c)")
def test_split_hands_are_completed_from_the_dealers_left() -> None:
    # Ruling R6: the first hand gets its second card and is completed first.
    d = Dealer()
    d.open()
    d.deal({1: 10}, ["8C", "9D", "8H", "5S"])
    d.decide(1, "split")
    d.cards(["3C"])
    assert [h.cards for h in d.table.hands_of(1)] == [("8C", "3C"), ("8H",)]
    assert d.table.turn == (1, 0) and d.need() is Need.DECISION
    d.decide(1, "hit")
    d.cards(["KC"])  # 21: the first hand is complete
    d.cards(["8D"])  # the second hand's second card
    assert d.table.turn == (1, 1)
    d.decide(1, "split")  # re-split: at most three hands
    d.cards(["2C"])
    d.decide(1, "stand")
    d.cards(["9S"])
    d.decide(1, "split")
    assert "551.12" in str(d.last_refusal()["section"])
    d.decide(1, "stand")
    assert [h.cards for h in d.table.hands_of(1)] == [
        ("8C", "3C", "KC"),
        ("8H", "2C"),
        ("8D", "9S"),
    ]


@pytest.mark.reg("551.11(d)", "551.11(a)")
def test_rescue_while_the_dealer_is_still_at_the_box() -> None:
    d = Dealer()
    d.open()
    d.deal({1: 10, 2: 10}, ["6C", "4D", "9D", "5H", "6S", "2S"])
    d.decide(1, "double")
    d.cards(["2H"])
    assert d.table.rescuable == (1, 0)
    d.decide(1, "rescue")
    d.decide(2, "double")
    d.cards(["3H"])
    d.decide(2, "stand")  # the doubled hand takes no more decisions (551.11(a))
    assert d.last_refusal()["section"] == "551.8(f)"
    d.do(DealersCard())
    d.cards(["KS"])
    end = d.rounds()[-1]
    assert box(end, 1)["hands"][0]["outcome"] == "rescue"
    assert box(end, 1)["hands"][0]["net"] == -10


@pytest.mark.reg("551.11(d)")
def test_no_rescue_once_the_dealer_moves_on_to_the_next_box() -> None:
    d = Dealer()
    d.open()
    d.deal({1: 10, 2: 10}, ["6C", "4D", "9D", "5H", "6S", "2S"])
    d.decide(1, "double")
    d.cards(["2H"])
    d.decide(2, "stand")
    d.decide(1, "rescue")
    assert d.last_refusal()["section"] == "551.11(d)"


@pytest.mark.reg("551.13(c)", "635a.7(m)", "551.8(h)")
def test_the_dealer_does_not_draw_when_no_result_depends_on_it() -> None:
    # Ruling R7: busted hands and a 21 in three cards do not depend on the dealer.
    d = Dealer()
    d.open()
    d.deal({1: 10, 2: 10}, ["QC", "5D", "6D", "KH", "6C", "9S"])
    d.decide(1, "hit")
    d.cards(["5C"])  # 25: bust
    d.decide(2, "hit")
    d.cards(["QS"])  # 21 in three cards
    d.do(DealersCard())
    end = d.rounds()[-1]
    assert end["dealer"] == ["6D", "9S"] and end["dealer_total"] == 15
    assert d.need() is Need.WAGERS
    d.deal({1: 10}, ["QC", "5D", "KD", "2C"])
    d.decide(1, "hit")
    d.cards(["7H"])
    d.do(DealersCard())
    assert d.rounds()[-1]["dealer"] == ["5D", "2C"] and d.need() is Need.WAGERS


@pytest.mark.reg("551.13(b)", "635a.7(l)", "551.2(c)(2)")
def test_the_dealer_draws_to_16_and_stands_on_every_17() -> None:
    d = Dealer()
    d.open()
    d.deal({1: 10}, ["QC", "5D", "9D", "AC"])  # the dealer holds a soft 16
    d.decide(1, "stand")
    d.do(DealersCard())
    assert d.need() is Need.CARD
    d.cards(["AH"])  # soft 17: the dealer stands
    end = d.rounds()[-1]
    assert end["dealer"] == ["5D", "AC", "AH"] and end["dealer_total"] == 17
    assert box(end, 1)["hands"][0]["outcome"] == "win"


@pytest.mark.reg("551.16(c)")
def test_a_card_drawn_in_error_is_sealed_and_used_as_the_next_card() -> None:
    d = Dealer()
    d.open()
    d.deal({1: 10}, ["QC", "5D", "3D", "2C"])
    d.cards(["8H"])  # no card is due: the player has not decided
    (error,) = d.io.of_type("irregularity")
    assert error["section"] == "551.16(c)" and error["card"] is None
    d.decide(1, "hit")
    dealt = d.io.of_type("dealt")[-1]
    assert dealt["card"] == "8H" and dealt["to"] == 1


# --------------------------------------------------------------------------- wagers


@pytest.mark.reg("551.6(d)", "551.7(b)", "551.6(a)")
def test_wagers_before_the_first_card_and_match_the_dealer_beside_the_basic_wager() -> None:
    d = Dealer(match_the_dealer_max=5)
    d.open()
    d.do(Wager(2, "match_the_dealer", 5))
    assert d.last_refusal()["section"] == "551.7(b)"
    d.do(Wager(2, "spanish21", 10))
    d.do(Wager(2, "match_the_dealer", 6))
    assert d.last_refusal()["section"] == "551.7(b)"
    d.do(Wager(8, "spanish21", 10))
    assert d.last_refusal()["section"] == "551.2(b)(2)"
    d.do(NoMoreBets())
    d.cards(["9C"])
    d.do(Wager(3, "spanish21", 10))
    assert d.last_refusal()["section"] == "551.6(d)"


@pytest.mark.reg("551.8(d)(1)")
def test_no_round_without_a_wager() -> None:
    d = Dealer()
    d.open()
    d.do(NoMoreBets())
    assert d.last_refusal()["section"] == "551.8(d)(1)" and d.need() is Need.WAGERS


# --------------------------------------------------------------------------- the shoe


@pytest.mark.reg("551.5(a)", "551.8(c)", "635a.7(c)")
def test_the_first_card_after_a_shuffle_and_one_per_new_dealer_are_burned() -> None:
    d = Dealer()
    d.inspect()
    d.card("AS")
    assert d.last_refusal()["section"] == "551.5(a)"
    d.do(ManualShuffle())
    d.card("KD")
    d.deal({1: 10}, ["9C"])
    d.do(NewDealer())
    assert d.last_refusal()["section"] == "551.8(c)"  # not in the middle of a round
    d.cards(["5D", "7H", "5S"])
    d.decide(1, "stand")
    d.do(DealersCard())
    d.cards(["KH"])
    d.do(NewDealer())
    assert d.need() is Need.CARD
    d.card("6H")
    assert [(b["card"], b["reason"]) for b in d.io.of_type("burn")] == [
        ("KD", "new batch"),
        ("6H", "new dealer"),
    ]
    assert d.need() is Need.WAGERS


@pytest.mark.reg("551.16(k)", "551.16(j)", "551.3(a)")
def test_shuffles_by_hand_only_without_a_shuffler_and_a_failed_shuffle_is_done_again() -> None:
    d = Dealer()
    d.inspect()
    d.event(m.ShufflerAttached("shuffler", d.id()))
    d.do(ManualShuffle())
    assert d.last_refusal()["section"] == "551.16(k)"
    for failure in (m.ShufflerJam, m.ShufflerStopped, m.CycleIncomplete):
        d.event(failure("shuffler", d.id()))
    assert len(d.io.of_type("shuffle_failed")) == 3 and d.need() is Need.SHUFFLE
    d.event(m.ShuffleCompleted("shuffler", d.id(), 312))  # a 52-card count
    assert d.last_refusal()["section"] == "551.3(a)"
    d.event(m.ShuffleCompleted("shuffler", d.id(), 288))
    assert d.need() is Need.CARD
    d.event(m.ShufflerRemoved("shuffler", d.id()))
    d.card("2C")
    assert d.need() is Need.WAGERS
    (shuffled,) = d.io.of_type("shuffled")
    assert shuffled == {"type": "shuffled", "shoe": 1, "how": "shuffler", "cards": 288}


@pytest.mark.reg("551.8(j)", "635a.7(d)", "551.5(g)")
def test_the_cutting_card_round_is_completed_then_the_cards_are_reshuffled() -> None:
    d = Dealer()
    d.open()
    d.deal({1: 10}, ["9C", "CUT", "8D", "7H", "KS"])
    d.decide(1, "stand")
    d.do(DealersCard())
    (end,) = d.io.of_type("shoe_end")
    assert end["rounds"] == 1 and end["reason"] == "cutting_card" and end["burned"] == ["2S"]
    assert d.need() is Need.SHUFFLE


@pytest.mark.reg("635a.7(d)")
def test_a_cutting_card_between_rounds_belongs_to_the_next_round() -> None:
    # Ruling R1: it appears when it leaves the shoe.
    d = Dealer()
    d.open()
    d.cards(["CUT"])
    d.deal({1: 10}, ["9C", "8D", "7H", "KS"])
    assert not d.io.of_type("shoe_end")
    d.decide(1, "stand")
    d.do(DealersCard())
    assert d.io.of_type("shoe_end")[0]["rounds"] == 1


@pytest.mark.reg("551.16(a)")
def test_a_card_found_face_up_is_discarded_and_a_second_voids_the_round() -> None:
    d = Dealer()
    d.open()
    d.deal({1: 10}, ["9C"])
    d.card("4H", face_up=True)
    d.cards(["8D", "7H", "KS"])
    assert [e["card"] for e in d.io.of_type("dealt") if e["to"] == 1] == ["9C", "7H"]
    d.decide(1, "hit")
    d.card("5C", face_up=True)
    (end,) = d.rounds()
    assert end["void"] is True and end["section"] == "551.16(a)"
    assert end["returned"] == {"1": 10}
    (shoe,) = d.io.of_type("shoe_end")
    assert shoe["reason"] == "face_up" and shoe["discarded"] == ["4H", "5C"]
    assert d.need() is Need.SHUFFLE


@pytest.mark.reg("551.16(b)", "551.3(a)")
def test_a_ten_is_removed_by_the_floorperson_and_a_second_removes_the_decks() -> None:
    d = Dealer()
    d.open()
    d.deal({1: 10}, ["9C", "TD"])
    (halt,) = d.io.of_type("halt")
    assert halt["cause"] == "ten_found" and halt["ends_shoe"] is False
    d.do(FloorClear())
    d.cards(["8D", "7H", "KS"])  # the ten took no place: 8D is the up card
    assert d.table.up_card == "8D"
    d.decide(1, "hit")
    d.card("TS")
    assert d.io.of_type("halt")[-1]["ends_shoe"] is True
    d.do(FloorClear())
    (end,) = d.rounds()
    assert end["void"] is True and end["section"] == "551.16(b)"
    (shoe,) = d.io.of_type("shoe_end")
    assert shoe["reason"] == "decks_removed" and shoe["removed"] == ["TD", "TS"]


@pytest.mark.reg("551.3(a)")
def test_a_card_the_decks_cannot_hold_stops_play_and_ends_the_shoe() -> None:
    d = Dealer()
    d.open()
    d.deal({1: 10}, ["AS"] * 7)  # the seventh ace of spades in six decks
    (halt,) = d.io.of_type("halt")
    assert halt["cause"] == "foreign_card" and halt["ends_shoe"] is True


@pytest.mark.reg("551.16(c)", "551.8(j)")
def test_a_card_drawn_in_error_and_never_used_goes_to_the_discard_at_the_shoes_end() -> None:
    d = Dealer()
    d.open()
    d.deal({1: 10}, ["9C", "CUT", "8D", "7H", "KS"])
    d.decide(1, "stand")
    d.cards(["4H"])  # drawn in error: held as the next card
    d.do(DealersCard())  # the dealer stands on 18: the round and the shoe end
    (shoe,) = d.io.of_type("shoe_end")
    assert shoe["discarded"] == ["4H"]


@pytest.mark.reg("551.16(b)")
def test_cards_out_of_the_shoe_while_play_is_stopped_are_discarded_when_the_decks_go() -> None:
    d = Dealer()
    d.open()
    d.deal({1: 10}, ["9C", "TD"])
    d.do(FloorClear())
    d.cards(["TH"])  # the second ten: play stops and the decks go
    d.cards(["5C"])  # out of the shoe while stopped: held, and sealed
    assert d.io.of_type("device")[-1]["card"] is None
    d.do(FloorClear())
    (shoe,) = d.io.of_type("shoe_end")
    assert shoe["discarded"] == ["5C"] and shoe["removed"] == ["TD", "TH"]
    assert not d.refusals()


def test_an_unreadable_hole_card_entered_by_the_floorperson_stays_sealed() -> None:
    d = Dealer()
    d.open()
    d.deal({1: 10}, ["9C", "8D", "7H"])
    d.event(m.UnreadableCard("shoe", d.id()))
    d.do(FloorClear(card="QH"))
    assert not any("QH" in json.dumps(e, default=str) for e in d.io.journal.entries)
    assert d.table.hole_dealt and d.need() is Need.DECISION


# --------------------------------------------------------------------------- invariants

Spanish21Machine.TestCase.settings = settings(
    max_examples=60, stateful_step_count=60, deadline=None
)
test_spanish21_table_invariants = pytest.mark.reg("551.8(e)", "551.8(h)", "551.16(a)")(
    Spanish21Machine.TestCase
)
