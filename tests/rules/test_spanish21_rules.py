"""Spanish 21 rules (ch. 551, § 635a.7) as pure functions, against the text and the
bench examples. Where the text departs from common casino practice, the test says so."""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import replace
from decimal import Decimal, Inexact, localcontext
from functools import cache
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from controller.rules.baccarat import RulesError
from controller.rules.cards import CUT, CardError, deck, rank
from controller.rules.spanish21 import (
    DEALER,
    BoxRound,
    Decision,
    Hand,
    HandResult,
    InitialCard,
    PeekTarget,
    PlayError,
    Spanish21Rules,
    allowed_decisions,
    apply_decision,
    blackjack_paid_at_once,
    bonus_payout,
    box_context,
    card_value,
    check_insurance,
    check_match_the_dealer,
    check_player_boxes,
    deal_card,
    dealer_blackjack,
    dealer_draws,
    dealer_needs_to_draw,
    depends_on_dealer,
    hand_value,
    initial_deal_order,
    insurance_allowed,
    insurance_max,
    insurance_net,
    is_blackjack,
    is_bust,
    match_the_dealer_max,
    match_the_dealer_net,
    match_the_dealer_order,
    may_wager,
    next_hand,
    peek_target,
    player_order,
    reader_allowed,
    reader_misuse,
    settle_box,
    settle_round,
    super_bonus,
    surrender_settled_at_once,
)
from tests.support.paths import EXAMPLES

D = Decimal
SIX = Spanish21Rules()
EIGHT = Spanish21Rules.from_dict({"decks": 8})

CARDS = st.sampled_from(deck(spanish=True))


def hand(*cards: str, wager: int | str = 10, **flags: Any) -> Hand:
    return Hand(cards, D(wager), **flags)


def settle_one(h: Hand, dealer: Sequence[str]) -> tuple[str, Decimal | int]:
    [result] = settle_box((h,), dealer)
    return result.outcome, result.net


def decide(
    hands: Sequence[Hand], decision: Decision, *, up: str = "6S", peeked: bool = False
) -> tuple[Hand, ...]:
    """``decision`` on the hand in play."""
    index = next_hand(hands)
    assert index is not None
    return apply_decision(hands, index, decision, up_card=up, peeked=peeked)


def options(
    hands: Sequence[Hand], index: int, up: str = "6S", peeked: bool = False
) -> set[Decision]:
    return set(
        allowed_decisions(hands[index], box_context(hands, index, up_card=up, peeked=peeked))
    )


# --------------------------------------------------------------------------- totals


@pytest.mark.reg("551.3(b)")
def test_card_values() -> None:
    assert [card_value(f"{r}S") for r in "23456789"] == list(range(2, 10))
    assert [card_value(f"{r}H") for r in "JQK"] == [10, 10, 10]
    assert card_value("AD") == 1  # hand_value makes it 11 where it fits


@pytest.mark.reg("551.3(a)", "551.16(b)")
def test_a_ten_is_no_spanish_21_card() -> None:
    with pytest.raises(CardError, match=r"551\.3\(a\)"):
        hand_value(["TD", "7S"])
    with pytest.raises(CardError, match=r"551\.3\(a\)"):
        hand("10H", "7S")


@pytest.mark.reg("551.3(b)(3)", "551.1")
@pytest.mark.parametrize(
    ("cards", "total", "soft"),
    [
        (["AS", "6H"], 17, True),
        (["AS", "6H", "9C"], 16, False),
        (["AS", "AH"], 12, True),
        (["AS", "AH", "9C"], 21, True),
        (["AS", "AH", "AD", "AC", "7S"], 21, True),
        (["KS", "QH", "2C"], 22, False),
        (["5D", "6D"], 11, False),
        ([], 0, False),
    ],
)
def test_hand_value(cards: list[str], total: int, soft: bool) -> None:
    assert hand_value(cards) == (total, soft)
    assert is_bust(cards) == (total > 21)


@pytest.mark.reg("551.3(b)(3)", "551.1")
@given(st.lists(CARDS, max_size=12))
def test_hand_value_is_the_best_total_not_over_21(cards: list[str]) -> None:
    values = [card_value(c) for c in cards]
    totals = [sum(values) + 10 * k for k in range(values.count(1) + 1)]
    best = max((t for t in totals if t <= 21), default=min(totals))
    total, soft = hand_value(cards)
    assert total == best
    # Soft: an ace counts 11 (551.1).
    assert soft == (1 in values and total == sum(values) + 10)


@pytest.mark.reg("551.1")
def test_blackjack_is_an_ace_and_a_ten_value_card_as_the_first_two() -> None:
    for pair in (["AS", "KH"], ["QD", "AC"], ["JS", "AS"]):
        assert is_blackjack(pair, from_split=False)
    assert not is_blackjack(["AS", "9H"], from_split=False)
    assert not is_blackjack(["5S", "6H", "KD"], from_split=False)  # 21 in three cards
    assert not is_blackjack(["AS", "AH"], from_split=False)
    assert dealer_blackjack(["AD", "KC"]) and not dealer_blackjack(["AD", "9C", "AS"])


@pytest.mark.reg("551.1", "551.12(a)")
def test_two_card_21_on_a_split_hand_is_no_blackjack() -> None:
    # Ruling R4: a split hand is formed after the initial deal.
    assert not is_blackjack(["AS", "KH"], from_split=True)
    assert not hand("AS", "KH", from_split=True).blackjack
    assert hand("AS", "KH").blackjack


# --------------------------------------------------------------------------- dealing order


@pytest.mark.reg("551.8(d)", "635a.7(e)")
def test_initial_deal_order_from_box_1_upward() -> None:
    # Ruling R2: box 1 is on the dealer's far left, so dealing starts there.
    assert initial_deal_order([5, 2]) == (
        InitialCard(2, True),
        InitialCard(5, True),
        InitialCard(DEALER, True),  # 551.8(d)(2): up card
        InitialCard(2, True),
        InitialCard(5, True),
        InitialCard(DEALER, False),  # 551.8(d)(4): hole card face down
    )


@pytest.mark.reg("551.8(d)", "551.2(b)")
def test_deal_order_refuses_boxes_that_do_not_exist() -> None:
    for bad in ([0], [8], [3, 3]):
        with pytest.raises(PlayError):
            initial_deal_order(bad)
    with pytest.raises(PlayError, match=r"551\.8\(d\)"):
        initial_deal_order([])


@pytest.mark.reg("551.8(f)", "635a.7(f)", "635a.7(h)")
def test_decisions_go_left_to_right_and_match_the_dealer_right_to_left() -> None:
    assert player_order({7, 1, 4}) == (1, 4, 7)
    assert match_the_dealer_order({7, 1, 4}) == (7, 4, 1)


