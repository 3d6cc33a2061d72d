"""Exact Baccarat / Midibaccarat odds (controller.rules.baccarat_analysis) and the
``tablectl analyze`` subcommand (controller.analyze)."""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from fractions import Fraction
from itertools import permutations
from math import perm
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller import analyze
from controller.rules.baccarat import BaccaratRules, next_to_draw, result
from controller.rules.baccarat_analysis import (
    count_outcomes,
    deal_counts,
    deck_classes,
    house_edge,
)

# Published counts of ordered six-card deals from eight decks under 545.11's drawing rules.
BANKER_8 = 2_292_252_566_437_888
PLAYER_8 = 2_230_518_282_592_256
TIE_8 = 475_627_426_473_216
TOTAL_8 = 4_998_398_275_503_360


@pytest.mark.reg("545.11(a)", "545.11(b)", "545.11(c)")
def test_eight_decks_match_the_published_counts() -> None:
    counts = count_outcomes(deck_classes(8))
    assert (counts.banker, counts.player, counts.tie) == (BANKER_8, PLAYER_8, TIE_8)
    assert counts.total == TOTAL_8 == perm(416, 6)


@pytest.mark.reg("545.3(a)")
@pytest.mark.parametrize("decks", [6, 7, 8])
def test_every_ordered_six_card_deal_is_counted_once(decks: int) -> None:
    assert deal_counts(decks).total == perm(52 * decks, 6)


@pytest.mark.reg("545.6(a)")
def test_ten_count_cards_are_one_value_class() -> None:
    assert deck_classes(1) == (16, 4, 4, 4, 4, 4, 4, 4, 4, 4)


def _brute_force(shoe: list[str]) -> Counter[str]:
    """Every ordered six-card deal of ``shoe``, dealt with next_to_draw card by card."""
    tally: Counter[str] = Counter()
    for deal in permutations(shoe, 6):
        source = iter(deal)
        player: list[str] = []
        banker: list[str] = []
        while (h := next_to_draw(player, banker)) is not None:
            (player if h == "player" else banker).append(next(source))
        tally[result(player, banker)] += 1
    return tally


def _classes(shoe: list[str]) -> list[int]:
    values = Counter(0 if c[0] in "TJQK" else 1 if c[0] == "A" else int(c[0]) for c in shoe)
    return [values[v] for v in range(10)]


def _assert_counts_as_card_by_card(shoe: list[str]) -> None:
    """The value-class count of ``shoe``'s outcomes is the card-by-card one."""
    counts = count_outcomes(_classes(shoe))
    brute = _brute_force(shoe)
    assert (counts.banker, counts.player, counts.tie) == (
        brute["banker"],
        brute["player"],
        brute["tie"],
    )


@pytest.mark.reg("545.11(a)", "545.11(b)", "545.11(c)")
def test_value_class_count_equals_card_by_card_enumeration() -> None:
    shoe = ["KS", "QH", "AS", "2S", "3S", "3H", "5S", "6S"]
    _assert_counts_as_card_by_card(shoe)


@pytest.mark.reg("545.11(a)", "545.11(b)", "545.11(c)")
@settings(max_examples=10, deadline=None)
@given(
    st.lists(
        st.sampled_from([f"{r}{s}" for r in "A23456789TJQK" for s in "SH"]),
        min_size=6,
        max_size=7,
        unique=True,
    )
)
def test_any_small_shoe_counts_as_card_by_card(shoe: list[str]) -> None:
    _assert_counts_as_card_by_card(shoe)


def test_a_shoe_too_small_for_a_round_is_refused() -> None:
    with pytest.raises(ValueError, match="six cards"):
        count_outcomes([5, 0, 0, 0, 0, 0, 0, 0, 0, 0])
    with pytest.raises(ValueError):
        deck_classes(0)


def test_analysis_is_fast() -> None:
    start = time.perf_counter()
    for decks in (6, 7, 8):
        count_outcomes(deck_classes(decks))
    assert time.perf_counter() - start < 2.0


@pytest.mark.reg("545.13(a)", "545.13(b)", "545.13(c)")
def test_house_edges_from_the_published_counts() -> None:
    counts = deal_counts(8)
    r = BaccaratRules.from_dict("baccarat", {})
    # 545.13(a): 1 to 1, a tie returns the wager.
    assert house_edge(counts, "player", r) == Fraction(BANKER_8 - PLAYER_8, TOTAL_8)
    # 545.13(c): 1 to 1 less 5% of the amount won.
    banker = Fraction(PLAYER_8, TOTAL_8) - Fraction(95, 100) * Fraction(BANKER_8, TOTAL_8)
    assert house_edge(counts, "banker", r) == banker
    # 545.13(b): 8 to 1.
    assert house_edge(counts, "tie", r) == 1 - 9 * Fraction(TIE_8, TOTAL_8)
    assert round(float(house_edge(counts, "banker", r)), 6) == 0.010579
    assert round(float(house_edge(counts, "player", r)), 6) == 0.012351
    assert round(float(house_edge(counts, "tie", r)), 6) == 0.143596


