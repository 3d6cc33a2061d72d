"""The pit's view of a shift against real journals of simulated tables and a real
bench run: drop and win cross-checked against the round_end nets summed here, rounds
per hour from the rows' own times, faults, devices, a new shift."""

from __future__ import annotations

import json
from collections import defaultdict
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from controller.boards.books import bet_nets
from controller.boards.history import history
from controller.boards.pit import Pit
from controller.boards.scoreboard import BoardError
from tests.support.boards import journal_rows, settled, simulated_journal
from tests.support.cli import tablectl
from tests.support.paths import EXAMPLES

Rows = list[tuple[int, str, dict[str, Any]]]
D = Decimal
PUT_IN = ("match_the_dealer", "insurance")  # Spanish 21's side wagers, as settled


@pytest.fixture(scope="module")
def baccarat(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return simulated_journal(tmp_path_factory.mktemp("bac"), "baccarat", 40, seed=3)


@pytest.fixture(scope="module")
def spanish21(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return simulated_journal(tmp_path_factory.mktemp("s21"), "spanish21", 30, seed=5)


def shift(game: str, path: Path, since: float) -> Pit:
    pit = Pit(game, at=since)
    for seq, entry, at in history(path):
        pit.feed(seq, entry, at)
    return pit


def seconds(ts: str) -> float:
    return datetime.fromisoformat(ts).timestamp()


def layouts(rows: Rows) -> dict[int, dict[str, dict[str, D]]]:
    """Each settled round's wagers (seat -> bet -> amount) as the layout held them."""
    held: dict[str, dict[str, D]] = defaultdict(dict)
    rounds: dict[int, dict[str, dict[str, D]]] = {}
    for seq, _ts, e in rows:
        if e["type"] == "wager":
            if D(e["amount"]):
                held[str(e["seat"])][e["bet"]] = D(e["amount"])
            else:
                held[str(e["seat"])].pop(e["bet"], None)
        elif e["type"] == "round_end":
            rounds[seq] = {seat: bets for seat, bets in held.items() if bets}
            held = defaultdict(dict)
    return rounds


def test_baccarat_drop_and_win_are_the_journals_nets(baccarat: Path) -> None:
    rows = journal_rows(baccarat)
    view = shift("baccarat", baccarat, since=seconds(rows[0][1])).view()
    ends = settled(rows)
    nets = {
        r: sum(D(s["net"]) for e in ends if e["result"] == r for s in e["seats"].values())
        for r in ("banker", "player", "tie")
    }
    assert view["rounds"] == len(ends) == 40 and view["void_rounds"] == 0
    assert D(view["win"]) == -sum(nets.values())
    for result, net in nets.items():
        assert D(view["by_result"][result]["win"]) == -net
        assert view["by_result"][result]["rounds"] == sum(e["result"] == result for e in ends)
    # Each seat of this run holds one wager: its whole net is that wager's.
    placed = layouts(rows)
    drop: dict[str, D] = defaultdict(D)
    win: dict[str, D] = defaultdict(D)
    for seq, _ts, e in rows:
        if e["type"] == "round_end":
            for seat, bets in placed[seq].items():
                assert len(bets) == 1
                ((bet, amount),) = bets.items()
                drop[bet] += amount
                win[bet] -= D(e["seats"][seat]["net"])
    for bet in ("banker", "player", "tie"):
        assert D(view["by_wager"][bet]["drop"]) == drop[bet]
        assert D(view["by_wager"][bet]["win"]) == win[bet]
    assert D(view["drop"]) == sum(drop.values())
    json.dumps(view)


def test_rounds_per_hour_are_counted_on_the_rows_own_times(baccarat: Path) -> None:
    rows = journal_rows(baccarat)
    since = seconds(rows[0][1])
    pit = shift("baccarat", baccarat, since)
    last = seconds(rows[-1][1])
    assert pit.view()["shift"] == {"since": since, "last": last}
    assert pit.rounds_per_hour() == round(40 * 3600 / (last - since), 1)
    assert pit.rounds_per_hour(now=since + 3600) == 40.0
    assert Pit("baccarat", at=since).rounds_per_hour() is None


def test_a_new_shift_counts_only_what_follows_it(baccarat: Path) -> None:
    rows = journal_rows(baccarat)
    ends = [(seq, ts, e) for seq, ts, e in rows if e["type"] == "round_end"]
    cut = seconds(ends[29][1])  # round 30's end: rounds 31-40 are the new shift's
    pit = shift("baccarat", baccarat, since=seconds(rows[0][1]))
    pit.reset(cut + 1e-6)
    assert pit.view()["rounds"] == 0 and pit.devices == {
        "shoe": "connected",
        "shuffler": "connected",
    }
    later = shift("baccarat", baccarat, since=cut + 1e-6).view()
    assert later["rounds"] == 10
    assert D(later["win"]) == -sum(
        D(s["net"]) for _, _, e in ends[30:] for s in e["seats"].values()
    )
    assert later["state"] == "place your bets" and later["round"] == 40


def test_a_seats_wagers_are_settled_one_by_one(tmp_path: Path) -> None:
    """A real bench run of a stacked Midibaccarat shoe (rounds 1-5: player, player,
    banker, tie, tie) with three wagers on a seat, and the shoe unplugged."""
    scenario = json.loads((EXAMPLES / "midibaccarat-cover-card-at-hand-start.json").read_text())
    wagers = {
        "2": {"banker": 100, "tie": 10},
        "5": {"player": 50},
        "7": {"player": 20, "banker": 20, "tie": 5},
    }
    scenario["rounds"] = [{"wagers": wagers}] * 5
    scenario["faults"] = [{"kind": "unplug", "device": "shoe", "at_card": 30, "duration_ms": 300}]
    (tmp_path / "s.json").write_text(json.dumps(scenario))
    run = tablectl("bench", str(tmp_path / "s.json"), "--events", str(tmp_path / "out.jsonl"))
    assert run.returncode == 0, run.stderr
    entries = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    fifth = [i for i, e in enumerate(entries) if e["type"] == "round_end"][4]
    pit = Pit("midibaccarat", at=0.0)
    for seq, entry in enumerate(entries[: fifth + 1], 1):
        pit.feed(seq, entry, float(seq))
    by_wager = pit.view()["by_wager"]
    # Worked by hand: Banker 1:1 less 5% (95, 19), Tie 8:1 (80, 40), a tie returns
    # the Player and Banker wagers (545.8(a), 545.13).
    assert {bet: (D(t["drop"]), D(t["win"])) for bet, t in by_wager.items()} == {
        "banker": (D(600), D(120 + 120 - 95 - 19)),
        "player": (D(350), D(-70 - 70 + 70)),
        "tie": (D(75), D(15 + 15 + 15 - 120 - 120)),
    }
    for seq, entry in enumerate(entries, 1):
        pit.feed(seq, entry, float(seq))
    view = pit.view()
    ends = [e for e in entries if e["type"] == "round_end" and not e["void"]]
    assert D(view["win"]) == -sum(
        D(str(s["net"])) for e in ends for s in e.get("seats", {}).values()
    )
    assert sum(D(t["win"]) for t in view["by_wager"].values()) == D(view["win"])
    assert view["faults"]["count"] == 1
    (fault,) = view["faults"]["last"]
    assert (fault["type"], fault["cause"], fault["device"]) == ("halt", "device_lost", "shoe")
    assert fault["at"] == float(next(i for i, e in enumerate(entries, 1) if e["type"] == "halt"))
    assert view["devices"]["shoe"] == "connected"  # back after the unplug


def test_bet_nets_split_a_seats_net_over_its_wagers() -> None:
    bets = {"banker": D(20), "player": D(20), "tie": D(5)}
    assert bet_nets(bets, "banker", D(-6), D(1)) == {
        "banker": D(19),
        "player": D(-20),
        "tie": D(-5),
    }
    assert bet_nets(bets, "tie", D(35), D(5)) == {"banker": D(-5), "player": D(0), "tie": D(40)}
    assert bet_nets({"banker": D(20)}, "tie", D(-5), D(5)) == {"banker": D(-5)}  # 543.13(f)
    assert bet_nets({"player": D(20)}, "banker", D(-20), D(0)) == {"player": D(-20)}


def test_spanish21_by_hand_outcome_is_the_journals_nets(spanish21: Path) -> None:
    rows = journal_rows(spanish21)
    view = shift("spanish21", spanish21, since=seconds(rows[0][1])).view()
    ends = [e for _, _, e in rows if e["type"] == "round_end"]
    hands = [(box, h) for e in ends for box, b in e["boxes"].items() for h in b["hands"]]
    for outcome, tally in view["by_outcome"].items():
        mine = [h for _, h in hands if h["outcome"] == outcome]
        assert tally["hands"] == len(mine)
        assert D(tally["win"]) == -sum((D(h["net"]) for h in mine), D(0))
    lost = view["by_outcome"]["lose"]
    assert lost["hands"] > 0 and D(lost["drop"]) == D(lost["win"])  # a lost hand's net is its wager
    sides = {
        k: -sum(D(b[k]) for e in ends for b in e["boxes"].values() if k in b)
        for k in ("match_the_dealer_net", "insurance_net")
    }
    assert D(view["side_wagers"]["match_the_dealer"]["win"]) == sides["match_the_dealer_net"]
    bonus = sum(D(v) for e in ends for v in e.get("others_bonus", {}).values())
    total = -sum(D(h["net"]) for _, h in hands) + sum(sides.values()) - bonus
    assert D(view["win"]) == total
    # The drop: each box's wager once a hand (a split hand has its own), the doubles.
    base: dict[str, D] = {}
    drop = D(0)
    for _, _, e in rows:
        if e["type"] == "wager" and e["bet"] == "spanish21":
            base[str(e["box"])] = D(e["amount"])
        elif (e["type"] == "decision" and e["decision"] == "double") or e["type"] in (
            "match_the_dealer",
            "insurance",
        ):
            drop += D(e["amount"])
        elif e["type"] == "round_end":
            drop += sum(base[box] * len(b["hands"]) for box, b in e["boxes"].items())
            base = {}
    assert D(view["drop"]) == drop
    assert view["rounds"] == 30


def test_a_game_there_is_none_of_is_refused_in_one_line() -> None:
    with pytest.raises(BoardError, match=r"^no game 'craps': expected one of "):
        Pit("craps")