@pytest.mark.reg("551.14")
def test_a_players_boxes_are_adjacent_and_within_the_limit() -> None:
    two = Spanish21Rules.from_dict({"boxes_per_player": 2})
    check_player_boxes([3, 4], two)
    with pytest.raises(PlayError, match=r"adjacent \(551\.14\)"):
        check_player_boxes([3, 5], two)
    with pytest.raises(PlayError, match=r"at most 2 box"):
        check_player_boxes([3, 4, 5], two)
    with pytest.raises(PlayError, match=r"551\.14"):
        check_player_boxes([3, 4], SIX)  # default: one box each (ruling R8)


@pytest.mark.reg("551.6(k)")
def test_no_mid_shoe_entry_until_the_shuffle_or_readmission() -> None:
    barred = Spanish21Rules.from_dict({"no_mid_shoe_entry": True})
    assert may_wager(SIX, sat_out_since_shuffle=True, readmitted=False)
    assert not may_wager(barred, sat_out_since_shuffle=True, readmitted=False)
    assert may_wager(barred, sat_out_since_shuffle=True, readmitted=True)
    assert may_wager(barred, sat_out_since_shuffle=False, readmitted=False)


# --------------------------------------------------------------------------- the reader


@pytest.mark.reg("551.8(e)", "635a.7(g)")
def test_reader_only_behind_an_ace_or_a_face_card() -> None:
    assert [r for r in "A23456789JQK" if reader_allowed(f"{r}S")] == ["A", "J", "Q", "K"]
    assert peek_target("AH") is PeekTarget.TEN_VALUE  # looking for a K, Q or J
    for face in ("KS", "QD", "JC"):
        assert peek_target(face) is PeekTarget.ACE
    with pytest.raises(PlayError, match=r"551\.8\(e\)"):
        peek_target("9S")


@pytest.mark.reg("551.16(l)(1)", "551.16(l)(2)")
def test_reader_used_behind_another_up_card() -> None:
    # Fail safe by default: a void round returns every wager and wrongs nobody.
    assert reader_misuse("9S", SIX) == "void"
    blind = Spanish21Rules.from_dict({"reader_reveals_hole_card": False})
    assert reader_misuse("9S", blind) == "continue"
    with pytest.raises(PlayError):
        reader_misuse("KS", SIX)  # no misuse: the reader is required there
    # A dead hand's wagers go back.
    assert settle_one(hand("9S", "7D", dead=True), ["9H", "8C"]) == ("dead", 0)


@pytest.mark.reg("635a.7(h)(1)")
def test_blackjack_paid_at_once_only_where_no_peek_was_needed() -> None:
    assert blackjack_paid_at_once("9S")
    assert not blackjack_paid_at_once("AS")
    assert not blackjack_paid_at_once("QS")


@pytest.mark.reg("551.9(a)(1)", "551.9(a)(2)")
def test_when_a_surrender_is_settled() -> None:
    assert surrender_settled_at_once("9S", peeked=False)
    assert not surrender_settled_at_once("KS", peeked=False)
    assert surrender_settled_at_once("KS", peeked=True)  # ruling R9


# --------------------------------------------------------------------------- the dealer


@pytest.mark.reg("551.13(b)", "551.2(c)", "635a.7(l)")
def test_dealer_draws_to_16_and_stands_on_every_17() -> None:
    assert dealer_draws(["9S", "7H"])
    assert not dealer_draws(["9S", "8H"])
    assert not dealer_draws(["KS", "2H", "5D"])
    # Many Spanish 21 tables hit a soft 17; 551.13(b) says "hard or soft total of 17".
    assert not dealer_draws(["AS", "6H"])
    assert dealer_draws(["AS", "5H"])
    assert dealer_draws(["AS", "6H", "9D"])  # hard 16 now


@pytest.mark.reg("551.13(c)", "635a.7(m)")
@pytest.mark.parametrize(
    "done",
    [
        hand("KS", "5H", "9D"),  # busted
        hand("KS", "6H", surrendered=True),
        hand("5S", "6S", "2D", double_wager=D(10), rescued=True),
        hand("AS", "KH"),  # Blackjack, paid
        hand("5H", "6D", "QH"),  # 21 in three cards wins against any dealer total
        hand("9S", "7D", dead=True),
    ],
    ids=["bust", "surrender", "rescue", "blackjack", "21-in-3", "dead"],
)
def test_dealer_does_not_draw_when_no_result_depends_on_it(done: Hand) -> None:
    # Ruling R7; the dealer stays on 15.
    assert not depends_on_dealer(done)
    assert not dealer_needs_to_draw(["6C", "9S"], [done])
    assert dealer_needs_to_draw(["6C", "9S"], [done, hand("9S", "9H", stood=True)])


@pytest.mark.reg("551.13(c)")
def test_a_split_two_card_21_still_needs_the_dealer() -> None:
    # Ruling R4: it pushes against a dealer 21, so its result depends on him.
    split21 = hand("AS", "KH", from_split=True)
    assert depends_on_dealer(split21)
    assert dealer_needs_to_draw(["6C", "9S"], [split21])


@pytest.mark.reg("551.13(c)", "551.8(h)")
def test_dealer_waits_for_every_decision() -> None:
    with pytest.raises(PlayError, match=r"551\.13\(c\)"):
        dealer_needs_to_draw(["6C", "9S"], [hand("9S", "5H")])


# --------------------------------------------------------------------------- decisions


@pytest.mark.reg("551.11(a)", "551.11(d)")
def test_a_hand_holds_only_wagers_the_chapter_allows() -> None:
    with pytest.raises(PlayError, match=r"551\.11\(a\)"):
        hand("5S", "6H", "9C", double_wager=D(11))
    with pytest.raises(PlayError, match=r"551\.11\(d\)"):
        hand("5S", "6H", "9C", rescued=True)
    with pytest.raises(PlayError, match="one way only"):
        hand("KS", "6H", stood=True, surrendered=True)
    with pytest.raises(PlayError, match="more than 0"):
        hand("KS", "6H", wager=0)


@pytest.mark.reg("551.8(e)", "551.8(f)", "551.9(a)")
def test_no_decision_before_the_peek() -> None:
    # Ruling R9: with a reader, the peek precedes surrender and every other decision.
    hands = (hand("9S", "7H"),)
    assert options(hands, 0, up="KS", peeked=False) == set()
    assert options(hands, 0, up="KS", peeked=True) == {"hit", "stand", "double", "surrender"}
    assert options(hands, 0, up="6S", peeked=False) == {"hit", "stand", "double", "surrender"}
    with pytest.raises(PlayError, match=r"551\.8\(e\)"):
        apply_decision(hands, 0, "surrender", up_card="AS", peeked=False)


