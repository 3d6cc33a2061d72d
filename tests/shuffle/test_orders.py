"""The observed orders (controller/shuffle/orders.py) of real journals, written by the
real simulated daemon, one run per game; and hand-made entries for what a short
simulated run does not reach (a void round, a 551.16(g) reshuffle, an interrupted shoe,
a continuous shuffler, 551.15) and for bad input."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from controller.journal import SqliteJournal
from controller.rules.cards import CUT
from controller.shuffle.orders import (
    UNKNOWN,
    ShoeOrder,
    composition,
    pairings,
    shoe_order,
    shoe_orders,
    unseen,
)
from tests.support.bench import play
from tests.support.journals import simulated_rows, tablectl

# Rounds enough for one whole shoe and the start of the next (8 decks: about 83 rounds).
RUNS = {"baccarat": 90, "midibaccarat": 90, "spanish21": 45}

Rows = list[tuple[int, Any]]


@pytest.fixture(scope="module", params=sorted(RUNS))
def simulated(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, Rows]:
    """A real simulated table's journal file and its rows."""
    game = request.param
    workdir = tmp_path_factory.mktemp(game)
    return workdir / "journal.db", simulated_rows(workdir, game, RUNS[game], seed=7)


@pytest.fixture(scope="module")
def journal(simulated: tuple[Path, Rows]) -> Rows:
    return simulated[1]


def _by_shoe(rows: Rows) -> dict[int, list[dict[str, Any]]]:
    """The rows from each "shuffled" entry to its "shoe_end" (or the journal's end)."""
    shoes: dict[int, list[dict[str, Any]]] = {}
    current: list[dict[str, Any]] | None = None
    for _seq, entry in rows:
        if entry.get("type") == "shuffled":
            current = shoes.setdefault(entry["shoe"], [])
        if current is not None:
            current.append(entry)
        if entry.get("type") == "shoe_end":
            current = None
    return shoes


def _drawn(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in entries if e.get("event") in ("card_drawn", "cut_card_seen")]


def test_every_card_out_of_the_shoe_is_dealt_once_per_copy(journal: Rows) -> None:
    orders = shoe_orders(journal)
    shoes = _by_shoe(journal)
    assert [o.shoe for o in orders] == sorted(shoes) and len(orders) >= 2
    for order in orders:
        shuffled = shoes[order.shoe][0]
        drawn = _drawn(shoes[order.shoe])
        assert len(order.dealt) == len(drawn)  # one position a read, the cover card's too
        assert [i for i, c in enumerate(order.dealt) if c == CUT] == [
            i for i, e in enumerate(drawn) if e["event"] == "cut_card_seen"
        ]
        assert UNKNOWN not in order.dealt
        full = composition(order)
        assert sum(full.values()) == shuffled["cards"] == order.cards
        assert max(full.values()) == shuffled["cards"] // (48 if order.game == "spanish21" else 52)
        cards = Counter(c for c in order.dealt if c != CUT)
        assert cards + Counter(unseen(order)) == full  # nothing missing, nothing twice
    first = orders[0]
    assert first.complete and first.notes == "" and first.dealt.count(CUT) >= 1
    assert not orders[-1].complete and orders[-1].rack is None  # the run stops mid-shoe


def _collected(entries: list[dict[str, Any]]) -> Counter[str]:
    """Every card the journal says went to the rack: the rounds' and the shoe's end's."""
    cards: Counter[str] = Counter()
    for e in entries:
        if e.get("type") == "round_end":
            cards.update(e.get("player", ()))
            cards.update(e.get("banker", ()))
            cards.update(e.get("dealer", ()))
            for box in (e.get("boxes") or {}).values():
                for hand in box["hands"]:
                    cards.update(hand["cards"])
        if e.get("type") == "shoe_end":
            cards.update(e["burned"])
            cards.update(e["discarded"])
    return cards


def test_the_rack_holds_exactly_the_cards_collected(journal: Rows) -> None:
    shoes = _by_shoe(journal)
    ended = [o for o in shoe_orders(journal) if o.end is not None]
    assert ended
    for order in ended:
        assert order.rack is not None
        assert Counter(order.rack) == _collected(shoes[order.shoe])
        ends = [e for e in shoes[order.shoe] if e.get("type") == "round_end"]
        assert len(order.rack_rounds) == len(ends)
        assert order.rack_rounds == sorted(order.rack_rounds)


