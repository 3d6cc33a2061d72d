"""The rules' look-ups give what the rules' arithmetic gives: ``next_to_draw`` from its
tables in every spelling and at every stage that is no stage of the deal, and a seat's
settlement found in ``rules.memo`` the same Decimals, to the exponent, as one worked
out under fresh rules (the journal writes "9.50" and "9.500" differently)."""

from __future__ import annotations

import dataclasses
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.rules.baccarat import (
    BETS,
    BaccaratRules,
    Outcome,
    Settlement,
    WagerError,
    next_to_draw,
    result,
    settle,
)
from controller.rules.baccarat.settlement import _MEMO_RULES, _MEMO_SIZE, _memo
from controller.rules.cards import CardError

D = Decimal


def _spelled(s: Settlement) -> tuple[str, ...]:
    """Every amount of a settlement as the journal writes it, the net included."""
    return (
        *(str(x) for x in (s.player, s.banker, s.tie, s.vigorish, s.net)),
        str(s.vigorish_deferred),
    )


@pytest.mark.reg("545.6(a)", "545.11(c)")
def test_tens_written_10_take_the_same_path_through_the_deal() -> None:
    player, banker = ["10D", "4S"], ["3h", "10c"]
    assert next_to_draw(player, banker) == next_to_draw(["TD", "4S"], ["3H", "TC"]) == "player"
    assert next_to_draw([*player, "5d"], banker) == "banker"
    assert result([*player, "5d"], [*banker, "10s"]) == "player"  # 9 against 3


@pytest.mark.reg("545.10(d)", "545.9(c)")
@pytest.mark.parametrize(("p", "b"), [(4, 2), (2, 4), (4, 4), (5, 0), (0, 5), (3, 0)])
def test_counts_past_the_tables_are_refused_with_the_section(p: int, b: int) -> None:
    with pytest.raises(ValueError, match=r"545\.(10\(d\)|9\(c\))"):
        next_to_draw(["2S"] * p, ["3S"] * b)


def test_a_token_that_is_no_card_is_refused_once_its_value_is_needed() -> None:
    assert next_to_draw(["XX"], ["YY"]) == "player"  # 545.9(c): the order needs no value
    with pytest.raises(CardError):
        next_to_draw(["XX", "2S"], ["3S", "4S"])
    with pytest.raises(CardError):
        result(["2S", "3S"], ["9S", "CUT"])


def _rules(game: str = "baccarat", **options: object) -> BaccaratRules:
    return BaccaratRules.from_dict(game, options)


@pytest.mark.reg("545.13(c)")
def test_ten_and_ten_point_zero_are_settled_apart() -> None:
    r = _rules()
    ten, ten_point_zero = (
        settle({"banker": D("10")}, "banker", r),
        settle({"banker": D("10.0")}, "banker", r),
    )
    assert (str(ten.vigorish), str(ten.net)) == ("0.50", "9.50")
    assert (str(ten_point_zero.vigorish), str(ten_point_zero.net)) == ("0.500", "9.500")
    assert _spelled(settle({"banker": D("10")}, "banker", r)) == _spelled(ten)


@pytest.mark.reg("545.8(a)")
@pytest.mark.parametrize("amount", [True, D("NaN"), D("sNaN"), D("-1"), [1]])
def test_an_amount_equal_to_a_remembered_one_is_still_checked(amount: Any) -> None:
    r = _rules()
    settle({"player": 1}, "player", r)
    settle({"player": D(1)}, "player", r)
    with pytest.raises(WagerError):
        settle({"player": amount}, "player", r)


def test_the_memo_is_no_part_of_the_rules_value_and_stays_bounded() -> None:
    r = _rules()
    for cents in range(1, _MEMO_SIZE + 50):
        settle({"tie": D(cents) / 100}, "banker", r)
    assert 0 < len(_memo(r)) <= _MEMO_SIZE
    assert r == _rules() and "memo" not in dataclasses.asdict(r)
    assert set(vars(r)) == {f.name for f in dataclasses.fields(r)}  # as a snapshot reads it
    assert settle({"tie": D(_MEMO_SIZE + 60) / 100}, "banker", r).net == D(-(_MEMO_SIZE + 60)) / 100


def test_each_rules_have_their_own_memo() -> None:
    five, four = _rules(), _rules(commission=4)
    assert settle({"banker": D(10)}, "banker", five).vigorish == D("0.50")
    assert settle({"banker": D(10)}, "banker", four).vigorish == D("0.40")
    many = [_rules(tie_odds=8 + n) for n in range(_MEMO_RULES + 2)]
    assert [settle({"tie": D(1)}, "tie", r).net for r in many] == [8 + n for n in range(len(many))]
    assert settle({"banker": D(10)}, "banker", five).vigorish == D("0.50")


_amounts = st.one_of(
    st.integers(1, 10**6).map(lambda c: D(c) / 100),
    st.integers(1, 10_000),
    st.integers(1, 10_000).map(lambda n: D(f"{n}.0")),
)
_options = st.fixed_dictionaries(
    {
        "commission": st.sampled_from([4, 5]),
        "vigorish_rounding": st.booleans(),
        "vigorish_collection": st.sampled_from(["at_payout", "deferred"]),
    }
)


@pytest.mark.reg("545.13(a)", "545.13(b)", "545.13(c)", "545.13(d)", "543.13(f)")
@given(
    st.lists(
        st.tuples(st.sampled_from(BETS), _amounts, st.sampled_from(["player", "banker", "tie"])),
        min_size=1,
        max_size=12,
    ),
    st.sampled_from(["baccarat", "midibaccarat"]),
    _options,
)
def test_a_remembered_settlement_is_the_one_fresh_rules_work_out(
    seats: list[tuple[str, Decimal | int, Outcome]], game: str, options: dict[str, object]
) -> None:
    shared = _rules(game, **options)
    for bet, amount, outcome in seats + seats:  # each seat twice: the second from the memo
        fresh = settle({bet: amount}, outcome, _rules(game, **options))
        assert _spelled(settle({bet: amount}, outcome, shared)) == _spelled(fresh)
