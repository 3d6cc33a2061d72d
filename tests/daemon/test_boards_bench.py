"""The pit and the scoreboard on real bench runs that the simulated daemon's autoplay
does not reach: a deferred vigorish rounded as it is collected, a Spanish 21 round
void after the reader's misuse, and no card on either board."""

from __future__ import annotations

import json
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

from controller.boards.pit import Pit
from controller.boards.scoreboard import Scoreboard
from tests.support.cli import tablectl
from tests.support.paths import EXAMPLES

D = Decimal
CARD = re.compile(r"\b(?:10|[A2-9TJQK])[SHDC]\b")


def bench(tmp_path: Path, scenario: dict[str, Any]) -> list[dict[str, Any]]:
    (tmp_path / "scenario.json").write_text(json.dumps(scenario))
    run = tablectl(
        "bench", str(tmp_path / "scenario.json"), "--events", str(tmp_path / "out.jsonl")
    )
    assert run.returncode == 0, run.stderr
    return [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]


def test_a_deferred_vigorish_rounded_when_collected_is_the_houses(tmp_path: Path) -> None:
    scenario = json.loads((EXAMPLES / "baccarat-eight-decks.json").read_text())
    scenario["rules"] = {"decks": 8, "vigorish_collection": "deferred", "vigorish_rounding": True}
    scenario["rounds"] = [{"wagers": {"2": {"banker": 12}, "5": {"banker": 13}}}] * 6
    entries = bench(tmp_path, scenario)
    pit = Pit("baccarat", at=0.0)
    for seq, entry in enumerate(entries, 1):
        pit.feed(seq, entry, float(seq))
    view = pit.view()
    nets = sum(
        D(str(s["net"]))
        for e in entries
        if e["type"] == "round_end" and not e["void"]
        for s in e.get("seats", {}).values()
    )
    (collected,) = [e for e in entries if e["type"] == "vigorish_collected"]  # 545.13(e)
    rounding = sum(
        D(str(v)) - D(str(collected["owed"][s])) for s, v in collected["collected"].items()
    )
    assert rounding > 0  # 545.13(d): rounded up as it is collected
    assert D(view["vigorish_rounding"]) == rounding
    assert D(view["win"]) == -nets + rounding


def test_a_spanish21_void_round_keeps_what_was_settled_and_shows_no_card(tmp_path: Path) -> None:
    """551.16(l)(1): the reader used behind a 2-9 voids the round; the hands settled
    before it stay settled (ruling R10), the others are dead and returned."""
    scenario = {
        "game": "spanish21",
        "decks": 6,
        "seed": 5,
        "faults": [{"kind": "reader_misuse", "at_round": 2}],
    }
    entries = bench(tmp_path, scenario)
    pit, board = Pit("spanish21", at=0.0), Scoreboard("spanish21")
    holes = {(e["shoe"], e["round"]): e["dealer"][1] for e in entries if e["type"] == "round_end"}
    shoe, sealed = 0, None
    for seq, entry in enumerate(entries, 1):
        pit.feed(seq, entry, float(seq))
        board.feed(seq, entry)
        shoe = entry.get("shoe", shoe) if entry["type"] == "shuffled" else shoe
        if entry["type"] == "dealt" and entry.get("sealed"):
            sealed = holes[(shoe, entry["round"])]
        elif entry["type"] == "reveal":
            sealed = None
        # 551.8(e): the scoreboard never shows a card; the pit never the hole card
        assert not CARD.search(json.dumps(board.view())), entry
        assert sealed is None or sealed not in json.dumps(pit.view()), entry
    view = pit.view()
    ends = [e for e in entries if e["type"] == "round_end"]
    (void,) = [e for e in ends if e["void"]]
    assert view["void_rounds"] == 1 and view["rounds"] == len(ends) - 1
    hands = [h for e in ends for b in e["boxes"].values() for h in b["hands"]]
    dead = [h for h in hands if h["outcome"] == "dead"]
    assert len(dead) == 4 and view["by_outcome"]["dead"] == {"hands": 4, "drop": "0", "win": "0"}
    sides = sum(
        D(str(b.get("match_the_dealer_net", 0))) + D(str(b.get("insurance_net", 0)))
        for e in ends
        for b in e["boxes"].values()
    )
    bonus = sum(D(str(v)) for e in ends for v in e.get("others_bonus", {}).values())
    assert D(view["win"]) == -sum(D(str(h["net"])) for h in hands) - sides - bonus
    settled_in_void = sum(D(str(b["settled"])) for b in void["boxes"].values())
    assert settled_in_void != 0  # the void round's settled wagers count in the win
    assert void["round"] not in [
        t["round"] for t in board.view()["dealer_totals"] if t["shoe"] == void["shoe"]
    ]  # type: ignore[union-attr]
    halts = [f for f in view["faults"]["last"] if f["type"] == "halt"]  # type: ignore[index]
    assert [(f["cause"], f["section"]) for f in halts] == [("reader_misuse", "551.16(l)")]
