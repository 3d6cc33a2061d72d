"""The table model fed real journals: the bench's runs of the example scenarios (the
simulated devices over pseudo-terminals, the real drivers and table) and simulated
``tablectl run`` journals. Each view is checked against the journal's own later
entries: the totals and outcomes of ``round_end``, the hole card of ``reveal``."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from controller.rules.spanish21.hands import hand_value
from controller.tableview.hands import amount
from tests.support.tableview import bench_entries, simulated_entries, views

BACCARAT = {
    "baccarat": "baccarat-eight-decks",
    "midibaccarat": "midibaccarat-cover-card-at-hand-start",
}
UNPLUG = [{"kind": "unplug", "device": "shoe", "at_card": 40, "duration_ms": 200}]


def _hand(view: Mapping[str, Any], place: str, number: int = 1) -> dict[str, Any]:
    found = [h for h in view["hands"] if h["place"] == place and h["hand"] == number]
    assert len(found) == 1, (place, number, view["hands"])
    return dict(found[0])


def _plain(view: Mapping[str, Any]) -> None:
    assert json.loads(json.dumps(view)) == view  # str, int, bool, None, list, dict only
    assert "_" not in view["state"]  # plain words, never a state's name


def check_baccarat(game: str, fed: list[dict[str, Any]]) -> int:
    ended = 0
    for entry, before in views(game, fed):
        _plain(before)
        if entry["type"] != "round_end" or entry["void"]:
            continue
        ended += 1
        for side in ("player", "banker"):
            hand = _hand(before, side)
            assert hand["cards"] == entry[side]
            assert hand["total"] == entry[f"{side}_total"]
    return ended


def check_results(game: str, fed: list[dict[str, Any]]) -> None:
    """After each round_end its result is in the view, kept until the next round's
    first wager or card."""
    held: dict[str, Any] | None = None
    for entry, before in views(game, fed):
        if held is not None:
            assert before["result"] is not None and before["result"]["round"] == held["round"]
        if entry["type"] in ("wager", "dealt"):
            held = None
        if entry["type"] == "round_end":
            held = entry
        if held is not None and entry is not held:
            _check_result(game, held, before["result"])


def _check_result(game: str, end: Mapping[str, Any], result: Mapping[str, Any]) -> None:
    assert result["void"] == end["void"]
    if game != "spanish21":
        assert result["winner"] == end["result"]
        assert result["natural"] == end["natural"]
        for seat, settled in end.get("seats", {}).items():
            assert result["seats"][seat]["net"] == amount(settled["net"])
            assert result["seats"][seat]["vigorish"] == amount(settled["vigorish"])
        return
    assert result["dealer_total"] == end["dealer_total"]
    for box, settled in end["boxes"].items():
        got = result["boxes"][box]
        want = [(h["cards"], h["total"], h["outcome"], amount(h["net"])) for h in settled["hands"]]
        assert [(h["cards"], h["total"], h["outcome"], h["net"]) for h in got["hands"]] == want
        for side in ("match_the_dealer_net", "insurance_net"):
            assert got.get(side) == amount(settled.get(side))


def check_spanish21(fed: list[dict[str, Any]]) -> int:
    ended = 0
    for entry, before in views("spanish21", fed):
        _plain(before)
        if entry["type"] != "round_end" or entry["void"]:
            continue
        ended += 1
        dealer = _hand(before, "dealer")
        assert dealer["cards"] == entry["dealer"]
        assert dealer["total"] == entry["dealer_total"]
        for box, settled in entry["boxes"].items():
            for number, want in enumerate(settled["hands"], start=1):
                hand = _hand(before, box, number)
                assert hand["cards"] == want["cards"]
                assert hand["total"] == want["total"]
                assert hand["bust"] == (want["total"] > 21)
                assert hand["soft"] == hand_value(want["cards"])[1]
    return ended


def check_sealed(fed: list[dict[str, Any]]) -> int:
    """Between the hole card's sealed ``dealt`` and its ``reveal``, the dealer's hand
    shows it face down and no hand shows the revealed card more often than the cards
    dealt face up so far give it."""
    checked, hole, face_up = 0, None, list[str]()
    reveals = {e["round"]: e["card"] for e in fed if e["type"] == "reveal"}
    for entry, before in views("spanish21", fed):
        if hole is not None:
            shown = [c for h in before["hands"] for c in h["cards"]]
            assert shown.count(hole) == face_up.count(hole), (hole, before["hands"])
            assert None in _hand(before, "dealer")["cards"]
            checked += 1
        if entry["type"] == "dealt" and entry.get("sealed") and entry["to"] == "dealer":
            hole = reveals[entry["round"]]
        elif entry["type"] == "dealt" and entry.get("card"):
            face_up.append(entry["card"])
        elif entry["type"] in ("reveal", "round_end"):
            hole, face_up = None, []
    return checked


@pytest.mark.parametrize("game", sorted(BACCARAT))
def test_baccarat_bench_journal(game: str, tmp_path: Path) -> None:
    fed = bench_entries(tmp_path, BACCARAT[game])
    assert check_baccarat(game, fed) == sum(e["type"] == "round_end" for e in fed) > 70
    check_results(game, fed)


def test_spanish21_bench_journal(tmp_path: Path) -> None:
    fed = bench_entries(tmp_path, "spanish21-six-decks")
    assert check_spanish21(fed) == 29
    check_results("spanish21", fed)
    assert check_sealed(fed) > 29


@pytest.mark.parametrize("game", ["baccarat", "midibaccarat", "spanish21"])
def test_simulated_run_journal(game: str, tmp_path: Path) -> None:
    fed = simulated_entries(tmp_path, game, rounds=8, seed=12)
    assert fed[0]["type"] == "journal"
    if game == "spanish21":
        assert check_spanish21(fed) == 8
        assert check_sealed(fed) > 8
    else:
        assert check_baccarat(game, fed) == 8
    check_results(game, fed)


def test_the_split_hand_and_the_double(tmp_path: Path) -> None:
    fed = bench_entries(tmp_path, "spanish21-six-decks")
    end = next(e for e in fed if e["type"] == "round_end" and e["round"] == 5)
    *_, (_, last) = ((e, v) for e, v in views("spanish21", fed[: fed.index(end) + 1]))
    first, second = _hand(last, "1", 1), _hand(last, "1", 2)
    assert (first["cards"], first["doubled"]) == (["8H", "3C", "9C"], "10")
    assert second["cards"] == ["8D", "JH"] and "doubled" not in second
    assert _hand(last, "dealer")["bust"] is True


@pytest.mark.parametrize("game", ["baccarat", "spanish21"])
def test_a_halt_and_its_clear(game: str, tmp_path: Path) -> None:
    """An unplugged shoe: the table halted with what clearing needs, no prompt but the
    floor's, the shoe's health followed; after the clear the stop prompt is gone."""
    name = BACCARAT.get(game, "spanish21-six-decks")
    fed = bench_entries(tmp_path, name, faults=UNPLUG)
    seen: list[str] = []
    halted = False
    for entry, before in views(game, fed):
        _plain(before)
        if halted:
            assert before["halted"] and before["prompt"] in (None, "STOP: CALL THE FLOOR")
            assert before["faults"][-1]["cause"] == "device_lost"
            assert before["clearing"] == ["the device connected again, then the floor's clear"]
            seen.append(before["devices"]["shoe"]["health"])
        elif entry is not fed[0]:
            assert not before["halted"] and before["prompt"] != "STOP: CALL THE FLOOR"
        if entry["type"] == "halt":
            halted = True
        if entry["type"] == "floor_clear":
            halted = False
    assert seen[0] == "lost" and "unavailable" in seen and seen[-1] == "connected"


@pytest.mark.parametrize("game", [*sorted(BACCARAT), "spanish21"])
def test_no_stale_betting_prompt(game: str, tmp_path: Path) -> None:
    """ "PLACE YOUR BETS" is never the prompt once a card of the round is dealt."""
    fed = bench_entries(tmp_path, BACCARAT.get(game, "spanish21-six-decks"))
    dealing = False
    for entry, before in views(game, fed):
        if dealing:
            assert not str(before["prompt"]).endswith("PLACE YOUR BETS"), before["prompt"]
        if entry["type"] == "dealt":
            dealing = True
        if entry["type"] in ("round_end", "shoe_end"):
            dealing = False
