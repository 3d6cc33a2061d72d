"""Deferred vigorish rounded when it is collected, not win by win (ruling R11): the
ledger keeps the exact amount owed (545.13(e), 543.13(e)), and the rounding option
(545.13(d), 543.13(d)) applies to what is collected, when it is collected."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.rules.baccarat import (
    BaccaratRules,
    VigorishLedger,
    round_vigorish,
    settle,
    vigorish_collected,
)

D = Decimal


def _rules(game: str = "baccarat", **options: object) -> BaccaratRules:
    return BaccaratRules.from_dict(game, options)


@pytest.mark.reg("545.13(d)", "545.13(e)")
def test_three_deferred_banker_wins_are_rounded_once_as_they_are_collected() -> None:
    # Ruling R11, the campaign's case: $1, $1 and $2 Banker wins at 5% owe 0.05 + 0.05
    # + 0.10 = 0.20, collected as one quarter (it was 0.75, three quarters, before).
    r = _rules(vigorish_collection="deferred", vigorish_rounding=True)
    ledger = VigorishLedger()
    for amount in (1, 1, 2):
        s = settle({"banker": amount}, "banker", r)
        assert s.vigorish_deferred and s.vigorish == D(amount) * D("0.05")
        ledger = ledger.mark(4, s.vigorish)
    owed, _ = ledger.collect(4)
    assert owed == D("0.20") and vigorish_collected(owed, r) == D("0.25")


@pytest.mark.reg("545.13(d)", "545.13(e)")
def test_a_vigorish_collected_at_the_payout_is_rounded_at_each_win() -> None:
    # Ruling R11: collected as the winning payout is made, each win's vigorish is rounded.
    r = _rules(vigorish_rounding=True)
    assert [settle({"banker": a}, "banker", r).vigorish for a in (1, 1, 2)] == [D("0.25")] * 3


@pytest.mark.reg("543.13(d)", "543.13(e)")
def test_midibaccarat_deferred_vigorish_is_rounded_to_5_cents_when_collected() -> None:
    # Ruling R11: 4% of $1, $1.10 and $2 owe 0.04 + 0.044 + 0.08 = 0.164; 0.20 collected,
    # not 0.05 + 0.05 + 0.10.
    r = _rules("midibaccarat", commission=4, vigorish_collection="deferred", vigorish_rounding=True)
    owed = sum((settle({"banker": D(a)}, "banker", r).vigorish for a in ("1", "1.10", "2")), D(0))
    assert owed == D("0.164") and vigorish_collected(owed, r) == D("0.20")
    assert vigorish_collected(owed, _rules("midibaccarat", commission=4)) == owed  # no rounding


_cents = st.integers(1, 100_000).map(lambda cents: D(cents) / 100)


@pytest.mark.reg("545.13(c)", "545.13(d)", "545.13(e)", "543.13(d)", "543.13(e)")
@given(
    st.lists(_cents, min_size=1, max_size=8),
    st.sampled_from(["baccarat", "midibaccarat"]),
    st.sampled_from([4, 5]),
    st.booleans(),
)
def test_what_is_collected_is_the_exact_amount_owed_rounded_once(
    wins: list[Decimal], game: str, commission: int, rounding: bool
) -> None:
    # Ruling R11: the ledger is exact whatever the option; what is collected is the
    # whole amount owed, rounded up at most once, to less than one unit over it.
    r = _rules(
        game, commission=commission, vigorish_collection="deferred", vigorish_rounding=rounding
    )
    ledger = VigorishLedger()
    for amount in wins:
        ledger = ledger.mark(2, settle({"banker": amount}, "banker", r).vigorish)
    owed, _ = ledger.collect(2)
    assert owed == sum(wins, D(0)) * commission / 100
    collected = vigorish_collected(owed, r)
    assert collected == round_vigorish(owed, r)
    unit = D("0.05") if game == "midibaccarat" else D(commission * 5) / 100
    if rounding:
        assert collected % unit == 0 and owed <= collected < owed + unit
    else:
        assert collected == owed
