"""``tablectl bench`` on Spanish 21 end to end over real pseudo-terminals: the simulated
shoe, card reader (and shuffler) as processes, the real drivers, the table machine;
and the scenarios the bench refuses."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from tests.support.bench import (
    FAULTS,
    assert_clean_run,
    bench,
    contract,
    example,
    expected,
    lines,
    refusal,
    write,
)
from tests.support.paths import EXAMPLES

GOLDEN = "spanish21-six-decks"


def golden_scenario() -> dict[str, Any]:
    return example(GOLDEN)


def assert_hole_cards_sealed(events: list[dict[str, Any]]) -> None:
    """Each round's hole card is recorded sealed, then given by the reveal line alone."""
    rounds = [e for e in events if e["type"] == "round_end"]
    sealed = [e for e in events if e.get("sealed")]
    assert all(e["card"] is None for e in sealed)
    assert [e["type"] for e in sealed] == ["device", "dealt"] * len(rounds)
    reveals = [e["card"] for e in events if e["type"] == "reveal"]
    assert reveals == [r["dealer"][1] for r in rounds]
    for i, event in enumerate(events):
        if event.get("sealed") and event["type"] == "dealt":
            reveal = next(j for j in range(i, len(events)) if events[j]["type"] == "reveal")
            between = {e["type"] for e in events[i:reveal]}
            assert not between & {"round_end", "shoe_end"}


