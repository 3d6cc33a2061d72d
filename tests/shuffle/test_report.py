"""``tablectl shuffle-report``: every test of the monitor on each shoe of a real journal
(`tablectl run --simulate --shuffle-model MODEL`, two shoes played to their cover cards
and a third begun, about 3 s a run), and the verdict; bad input in one line, exit 2."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.journals import tablectl

ROUNDS = "170"  # Baccarat, 8 decks: two shoes to the cover card (some 80 rounds each)


def simulated(workdir: Path, model: str) -> Path:
    run = tablectl(
        "run", "--simulate", "--game", "baccarat", "--shuffle-model", model,
        "--rounds", ROUNDS, "--pace-ms", "0", "--seed", "11", "--workdir", str(workdir),
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    return workdir / "journal.db"


@pytest.fixture(scope="module")
def journals(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("report")
    return {
        model: simulated(root / model.replace(":", "-"), model) for model in ("riffle:1", "random")
    }


def reported(journal: Path, *args: str) -> dict[str, Any]:
    done = tablectl("shuffle-report", "--journal", str(journal), "--json", *args)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    found: dict[str, Any] = json.loads(done.stdout)
    assert len(found["shoes"]) >= 2 and found["shoes"][1]["complete"] is True
    return found


def test_one_riffle_alerts_at_the_second_shoe(journals: dict[str, Path]) -> None:
    found = reported(journals["riffle:1"])
    assert found["verdict"] == "alert" and found["confidence"] == 0.99
    assert found["alerts"][0] == 2  # the first shoe whose shuffler input is known
    first, second = found["shoes"][:2]
    # The journal's first shoe: nothing before it, so its dealt order alone.
    assert first["tested_on"] == "the dealt order only" and first["verdict"] == "ok"
    assert [t["name"] for t in first["tests"]] == ["position_uniformity"]
    assert "input order unknown" in first["test_notes"]
    assert second["tested_on"] == "the input and dealt orders"
    names = [t["name"] for t in second["tests"]]
    assert names == ["position_uniformity", "spearman", "adjacency", "rising_sequences"]
    assert second["threshold"] == pytest.approx(5e-5 / (2 * 4))
    assert second["verdict"] == "alert"
    assert min(second["p_values"][n] for n in names[1:]) < second["threshold"]
    assert set(second["p_values"]) >= {*names, "position_uniformity@window"}


def test_a_uniform_shuffler_gives_ok(journals: dict[str, Path]) -> None:
    # At 0.99 the monitor's budget is 5e-5 false alarms a good shoe (0.5 per 10,000;
    # docs/shuffle-monitor.md, "False alarms"), at 0.95 2.5e-4: a uniform shuffler
    # alerts on these 3 shoes with probability at most 1.5e-4 and 7.5e-4.
    for confidence in ("0.99", "0.95"):
        found = reported(journals["random"], "--confidence", confidence)
        assert found["verdict"] == "ok" and found["alerts"] == []
        assert found["alpha_per_shoe"] == pytest.approx((1 - float(confidence)) / 200)
        second = found["shoes"][1]
        assert len(second["tests"]) == 4 and second["verdict"] == "ok"
        assert min(second["p_values"].values()) > second["threshold"]


def test_the_text_report(journals: dict[str, Path]) -> None:
    done = tablectl("shuffle-report", "--journal", str(journals["riffle:1"]))
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout.startswith("confidence 0.99, window 10 shoes, ")
    shoe2 = done.stdout.split("\nshoe 2: ")[1].split("\nshoe 3: ")[0]
    assert "  rising_sequences " in shoe2 and shoe2.endswith("ALERT")
    assert "alerting shoe(s): 2" in done.stdout and done.stdout.endswith("verdict: alert\n")


def test_bad_input_in_one_line(tmp_path: Path, journals: dict[str, Path]) -> None:
    junk = tmp_path / "junk.db"
    junk.write_text("not a journal")
    good = str(journals["random"])
    for args, says in (
        (["--journal", str(tmp_path / "none.db")], "no such journal"),
        (["--journal", str(junk)], "junk.db"),
        (["--journal", good, "--confidence", "0.9"], "expected 0.99 or 0.95, got '0.9'"),
        (["--journal", good, "--confidence", "high"], "expected 0.99 or 0.95"),
    ):
        done = tablectl("shuffle-report", *args)
        assert done.returncode == 2 and done.stdout == "", done.stdout
        assert len(done.stderr.splitlines()) == 1 and says in done.stderr, done.stderr
