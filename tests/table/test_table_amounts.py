"""Amounts are chips (ruling R16) at every game's table: a wager is a positive whole
number of the table's chip unit, no larger than its maximum wager; anything else is
refused with the section and the table is unchanged. An amount of 0 withdraws a wager
before the first card (551.6(d)) or "no more bets" (545.8(c)), and only there."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from controller.table.events import DealersCard, Decision, Need, Wager
from tests.support import baccarat, spanish21

D = Decimal

# Each kind of bad amount (chip unit 1, maximum wager 10,000, the defaults), as the
# campaign found them and beyond.
BAD_AMOUNTS: list[tuple[str, object]] = [
    ("a fraction of a chip", D("12.345")),
    ("a tiny fraction", D("0.0000001")),
    ("an exponent's fraction", D("1E-400")),
    ("an exponent's size", D("1E+30")),
    ("an overflowing exponent", D("1.5E+999999999")),
    ("over the maximum", 10_001),
    ("an integer of 5,000 digits", 10**5000),
    ("negative", -10),
    ("negative zero", D("-0")),
    ("NaN", D("NaN")),
    ("a signalling NaN", D("sNaN")),
    ("infinity", D("Infinity")),
    ("true", True),
    ("a float", 12.5),
    ("text", "12"),
]
KINDS = [pytest.param(amount, id=kind) for kind, amount in BAD_AMOUNTS]


def _spanish() -> spanish21.Dealer:
    d = spanish21.Dealer()
    d.open()
    return d


def _entries(d: Any) -> list[dict[str, object]]:
    return [dict(e) for e in d.io.journal.entries]


def _refused_and_unchanged(d: Any, command: Any, section: str) -> None:
    """``command`` refused with ``section`` and ruling R16, nothing else journaled, the
    table in the state it was in."""
    before, state, need = len(_entries(d)), d.table.state, d.need()
    d.do(command)
    new = [e for e in _entries(d)[before:] if e["type"] not in ("command", "prompt")]
    assert [e["type"] for e in new] == ["refused"], new
    assert new[0]["section"] == section
    assert "ruling R16" in str(new[0]["reason"]) and "\n" not in str(new[0]["reason"])
    assert (d.table.state, d.need()) == (state, need)


@pytest.mark.reg("551.6(e)")
@pytest.mark.parametrize("amount", KINDS)
def test_a_spanish21_wager_that_is_not_chips_is_refused(amount: object) -> None:
    d = _spanish()
    _refused_and_unchanged(d, Wager(1, "spanish21", amount), "551.6(e)")  # type: ignore[arg-type]
    d.deal({1: 10}, ["9C", "5D", "7H", "5S"])  # the table goes on, and settles
    d.decide(1, "stand")
    d.do(DealersCard())
    d.cards(["KC"])
    assert d.rounds()[-1]["boxes"] == {
        "1": {"hands": [{"cards": ["9C", "7H"], "total": 16, "outcome": "lose", "net": -10}]}
    }


@pytest.mark.reg("551.7(b)", "551.7(c)")
@pytest.mark.parametrize("amount", KINDS)
def test_a_match_the_dealer_wager_that_is_not_chips_is_refused(amount: object) -> None:
    d = _spanish()
    d.do(Wager(1, "spanish21", 10))
    sections = {"551.7(c)", "551.7(b)"}
    before = len(d.refusals())
    d.do(Wager(1, "match_the_dealer", amount))  # type: ignore[arg-type]
    (refused,) = d.refusals()[before:]
    assert refused["section"] in sections and "ruling R16" in str(refused["reason"])
    assert not [e for e in d.io.of_type("wager") if e["bet"] == "match_the_dealer"]


@pytest.mark.reg("551.10(b)")
@pytest.mark.parametrize("amount", [*KINDS, pytest.param(0, id="zero"), D("4.5")])
def test_an_insurance_wager_that_is_not_chips_is_refused(amount: object) -> None:
    # 551.10(b) keeps its rounding up to the next chip: on 15, up to 8 of the $1 chips,
    # and not 7.5 (ruling R16).
    d = _spanish()
    d.deal({1: 15}, ["9C", "AD", "7H", "5S"])
    assert d.table.insurance_open
    before = len(d.refusals())
    d.do(Wager(1, "insurance", amount))  # type: ignore[arg-type]
    (refused,) = d.refusals()[before:]
    assert refused["section"] == "551.10(b)"
    assert not [e for e in d.io.of_type("wager") if e["bet"] == "insurance"]
    d.do(Wager(1, "insurance", 8))
    assert d.io.of_type("wager")[-1]["amount"] == 8


@pytest.mark.reg("551.11(a)")
@pytest.mark.parametrize("amount", [*KINDS, pytest.param(0, id="zero")])
def test_a_double_down_that_is_not_chips_is_refused(amount: object) -> None:
    d = _spanish()
    d.deal({1: 10}, ["6C", "9D", "5H", "7S"])
    _refused_and_unchanged(d, Decision(1, "double", amount), "551.11(a)")  # type: ignore[arg-type]
    assert d.table.hands_of(1)[0].double_wager == 0
    d.do(Decision(1, "double", 5))
    assert d.table.hands_of(1)[0].double_wager == 5


@pytest.mark.reg("551.6(d)", "551.6(e)", "551.7(b)")
def test_zero_withdraws_a_spanish21_wager_and_is_no_wager_where_there_is_none() -> None:
    # Ruling R16: 0 keeps its meaning of a withdrawal (551.6(d)); on an empty box it is
    # refused.
    d = _spanish()
    _refused_and_unchanged(d, Wager(2, "spanish21", 0), "551.6(e)")
    d.do(Wager(2, "spanish21", 10))
    _refused_and_unchanged(d, Wager(2, "match_the_dealer", 0), "551.7(c)")
    d.do(Wager(2, "match_the_dealer", 5))
    d.do(Wager(2, "match_the_dealer", 0))
    d.do(Wager(2, "spanish21", 0))
    amounts = [(e["bet"], e["amount"]) for e in d.io.of_type("wager")]
    assert amounts == [
        ("spanish21", 10),
        ("match_the_dealer", 5),
        ("match_the_dealer", 0),
        ("spanish21", 0),
    ]
    assert d.need() is Need.WAGERS


@pytest.mark.reg("551.6(e)", "551.10(b)")
def test_the_chip_unit_and_maximum_wager_are_the_tables() -> None:
    # Ruling R16: $5 chips up to $500; half of a $25 wager is 12.50, rounded up to the
    # next $5 chip, 15 (551.10(b)).
    d = spanish21.Dealer(chip_unit=5, max_wager=500)
    d.open()
    for amount in (12, 505):
        _refused_and_unchanged(d, Wager(1, "spanish21", amount), "551.6(e)")
    d.deal({1: 25}, ["9C", "AD", "7H", "5S"])
    d.do(Wager(1, "insurance", 10))
    d.do(Wager(1, "insurance", 15))
    assert [e["amount"] for e in d.io.of_type("wager") if e["bet"] == "insurance"] == [10]


@baccarat.GAMES
@pytest.mark.reg("545.8(b)", "543.8(b)")
@pytest.mark.parametrize("amount", KINDS)
def test_a_baccarat_wager_that_is_not_chips_is_refused(game: str, amount: object) -> None:
    d = baccarat.Dealer(game)
    d.open()
    _refused_and_unchanged(d, Wager(3, "banker", amount), f"{baccarat.CH[game]}.8(b)")  # type: ignore[arg-type]
    d.play(["2H", "9S", "3C", "KD"], wagers={3: {"banker": 10}})  # and settles
    assert d.rounds()[-1]["seats"]["3"]["net"] == D("9.5")  # type: ignore[index]


@baccarat.GAMES
@pytest.mark.reg("545.8(b)", "545.8(c)", "543.8(b)", "543.8(c)")
def test_zero_withdraws_a_baccarat_wager_and_is_no_wager_where_there_is_none(game: str) -> None:
    d = baccarat.Dealer(game, chip_unit="0.5", max_wager=1000)
    d.open()
    section = f"{baccarat.CH[game]}.8(b)"
    _refused_and_unchanged(d, Wager(3, "tie", 0), section)
    for amount in (D("0.25"), D("1000.5")):
        _refused_and_unchanged(d, Wager(3, "tie", amount), section)
    d.do(Wager(3, "tie", D("12.5")))
    d.do(Wager(3, "tie", 0))
    assert [e["amount"] for e in d.io.of_type("wager")] == [D("12.5"), 0]