@pytest.mark.reg("551.8(f)", "551.12(a)")
def test_a_pair_may_also_split() -> None:
    assert options((hand("8S", "8D"),), 0) == {"hit", "stand", "double", "split", "surrender"}
    # Identical in value, not in rank: a king and a jack split (551.12(a)).
    assert "split" in options((hand("KS", "JD"),), 0)
    assert "split" not in options((hand("8S", "9D"),), 0)


@pytest.mark.reg("635a.7(h)(1)", "551.13(a)(1)")
def test_blackjack_and_21_take_no_decision() -> None:
    assert options((hand("AS", "KH"),), 0) == set()
    assert options((hand("5H", "6D", "QH"),), 0) == set()
    assert options((hand("AS", "KH", from_split=True),), 0) == set()


@pytest.mark.reg("551.9(a)")
def test_surrender_only_before_any_other_decision() -> None:
    hands = decide((hand("5S", "4H"),), "hit")
    hands = deal_card(hands, "2C")
    assert "surrender" not in options(hands, 0)
    split = decide((hand("8S", "8D"),), "split")
    split = deal_card(split, "9C")
    assert "surrender" not in options(split, 0)


@pytest.mark.reg("551.11(a)")
def test_double_down_only_on_the_first_two_cards() -> None:
    # Common Spanish 21 lets a player double on any number of cards; 551.11(a) does not.
    hands = deal_card(decide((hand("2S", "3H"),), "hit"), "4D")
    assert "double" not in options(hands, 0)
    assert "hit" in options(hands, 0)


@pytest.mark.reg("551.11(a)", "551.13(a)(2)")
def test_double_down_takes_one_card_for_at_most_the_wager() -> None:
    start = (hand("5S", "6H"),)
    with pytest.raises(PlayError, match=r"551\.11\(a\)"):
        apply_decision(start, 0, "double", up_card="6S", peeked=False, double_amount=D(11))
    less = apply_decision(start, 0, "double", up_card="6S", peeked=False, double_amount=D(5))
    assert less[0].double_wager == 5 and less[0].needs_card
    doubled = deal_card(less, "2D")
    assert doubled[0].finished and doubled[0].total == 13
    assert "hit" not in options(doubled, 0)
    with pytest.raises(PlayError):
        deal_card(doubled, "3D")


@pytest.mark.reg("551.11(d)")
def test_rescue_after_the_double_down_card_unless_it_busts() -> None:
    doubled = decide((hand("5S", "6S"),), "double")
    assert "rescue" not in options(doubled, 0)  # its card has not come yet
    dealt = deal_card(doubled, "2D")
    assert options(dealt, 0) == {"rescue"}
    rescued = apply_decision(dealt, 0, "rescue", up_card="6S", peeked=False)
    assert rescued[0].rescued and options(rescued, 0) == set()
    busted = deal_card(decide((hand("9S", "4S"),), "double"), "KD")
    assert options(busted, 0) == set()
    assert "rescue" not in options((hand("9S", "4S", stood=True),), 0)


@pytest.mark.reg("551.11(d)", "551.12(b)")
def test_rescue_closes_when_the_dealer_moves_to_the_next_hand() -> None:
    hands = deal_card(decide((hand("8S", "8D"),), "split"), "3C")
    hands = deal_card(decide(hands, "double"), "9C")
    assert options(hands, 0) == {"rescue"}
    hands = deal_card(hands, "JH")  # the second split hand's second card
    assert "rescue" not in options(hands, 0)


@pytest.mark.reg("551.12(a)", "551.12(b)")
def test_split_hands_are_played_one_at_a_time_from_the_left() -> None:
    # Ruling R6: the first hand is completed before the second gets its second card.
    hands = decide((hand("8H", "8D", wager=25),), "split")
    assert [h.cards for h in hands] == [("8H",), ("8D",)]
    assert [h.wager for h in hands] == [25, 25]  # an equal wager (551.12(a))
    hands = deal_card(hands, "3C")
    assert hands[1].cards == ("8D",)
    assert options(hands, 1) == set()  # the second hand waits
    with pytest.raises(PlayError, match=r"551\.12\(b\)"):
        apply_decision(hands, 1, "stand", up_card="6S", peeked=False)
    with pytest.raises(PlayError, match=r"551\.12\(b\)"):
        deal_card(hands, "9C")  # the first hand awaits a decision, not a card
    hands = decide(hands, "stand")
    hands = deal_card(hands, "JH")
    assert [h.cards for h in hands] == [("8H", "3C"), ("8D", "JH")]
    assert options(hands, 1) == {"hit", "stand", "double"}  # 551.12(c)
    # Hands rebuilt by hand (say, from a journal) obey the same order.
    rebuilt = (hand("8H", "3C", from_split=True), hand("8D", "JH", from_split=True))
    assert options(rebuilt, 1) == set()
    with pytest.raises(PlayError, match=r"551\.12\(b\)"):
        apply_decision(rebuilt, 1, "hit", up_card="6S", peeked=False)


@pytest.mark.reg("551.12(c)")
def test_one_resplit_placed_after_its_source_for_three_hands_at_most() -> None:
    # Common Spanish 21 re-splits to four hands; 551.12(c) stops at three.
    hands = decide((hand("8H", "8D"),), "split")
    hands = deal_card(hands, "8C")
    hands = decide(hands, "split")
    # Ruling R6: the re-split hand comes right after the hand it came from.
    assert [h.cards for h in hands] == [("8H",), ("8C",), ("8D",)]
    hands = deal_card(hands, "8S")
    assert "split" not in options(hands, 0)
    hands = deal_card(decide(hands, "stand"), "8S")
    assert "split" not in options(hands, 1)


@pytest.mark.reg("551.12(c)", "551.11(a)")
def test_split_aces_play_like_any_split_hand() -> None:
    # Ruling R6: the text makes no exception for aces (common practice gives them one card).
    hands = deal_card(decide((hand("AS", "AH"),), "split"), "5D")
    assert options(hands, 0) == {"hit", "stand", "double"}
    hands = deal_card(decide(hands, "hit"), "2C")
    assert hands[0].total == 18 and not hands[0].finished


@pytest.mark.reg("551.12(b)", "551.12(c)")
@settings(max_examples=300)
@given(st.data())
def test_split_play_order_property(data: st.DataObject) -> None:
    r1 = data.draw(st.sampled_from("A23456789JQK"))
    r2 = data.draw(st.sampled_from("JQK")) if r1 in "JQK" else r1
    hands: tuple[Hand, ...] = (hand(f"{r1}S", f"{r2}H"),)
    for _ in range(200):
        i = next_hand(hands)
        if i is None:
            break
        for j in range(len(hands)):
            if j != i:  # only the hand in play takes a decision (551.12(b))
                assert options(hands, j) <= {"rescue"}
        before = hands
        if hands[i].needs_card:
            hands = deal_card(hands, data.draw(CARDS))
            assert all(h.finished for h in hands[:i])  # earlier hands are complete
            assert hands[i].cards[:-1] == before[i].cards
        else:
            choice = data.draw(st.sampled_from(sorted(options(hands, i) - {"rescue"})))
            hands = apply_decision(hands, i, choice, up_card="6S", peeked=False)
            if choice == "split":
                assert hands[i].cards + hands[i + 1].cards == before[i].cards
                assert hands[i + 2 :] == before[i + 1 :]  # ruling R6: right after its source
        assert hands[:i] == before[:i]
        assert len(hands) <= 3
    assert next_hand(hands) is None
    assert all(h.finished for h in hands)


