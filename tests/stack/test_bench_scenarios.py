"""Scenario files of every shape the bench's loader may be handed: each one loads or is
refused with one ScenarioError line, never a traceback (controller/bench/loader.py,
faults.py, rounds.py, values.py)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.bench import load_scenario
from controller.bench.scenario import ScenarioError
from controller.bench.values import SHOWN
from tests.support.bench import refusal

LONGEST = 400  # characters of a refusal's line, however large the value it names


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize(
    ("scenario", "message"),
    [
        # A RecursionError traceback, exit 1, until the loader caught it.
        ("[" * 100_000, "not a scenario: its lists or objects are nested too deeply to read"),
        (
            '{"game": "baccarat", "rounds": ' + _nested(50_000) + "}",
            "nested too deeply to read",
        ),
        # A TypeError traceback (unhashable type: 'list'), until a kind had to be a string.
        ({"game": "baccarat", "faults": [{"kind": ["drop"]}]}, "faults[0].kind: ['drop'] is not"),
        ({"game": "spanish21", "faults": [{"kind": {"a": 1}}]}, "faults[0].kind: {'a': 1} is not"),
        # Python's json reads these: a ValueError traceback, or a NaN taken for a number.
        ('{"game": "baccarat", "seed": ' + "7" * 5000 + "}", "a number too long to read"),
        ('{"game": "baccarat", "seed": NaN}', "not valid JSON: NaN is not a JSON number"),
        (
            '{"game": "baccarat", "faults": [{"kind": "drop", "rate": -Infinity}]}',
            "not valid JSON: -Infinity is not a JSON number",
        ),
    ],
    ids=["deep-100k", "deep-round", "kind-list", "kind-object", "long-number", "nan", "inf"],
)
def test_a_malformed_scenario_is_one_line_and_exit_2(
    scenario: object, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    line = refusal(tmp_path, scenario, capsys)
    assert message in line, line
    assert len(line) < LONGEST


@pytest.mark.parametrize(
    ("scenario", "start"),
    [
        ('{"game": ' + _nested(900) + "}", "unknown game [[[["),
        ('{"game": "baccarat", "shoe": [' + _nested(900) + "]}", "shoe[0]: [[[["),
        ({"game": "baccarat", "seed": "x" * 1_000_000}, "seed: expected a whole number, got 'xxx"),
        ({"game": "baccarat", "y" * 100_000: 1}, "unknown key 'yyy"),
    ],
    ids=["deep-game", "deep-card", "long-seed", "long-key"],
)
def test_a_refusal_names_a_huge_value_by_its_start(
    scenario: object, start: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    line = refusal(tmp_path, scenario, capsys)
    assert start in line and "..." in line, line
    assert len(line) < LONGEST


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
    | st.sampled_from(["AS", "CUT", "drop", "unplug", "face_up", "1", "banker", "hit"]),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(["kind", "rate", "at_card", "wagers", "decisions", "1", "2", "decks"])
            | st.text(max_size=4),
            inner,
            max_size=4,
        )
    ),
    max_leaves=12,
)
KEYS = ("rules", "shoe", "shuffler", "decks", "seed", "cut_at", "rounds", "faults", "players")
SCENARIOS = st.fixed_dictionaries(
    {"game": st.sampled_from(["baccarat", "midibaccarat", "spanish21"]) | JSON_VALUES},
    optional=dict.fromkeys(KEYS, JSON_VALUES),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(SCENARIOS)
def test_any_json_at_any_key_loads_or_is_one_scenario_error(scenario: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "scenario.json"
        path.write_text(json.dumps(scenario))
        try:
            load_scenario(str(path))
        except ScenarioError as exc:
            # fail() prints it as one line; a value it names is cut to SHOWN characters.
            assert 0 < len(str(exc)) < LONGEST + SHOWN