def test_a_spanish21_round_is_collected_from_the_far_right_dealer_last() -> None:
    """551.8(i): box 7 first, counterclockwise to box 1, the dealer's cards last."""
    rows = [
        (1, {"type": "shuffled", "shoe": 1, "cards": 288, "how": "shuffler"}),
        (2, _round_end(1, {"1": [["AS", "5D"], ["AH", "9C"]], "7": [["2C", "3C", "KS"]]})),
        (3, {"type": "shoe_end", "shoe": 1, "burned": [], "discarded": [], "reason": "x"}),
    ]
    (order,) = shoe_orders(rows)
    assert order.rack == ["2C", "3C", "KS", "AS", "5D", "AH", "9C", "QH", "7D"]
    assert order.rack_rounds == [0] and order.rack_ordered_within_rounds


def test_the_pairing_hands_each_rack_to_the_next_shoe(journal: Rows) -> None:
    orders = shoe_orders(journal)
    pairs = pairings(orders)
    assert [p.shoe for p in pairs] == [o.shoe for o in orders[1:]]
    for before, after, pair in zip(orders, orders[1:], pairs, strict=False):
        assert before.complete
        assert pair.input == before.rack
        assert pair.unseen == unseen(before)
        assert Counter(pair.input) + Counter(pair.unseen) == composition(before)
        assert pair.output == [c for c in after.dealt if c != CUT]
    baccarat = orders[0].game != "spanish21"
    assert orders[0].rack_ordered_within_rounds is not baccarat


def test_the_hole_card_is_placed_where_it_was_dealt(journal: Rows) -> None:
    shoes = _by_shoe(journal)
    checked = 0
    for order in shoe_orders(journal):
        drawn = _drawn(shoes[order.shoe])
        openings = {o["seal"]: o["card"] for e in shoes[order.shoe] for o in e.get("opened") or ()}
        for at, e in enumerate(drawn):
            if e.get("sealed"):
                assert e["card"] is None and order.dealt[at] == openings[e["seal"]]
                checked += 1
    seals = any(e.get("sealed") for _s, e in journal)
    assert checked > 0 if seals else checked == 0  # Spanish 21 seals; Baccarat has none


# --------------------------------------------------------------------------- bench runs
# `tablectl bench` plays a scenario on the real table and simulated devices: a stacked
# shoe (its order known) and a continuous shuffler, which `run --simulate` cannot.

STACKED = ["2S", "9C", "7H", "8D", "9S", "4C", "5H", "6D", "3C", "8S"]


def _bench(tmp_path: Path, scenario: dict[str, Any]) -> list[tuple[int, Any]]:
    events = play(tmp_path, scenario, never={"refused", "halt", "internal_error"})
    return list(enumerate(events, 1))


def test_a_stacked_shoe_run_out_in_play_is_dealt_then_completed_from_the_rack(
    tmp_path: Path,
) -> None:
    """551.16(g): ten cards; round 2 runs out, the rack is reshuffled and dealt on."""
    rounds = [{"wagers": {"1": 10}, "decisions": {"1": d}} for d in (["stand"], ["hit", "stand"])]
    rows = _bench(tmp_path, {"game": "spanish21", "shoe": STACKED, "rounds": rounds})
    (order,) = shoe_orders(rows)
    assert order.dealt == STACKED  # the hole cards (9S, 8S) back where they were dealt
    ends = [e for _s, e in rows if e["type"] == "round_end"]
    second = ends[1]["boxes"]["1"]["hands"][0]["cards"] + ends[1]["dealer"]
    assert [c for c in second if c not in STACKED[6:]] == order.from_rack[1:]
    assert order.rack == [order.from_rack[0], *second]  # the rack's burn, then round 2
    assert not order.complete and "551.16(g)" in order.notes and order.end == "shoe_empty"