@pytest.mark.reg("545.13(c)")
def test_four_percent_commission_and_better_tie_odds_lower_the_edge() -> None:
    counts = deal_counts(8)
    r = BaccaratRules.from_dict("baccarat", {"commission": 4, "tie_odds": 9})
    banker = Fraction(PLAYER_8, TOTAL_8) - Fraction(96, 100) * Fraction(BANKER_8, TOTAL_8)
    assert house_edge(counts, "banker", r) == banker
    assert house_edge(counts, "tie", r) == 1 - 10 * Fraction(TIE_8, TOTAL_8)


@pytest.mark.reg("543.13(f)")
def test_midibaccarat_25_percent_tie_vigorish_edge() -> None:
    counts = deal_counts(8)
    r = BaccaratRules.from_dict("midibaccarat", {"vigorish": "tie_25"})
    # Banker wins pay 1 to 1 with no commission; a tie costs a quarter of the wager.
    expected = Fraction(PLAYER_8 - BANKER_8, TOTAL_8) + Fraction(TIE_8, 4 * TOTAL_8)
    assert house_edge(counts, "banker", r) == expected


# --------------------------------------------------------------------------- tablectl analyze


def _run(argv: list[str]) -> int:
    # The tablectl parser is wired by controller.cli; a bare one carries the subcommand here.
    parser = argparse.ArgumentParser(prog="tablectl")
    analyze.add_parser(parser.add_subparsers(dest="command", required=True))
    return analyze.run(parser.parse_args(["analyze", *argv]))


@pytest.mark.reg("545.11(a)", "545.11(b)", "545.11(c)")
def test_analyze_prints_a_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(["baccarat", "--decks", "8"]) == 0
    out = capsys.readouterr().out
    assert "baccarat, 8 decks: Banker 1 to 1 less 5%, Tie 8 to 1" in out
    assert f"{BANKER_8:,}" in out and f"{PLAYER_8:,}" in out and f"{TIE_8:,}" in out
    assert f"{TOTAL_8:,}" in out
    assert "1.0579%" in out and "1.2351%" in out and "14.3596%" in out


@pytest.mark.reg("545.13(a)", "545.13(b)", "545.13(c)")
def test_analyze_json_with_a_toml_rules_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rules = tmp_path / "table.toml"
    rules.write_text('decks = 6\ncommission = 4\ntie_odds = 9\ndealing = "players_reveal"\n')
    assert _run(["baccarat", "--rules", str(rules), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    counts = deal_counts(6)
    r = BaccaratRules.from_dict("baccarat", {"decks": 6, "commission": 4, "tie_odds": 9})
    assert report["rules"]["decks"] == 6 and report["rules"]["tie_odds"] == 9
    assert report["deals"] == {
        "player": counts.player,
        "banker": counts.banker,
        "tie": counts.tie,
        "total": perm(312, 6),
    }
    assert report["house_edge"]["banker"] == float(house_edge(counts, "banker", r))
    assert report["house_edge"]["tie"] == float(house_edge(counts, "tie", r))


@pytest.mark.reg("543.13(f)")
def test_analyze_midibaccarat_with_a_json_rules_file_and_decks_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rules = tmp_path / "midi.json"
    rules.write_text(json.dumps({"vigorish": "tie_25", "decks": 8}))
    assert _run(["midibaccarat", "--rules", str(rules), "--decks", "7", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["game"] == "midibaccarat" and report["rules"]["decks"] == 7
    assert report["deals"]["total"] == perm(364, 6)
    r = BaccaratRules.from_dict("midibaccarat", {"vigorish": "tie_25", "decks": 7})
    assert report["house_edge"]["banker"] == float(house_edge(deal_counts(7), "banker", r))


@pytest.mark.reg("545.13(b)")
@pytest.mark.parametrize(
    ("name", "content", "extra", "message"),
    [
        ("missing.toml", None, [], "missing.toml: cannot read: No such file or directory"),
        (
            "low.toml",
            "tie_odds = 7\n",
            [],
            "rules.tie_odds: 7 is under the 8 to 1 minimum (545.13(b))",
        ),
        ("bad.toml", "decks = = 8\n", [], "bad.toml: not valid TOML: "),
        ("bad.json", "{decks: 8}", [], "bad.json: not valid JSON: "),
        ("list.json", "[8]", [], "list.json: expected a table of options"),
        ("rules.yaml", "decks: 8\n", [], "rules.yaml: a rules file is .toml or .json"),
        ("binary.toml", b"\xff\xfe", [], "binary.toml: not UTF-8 text"),
        ("key.toml", "shoes = 2\n", [], "rules.shoes: unknown option"),
        (
            "ok.toml",
            "decks = 8\n",
            ["--decks", "9"],
            "rules.decks: 9 is outside six to eight decks (545.3(a))",
        ),
        ("ok.toml", "decks = 8\n", ["--decks", "5"], "(545.3(a))"),
    ],
)
def test_analyze_bad_input_is_one_line_and_exit_2(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    content: str | bytes | None,
    extra: list[str],
    message: str,
) -> None:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content)
    assert _run(["baccarat", "--rules", str(path), *extra]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("tablectl: error: ") and captured.err.endswith("\n")
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err
    assert message in captured.err


@pytest.mark.reg("545.3(a)")
def test_analyze_decks_out_of_range_without_a_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(["midibaccarat", "--decks", "4"]) == 2
    assert capsys.readouterr().err == (
        "tablectl: error: rules.decks: 4 is outside six to eight decks (543.3(a))\n"
    )
