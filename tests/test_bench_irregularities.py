"""The games' own irregularities through ``tablectl bench``: the simulated shoe and
reader commit them at a scenario's card or round over real pseudo-terminals, the
table applies its rule, and the bench's floorperson clears the halt as required."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from controller.rules.baccarat import face_up_discard_count
from controller.rules.spanish21 import dealer_blackjack
from tests.test_bench import EXAMPLES, bench, lines


def scenario(name: str, faults: list[dict[str, Any]]) -> dict[str, Any]:
    """The example's stacked shoe, autoplayed (the faults move the cards), with faults."""
    data: dict[str, Any] = json.loads((EXAMPLES / f"{name}.json").read_text())
    data["rounds"] = []
    data["faults"] = faults
    return data


def play(tmp_path: Path, data: dict[str, Any]) -> list[dict[str, Any]]:
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps(data))
    out = tmp_path / "events.jsonl"
    assert bench(path, out) == 0
    events = lines(out)
    assert not {e["type"] for e in events} & {"refused", "internal_error"}
    assert events[-1]["type"] == "bench_end"
    return events


def of(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == kind]


def spanish(faults: list[dict[str, Any]]) -> dict[str, Any]:
    return scenario("spanish21-six-decks", faults)


@pytest.mark.reg("551.16(b)")
def test_a_ten_is_removed_by_the_floorperson(tmp_path: Path) -> None:
    events = play(tmp_path, spanish([{"kind": "ten", "at_card": 30}]))
    (found,) = [e for e in of(events, "irregularity") if e["section"] == "551.16(b)"]
    assert found["card"][0] == "T"
    (halt,) = of(events, "halt")
    assert halt["cause"] == "ten_found" and not halt["ends_shoe"]
    assert of(events, "floor_clear")[0]["causes"] == ["ten_found"]
    (end,) = of(events, "shoe_end")
    assert end["removed"] == [found["card"]] and end["reason"] == "cutting_card"
    dealt = [e["card"] for e in of(events, "dealt") + of(events, "reveal")]
    assert not any(c and c[0] == "T" for c in dealt)


@pytest.mark.reg("551.16(b)")
def test_a_second_ten_voids_the_round_and_removes_the_decks(tmp_path: Path) -> None:
    events = play(
        tmp_path, spanish([{"kind": "ten", "at_card": 30}, {"kind": "ten", "at_card": 45}])
    )
    tens = [e for e in of(events, "irregularity") if e["section"] == "551.16(b)"]
    assert len(tens) == 2
    assert [h["ends_shoe"] for h in of(events, "halt")] == [False, True]
    (end,) = of(events, "shoe_end")
    assert end["reason"] == "decks_removed"
    assert end["removed"] == [e["card"] for e in tens]
    kinds = [e["type"] for e in events]
    last_halt = len(kinds) - 1 - kinds[::-1].index("halt")
    assert "round_end" in kinds[last_halt:]  # the void round's record
    (void,) = [e for e in events[last_halt:] if e["type"] == "round_end"]
    assert void.get("void") or "551.16(b)" in json.dumps(void)


@pytest.mark.reg("551.16(a)")
def test_a_face_up_card_goes_to_the_discard_rack(tmp_path: Path) -> None:
    events = play(tmp_path, spanish([{"kind": "face_up", "at_card": 40}]))
    (found,) = of(events, "irregularity")
    assert found["section"] == "551.16(a)"
    (end,) = of(events, "shoe_end")
    assert end["discarded"] == [found["card"]]
    assert not of(events, "halt")  # the dealer discards it and deals on


@pytest.mark.reg("545.15(d)")
def test_baccarat_discards_a_face_up_card_and_as_many_as_its_value(tmp_path: Path) -> None:
    data = scenario("baccarat-eight-decks", [])
    cards = [t for t in data["shoe"] if t.upper() != "CUT"]
    at = next(i for i in range(20, len(cards)) if face_up_discard_count(cards[i]) > 1)
    data["faults"] = [{"kind": "face_up", "at_card": at + 1}]
    events = play(tmp_path, data)
    (found,) = of(events, "irregularity")
    assert found["section"] == "545.15(d)" and found["card"] == cards[at]
    more = face_up_discard_count(cards[at])
    (end,) = of(events, "shoe_end")
    assert end["discarded"] == cards[at : at + 1 + more]


@pytest.mark.reg("551.16(m)", "551.2(e)")
@pytest.mark.parametrize(
    ("kind", "cause"),
    [("reader_malfunction", "reader_malfunction"), ("reader_tamper", "reader_tamper")],
)
def test_a_stopped_reader_deals_nothing_until_a_repair_is_recorded(
    tmp_path: Path, kind: str, cause: str
) -> None:
    events = play(tmp_path, spanish([{"kind": kind, "at_round": 2}]))
    kinds = [e["type"] for e in events]
    (halt,) = of(events, "halt")
    assert halt["cause"] == cause and halt["section"] == "551.16(m)" and halt["needs_repair"]
    stop = events.index(halt)
    clear = next(i for i in range(stop, len(events)) if events[i]["type"] == "floor_clear")
    assert events[clear - 1] == {"type": "command", "command": "floor_clear", "repair": "repaired"}
    assert not {"dealt", "peek", "round_end"} & set(kinds[stop:clear])
    # inspected again before the next peek, then the round goes on
    after = kinds[clear:]
    assert after.index("reader_inspected") < after.index("peek")
    assert kinds.count("reader_inspected") == 2
    assert of(events, "shoe_end")[0]["reason"] == "cutting_card"


@pytest.mark.reg("551.16(m)", "551.8(e)")
def test_a_wrong_answer_is_caught_by_the_shoe_cross_check(tmp_path: Path) -> None:
    events = play(tmp_path, spanish([{"kind": "reader_wrong_answer", "at_round": 2}]))
    (halt,) = of(events, "halt")
    assert halt["cause"] == "reader_malfunction" and "disagrees" in halt["detail"]
    stop = events.index(halt)
    rnd = next(e for e in events[stop:] if e["type"] == "round_end")
    peek = [e for e in events[stop : events.index(rnd)] if e["type"] == "peek"]
    assert [p["blackjack"] for p in peek] == [dealer_blackjack(tuple(rnd["dealer"][:2]))]
    assert events[events.index(halt) - 1]["type"] != "peek"  # the wrong answer is not used


@pytest.mark.parametrize(
    ("fault", "message"),
    [
        ({"kind": "smudge", "at_card": 3}, "is not one of"),
        ({"kind": "ten", "at_card": 3, "device": "shoe"}, "unknown key 'device'"),
        ({"kind": "face_up"}, "at_card"),
        ({"kind": "reader_tamper", "at_round": 0}, "at_round"),
        ({"kind": "reader_wrong_answer", "at_round": 2, "code": 3}, "unknown key 'code'"),
        ({"kind": "reader_malfunction", "at_round": 2, "code": 300}, "code"),
    ],
)
def test_bad_irregularity_faults_are_a_bad_scenario(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fault: dict[str, Any], message: str
) -> None:
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps(spanish([fault])))
    assert bench(path, tmp_path / "out.jsonl") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "faults[0]" in err[0] and message in err[0]


@pytest.mark.parametrize("kind", ["ten", "reader_tamper"])
def test_baccarat_has_no_ten_or_reader_faults(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    fault = {"kind": kind, "at_card" if kind == "ten" else "at_round": 3}
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps(scenario("baccarat-eight-decks", [fault])))
    assert bench(path, tmp_path / "out.jsonl") == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
