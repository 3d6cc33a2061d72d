"""Spanish 21 dealing procedure after the initial deal: the cards each decision takes,
the totals announced, the dealer's turn, and the record a dispute is settled from."""

from __future__ import annotations

import json

import pytest

from controller.rules.options import RulesError
from controller.rules.spanish21 import Spanish21Rules
from controller.table.events import (
    CardsSpread,
    DealersCard,
    FloorClear,
    ManualShuffle,
    Need,
    Wager,
)
from tests.support.spanish21 import Dealer, prompts


@pytest.mark.reg("551.8(g)", "635a.7(i)")
def test_each_decision_gets_its_cards_face_up_and_the_new_total_announced() -> None:
    d = Dealer()
    d.open()
    d.deal({1: 10, 3: 10}, ["5C", "6C", "9D", "4C", "5D", "7H"])
    d.decide(1, "hit")
    d.card("2D")
    d.decide(1, "hit")
    d.card("3S")
    d.decide(1, "stand")
    extra = [(e["to"], e["card"], e["face_up"]) for e in d.io.of_type("dealt")][6:]
    assert extra == [(1, "2D", True), (1, "3S", True)]
    # The new total after each card: 5+4=9, +2=11, +3=14.
    assert prompts(d)[-3:] == ["BOX 1: 11", "BOX 1: 14", "BOX 3: 11"]


@pytest.mark.reg("635a.7(j)(1)", "551.13(a)")
def test_a_hand_of_21_draws_no_more_cards() -> None:
    d = Dealer()
    d.open()
    d.deal({1: 10, 2: 10}, ["5C", "6C", "9D", "7C", "5D", "7H"])
    d.decide(1, "hit")
    d.card("9S")  # 5 + 7 + 9 = 21
    assert d.table.turn == (2, 0), "a hand of 21 is done: the dealer moves on"
    d.decide(1, "hit")
    refusal = d.last_refusal()
    assert refusal["box"] == 1 and refusal["decision"] == "hit"


@pytest.mark.reg("635a.7(j)(2)", "551.11(a)")
def test_a_doubled_hand_takes_exactly_one_card() -> None:
    d = Dealer()
    d.open()
    d.deal({1: 10, 2: 10}, ["5C", "6C", "9D", "4C", "5D", "7H"])
    d.decide(1, "double")
    d.card("2S")  # 5 + 4 + 2 = 11, doubled: no further card
    before = len(d.refusals())
    d.decide(1, "hit")
    assert len(d.refusals()) == before + 1
    assert d.last_refusal()["decision"] == "hit"
    doubled = [e for e in d.io.of_type("dealt") if e["to"] == 1]
    assert [e["card"] for e in doubled] == ["5C", "4C", "2S"]


@pytest.mark.reg("635a.7(k)", "551.8(h)")
def test_the_hole_card_is_turned_after_every_decision_then_the_dealer_draws_announcing() -> None:
    d = Dealer()
    d.open()
    d.deal({1: 10}, ["9C", "6D", "8C", "5H"])  # dealer 6 + 5 = 11
    d.do(DealersCard())
    refusal = d.last_refusal()
    assert refusal["command"] == "dealers_card", "no reveal while a decision is due"
    assert not d.io.of_type("reveal")
    d.decide(1, "stand")
    d.do(DealersCard())
    assert [e["card"] for e in d.io.of_type("reveal")] == ["5H"]
    d.card("3S")  # 14
    d.card("4S")  # 18: stands
    dealer_cards = [e for e in d.io.of_type("dealt") if e["to"] == "dealer"][2:]
    assert [(e["card"], e["face_up"]) for e in dealer_cards] == [("3S", True), ("4S", True)]
    assert prompts(d)[-4:-1] == ["DEALER 11", "DEALER 14", "DEALER 18"]
    assert d.need() is Need.WAGERS


def _rebuild(entries: list[dict[str, object]], round_no: int) -> dict[str, list[list[str]]]:
    """Every hand of a round, from the journal alone, as a dispute needs it: the cards
    recorded as dealt, hand by hand, the hole card from its reveal, and a split moving
    the hand's second card to a new hand right after it (ruling R6)."""
    hands: dict[str, list[list[str]]] = {}
    hole_at: int | None = None
    for e in entries:
        if e.get("round") != round_no:
            continue
        if e["type"] == "dealt":
            owner = str(e["to"])
            seats = hands.setdefault(owner, [[]])
            index = int(str(e.get("hand", 1))) - 1
            while len(seats) <= index:
                seats.append([])
            if e.get("sealed"):
                hole_at = len(seats[index])
                seats[index].append("?")
            else:
                seats[index].append(str(e["card"]))
        elif e["type"] == "decision" and e["decision"] == "split":
            seats = hands[str(e["box"])]
            index = int(str(e["hand"])) - 1
            seats.insert(index + 1, [seats[index].pop()])
        elif e["type"] == "reveal":
            assert hole_at is not None
            hands["dealer"][0][hole_at] = str(e["card"])
    return hands


