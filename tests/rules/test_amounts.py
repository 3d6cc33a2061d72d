"""Amounts are chips (ruling R16): ``controller.rules.amounts`` and the ``chip_unit`` and
``max_wager`` options of every game's Rules Submission."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.rules.amounts import AmountError, chips, shown
from controller.rules.baccarat import BaccaratRules
from controller.rules.options import RulesError
from controller.rules.spanish21 import Spanish21Rules

D = Decimal


@pytest.mark.parametrize(
    ("value", "why"),
    [
        (D("12.345"), "not a whole number of the table's 1 chips"),
        (D("1E-400"), "not a whole number"),
        (D("1E+30"), "over the table's maximum wager of 10000"),
        (D("1.5E+999999999"), "over the table's maximum"),
        pytest.param(10**5000, "over the table's maximum", id="5001-digits"),
        (0, "not an amount more than 0"),
        (D("-0"), "not an amount more than 0"),
        (-5, "not an amount more than 0"),
        (D("NaN"), "not an amount"),
        (D("sNaN"), "not an amount"),
        (D("-Infinity"), "not an amount"),
        (True, "not an amount"),
        (2.0, "not an amount"),
        ("5", "not an amount"),
        (None, "not an amount"),
    ],
)
def test_what_is_not_chips(value: object, why: str) -> None:
    # Ruling R16, with the default chip unit and maximum wager.
    with pytest.raises(AmountError, match=why) as err:
        chips(value, D(1), D(10_000))
    assert "ruling R16" in str(err.value) and len(str(err.value)) < 120


@given(st.integers(1, 2_000), st.sampled_from(["0.25", "1", "5", "25"]))
def test_whole_chips_up_to_the_maximum_are_a_wager(units: int, unit: str) -> None:
    # Ruling R16: every whole number of chips from one up to the maximum, and no more.
    chip, maximum = D(unit), D(unit) * 1_000
    amount = chip * units
    if amount <= maximum:
        assert chips(amount, chip, maximum) == amount
    else:
        with pytest.raises(AmountError, match="maximum"):
            chips(amount, chip, maximum)
    with pytest.raises(AmountError, match="whole number"):
        chips(amount + chip / 5, chip, amount + chip)


def test_an_amount_is_shown_short() -> None:
    assert shown(D("12.50")) == "12.50" and shown(True) == "True" and shown("x") == "'x'"
    assert shown(10**5000).endswith("(5001 characters)") and len(shown(10**5000)) < 50


def _spanish(options: dict[str, Any]) -> Spanish21Rules:
    return Spanish21Rules.from_dict(options)


def _baccarat(options: dict[str, Any]) -> BaccaratRules:
    return BaccaratRules.from_dict("baccarat", options)


@pytest.mark.reg("551.10(b)", "551.6(e)", "545.8(b)")
def test_the_chip_unit_and_maximum_wager_default_and_configure() -> None:
    # Ruling R16: a $1 chip and a $10,000 maximum unless the Rules Submission says.
    for rules in (_spanish({}), _baccarat({})):
        assert (rules.chip_unit, rules.max_wager) == (D(1), D(10_000))
    rules = _spanish({"chip_unit": "2.50", "max_wager": 5000})
    assert (rules.chip_unit, rules.max_wager) == (D("2.50"), D(5000))
    midi = BaccaratRules.from_dict("midibaccarat", {"chip_unit": 0.5, "max_wager": "250"})
    assert (midi.chip_unit, midi.max_wager) == (D("0.5"), D(250))


@pytest.mark.reg("551.10(b)", "551.6(e)", "545.8(b)", "543.8(b)")
@pytest.mark.parametrize(
    ("build", "options", "message"),
    [
        (_spanish, {"max_wager": 0}, r"^rules\.max_wager: 0 is not an amount .* \(551\.6\(e\)\)$"),
        (_spanish, {"max_wager": -100}, r"^rules\.max_wager: -100 is not an amount"),
        (_spanish, {"max_wager": "12.345"}, r"^rules\.max_wager: 12\.345 is not .*whole cents"),
        (_spanish, {"max_wager": "1e30"}, r"^rules\.max_wager: expected an amount .*'1e30'"),
        (_spanish, {"max_wager": 1e30}, r"^rules\.max_wager: 1E\+30 is not an amount"),
        pytest.param(
            _spanish,
            {"max_wager": 10**5000},
            r"^rules\.max_wager: 1000.*\(5001 characters\)",
            id="5001-digits",
        ),
        (_spanish, {"max_wager": float("inf")}, r"^rules\.max_wager: expected an amount"),
        (_spanish, {"max_wager": "NaN"}, r"^rules\.max_wager: expected an amount"),
        (_spanish, {"max_wager": True}, r"^rules\.max_wager: expected an amount"),
        (_spanish, {"chip_unit": 1e-400}, r"^rules\.chip_unit: 0\.0 is not .*\(551\.10\(b\)\)$"),
        (_spanish, {"chip_unit": "0.001"}, r"^rules\.chip_unit: 0\.001 is not .*whole cents"),
        (_spanish, {"chip_unit": 25, "max_wager": 10}, r"^rules\.chip_unit: 25 is more than"),
        (_spanish, {"chip_unit": 5, "max_wager": 12}, r"^rules\.max_wager: 12 is not a whole"),
        (_baccarat, {"chip_unit": "0"}, r"^rules\.chip_unit: 0 is not .*\(545\.8\(b\)\)$"),
        (_baccarat, {"max_wager": "1,000"}, r"^rules\.max_wager: expected an amount"),
        (_baccarat, {"max_wager": 2e9}, r"^rules\.max_wager: 2000000000\.0 is not an amount"),
    ],
)
def test_a_chip_unit_or_maximum_that_is_not_a_sane_amount_is_refused(
    build: Any, options: dict[str, Any], message: str
) -> None:
    with pytest.raises(RulesError, match=message) as err:
        build(options)
    assert "\n" not in str(err.value)
