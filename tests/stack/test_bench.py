"""``tablectl bench`` end to end over real pseudo-terminals: the simulated shoe (and
shuffler) as processes, the real drivers, the table machine; and bad scenarios."""

from __future__ import annotations

import json
from pathlib import Path

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
)
from tests.support.paths import EXAMPLES


@pytest.mark.parametrize("name", ["baccarat-eight-decks", "midibaccarat-cover-card-at-hand-start"])
@pytest.mark.reg(
    "545.5(f)",
    "543.5(g)",
    "545.9(c)",
    "543.9(c)",
    "545.11(b)",
    "545.11(c)",
    "543.11(b)",
    "543.11(c)",
)
@pytest.mark.reg("545.10(e)", "543.10(e)", "545.12(a)", "543.12(a)")
def test_golden_scenarios(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "events.jsonl"
    assert bench(EXAMPLES / f"{name}.json", out) == 0
    events = lines(out)
    want = expected(name)
    assert contract(events, want) == want
    assert_clean_run(events)
    assert all(p["shown"] for p in events if p["type"] == "prompt")
    stderr = capsys.readouterr().err.strip().splitlines()
    assert len(stderr) == 1 and stderr[0].endswith("rounds/s)")


@pytest.mark.reg("545.10(e)")
def test_golden_scenario_survives_wire_faults_and_an_unplugged_shoe(tmp_path: Path) -> None:
    scenario = example("baccarat-eight-decks")
    scenario["faults"] = FAULTS
    path = tmp_path / "faults.json"
    path.write_text(json.dumps(scenario))
    out = tmp_path / "events.jsonl"
    assert bench(path, out) == 0
    events = lines(out)
    want = expected("baccarat-eight-decks")
    assert contract(events, want) == want
    assert_clean_run(events)
    kinds = [e["type"] for e in events]
    halt = events[kinds.index("halt")]
    assert halt["cause"] == "device_lost" and halt["device"] == "shoe"
    assert kinds.index("fault_injected") < kinds.index("halt") < kinds.index("floor_clear")
    connected = [i for i, e in enumerate(events) if e.get("event") == "device_connected"]
    assert len(connected) == 2  # at the start, and back after the unplug
    assert kinds.index("halt") < connected[1] < kinds.index("floor_clear")
    link = events[-1]["shoe_link"]
    assert link["retransmits"] + link["duplicates"] > 0 and link["garbage_bytes"] > 0


@pytest.mark.reg("545.3(a)", "545.5(a)", "545.8(c)")
def test_seeded_shoe_is_shuffled_by_the_shuffler_and_scripts_give_the_wagers(
    tmp_path: Path,
) -> None:
    path = tmp_path / "seeded.json"
    path.write_text(
        json.dumps(
            {
                "game": "baccarat",
                "decks": 6,
                "seed": 11,
                "rules": {"chip_unit": 0.5},  # 12.5 is 25 chips (ruling R16)
                "rounds": [{"wagers": {"2": {"banker": 100}, "9": {"tie": 12.5}}}],
            }
        )
    )
    out = tmp_path / "events.jsonl"
    assert bench(path, out) == 0
    events = lines(out)
    assert_clean_run(events)
    (shuffled,) = [e for e in events if e["type"] == "shuffled"]
    assert shuffled == {"type": "shuffled", "shoe": 1, "how": "shuffler", "cards": 312}
    first_wagers = [(e["seat"], e["bet"], e["amount"]) for e in events if e["type"] == "wager"][:2]
    assert first_wagers == [(2, "banker", 100), (9, "tie", 12.5)]
    rounds = [e for e in events if e["type"] == "round_end"]
    assert set(rounds[0]["seats"]) == {"2", "9"}
    (end,) = [e for e in events if e["type"] == "shoe_end"]
    assert end["rounds"] == len(rounds) > 40 and end["reason"] == "last_hand"


def _shoe(*cards: str) -> list[str]:
    return list(cards)


@pytest.mark.parametrize(
    ("scenario", "message"),
    [
        ("{not json", "not valid JSON"),
        ({"game": "poker"}, "unknown game 'poker'"),
        ({"game": "spanish21", "rules": {"decks": 7}}, "rules.decks: 7 is not allowed"),
        ({"game": "baccarat", "shoe": _shoe("AS", "1X")}, "shoe[1]: not a card: '1X'"),
        ({"game": "baccarat", "shoe": ["AS"] * 9}, "more AS than 8 decks hold"),
        ({"game": "baccarat", "shoe": _shoe("AS", "CUT", "CUT")}, "a second CUT"),
        ({"game": "baccarat", "rules": {"tie_odds": 7}}, "rules.tie_odds: 7 is under"),
        ({"game": "midibaccarat", "rules": {"decks": 4}}, "543.3(a)"),
        ({"game": "baccarat", "rules": {"jackpot": 1}}, "rules.jackpot: unknown option"),
        ({"game": "baccarat", "deck": 8}, "unknown key 'deck'"),
        ({"game": "baccarat", "decks": 8, "shoe": ["AS"]}, "either a stacked shoe or decks"),
        ({"game": "baccarat", "cut_at": 5}, "cut_at: the cover card goes 14..416"),
        (
            {"game": "baccarat", "rounds": [{"wagers": {"15": {"banker": 10}}}]},
            "rounds[0].wagers.15: not a seat 1..14 (545.2(a))",
        ),
        (
            {"game": "midibaccarat", "rounds": [{}, {"wagers": {"1": {"dragon": 10}}}]},
            "rounds[1].wagers.1: 'dragon' is not player, banker or tie",
        ),
        (
            {"game": "baccarat", "rounds": [{"wagers": {"1": {"tie": -5}}}]},
            "rounds[0].wagers.1.tie:",
        ),
        (
            {"game": "baccarat", "rounds": [{"decisions": {}}]},
            "rounds[0]: unknown key 'decisions'",
        ),
        ({"game": "baccarat", "faults": [{"kind": "melt"}]}, "faults[0].kind: 'melt'"),
        ({"game": "baccarat", "faults": [{"kind": "drop", "rate": 2}]}, "faults[0].rate"),
        (
            {
                "game": "baccarat",
                "shoe": ["AS"],
                "faults": [{"kind": "unplug", "device": "shuffler"}],
            },
            "faults[0].device: expected shoe",
        ),
    ],
)
def test_bad_scenario_is_one_line_and_exit_2(
    scenario: object, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    line = refusal(tmp_path, scenario, capsys)  # nothing started, nothing written
    assert message in line, line


def test_missing_scenario_and_unwritable_output_are_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert bench(tmp_path / "none.json", tmp_path / "out.jsonl") == 2
    assert "cannot read the scenario" in capsys.readouterr().err
    good = EXAMPLES / "baccarat-eight-decks.json"
    assert bench(good, tmp_path / "no" / "such" / "dir.jsonl") == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("tablectl: error: cannot write ")