def test_a_continuous_shuffler_hands_each_rounds_cards_back(tmp_path: Path) -> None:
    """551.15: every round is a batch; its cards go back to the device."""
    wagers = [{"wagers": w} for w in ({"1": 10}, {"2": 10, "3": 5}, {"1": 25})]
    scenario = {"game": "spanish21", "decks": 6, "seed": 3, "rounds": wagers}
    rows = _bench(tmp_path, {**scenario, "rules": {"continuous_shuffler": True}})
    orders = shoe_orders(rows)
    assert [(o.shoe, o.continuous, o.complete, o.end) for o in orders] == [
        (n, True, True, "continuous_shuffler") for n in (1, 2, 3)
    ]
    for order in orders:
        assert CUT not in order.dealt and UNKNOWN not in order.dealt
        assert Counter(order.rack) == Counter(order.dealt)  # no burn: the round's cards
    for before, pair in zip(orders, pairings(orders), strict=False):
        assert pair.input == before.rack and len(pair.unseen) == 288 - len(before.dealt)
        assert "551.15" in pair.notes
    assert [p.shoe for p in pairings(orders)] == [2, 3]


def test_a_void_round_is_collected_with_its_hole_card_and_the_face_up_cards(
    tmp_path: Path,
) -> None:
    """551.16(a): a card face up to the rack; the second voids round 2 after its hole
    card was dealt, which is collected as its 551.8(i) reveal opens it."""
    faults = [{"kind": "face_up", "at_card": n} for n in (4, 13)]
    wagers = [{"wagers": {"1": 10}}] * 4
    scenario = {"game": "spanish21", "decks": 6, "seed": 5, "rounds": wagers, "faults": faults}
    rows = _bench(tmp_path, scenario)
    (order,) = shoe_orders(rows)
    entries = [e for _s, e in rows]
    (reveal,) = [e for e in entries if e.get("section") == "551.8(i)"]
    drawn = _drawn(entries)
    (hole_at,) = [i for i, e in enumerate(drawn) if e.get("seal") == reveal["opened"][0]["seal"]]
    assert order.dealt[hole_at] == reveal["card"]
    void = [e for e in entries if e["type"] == "round_end" and e["void"]]
    assert [e["round"] for e in void] == [2] and order.rack is not None
    block = order.rack[order.rack_rounds[1] :]
    assert block == [*void[0]["boxes"]["1"]["hands"][0]["cards"], *void[0]["dealer"]]
    assert block[-1] == reveal["card"]  # the dealer's cards last, the hole card in them
    face_up = [e["card"] for e in entries if e.get("section") == "551.16(a)" and "card" in e]
    assert [order.rack[1], order.rack[order.rack_rounds[1] - 1]] == face_up  # as they came
    assert order.complete and "round 2 void" in order.notes and order.end == "face_up"


def test_baccarats_face_up_card_and_its_discards_go_to_the_rack_as_they_come(
    tmp_path: Path,
) -> None:
    """545.15(d): the card found face up, then as many more as its value, discarded."""
    wagers = [{"wagers": {"1": {"banker": 10}}}] * 3
    faults = [{"kind": "face_up", "at_card": 12}]
    scenario = {"game": "baccarat", "decks": 8, "seed": 5, "rounds": wagers, "faults": faults}
    rows = _bench(tmp_path, scenario)
    (order,) = shoe_orders(rows)
    entries = [e for _s, e in rows]
    gone = [
        e["card"]
        for e in entries
        if e["type"] in ("irregularity", "discard") and e["section"] == "545.15(d)"
    ]
    assert len(gone) >= 2 and order.rack is not None and order.complete
    (end,) = [e for e in entries if e["type"] == "shoe_end"]
    assert gone == end["discarded"] and order.rack[: len(end["burned"])] == end["burned"]
    at = [i for i in range(len(order.rack) - len(gone) + 1) if order.rack[i:][: len(gone)] == gone]
    # together, before the block of the round they were found in
    assert len(at) == 1 and at[0] + len(gone) in order.rack_rounds
    assert not order.rack_ordered_within_rounds and len(order.rack_rounds) == end["rounds"]


# --------------------------------------------------------------------------- hand-made

SEAL = "ab" * 32


def _drawn_row(card: str | None, **more: object) -> dict[str, Any]:
    return {"type": "device", "device": "shoe", "event": "card_drawn", "card": card, **more}