# --------------------------------------------------------------------------- outcomes


@pytest.mark.reg("551.6(b)(1)", "551.6(b)(2)", "551.6(c)", "635a.7(n)", "635a.7(o)")
@pytest.mark.parametrize(
    ("player", "dealer", "outcome", "net"),
    [
        (["9S", "9H"], ["6C", "9S", "KD"], "win", 10),  # dealer busts (b)(1)
        (["9S", "QH"], ["9C", "8S"], "win", 10),  # (b)(2)
        (["9S", "8H"], ["9C", "8S"], "push", 0),  # (c)
        (["9S", "7H"], ["9C", "8S"], "lose", -10),
        (["KS", "5H", "9D"], ["6C", "9S", "KD"], "lose", -10),  # busted first
    ],
)
def test_win_lose_push(player: list[str], dealer: list[str], outcome: str, net: int) -> None:
    h = hand(*player)
    if not h.finished:
        h = replace(h, stood=True)
    assert settle_one(h, dealer) == (outcome, net)


@pytest.mark.reg("551.6(f)", "551.2(c)")
@pytest.mark.parametrize("dealer", [["9C", "8S"], ["6C", "9S", "KD"], ["6C", "5S", "KD"]])
def test_blackjack_pays_3_to_2(dealer: list[str]) -> None:
    # 551.6(f) ties 3 to 2 to (b)(3) only; the layout's "Blackjack pays 3 to 2"
    # (551.2(c)(1)) and § 635a.7(h)(1)(i) pay it against any dealer total.
    assert settle_one(hand("AS", "KH", wager=25), dealer) == ("win", D("37.5"))


@pytest.mark.reg("551.6(b)(3)", "635a.7(n)(3)")
def test_player_blackjack_beats_dealer_blackjack() -> None:
    # Ruling R3.
    assert settle_one(hand("AS", "KH"), ["AD", "KC"]) == ("win", 15)


@pytest.mark.reg("551.6(b)(4)", "635a.7(n)(4)")
def test_21_in_three_cards_beats_dealer_21_in_three_cards() -> None:
    assert settle_one(hand("5H", "6D", "QH"), ["6C", "5S", "KD"]) == ("win", 10)


@pytest.mark.reg("551.6(c)", "551.6(b)(2)")
def test_split_two_card_21_pushes_against_dealer_21_in_three() -> None:
    # Ruling R4. Common Spanish 21 says "a player's 21 always wins"; the text does not.
    split21 = hand("AS", "KH", from_split=True)
    assert settle_one(split21, ["6C", "5S", "KD"]) == ("push", 0)
    assert settle_one(split21, ["9C", "8S"]) == ("win", 10)


@pytest.mark.reg("551.6(c)", "635a.7(o)")
def test_a_21_that_is_no_blackjack_loses_to_dealer_blackjack() -> None:
    assert settle_one(hand("5H", "6D", "QH"), ["AD", "KC"]) == ("lose", -10)
    assert settle_one(hand("2C", "3D", "4S", "5D", "7H"), ["KD", "AC"]) == ("lose", -10)


@pytest.mark.reg("551.11(c)", "551.12(d)")
def test_dealer_blackjack_collects_only_the_original_wager() -> None:
    # Reachable only if no peek took place (ruling R9), still settled as written.
    doubled = hand("5S", "6H", "9C", double_wager=D(10))
    assert settle_one(doubled, ["AD", "KC"]) == ("lose", -10)
    split = (hand("8H", "3C", "9C", from_split=True), hand("8D", "JH", from_split=True, stood=True))
    results = settle_box(split, ["QD", "AC"])
    assert [(r.outcome, r.net) for r in results] == [("lose", D(-10)), ("lose", D(0))]


@pytest.mark.reg("551.11(c)", "551.11(d)")
def test_a_rescue_against_dealer_blackjack_still_costs_the_original_wager() -> None:
    rescued = hand("5S", "6S", "2D", double_wager=D(10), rescued=True)
    assert settle_one(rescued, ["AD", "KC"]) == ("rescue", -10)


@pytest.mark.reg("551.9(a)", "551.9(a)(2)")
def test_surrender_returns_half_unless_a_dealer_blackjack_was_still_possible() -> None:
    surrendered = hand("JS", "6H", surrendered=True)
    assert settle_one(surrendered, ["9D", "8S"]) == ("surrender", -5)
    assert settle_one(hand("JS", "7H", wager=25, surrendered=True), ["9D", "3C"]) == (
        "surrender",
        D("-12.5"),
    )
    assert settle_one(surrendered, ["AD", "KC"]) == ("lose", -10)


@pytest.mark.reg("551.9(b)", "551.10(a)", "551.10(c)")
def test_surrender_and_insurance_settle_apart() -> None:
    dealer = ["AD", "8C"]  # no Blackjack: the insurance loses, the surrender costs half
    assert settle_one(hand("JS", "6H", surrendered=True), dealer) == ("surrender", -5)
    assert insurance_net(D(5), dealer) == -5


@pytest.mark.reg("551.11(d)")
def test_rescue_forfeits_the_original_wager_and_takes_back_the_double() -> None:
    rescued = hand("5S", "6S", "2D", double_wager=D(10), rescued=True)
    assert settle_one(rescued, ["9C", "9H"]) == ("rescue", -10)
    less = hand("5S", "6S", "2D", double_wager=D(4), rescued=True)
    assert settle_one(less, ["9C", "9H"]) == ("rescue", -10)


@pytest.mark.reg("551.11(b)", "551.6(g)", "551.2(g)")
def test_a_doubled_hand_wins_even_money_on_both_wagers_and_no_bonus() -> None:
    doubled = hand("7S", "7S", "7S", double_wager=D(10))
    assert bonus_payout(doubled) is None
    assert super_bonus(doubled, "7D") == 0
    assert settle_one(doubled, ["7D", "KC"]) == ("win", 20)
    assert settle_one(hand("6S", "5S", "9C", double_wager=D(5)), ["6S", "QS", "KD"]) == ("win", 15)