@pytest.mark.reg("551.8(i)", "635a.7(q)")
def test_every_hand_of_a_round_can_be_rebuilt_from_the_record_for_a_dispute() -> None:
    d = Dealer()
    d.open()
    d.deal({1: 10, 3: 10}, ["8C", "6C", "9D", "8D", "5D", "7H"])
    d.decide(1, "split")
    d.card("3S")
    d.decide(1, "stand")
    d.card("2S")
    d.decide(1, "hit")
    d.card("KS")
    d.decide(1, "stand")
    d.decide(3, "hit")
    d.card("7D")
    d.decide(3, "stand")
    d.do(DealersCard())
    d.card("4S")
    rebuilt = _rebuild(d.io.journal.entries, 1)
    (end,) = d.rounds()
    boxes = end["boxes"]
    assert isinstance(boxes, dict)
    assert rebuilt["dealer"] == [end["dealer"]] == [["9D", "7H", "4S"]]
    for number, box in boxes.items():
        assert rebuilt[number] == [h["cards"] for h in box["hands"]]
    assert rebuilt["1"] == [["8C", "3S"], ["8D", "2S", "KS"]]


@pytest.mark.reg("551.8(e)")
def test_a_refused_floorpersons_card_is_recorded_sealed_too() -> None:
    # The card a floorperson enters may be the hole card, whether the clear is taken
    # or refused: a refusal must not write it in clear.
    d = Dealer()
    d.open()
    d.deal({1: 10}, ["9C", "6D", "8C"])
    d.do(FloorClear(card="7H"))
    refusal = d.last_refusal()
    assert refusal["command"] == "floor_clear"
    assert refusal["card"] is None and refusal["sealed"] is True
    assert not any("7H" in json.dumps(e, default=str) for e in d.io.journal.entries)


@pytest.mark.reg("635a.7(p)")
@pytest.mark.parametrize(
    ("order", "expected"),
    [
        # (p)(1): every losing wager collected first, then the winners paid; each from
        # the dealer's right (the highest box) counterclockwise.
        ("collect_then_pay", [(2, "collect", 10), (4, "pay", 10), (1, "pay", 10)]),
        # (p)(2): box by box from the dealer's right, paying and collecting as it comes.
        ("right_to_left", [(4, "pay", 10), (2, "collect", 10), (1, "pay", 10)]),
    ],
)
def test_wagers_are_settled_in_the_order_the_rules_submission_names(
    order: str, expected: list[tuple[int, str, int]]
) -> None:
    d = Dealer(settlement_order=order)
    d.open()
    # Box 1: 9C QC = 19 wins; box 2: 8C 5C = 13 loses; box 3: 7C QD = 17 pushes;
    # box 4: 9H 9S = 18 wins; the dealer: 9D up, 8S in the hole = 17, stands.
    first = ["9C", "8C", "7C", "9H", "9D"]
    second = ["QC", "5C", "QD", "9S", "8S"]
    d.deal({1: 10, 2: 10, 3: 10, 4: 10}, first + second)
    for box in (1, 2, 3, 4):
        d.decide(box, "stand")
    d.do(DealersCard())
    (settlement,) = d.io.of_type("settlement")
    steps = [(s["box"], s["action"], s["amount"]) for s in settlement["steps"]]
    assert settlement["order"] == order and settlement["section"] == "635a.7(p)"
    assert steps == expected
    (end,) = d.rounds()
    assert end["boxes"]["3"]["hands"][0]["outcome"] == "push"


@pytest.mark.reg("635a.7(p)")
def test_a_settlement_order_the_section_does_not_name_is_refused() -> None:
    with pytest.raises(RulesError, match=r"rules.settlement_order: 'dealer_choice' .*635a.7\(p\)"):
        Spanish21Rules.from_dict({"settlement_order": "dealer_choice"})


@pytest.mark.reg("635a.7(p)", "635a.7(h)(1)")
def test_wagers_settled_during_play_take_no_step_at_the_end() -> None:
    d = Dealer()
    d.open()
    # Box 1: AC KC, a Blackjack paid as the dealer reaches it behind a 9 (h)(1)(i);
    # box 2: 9C 7C = 16 surrenders (551.9); box 3: 8C 9H = 17 loses to the dealer's 19.
    d.deal({1: 10, 2: 10, 3: 10}, ["AC", "9C", "8C", "9D", "KC", "7C", "9H", "QS"])
    d.decide(2, "surrender")
    d.decide(3, "stand")
    d.do(DealersCard())
    (settlement,) = d.io.of_type("settlement")
    assert [(s["box"], s["action"]) for s in settlement["steps"]] == [(3, "collect")]
    (end,) = d.rounds()
    assert [end["boxes"][b]["hands"][0]["outcome"] for b in "123"] == ["win", "surrender", "lose"]


@pytest.mark.reg("551.5(h)")
def test_cards_spread_for_inspection_are_shuffled_again_before_play() -> None:
    d = Dealer()
    d.open()
    d.do(Wager(1, "spanish21", 10))
    d.do(CardsSpread())
    assert d.last_refusal()["section"] == "551.5(h)", "a wager on the layout is activity"
    d.do(Wager(1, "spanish21", 0))
    d.do(CardsSpread())
    assert d.io.of_type("cards_spread")[-1]["section"] == "551.5(h)"
    assert d.io.of_type("shoe_end")[-1]["reason"] == "no_gaming_activity"
    assert d.need() is Need.SHUFFLE
    d.card("5C")
    assert d.last_refusal()["event"] == "card_drawn", "nothing is dealt before the shuffle"
    d.do(ManualShuffle())
    d.card("2S")
    assert d.io.of_type("burn")[-1]["card"] == "2S"
    assert d.need() is Need.WAGERS