def _round_end(n: int, boxes: dict[str, list[list[str]]], **more: object) -> dict[str, Any]:
    return {
        "type": "round_end",
        "round": n,
        "game": "spanish21",
        "boxes": {b: {"hands": [{"cards": h} for h in hands]} for b, hands in boxes.items()},
        "dealer": ["QH", "7D"],
        **more,
    }


def _spanish_shoe(shoe: int, start: int, void: bool = False) -> list[tuple[int, Any]]:
    """A shoe of one round: burn, box 1's two cards, the dealer's up card and sealed
    hole card, the reveal (551.8(i) for a void round), the round's end, the shoe's end."""
    entries: list[dict[str, Any]] = [
        {"type": "shuffled", "shoe": shoe, "cards": 288, "how": "shuffler"},
        _drawn_row("2D"),
        {"type": "burn", "card": "2D", "section": "551.8(c)"},
        _drawn_row("AS"),
        _drawn_row("QH"),
        _drawn_row("5D"),
        _drawn_row(None, sealed=True, seal=SEAL),
        {"type": "dealt", "to": "dealer", "card": None, "sealed": True, "seal": SEAL},
        {"type": "reveal", "card": "7D", "opened": [{"seal": SEAL, "card": "7D", "nonce": "n"}]},
        _round_end(1, {"1": [["AS", "5D"]]}, void=void),
        {"type": "shoe_end", "shoe": shoe, "burned": ["2D"], "discarded": [], "reason": "x"},
    ]
    return list(enumerate(entries, start))


def test_a_void_rounds_hole_card_is_collected_in_its_place() -> None:
    (order,) = shoe_orders(_spanish_shoe(1, 1, void=True))
    assert order.dealt == ["2D", "AS", "QH", "5D", "7D"]
    assert order.rack == ["2D", "AS", "5D", "QH", "7D"]
    assert order.complete and order.rack_rounds == [1]
    assert "round 1 void" in order.notes


def test_a_seal_never_opened_leaves_its_place_unknown() -> None:
    rows = [r for r in _spanish_shoe(1, 1) if r[1].get("type") != "reveal"]
    (order,) = shoe_orders(rows)
    assert order.dealt[4] == UNKNOWN and not order.complete and "never opened" in order.notes


def test_a_reshuffled_rack_is_dealt_apart_and_hands_no_input_on() -> None:
    """551.16(g): the rack is shuffled into the shoe mid-shoe."""
    rows = _spanish_shoe(1, 1)
    rack = (50, {"type": "rack_shuffled", "shoe": 1, "cards": 2, "section": "551.16(g)"})
    rows = [*rows[:5], rack, *rows[5:]]
    rows = [(n, e) for n, (_old, e) in enumerate(rows, 1)]
    orders = shoe_orders([*rows, *_spanish_shoe(2, 100)])
    assert orders[0].dealt == ["2D", "AS", "QH"] and orders[0].from_rack == ["5D", "7D"]
    assert not orders[0].complete and "551.16(g)" in orders[0].notes
    (pair,) = pairings(orders)
    assert pair.input is None and "551.16(g)" in pair.notes


def test_an_interrupted_shoe_has_no_rack_and_its_successor_no_input() -> None:
    rows = [r for r in _spanish_shoe(1, 1) if r[1]["type"] != "shoe_end"]
    orders = shoe_orders([*rows, *_spanish_shoe(2, 100)])
    assert orders[0].rack is None and not orders[0].complete
    assert orders[0].notes == "shuffled again at row 100 before its end: no rack handed on"
    assert orders[1].complete
    (pair,) = pairings(orders)
    assert pair.input is None and pair.output == ["2D", "AS", "QH", "5D", "7D"]
    (last,) = shoe_orders(rows)
    assert last.notes == "the journal ends before the shoe does: no rack handed on"


def test_a_continuous_shuffler_returns_each_rounds_cards() -> None:
    rows = [*_spanish_shoe(1, 1), *_spanish_shoe(2, 100)]
    for _seq, entry in rows:
        if entry["type"] == "shuffled":
            entry["section"] = "551.15"
    orders = shoe_orders(rows)
    assert all(o.continuous for o in orders)
    (pair,) = pairings(orders)
    assert pair.input == ["2D", "AS", "5D", "QH", "7D"]  # the returned cards
    assert len(pair.unseen) == 288 - 5 and "551.15" in pair.notes