@pytest.mark.reg("551.6(g)")
@pytest.mark.parametrize(
    ("cards", "net", "section"),
    [
        (["6H", "7S", "8D"], 15, "551.6(g)(1)"),
        (["8H", "6H", "7H"], 20, "551.6(g)(2)"),
        (["6S", "7S", "8S"], 30, "551.6(g)(2)"),
        (["7H", "7S", "7D"], 15, "551.6(g)(3)"),
        (["7D", "7D", "7D"], 20, "551.6(g)(4)"),
        (["7S", "7S", "7S"], 30, "551.6(g)(4)"),
        (["2C", "3D", "4S", "5D", "7H"], 15, "551.6(g)(5)"),
        (["2C", "3D", "4S", "5D", "2H", "5H"], 20, "551.6(g)(6)"),
        (["AC", "2D", "2S", "3D", "4H", "5H", "4S"], 30, "551.6(g)(7)"),
        (["AC", "AD", "AS", "AH", "2C", "2D", "2S", "2H", "9C"], 30, "551.6(g)(7)"),
        (["5H", "6D", "QH"], 10, "551.6(b)(2)"),  # a plain 21 in three cards
        (["2C", "3D", "4S", "5D", "4H"], 10, "551.6(b)(2)"),  # five cards, 18
    ],
)
def test_bonus_payouts(cards: list[str], net: Decimal | int, section: str) -> None:
    h = hand(*cards)
    if not h.finished:
        h = replace(h, stood=True)
    [result] = settle_box((h,), ["9C", "6H", "2D"])
    assert (result.outcome, result.net, result.section) == ("win", net, section)


@pytest.mark.reg("551.6(g)", "551.12(e)")
def test_a_split_hand_keeps_the_bonuses() -> None:
    # Ruling R5: only 551.6(h) is excluded for a split hand.
    split = hand("7S", "7S", "7S", from_split=True)
    assert settle_one(split, ["7D", "KC"]) == ("win", 30)
    assert super_bonus(split, "7D") == 0


@pytest.mark.reg("551.6(h)")
@pytest.mark.parametrize(
    ("wager", "cards", "net", "fixed"),
    [
        (5, ["7H", "7H", "7H"], 1010, 1000),
        (24, ["7H", "7H", "7H"], 1048, 1000),
        (25, ["7H", "7H", "7H"], 5050, 5000),
        (25, ["7S", "7S", "7S"], 5075, 5000),  # with (g)(4)'s 3 to 1 for spades
        (4, ["7H", "7H", "7H"], 8, 0),  # the text grants nothing under $5
        (25, ["7H", "7S", "7H"], D("37.5"), 0),  # mixed suits: (g)(3) only
    ],
)
def test_super_bonus(
    wager: int, cards: list[str], net: Decimal | int, fixed: Decimal | int
) -> None:
    [result] = settle_box((hand(*cards, wager=wager),), ["7C", "KD"])
    assert (result.net, result.super_bonus) == (net, fixed)
    [other_up] = settle_box((hand(*cards, wager=wager),), ["8C", "9D"])
    assert other_up.super_bonus == 0  # the dealer's up card must be a seven


@pytest.mark.reg("551.6(h)", "551.14")
def test_fifty_dollars_to_every_other_player_once_per_super_bonus_hand() -> None:
    two = Spanish21Rules.from_dict({"boxes_per_player": 2})
    boxes = {
        1: BoxRound("ann", (hand("7H", "7H", "7H", wager=25),)),
        2: BoxRound("ann", (hand("9S", "5H", "KD"),)),  # ann's own box: nothing
        4: BoxRound("bob", (hand("9S", "9H", stood=True),)),
        5: BoxRound("bob", (hand("KS", "6H", surrendered=True),)),
        7: BoxRound("cy", (hand("9D", "9C", stood=True),)),
    }
    for player in ("ann", "bob"):
        check_player_boxes([b for b, box in boxes.items() if box.player == player], two)
    result = settle_round(boxes, ["7C", "QD"])
    assert result.others_bonus == {"bob": 50, "cy": 50}
    assert result.boxes[1][0].net == 5050
    assert result.players_net == 5050 - 10 + 10 - 5 + 10 + 100


@pytest.mark.reg("551.6(h)", "551.12(e)", "551.11(b)")
def test_no_fifty_dollars_after_a_split_or_doubled_seven_seven_seven() -> None:
    boxes = {
        1: BoxRound("ann", (hand("7H", "7H", "7H", from_split=True, wager=25),)),
        3: BoxRound("bob", (hand("7S", "7S", "7S", double_wager=D(25), wager=25),)),
        5: BoxRound("cy", (hand("9D", "9C", stood=True),)),
    }
    result = settle_round(boxes, ["7C", "QD"])
    assert result.others_bonus == {}
    assert [r[0].net for r in result.boxes.values()] == [50, 50, 10]


# --------------------------------------------------------------------------- dealer at settlement


@pytest.mark.reg("551.13(b)", "551.16(e)")
def test_settlement_refuses_a_dealer_hand_drawn_wrongly() -> None:
    stood = (hand("9S", "9H", stood=True),)
    with pytest.raises(PlayError, match=r"551\.13\(b\)"):
        settle_box(stood, ["6C", "9S"])  # must draw
    with pytest.raises(PlayError, match=r"551\.16\(e\)"):
        settle_box(stood, ["9C", "8S", "2D"])  # drew on 17


@pytest.mark.reg("551.8(h)")
def test_settlement_waits_for_every_decision() -> None:
    with pytest.raises(PlayError, match=r"551\.8\(h\)"):
        settle_box((hand("9S", "5H"),), ["9C", "8S"])
    with pytest.raises(PlayError, match=r"551\.8\(h\)"):
        settle_box((hand("9S", "5H", drawing=True),), ["9C", "8S"])


@pytest.mark.reg("551.13(c)")
def test_settlement_refuses_a_draw_no_result_depended_on() -> None:
    boxes = {1: BoxRound("ann", (hand("KS", "5H", "9D"),))}
    with pytest.raises(PlayError, match=r"551\.13\(c\)"):
        settle_round(boxes, ["6C", "9S", "3D"])
    assert settle_round(boxes, ["6C", "9S"]).boxes[1][0].net == -10


# --------------------------------------------------------------------------- side wagers


@pytest.mark.reg("551.7(a)", "551.7(e)", "635a.7(f)")
@pytest.mark.parametrize(
    ("cards", "up", "net_six", "net_eight"),
    [
        (["4D", "JH"], "AC", -5, -5),
        (["4S", "AS"], "AC", 20, 15),  # one match, different suit: 4 / 3 to 1
        (["4H", "3D"], "4H", 45, 60),  # one match, same suit: 9 / 12 to 1
        (["7S", "7S"], "7S", 90, 120),  # each matching card paid (551.7(a))
        (["7S", "7D"], "7S", 65, 75),
        (["KS", "QS"], "JS", -5, -5),  # ten-value cards match by rank only (635a.7(f)(1))
        (["JH", "4S"], "JS", 20, 15),
    ],
)
def test_match_the_dealer(cards: list[str], up: str, net_six: int, net_eight: int) -> None:
    assert match_the_dealer_net(cards, up, D(5), SIX) == net_six
    assert match_the_dealer_net(cards, up, D(5), EIGHT) == net_eight


