"""Amounts in a bench scenario are chips (ruling R16): each bad amount is one line
naming its place, exit 2, before anything starts; and a scenario with chips of its own
(``rules.chip_unit``, ``rules.max_wager``) plays with them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.bench import example, of, play, refusal

AMOUNT = "<AMOUNT>"  # where each amount's text goes, as written in the file

# Each kind of bad amount, as the file writes it, and what the line says (chip unit 1,
# maximum wager 10,000: the defaults).
BAD = [
    ("12.345", "12.345 is not a whole number of the table's 1 chips (ruling R16)"),
    ("0.0000001", "0.0000001 is not a whole number of the table's 1 chips"),
    ("1e-400", "1e-400 is not an amount written plainly, ruling R16"),
    ("1e30", "1e30 is not an amount written plainly, ruling R16"),
    ("1e400", "1e400 is not an amount written plainly"),
    ("1.5E+999999999", "1.5E+999999999 is not an amount written plainly"),
    ("10001", "10001 is over the table's maximum wager of 10000 (ruling R16)"),
    ("1" + "0" * 30, "is over the table's maximum wager of 10000"),
    ("1" + "0" * 5000, "not a scenario: a number too long to read (more than 4300 digits)"),
    ("0", "0 is not an amount more than 0"),
    ("-10", "-10 is not an amount more than 0"),
    ("-0.0", "-0.0 is not an amount more than 0"),
    ('"10"', "'10' is not an amount more than 0"),
    ("true", "True is not an amount more than 0"),
    ("null", "None is not an amount more than 0"),
    ("NaN", "not valid JSON: NaN is not a JSON number"),
    ("Infinity", "not valid JSON: Infinity is not a JSON number"),
]
KINDS = [pytest.param(text, why, id=text[:20]) for text, why in BAD]


def _unreadable(line: str) -> bool:
    """A refusal of the whole file, before any key is read: no place to name."""
    return "not valid JSON" in line or ": not a scenario: " in line


def _with(scenario: dict[str, Any], text: str) -> str:
    """``scenario`` as the file's text, the amount written as ``text``."""
    written = json.dumps(scenario)
    assert written.count(f'"{AMOUNT}"') == 1
    return written.replace(f'"{AMOUNT}"', text)


def _spanish(**script: Any) -> dict[str, Any]:
    golden = example("spanish21-six-decks")
    return {**golden, "rounds": [{"wagers": {"1": 10}, **script}, *golden["rounds"][1:]]}


@pytest.mark.reg("551.6(a)")
@pytest.mark.parametrize(("text", "why"), KINDS)
def test_a_spanish21_wager_that_is_not_chips_is_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, why: str
) -> None:
    line = refusal(tmp_path, _with(_spanish(wagers={"1": AMOUNT}), text), capsys)
    assert why in line and (line.endswith("(551.6(a))") or _unreadable(line))
    assert "rounds[0].wagers.1: " in line or _unreadable(line)


@pytest.mark.reg("551.7(b)", "551.10(b)", "551.11(a)")
@pytest.mark.parametrize(
    ("script", "place"),
    [
        ({"match_the_dealer": {"1": AMOUNT}}, "rounds[0].match_the_dealer.1: "),
        ({"insurance": {"1": AMOUNT}}, "rounds[0].insurance.1: "),
        ({"decisions": {"1": [{"double": AMOUNT}]}}, "rounds[0].decisions.1[0].double: "),
    ],
)
@pytest.mark.parametrize(("text", "why"), KINDS)
def test_a_spanish21_side_wager_or_double_that_is_not_chips_is_one_line_exit_2(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    script: dict[str, Any],
    place: str,
    text: str,
    why: str,
) -> None:
    line = refusal(tmp_path, _with(_spanish(**script), text), capsys)
    assert why in line and (place in line or _unreadable(line))


@pytest.mark.reg("545.8(b)", "543.8(b)")
@pytest.mark.parametrize("game", ["baccarat", "midibaccarat"])
@pytest.mark.parametrize(("text", "why"), KINDS)
def test_a_baccarat_wager_that_is_not_chips_is_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], game: str, text: str, why: str
) -> None:
    scenario = {"game": game, "rounds": [{"wagers": {"3": {"banker": AMOUNT}}}]}
    line = refusal(tmp_path, _with(scenario, text), capsys)
    section = "545.8(b)" if game == "baccarat" else "543.8(b)"
    assert why in line
    assert line.endswith(f"({section})") or _unreadable(line)


@pytest.mark.reg("551.6(a)", "551.11(a)", "551.11(d)")
def test_a_scenario_plays_with_its_tables_chips(tmp_path: Path) -> None:
    # Ruling R16: $2.50 chips up to $250. The golden scenario's seventh round, its box
    # doubling and rescuing, with a 12.50 wager and a 7.50 Double Down: both are chips.
    golden = example("spanish21-six-decks")
    rounds = golden["rounds"][:7]
    rounds[6] = {"wagers": {"1": 12.5}, "decisions": {"1": [{"double": 7.5}, "rescue"]}}
    rules = {**golden["rules"], "chip_unit": "2.50", "max_wager": 250}
    events = play(tmp_path, {**golden, "rules": rules, "rounds": rounds}, ("refused",))
    seventh = next(e for e in of(events, "round_end") if e["round"] == 7)
    assert seventh["boxes"]["1"]["hands"][0]["outcome"] == "rescue"
    assert seventh["boxes"]["1"]["hands"][0]["net"] == -12.5
    assert next(d.get("amount") for d in of(events, "decision") if d["round"] == 7) == 7.5