def test_new_decks_or_another_count_hand_no_input_on() -> None:
    rows = [*_spanish_shoe(1, 1), *_spanish_shoe(2, 100)]
    rows[10][1]["reason"] = "decks_removed"
    assert "551.16(b)" in pairings(shoe_orders(rows))[0].notes
    rows[10][1]["reason"] = "x"
    rows[11][1]["cards"] = 240
    assert pairings(shoe_orders(rows))[0].input is None


def _one_error(rows: list[tuple[int, Any]]) -> str:
    with pytest.raises(ValueError) as caught:
        shoe_orders(rows)
    return str(caught.value)


def test_bad_input_is_one_clear_error() -> None:
    rows = _spanish_shoe(1, 1)
    assert (
        _one_error([rows[1], rows[0], *rows[2:]]) == "journal rows out of order: row 1 after row 2"
    )
    again = [*rows, *_spanish_shoe(1, 100)]
    assert _one_error(again) == "row 100: shoe 1 after shoe 1"
    orders: list[ShoeOrder] = shoe_orders(rows)
    assert shoe_order(orders, 1) is orders[0]
    with pytest.raises(ValueError, match=r"^no shoe 9 in the journal \(shoes: 1-1\)$"):
        shoe_order(orders, 9)
    foreign = [*rows[:2], (3, _drawn_row("TD")), *rows[3:]]
    with pytest.raises(ValueError, match="read cards its decks do not hold: \\['TD'\\]"):
        unseen(shoe_orders([(n, e) for n, (_o, e) in enumerate(foreign, 1)])[0])
    assert shoe_orders([]) == [] and pairings([]) == []


def test_rows_before_the_first_shuffle_belong_to_no_shoe() -> None:
    rows = [(1, _drawn_row("KC")), *_spanish_shoe(1, 2)]
    assert shoe_orders(rows)[0].dealt == ["2D", "AS", "QH", "5D", "7D"]


# --------------------------------------------------------------------------- the report


def test_the_report_gives_each_shoes_orders_and_no_verdict(simulated: tuple[Path, Rows]) -> None:
    path, rows = simulated
    orders = shoe_orders(rows)
    done = tablectl("shuffle-report", "--journal", str(path), "--json")
    assert done.returncode == 0 and done.stderr == ""
    shoes = json.loads(done.stdout)["shoes"]
    assert [s["shoe"] for s in shoes] == [o.shoe for o in orders]
    first = shoes[0]
    assert first["dealt"] + first["unseen"] == first["cards"] == orders[0].cards
    assert first["rack"] == len(orders[0].rack or ()) and first["complete"] is True
    assert first["input_known"] is None and shoes[1]["input_known"] is True
    assert json.loads(done.stdout)["verdict"] in ("ok", "alert")  # tests/shuffle/test_report.py
    plain = tablectl("shuffle-report", "--journal", str(path))
    assert plain.returncode == 0
    assert f"\nshoe 1: dealt {first['dealt']} of {first['cards']}, " in plain.stdout
    assert plain.stdout.endswith(("verdict: ok\n", "verdict: alert\n"))


def test_the_report_refuses_bad_input_in_one_line(tmp_path: Path) -> None:
    junk = tmp_path / "junk.db"
    junk.write_text("not a journal")
    for args, says in (
        (["--journal", str(tmp_path / "none.db")], "no such journal"),
        (["--journal", str(junk)], "the journal is damaged"),
        ([], "the following arguments are required: --journal"),
        (["--journal", str(_two_first_shoes(tmp_path))], "shoe 1 after shoe 1"),
    ):
        done = tablectl("shuffle-report", *args)
        assert done.returncode == 2 and done.stdout == ""
        assert len(done.stderr.splitlines()) == 1 and says in done.stderr, done.stderr


def _two_first_shoes(tmp_path: Path) -> Path:
    """A real journal whose shoe 1 is shuffled twice: the orders cannot be read."""
    path = tmp_path / "journal.db"
    with SqliteJournal(path) as writer:
        for _ in range(2):
            writer.record({"type": "shuffled", "shoe": 1, "cards": 288, "how": "shuffler"})
    return path