@pytest.mark.reg("551.7(b)", "551.7(e)")
def test_match_the_dealer_limits_and_better_odds() -> None:
    capped = Spanish21Rules.from_dict({"match_the_dealer_max": 25})
    assert match_the_dealer_max(D(10), capped) == 10
    assert match_the_dealer_max(D(100), capped) == 25
    assert match_the_dealer_max(D(100), SIX) == 100
    check_match_the_dealer(D(1), D(10), SIX)
    for amount in (D("0.5"), D(11)):
        with pytest.raises(PlayError, match=r"551\.7\(b\)"):
            check_match_the_dealer(amount, D(10), SIX)
    with pytest.raises(PlayError, match=r"551\.7"):
        check_match_the_dealer(D(5), D(10), Spanish21Rules(match_the_dealer=False))
    better = Spanish21Rules.from_dict({"match_the_dealer_same_suit": 10})
    assert match_the_dealer_net(["7S", "2D"], "7S", D(5), better) == 50


@pytest.mark.reg("551.10(a)", "551.10(c)", "551.10(e)")
def test_insurance_only_against_an_ace_and_pays_2_to_1() -> None:
    assert insurance_allowed("AS") and not insurance_allowed("KS")
    assert insurance_net(D(5), ["AD", "KC"]) == 10
    assert insurance_net(D(5), ["AD", "AC"]) == -5
    assert insurance_net(D(0), ["9D", "AC"]) == 0
    with pytest.raises(PlayError, match=r"551\.10\(a\)"):
        check_insurance(D(5), D(10), "KS", SIX)


@pytest.mark.reg("551.10(b)")
@pytest.mark.parametrize(
    ("wager", "unit", "limit"),
    [("10", "1", "5"), ("15", "1", "8"), ("15", "0.5", "7.5"), ("25", "5", "15"), ("7", "2", "4")],
)
def test_insurance_at_most_half_up_to_the_next_chip(wager: str, unit: str, limit: str) -> None:
    # Reading: half the wager, rounded up to a whole number of the smallest chip.
    rules = Spanish21Rules.from_dict({"chip_unit": unit})
    assert insurance_max(D(wager), rules) == D(limit)
    check_insurance(D(limit), D(wager), "AS", rules)
    with pytest.raises(PlayError, match=r"551\.10\(b\)"):
        check_insurance(D(limit) + D("0.01"), D(wager), "AS", rules)


# --------------------------------------------------------------------------- Rules Submission


@pytest.mark.reg("551.3(a)", "551.7(e)")
def test_defaults_are_the_minimums() -> None:
    # Ruling R8.
    assert Spanish21Rules.from_dict({}) == SIX
    assert (SIX.decks, SIX.match_the_dealer_different_suit, SIX.match_the_dealer_same_suit) == (
        6,
        4,
        9,
    )
    assert (EIGHT.match_the_dealer_different_suit, EIGHT.match_the_dealer_same_suit) == (3, 12)
    assert (SIX.boxes_per_player, SIX.chip_unit, SIX.match_the_dealer_max) == (1, D(1), None)
    assert SIX.reader_reveals_hole_card and not SIX.continuous_shuffler


@pytest.mark.reg("551.3(a)", "551.7(b)", "551.7(e)", "551.14", "551.10(b)")
@pytest.mark.parametrize(
    ("options_", "message"),
    [
        ({"decks": 7}, r"^rules\.decks: .*\(551\.3\(a\)\)$"),
        (
            {"decks": 8, "match_the_dealer_same_suit": 9},
            r"^rules\.match_the_dealer_same_suit: .*12 to 1 minimum with eight decks \(551\.7",
        ),
        (
            {"match_the_dealer_different_suit": 3},
            r"^rules\.match_the_dealer_different_suit: .*\(551\.7\(e\)\)$",
        ),
        ({"match_the_dealer_max": "0.50"}, r"^rules\.match_the_dealer_max: .*\(551\.7\(b\)\)$"),
        ({"boxes_per_player": 8}, r"^rules\.boxes_per_player: .*\(551\.14, 551\.2\(b\)\(2\)\)$"),
        ({"boxes_per_player": 0}, r"^rules\.boxes_per_player: "),
        ({"chip_unit": 0}, r"^rules\.chip_unit: .*\(551\.10\(b\)\)$"),
        ({"decks": "6"}, r"^rules\.decks: expected a whole number, got '6' \(551\.3\(a\)\)$"),
        ({"decks": True}, r"^rules\.decks: expected a whole number"),
        ({"continuous_shuffler": 1}, r"^rules\.continuous_shuffler: .*\(551\.15\)$"),
        ({"no_mid_shoe_entry": "yes"}, r"^rules\.no_mid_shoe_entry: .*\(551\.6\(k\)\)$"),
        ({"reader_reveals_hole_card": None}, r"^rules\.reader_reveals_hole_card: .*551\.16\(l\)"),
        ({"chip_unit": "a lot"}, r"^rules\.chip_unit: expected an amount"),
        ({"chip_unit": float("nan")}, r"^rules\.chip_unit: expected an amount"),
        ({"chip_unit": True}, r"^rules\.chip_unit: expected an amount"),
        ({"tie_odds": 8}, r"^rules\.tie_odds: unknown option; expected one of decks, "),
    ],
)
def test_rules_refused_with_the_key_and_the_section(options_: dict[str, Any], message: str) -> None:
    with pytest.raises(RulesError, match=message) as err:
        Spanish21Rules.from_dict(options_)
    assert "\n" not in str(err.value)


def test_rules_from_a_toml_table() -> None:
    rules = Spanish21Rules.from_dict(
        {
            "decks": 8,
            "match_the_dealer_same_suit": 14,
            "match_the_dealer_max": 50,
            "boxes_per_player": 3,
            "continuous_shuffler": True,
            "no_mid_shoe_entry": True,
            "reader_reveals_hole_card": False,
            "chip_unit": 0.5,
        }
    )
    assert rules.match_the_dealer_different_suit == 3
    assert rules.match_the_dealer_same_suit == 14
    assert rules.match_the_dealer_max == 50 and rules.chip_unit == D("0.5")
    with pytest.raises(RulesError, match="expected a table"):
        Spanish21Rules.from_dict([("decks", 6)])  # type: ignore[arg-type]


# --------------------------------------------------------------------------- settlement properties


