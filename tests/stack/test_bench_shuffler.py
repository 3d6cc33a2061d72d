"""The automated shuffler's failures through ``tablectl bench``: the simulated shuffler
jams, stops part way, does not complete its cycle or miscounts, over a real
pseudo-terminal; the table deals nothing and the bench's dealer shuffles again until
a good shuffle (551.16(j)). Each shoe is one or two rounds: the cover (cutting) card
is placed on top of the seeded shoe."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from drivers import messages as m
from tests.support.bench import play as bench_play
from tests.support.bench import refusal
from tests.support.sim import Start, tokens

FAILURES = {  # the scenario's kind, the shuffler's event as the table records it
    "shuffler_jam": "shuffler_jam",
    "shuffler_stop": "shuffler_stopped",
    "shuffler_incomplete": "cycle_incomplete",
}
DECKS = {"spanish21": 6, "baccarat": 6, "midibaccarat": 6}
CARDS = {"spanish21": 288, "baccarat": 312, "midibaccarat": 312}
SECTIONS = {  # the table's reason to shuffle again; the decks' card count
    "spanish21": ("551.16(j)", "551.3(a)"),
    "baccarat": ("545.5(a)", "545.3(a)"),
    "midibaccarat": ("543.5(a)", "543.3(a)"),
}


def seeded(game: str, faults: list[dict[str, Any]]) -> dict[str, Any]:
    """A short seeded shoe: the cover card on top, so the shoe is over in one round
    (Spanish 21) or two (Baccarat: the last hand after the cover card's)."""
    return {
        "game": game,
        "decks": DECKS[game],
        "seed": 5,
        "cut_at": CARDS[game],
        "faults": faults,
    }


def play(tmp_path: Path, data: dict[str, Any]) -> list[dict[str, Any]]:
    return bench_play(tmp_path, data, never={"internal_error", "halt"})


def device(events: list[dict[str, Any]], event: str) -> list[int]:
    """Where the shuffler's ``event`` lines are."""
    return [i for i, e in enumerate(events) if e["type"] == "device" and e.get("event") == event]


def first(events: list[dict[str, Any]], kind: str) -> int:
    return next(i for i, e in enumerate(events) if e["type"] == kind)


def test_the_simulated_shuffler_stops_midway_on_command(start: Start) -> None:
    sim, host = start("shuffler", ["--decks", "6", "--spanish"])
    assert tokens(host.connect()) == ["ShufflerAttached"]
    sim.control("stop_midway")
    host.driver.start_shuffle()
    assert tokens(host.take(2)) == ["ShuffleStarted", "ShufflerStopped"]
    host.driver.request_status()
    assert host.one() == m.Status("shuffler", None, m.StatusState.FAULT, 288, 0)
    host.driver.start_shuffle()  # the next shuffle completes
    assert tokens(host.take(3)) == ["ShuffleStarted", "ShuffleCompleted", "BatchReady"]


@pytest.mark.reg("551.16(j)")
@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_a_failed_shuffle_is_done_again_and_nothing_is_dealt_before_a_good_one(
    tmp_path: Path, kind: str
) -> None:
    events = play(tmp_path, seeded("spanish21", [{"kind": kind}]))
    assert not [e for e in events if e["type"] == "refused"]
    injected = first(events, "fault_injected")
    assert events[injected] == {
        "type": "fault_injected",
        "kind": kind,
        "device": "shuffler",
        "at_shuffle": 1,
    }
    started = device(events, "shuffle_started")
    (failed_at,) = device(events, FAILURES[kind])
    (completed,) = device(events, "shuffle_completed")
    # asked once, failed; asked again (by the bench, after the failure), completed
    assert len(started) == 2
    assert injected < started[0] < failed_at < started[1] < completed
    failed = first(events, "shuffle_failed")
    assert events[failed] == {"type": "shuffle_failed", "event": FAILURES[kind]}
    assert failed_at < failed < started[1]
    assert events[failed + 1] == {
        "type": "prompt",
        "text": "SHUFFLE FAILED: SHUFFLE AGAIN",
        "shown": True,
        "section": "551.16(j)",
    }
    (shuffled,) = [e for e in events if e["type"] == "shuffled"]
    assert shuffled == {"type": "shuffled", "shoe": 1, "how": "shuffler", "cards": 288}
    # No card before the good shuffle: the first card out is after it.
    cards = device(events, "card_drawn") + device(events, "cut_card_seen")
    assert min(cards) > events.index(shuffled) > completed
    (end,) = [e for e in events if e["type"] == "shoe_end"]
    assert end["rounds"] == 1 and end["reason"] == "cutting_card"


@pytest.mark.reg("551.16(j)", "545.5(a)", "543.5(a)")
@pytest.mark.parametrize("game", ["spanish21", "baccarat", "midibaccarat"])
def test_failures_in_a_row_then_a_good_shuffle(tmp_path: Path, game: str) -> None:
    faults = [
        {"kind": "shuffler_incomplete", "at_shuffle": 3},
        {"kind": "shuffler_jam"},
        {"kind": "shuffler_wrong_count", "at_shuffle": 4, "delta": -1},
        {"kind": "shuffler_stop", "at_shuffle": 2},
    ]
    events = play(tmp_path, seeded(game, faults))
    again, decks = SECTIONS[game]
    injected = [(e["kind"], e["at_shuffle"]) for e in events if e["type"] == "fault_injected"]
    assert injected == [
        ("shuffler_jam", 1),
        ("shuffler_stop", 2),
        ("shuffler_incomplete", 3),
        ("shuffler_wrong_count", 4),
    ]
    failed = [e["event"] for e in events if e["type"] == "shuffle_failed"]
    assert failed == ["shuffler_jam", "shuffler_stopped", "cycle_incomplete"]
    prompts = [e for e in events if e.get("text") == "SHUFFLE FAILED: SHUFFLE AGAIN"]
    assert [p["section"] for p in prompts] == [again] * 3
    # The miscounted shuffle is refused (the decks' count), and shuffled again.
    counts = [events[i]["card_count"] for i in device(events, "shuffle_completed")]
    assert counts == [CARDS[game] - 1, CARDS[game]]
    (refused,) = [e for e in events if e["type"] == "refused"]
    assert refused["event"] == "shuffle_completed" and refused["section"] == decks
    assert len(device(events, "shuffle_started")) == 5
    (shuffled,) = [e for e in events if e["type"] == "shuffled"]
    assert shuffled["cards"] == CARDS[game]
    at = events.index(shuffled)
    assert not {"burn", "dealt", "wager", "cover_card", "cutting_card"} & {
        e["type"] for e in events[:at]
    }
    assert min(device(events, "card_drawn") + device(events, "cut_card_seen")) > at
    (end,) = [e for e in events if e["type"] == "shoe_end"]
    assert end["rounds"] == (1 if game == "spanish21" else 2)


@pytest.mark.parametrize(
    ("scenario", "message"),
    [
        pytest.param(
            {"game": "spanish21", "shoe": ["AS", "KD"], "faults": [{"kind": "shuffler_jam"}]},
            "faults[0].kind: a shuffler_jam fault needs a seeded shoe (decks and seed)",
            id="a stacked shoe",
        ),
        pytest.param(
            seeded("baccarat", [{"kind": "shuffler_stop", "at_shuffle": 0}]),
            "faults[0].at_shuffle: expected the number of a shuffle, 1 or more",
            id="shuffle 0",
        ),
        pytest.param(
            seeded("spanish21", [{"kind": "shuffler_stop", "at_shuffle": "1"}]),
            "faults[0].at_shuffle: expected a whole number, got '1'",
            id="a shuffle number as text",
        ),
        pytest.param(
            seeded("spanish21", [{"kind": "shuffler_jam"}, {"kind": "shuffler_incomplete"}]),
            "faults[1].at_shuffle: shuffle 1 already fails (faults[0])",
            id="two failures of one shuffle",
        ),
        pytest.param(
            seeded("midibaccarat", [{"kind": "shuffler_jam", "at_shuffle": 2}]),
            "faults[0].at_shuffle: shuffle 2 never happens: shuffle 1 completes",
            id="a failure after a good shuffle",
        ),
        pytest.param(
            seeded("spanish21", [{"kind": "shuffler_jam", "delta": 2}]),
            "faults[0]: unknown key 'delta' for a shuffler_jam fault",
            id="a jam with a count",
        ),
        pytest.param(
            seeded("spanish21", [{"kind": "shuffler_wrong_count"}]),
            "faults[0].delta: the count's difference is required",
            id="a wrong count without its difference",
        ),
        pytest.param(
            seeded("spanish21", [{"kind": "shuffler_wrong_count", "delta": 0}]),
            "faults[0].delta: expected a difference from the 288 cards other than 0, -288..65247",
            id="a wrong count of the right count",
        ),
        pytest.param(
            seeded("baccarat", [{"kind": "shuffler_wrong_count", "delta": 70000}]),
            "faults[0].delta: expected a difference from the 312 cards other than 0",
            id="a count the shuffler cannot report",
        ),
        pytest.param(
            seeded("spanish21", [{"kind": "shuffler_wrong_count", "delta": True}]),
            "faults[0].delta: expected a whole number, got True",
            id="a count that is not a number",
        ),
        pytest.param(
            seeded("spanish21", [{"kind": "shuffler_melt"}]),
            "faults[0].kind: 'shuffler_melt' is not one of corrupt, drop, duplicate, unplug, "
            "ten, face_up, reader_malfunction, reader_wrong_answer, reader_tamper, "
            "reader_misuse, shuffler_jam, shuffler_stop, shuffler_incomplete, "
            "shuffler_wrong_count",
            id="an unknown shuffler fault",
        ),
    ],
)
def test_bad_shuffler_faults_are_one_line_and_exit_2(
    scenario: dict[str, Any], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    line = refusal(tmp_path, scenario, capsys)  # nothing started
    assert message in line, line