@pytest.mark.reg("551.8(d)", "551.7(d)", "551.8(e)", "551.10(a)", "551.9(a)", "551.11(d)")
@pytest.mark.reg("551.12(b)", "551.13(c)", "551.8(j)", "551.8(c)", "551.2(e)", "551.6(g)")
def test_golden_scenario(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "events.jsonl"
    assert bench(EXAMPLES / f"{GOLDEN}.json", out) == 0
    events = lines(out)
    want = expected(GOLDEN)
    assert contract(events, want) == want
    assert_clean_run(events)
    assert_hole_cards_sealed(events)
    assert all(p["shown"] for p in events if p["type"] == "prompt")
    assert [e["type"] for e in events].count("reader_inspected") == 1
    stderr = capsys.readouterr().err.strip().splitlines()
    assert len(stderr) == 1 and stderr[0].endswith("rounds/s)")


@pytest.mark.reg("551.8(e)", "551.16(m)")
def test_golden_scenario_survives_wire_faults_and_an_unplugged_shoe(tmp_path: Path) -> None:
    scenario = golden_scenario()
    scenario["faults"] = FAULTS
    out = tmp_path / "events.jsonl"
    assert bench(write(tmp_path, scenario), out) == 0
    events = lines(out)
    want = expected(GOLDEN)
    assert contract(events, want) == want
    assert_clean_run(events)
    assert_hole_cards_sealed(events)
    kinds = [e["type"] for e in events]
    (halt,) = [e for e in events if e["type"] == "halt"]
    assert halt["cause"] == "device_lost" and halt["device"] == "shoe"
    assert kinds.index("fault_injected") < kinds.index("halt") < kinds.index("floor_clear")
    end = events[-1]
    links = (end["shoe_link"], end["reader_link"])
    assert sum(link["retransmits"] + link["duplicates"] for link in links) > 0


@pytest.mark.reg("551.3(a)", "551.5(a)", "551.16(k)", "551.8(j)")
def test_seeded_shoe_is_shuffled_by_the_shuffler_and_autoplay_plays_to_the_cutting_card(
    tmp_path: Path,
) -> None:
    scenario = {
        "game": "spanish21",
        "decks": 6,
        "seed": 7,
        "rounds": [{"wagers": {"3": 25}, "match_the_dealer": {"3": 5}}],
    }
    out = tmp_path / "events.jsonl"
    assert bench(write(tmp_path, scenario), out) == 0
    events = lines(out)
    assert_clean_run(events)
    assert_hole_cards_sealed(events)
    (shuffled,) = [e for e in events if e["type"] == "shuffled"]
    assert shuffled == {"type": "shuffled", "shoe": 1, "how": "shuffler", "cards": 288}
    wagers = [(e["box"], e["bet"], e["amount"]) for e in events if e["type"] == "wager"]
    assert wagers[:2] == [(3, "spanish21", 25), (3, "match_the_dealer", 5)]
    rounds = [e for e in events if e["type"] == "round_end"]
    (end,) = [e for e in events if e["type"] == "shoe_end"]
    assert end["rounds"] == len(rounds) > 10 and end["reason"] == "cutting_card"
    assert len(end["burned"]) == 1


def _golden_with(change: dict[str, Any], round_index: int) -> dict[str, Any]:
    scenario = golden_scenario()
    rounds = copy.deepcopy(scenario["rounds"])
    rounds[round_index] = {**rounds[round_index], **change}
    return {**scenario, "rounds": rounds}


@pytest.mark.parametrize(
    ("scenario", "message"),
    [
        pytest.param(
            _golden_with({"decisions": {"1": ["hit", "hit"]}}, 1),
            "rounds[1].decisions.1[1]: round 2, box 1: 'hit' refused: hand 1: "
            "cannot hit: the hand is not waiting for a decision (551.8(f), 551.12(b), 551.13(a))",
            id="a hit on 21",
        ),
        pytest.param(
            _golden_with({"decisions": {"1": ["hit"]}}, 0),
            "rounds[0].decisions.1[0]: 'hit' was never taken: the round ended before",
            id="a decision after the dealer's Blackjack",
        ),
        pytest.param(
            _golden_with({"decisions": {"1": ["double", "split"]}}, 5),
            "rounds[5].decisions.1[1]: round 6, box 1: 'split' refused",
            id="a split after a double",
        ),
        pytest.param(
            _golden_with({"decisions": {"1": ["stand", "surrender"]}}, 5),
            "rounds[5].decisions.1[1]: round 6, box 1: 'surrender' refused: hand 1: "
            "cannot surrender",
            id="a surrender after standing",
        ),
        pytest.param(
            _golden_with({"insurance": {"1": 5}}, 1),
            "rounds[1].insurance.1: round 2, box 1: insurance wager of 5 refused: "
            "Insurance is offered only against an ace up card, before the peek (551.10(a))",
            id="insurance against a 6",
        ),
        pytest.param(
            _golden_with({"match_the_dealer": {"1": 15}}, 1),
            "rounds[1].match_the_dealer.1: round 2, box 1: match_the_dealer wager of 15 refused",
            id="match-the-dealer over the wager",
        ),
        pytest.param(
            _golden_with({"match_the_dealer": {"2": 5}}, 0),
            "rounds[0].match_the_dealer.2: box 2 holds no Spanish 21 wager (551.7(b))",
            id="match-the-dealer without a wager",
        ),
        pytest.param(
            _golden_with({"decisions": {"1": ["fold"]}}, 0),
            "rounds[0].decisions.1[0]: 'fold' is not one of hit, stand",
            id="an unknown decision",
        ),
        pytest.param(
            _golden_with({"decisions": {"4": ["hit"]}}, 0),
            "rounds[0].decisions.4: box 4 holds no wager this round",
            id="a decision for an empty box",
        ),
        pytest.param(
            _golden_with({"wagers": {"8": 10}}, 0),
            "rounds[0].wagers.8: not a box 1..7 (551.2(b)(2))",
            id="box 8",
        ),
        pytest.param(
            _golden_with({"wagers": {}}, 0),
            "rounds[0].wagers: no box holds a wager (551.8(d)(1))",
            id="no wager",
        ),
        pytest.param(
            _golden_with({"bets": {}}, 0),
            "rounds[0]: unknown key 'bets'",
            id="an unknown round key",
        ),
        pytest.param(
            {"game": "spanish21", "shoe": ["TD", "AS"]},
            "shoe: card 1: TD is not in a Spanish 21 deck (551.3(a))",
            id="a ten in the stacked shoe",
        ),
        pytest.param(
            {"game": "spanish21", "shoe": ["AS"] * 7},
            "shoe: card 7: more AS than 6 decks hold",
            id="a seventh ace of spades",
        ),
        pytest.param(
            {"game": "spanish21", "shoe": ["AS", "1X"]},
            "shoe[1]: not a card: '1X'",
            id="an unknown card token",
        ),
        pytest.param(
            {"game": "spanish21", "decks": 6, "cut_at": 20},
            "cut_at: the cover card goes 72..288 cards above the bottom (551.5(e))",
            id="the cutting card too deep",
        ),
        pytest.param(
            {"game": "spanish21", "rules": {"match_the_dealer_same_suit": 8}},
            "rules.match_the_dealer_same_suit: 8 to 1 is under the 9 to 1 minimum",
            id="match-the-dealer odds under the minimum",
        ),
        pytest.param(
            {**golden_scenario(), "faults": [{"kind": "unplug", "device": "shuffler"}]},
            "faults[0].device: expected shoe or reader",
            id="no shuffler to unplug",
        ),
    ],
)
def test_bad_scenario_is_one_line_and_exit_2(
    scenario: object, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    line = refusal(tmp_path, scenario, capsys)  # refused before anything started
    assert message in line, line