@st.composite
def finished_hands(draw: st.DrawFn) -> Hand:
    """A hand in any state a box can leave it in once its decisions are made."""
    size = draw(st.integers(2, 7))
    cards = tuple(draw(st.lists(CARDS, min_size=size, max_size=size)))
    wager = D(draw(st.integers(1, 200))) / draw(st.sampled_from([1, 2]))
    h = Hand(cards, wager, from_split=draw(st.booleans()))
    end = draw(st.sampled_from(["play", "surrender", "double", "rescue", "dead"]))
    if end == "dead":
        return replace(h, dead=True)
    if end == "surrender" and size == 2 and not h.from_split:
        return replace(h, surrendered=True)
    if end in ("double", "rescue") and size == 3:
        doubled = replace(h, double_wager=wager / draw(st.sampled_from([1, 2])))
        return replace(doubled, rescued=True) if end == "rescue" and not h.bust else doubled
    return h if h.finished else replace(h, stood=True)


@st.composite
def dealer_hands(draw: st.DrawFn) -> list[str]:
    """A dealer's hand drawn to 17 or more by 551.13(b)."""
    cards = draw(st.lists(CARDS, min_size=2, max_size=2))
    while hand_value(cards)[0] < 17:
        cards.append(draw(CARDS))
    return cards


# The nine 551.6(g) categories, written out again: a hand must match at most one.
def _categories(h: Hand) -> list[Decimal]:
    ranks = sorted(rank(c) for c in h.cards)
    suits = {c[1] for c in h.cards}
    n = len(h.cards)
    three = {"678": ranks == ["6", "7", "8"], "777": ranks == ["7", "7", "7"]}
    found = []
    for trio in ("678", "777"):
        if three[trio]:
            found.append(D(3) if suits == {"S"} else D(2) if len(suits) == 1 else D("1.5"))
    if h.total == 21:
        found += [odds for count, odds in ((5, D("1.5")), (6, D(2))) if n == count]
        found += [D(3)] if n >= 7 else []
    return found


@pytest.mark.reg("551.6(b)", "551.6(c)", "551.6(f)", "551.6(g)", "551.9(a)", "551.11(b)")
@settings(max_examples=500)
@given(h=finished_hands(), dealer=dealer_hands())
def test_settlement_is_exact_and_pays_one_bonus_at_most(h: Hand, dealer: list[str]) -> None:
    with localcontext() as ctx:
        ctx.traps[Inexact] = True  # any rounding raises
        [result] = settle_box((h,), dealer)
    # Wagers are in half units here, so every amount is in quarter units.
    assert (result.net * 4) % 1 == 0
    categories = _categories(h)
    assert len(categories) <= 1
    odds = categories[0] if categories else D(1)
    assert result.super_bonus in (0, 1000, 5000)
    if result.super_bonus:
        assert odds in (2, 3) and not h.doubled  # only on top of (g)(4)
    if result.outcome == "win":
        if h.blackjack:
            assert result.net == h.wager * D("1.5")
        elif h.doubled:
            assert result.net == h.stake  # 551.11(b): 1 to 1, no bonus
        else:
            assert result.net == h.wager * odds + result.super_bonus
    elif result.outcome == "lose":
        assert result.net in (-h.stake, -h.wager)
    elif result.outcome == "surrender":
        assert result.net == -h.wager / 2
    elif result.outcome == "rescue":
        assert result.net == -h.wager
    else:
        assert result.net == 0


def _money_of(results: Sequence[HandResult]) -> tuple[tuple[str, Decimal], ...]:
    """What results pay, leaving aside which subsection each cites."""
    return tuple((r.outcome, r.net) for r in results)


@pytest.mark.reg("551.13(c)", "635a.7(m)")
@settings(max_examples=500)
@given(
    hands=st.lists(finished_hands(), min_size=1, max_size=4),
    start=st.lists(CARDS, min_size=2, max_size=2),
    tail=st.lists(CARDS, min_size=10, max_size=10),
)
def test_the_dealer_never_draws_when_no_result_depends_on_it(
    hands: list[Hand], start: list[str], tail: list[str]
) -> None:
    # Ruling R7: with no dealer Blackjack, if the dealer may stop, any card he could
    # have drawn changes nothing.
    assume(not dealer_blackjack(start) and dealer_draws(start))
    if dealer_needs_to_draw(start, hands):
        return
    completed = list(start)
    for c in tail:
        if not dealer_draws(completed):
            break
        completed.append(c)
    assume(not dealer_draws(completed))
    for h in hands:
        assert _money_of(settle_box((h,), start)) == _money_of(settle_box((h,), completed))


@pytest.mark.reg("551.13(c)")
@settings(max_examples=300)
@given(h=finished_hands())
def test_a_hand_said_to_depend_on_the_dealer_does(h: Hand) -> None:
    dealer_finals = [
        ["9S", "8S"],
        ["9S", "9H"],
        ["9S", "QH"],
        ["QS", "QH"],
        ["9S", "2H", "QS"],
        ["9S", "7H", "QS"],
    ]
    results = {_money_of(settle_box((h,), d)) for d in dealer_finals}
    assert (len(results) > 1) == depends_on_dealer(h)


@pytest.mark.reg("551.6(h)", "551.14")
@given(
    owners=st.lists(st.sampled_from(["ann", "bob", "cy"]), min_size=1, max_size=7),
    sevens=st.lists(st.booleans(), min_size=7, max_size=7),
)
def test_players_net_adds_up(owners: list[str], sevens: list[bool]) -> None:
    boxes = {
        n: BoxRound(
            owner,
            (hand("7H", "7H", "7H", wager=25) if seven else hand("9S", "9H", stood=True),),
        )
        for n, (owner, seven) in enumerate(zip(owners, sevens, strict=False), 1)
    }
    result = settle_round(boxes, ["7C", "KD"])
    supers = [box.player for n, box in boxes.items() if result.boxes[n][0].super_bonus]
    expected = {p: 50 * sum(1 for s in supers if s != p) for p in set(owners)}
    assert result.others_bonus == {p: v for p, v in expected.items() if v}
    total = sum(r.net for rs in result.boxes.values() for r in rs) + sum(
        result.others_bonus.values()
    )
    assert result.players_net == total


# --------------------------------------------------------------------------- the bench examples


def _expected() -> list[dict[str, Any]]:
    lines = (EXAMPLES / "spanish21-six-decks.expected.jsonl").read_text().splitlines()
    return [line for line in map(json.loads, lines) if line["type"] == "round_end"]


def _scenario() -> dict[str, Any]:
    scenario: dict[str, Any] = json.loads((EXAMPLES / "spanish21-six-decks.json").read_text())
    return scenario


ROUNDS = _expected()
NOTED = [r for r in ROUNDS if "note" in r]

