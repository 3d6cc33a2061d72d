"""What a void Spanish 21 round returns and what stays settled (ruling R10), as pure
functions: ``controller.rules.spanish21.voids``."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.rules.spanish21 import (
    Hand,
    SideWager,
    settle_box,
    settled_before_void,
    void_box,
)

D = Decimal


@pytest.mark.reg("551.9(a)(1)", "551.9(a)(2)", "551.11(d)")
@pytest.mark.parametrize(
    ("hand", "up", "peeked", "settled"),
    [
        (Hand(("9C", "7S"), D(10), surrendered=True), "9H", False, ("surrender", D(-5))),
        (Hand(("9C", "7S"), D(10), surrendered=True), "KH", True, ("surrender", D(-5))),
        # 551.9(a)(2): no peek behind a ten-value card, the wager waits on the cards.
        (Hand(("9C", "7S"), D(10), surrendered=True), "KH", False, None),
        (Hand(("6D", "5H", "2S"), D(10), D(10), rescued=True), "AH", True, ("rescue", D(-10))),
        (Hand(("6D", "5H", "2S"), D(10), D(10)), "9H", False, None),  # doubled, in action
        (Hand(("9C", "KS", "5D"), D(10)), "9H", False, None),  # busted: collected at the end
    ],
)
def test_what_the_procedure_settled_before_a_void(
    hand: Hand, up: str, peeked: bool, settled: tuple[str, Decimal] | None
) -> None:
    # Ruling R10.
    result = settled_before_void(hand, up, peeked=peeked, decisions_started=True)
    assert (None if result is None else (result.outcome, result.net)) == settled


@pytest.mark.reg("635a.7(h)(1)(i)", "635a.7(h)(1)(ii)")
def test_a_blackjack_is_settled_before_a_void_only_once_paid() -> None:
    # Ruling R10: paid behind a 2-9 as the decisions begin; behind an ace, announced and
    # not paid until the hole card is turned.
    blackjack = Hand(("AS", "KD"), D(10))
    paid = settled_before_void(blackjack, "9H", peeked=False, decisions_started=True)
    assert paid is not None and (paid.outcome, paid.net) == ("win", D(15))
    assert settled_before_void(blackjack, "9H", peeked=False, decisions_started=False) is None
    assert settled_before_void(blackjack, "AH", peeked=True, decisions_started=True) is None
    assert settled_before_void(blackjack, None, peeked=False, decisions_started=False) is None


@pytest.mark.reg("551.16(l)(1)", "551.7(d)", "551.10(d)", "551.16(h)")
def test_a_void_box_returns_the_stakes_on_the_layout_and_keeps_the_side_wagers_settled() -> None:
    # Ruling R10: a split box, one hand rescued; Match-the-Dealer collected, Insurance
    # not yet settled.
    hands = (
        Hand(("8C", "3D", "9S"), D(10), D(10), from_split=True, rescued=True),
        Hand(("8D", "5C"), D(10), from_split=True),
    )
    sides = (SideWager(D(5), D(-5)), SideWager(D(5), None))
    voided = void_box(hands, D(10), "AH", sides, peeked=True, decisions_started=True)
    assert [(r.outcome, r.net) for r in voided.hands] == [("rescue", -10), ("dead", 0)]
    assert (voided.settled, voided.returned) == (D(-15), D(15))
    # A box no card reached, its side wager returned with it (net 0: neither paid nor
    # collected).
    dead = void_box((), D(25), "9H", (SideWager(D(5), D(0)),), peeked=False, decisions_started=True)
    assert (dead.hands, dead.settled, dead.returned) == ((), D(0), D(30))


_rank = st.sampled_from("A23456789JQK")
_suit = st.sampled_from("SHDC")
_cards = st.lists(st.tuples(_rank, _suit).map("".join), min_size=2, max_size=4)


@st.composite
def _hands(draw: st.DrawFn) -> Hand:
    cards = tuple(draw(_cards))
    wager = D(draw(st.integers(1, 500)))
    end = draw(st.sampled_from(["stood", "surrendered", "rescued", "dead", "doubled"]))
    if end in ("rescued", "doubled"):
        return Hand(cards, wager, wager, rescued=end == "rescued")
    return Hand(cards, wager, **{end: True})


@pytest.mark.reg("551.9(a)(1)", "551.11(d)", "635a.7(h)(1)(i)")
@given(_hands(), st.sampled_from(["2H", "9S", "AH", "KD"]), st.booleans())
def test_a_hand_settled_before_a_void_nets_what_the_round_end_would_pay(
    hand: Hand, up: str, started: bool
) -> None:
    # Ruling R10: a void neither returns a settled hand nor settles it again, so the
    # journal's net for it is what the procedure paid or collected, the same as at the
    # round's end (ruling R7: nothing the dealer draws changes it); any other hand's
    # stake goes back whole.
    voided = void_box((hand,), hand.wager, up, peeked=True, decisions_started=started)
    (result,) = voided.hands
    if result.outcome == "dead":
        assert (voided.settled, voided.returned) == (0, hand.stake)
        return
    (at_the_end,) = settle_box((hand,), [up, "8C"])  # the peek found no Blackjack
    assert (result.outcome, result.net) == (at_the_end.outcome, at_the_end.net)
    assert (voided.settled, voided.returned) == (result.net, 0)