# Which hands the player doubled, surrendered or rescued in the noted rounds:
# (round, box) -> one set of flags per hand, left to right.
FLAGS: dict[tuple[int, str], list[set[str]]] = {
    (5, "1"): [{"double"}, set()],
    (6, "1"): [{"surrender"}],
    (7, "1"): [{"double", "rescue"}],
}


def _built_hand(cards: list[str], wager: Decimal, flags: set[str], split: bool) -> Hand:
    h = Hand(
        tuple(cards),
        wager,
        double_wager=wager if "double" in flags else D(0),
        from_split=split,
        surrendered="surrender" in flags,
        rescued="rescue" in flags,
    )
    return h if h.finished else replace(h, stood=True)


@pytest.mark.reg("551.6(b)", "551.6(g)", "551.7(e)", "551.9(a)", "551.10(c)", "551.11(d)")
@pytest.mark.parametrize("line", NOTED, ids=[f"round{r['round']}" for r in NOTED])
def test_noted_example_rounds_from_their_cards(line: dict[str, Any]) -> None:
    spec = _scenario()["rounds"][line["round"] - 1]
    dealer = line["dealer"]
    assert hand_value(dealer)[0] == line["dealer_total"]
    boxes = {}
    for box, expected in line["boxes"].items():
        cards = [h["cards"] for h in expected["hands"]]
        wager = D(spec["wagers"][box])
        flags = FLAGS.get((line["round"], box), [set()] * len(cards))
        hands = tuple(
            _built_hand(c, wager, f, len(cards) > 1) for c, f in zip(cards, flags, strict=True)
        )
        boxes[int(box)] = BoxRound(f"player {box}", hands)
    result = settle_round(boxes, dealer)
    for box, expected in line["boxes"].items():
        got = [(r.outcome, r.net) for r in result.boxes[int(box)]]
        assert got == [(h["outcome"], D(str(h["net"]))) for h in expected["hands"]]
        assert [h.total for h in boxes[int(box)].hands] == [h["total"] for h in expected["hands"]]
        initial = [h["cards"][0] for h in expected["hands"]]
        if len(initial) == 1:
            initial = expected["hands"][0]["cards"][:2]
        mtd = D(spec.get("match_the_dealer", {}).get(box, 0))
        mtd_net = match_the_dealer_net(initial, dealer[0], mtd, SIX)
        assert mtd_net == D(expected.get("match_the_dealer_net", 0))
        insurance = D(spec.get("insurance", {}).get(box, 0))
        assert insurance_net(insurance, dealer) == D(expected.get("insurance_net", 0))


@cache
def _replay() -> tuple[dict[str, Any], ...]:
    """Every round of the example dealt from its shoe through this module alone."""
    scenario = _scenario()
    rules = Spanish21Rules.from_dict(scenario["rules"])
    shoe: Iterator[str] = (c for c in scenario["shoe"] if c != CUT)  # 635a.7(d): set aside
    next(shoe)  # 551.8(c): the first card of a batch is burned
    lines: list[dict[str, Any]] = []
    for spec in scenario["rounds"]:
        wagers = {int(b): D(a) for b, a in spec["wagers"].items()}
        dealt: dict[int | str, list[str]] = {}
        for step in initial_deal_order(wagers):
            dealt.setdefault(step.to, []).append(next(shoe))
        dealer = dealt.pop(DEALER)
        up = dealer[0]
        line: dict[str, Any] = {"round": len(lines) + 1, "boxes": {}}
        for box in match_the_dealer_order(wagers):
            amount = D(spec.get("match_the_dealer", {}).get(str(box), 0))
            if amount:
                check_match_the_dealer(amount, wagers[box], rules)
                line["boxes"].setdefault(box, {})["mtd"] = match_the_dealer_net(
                    dealt[box], up, amount, rules
                )
        for box_key, amount in spec.get("insurance", {}).items():
            check_insurance(D(amount), wagers[int(box_key)], up, rules)
            line["boxes"].setdefault(int(box_key), {})["insurance"] = insurance_net(
                D(amount), dealer
            )
        peeked = reader_allowed(up)
        boxes: dict[int, tuple[Hand, ...]] = {
            b: (Hand(tuple(dealt[b]), wagers[b]),) for b in player_order(wagers)
        }
        if not (peeked and dealer_blackjack(dealer)):
            for b, hands in boxes.items():
                boxes[b] = _play_box(hands, deque(spec["decisions"].get(str(b), [])), shoe, up)
            while dealer_needs_to_draw(dealer, [h for hs in boxes.values() for h in hs]):
                dealer.append(next(shoe))
        result = settle_round({b: BoxRound(str(b), hs) for b, hs in boxes.items()}, dealer)
        line["dealer"] = dealer
        for b, hands in boxes.items():
            line["boxes"].setdefault(b, {})["hands"] = [
                (list(h.cards), h.total, r.outcome, r.net)
                for h, r in zip(hands, result.boxes[b], strict=True)
            ]
        lines.append(line)
    return tuple(lines)


def _play_box(
    hands: tuple[Hand, ...], decisions: deque[Decision], shoe: Iterator[str], up: str
) -> tuple[Hand, ...]:
    """The bench's reading of a decision list: after a double down's card, a
    "rescue" goes to that hand; every other decision goes to the hand in play."""
    while (index := next_hand(hands)) is not None:
        if hands[index].needs_card:
            hands = deal_card(hands, next(shoe))
            if hands[index].doubled and decisions and decisions[0] == "rescue":
                decisions.popleft()
                hands = apply_decision(hands, index, "rescue", up_card=up, peeked=True)
            continue
        hands = apply_decision(hands, index, decisions.popleft(), up_card=up, peeked=True)
    assert not decisions, f"decisions left over: {list(decisions)}"
    return hands


@pytest.mark.reg("551.8(d)", "551.12(b)", "551.13(b)", "551.13(c)", "551.6(b)", "551.7(e)")
@pytest.mark.parametrize("line", ROUNDS, ids=[f"round{r['round']}" for r in ROUNDS])
def test_example_rounds_replayed_from_the_shoe(line: dict[str, Any]) -> None:
    got = _replay()[line["round"] - 1]
    assert got["dealer"] == line["dealer"]
    assert set(got["boxes"]) == {int(b) for b in line["boxes"]}
    for box, expected in line["boxes"].items():
        mine = got["boxes"][int(box)]
        assert mine["hands"] == [
            (h["cards"], h["total"], h["outcome"], D(str(h["net"]))) for h in expected["hands"]
        ]
        assert mine.get("mtd") == (
            D(expected["match_the_dealer_net"]) if "match_the_dealer_net" in expected else None
        )
        assert mine.get("insurance") == (
            D(expected["insurance_net"]) if "insurance_net" in expected else None
        )
