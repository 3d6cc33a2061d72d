"""The games' own irregularities through ``tablectl bench``: the simulated shoe and
reader commit them at a scenario's card or round over real pseudo-terminals, or the
bench's dealer commits them with the real devices (the hole card into the reader
behind a 2-9, a card drawn in error, a third card to the Player's Hand); the table
applies its rule, and the bench's floorperson clears the halt as required."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from controller.rules.baccarat import face_up_discard_count
from controller.rules.spanish21 import dealer_blackjack
from tests.support.baccarat import GAMES
from tests.support.bench import bench, example, expected, of, refusal, write
from tests.support.bench import play as bench_play


def scenario(name: str, faults: list[dict[str, Any]]) -> dict[str, Any]:
    """The example's stacked shoe, autoplayed (the faults move the cards), with faults."""
    data = example(name)
    data["rounds"] = []
    data["faults"] = faults
    return data


def play(tmp_path: Path, data: dict[str, Any]) -> list[dict[str, Any]]:
    return bench_play(tmp_path, data, never={"refused", "internal_error"})


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
    path = write(tmp_path, spanish([fault]))
    assert bench(path, tmp_path / "out.jsonl") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "faults[0]" in err[0] and message in err[0]


@pytest.mark.parametrize("kind", ["ten", "reader_tamper"])
def test_baccarat_has_no_ten_or_reader_faults(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    fault = {"kind": kind, "at_card" if kind == "ten" else "at_round": 3}
    path = write(tmp_path, scenario("baccarat-eight-decks", [fault]))
    assert bench(path, tmp_path / "out.jsonl") == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


# --------------------------------------------------------------------------- the dealer's


def short_spanish(rounds: int, rules: dict[str, Any]) -> dict[str, Any]:
    """The Spanish 21 example's shoe with the cutting card moved into round 4 (the
    shoe ends after it), its first ``rounds`` round scripts, then autoplay."""
    data = scenario("spanish21-six-decks", [])
    shoe = [t for t in data["shoe"] if t != "CUT"]
    shoe.insert(18, "CUT")  # burn 1 + rounds 1-3 (16 cards) + round 4's first card
    data["shoe"] = shoe
    data["rules"] = {**data["rules"], **rules}
    data["rounds"] = example("spanish21-six-decks")["rounds"][:rounds]
    return data


def misused(events: list[dict[str, Any]]) -> tuple[int, int]:
    """Where the hole card went into the reader and where the floorperson cleared;
    checked in order: the insertion the reader was not armed for, the irregularity, the
    halt (nothing dealt or decided while stopped), the floorperson's clear (no repair:
    nothing is broken)."""
    (injected,) = [i for i, e in enumerate(events) if e["type"] == "fault_injected"]
    assert events[injected]["kind"] == "reader_misuse"
    inserted = events[injected + 1]
    assert inserted["device"] == "reader" and inserted["event"] == "card_inserted"
    assert inserted["armed"] is False
    (irregular,) = of(events, "irregularity")
    assert irregular["section"] == "551.16(l)" and irregular["card"] is None
    (halt,) = of(events, "halt")
    assert halt["cause"] == "reader_misuse" and halt["section"] == "551.16(l)"
    assert not halt["ends_shoe"] and "needs_repair" not in halt
    stop, clear = events.index(halt), events.index(of(events, "floor_clear")[0])
    assert injected < events.index(irregular) < stop < clear
    assert events[clear - 1] == {"type": "command", "command": "floor_clear"}
    assert not {"dealt", "decision", "reveal"} & {e["type"] for e in events[stop:clear]}
    return injected, clear


@pytest.mark.reg("551.16(l)", "551.16(l)(1)")
def test_the_hole_card_in_the_reader_behind_a_6_voids_the_round_when_the_reader_shows_it(
    tmp_path: Path,
) -> None:
    # Rounds 1 (an ace up: the reader is used as it should be) and 2 (a 6 up) scripted;
    # the fault is due from round 1, so it fires in round 2, the first behind a 2-9.
    data = short_spanish(2, {"reader_reveals_hole_card": True})
    data["faults"] = [{"kind": "reader_misuse", "at_round": 1}]
    events = play(tmp_path, data)
    injected, clear = misused(events)
    assert events[injected] == {
        "type": "fault_injected",
        "kind": "reader_misuse",
        "device": "reader",
        "at_round": 1,
        "round": 2,
        "up_card": "6C",
    }
    assert [e["round"] for e in of(events, "reader_armed")] == [1]  # never behind the 6
    void = next(e for e in events[clear:] if e["type"] == "round_end")
    assert void["round"] == 2 and void["void"] is True and void["section"] == "551.16(l)(1)"
    assert void["returned"] == {"1": 10} and void["dealer_total"] is None
    assert [h["outcome"] for h in void["boxes"]["1"]["hands"]] == ["dead"]
    # Nothing happened to the round between the insertion and the void: no decision
    # (the scripted 'hit' is dropped with the dead hand), no card.
    between = {e["type"] for e in events[injected : events.index(void)]}
    assert not between & {"decision", "dealt", "peek", "play_continues"}
    # The hole card stayed sealed until the void round's cards were collected.
    reveal = next(e for e in events[clear:] if e["type"] == "reveal")
    assert reveal["section"] == "551.8(i)" and reveal["card"] == void["dealer"][1] == "9S"
    assert "9S" not in json.dumps(events[: events.index(reveal)])
    # The shoe goes on with the next round.
    rounds = of(events, "round_end")
    assert [r["void"] for r in rounds] == [False, True, False, False]
    assert of(events, "shoe_end")[0]["reason"] == "cutting_card"


@pytest.mark.reg("551.16(l)", "551.16(l)(2)")
def test_the_hole_card_in_the_reader_behind_a_6_lets_play_go_on_when_the_reader_shows_nothing(
    tmp_path: Path,
) -> None:
    data = short_spanish(4, {"reader_reveals_hole_card": False})
    data["faults"] = [{"kind": "reader_misuse", "at_round": 2}]
    events = play(tmp_path, data)
    injected, clear = misused(events)
    assert events[injected]["round"] == 2
    after = [e for e in events[clear + 1 :] if e["type"] != "prompt"]
    assert after[0] == {"type": "play_continues", "round": 2, "section": "551.16(l)(2)"}
    decision = next(e for e in events[clear:] if e["type"] == "decision")
    assert decision["round"] == 2 and decision["decision"] == "hit"
    # Play went on as if nothing had happened: the example's first four rounds.
    want = expected("spanish21-six-decks")[:4]
    got = [e for e in events if e["type"] == "round_end"]
    assert [{k: e[k] for k in w} for e, w in zip(got, want, strict=True)] == want


@pytest.mark.parametrize(
    ("game", "fault", "message"),
    [
        ("spanish21", {"kind": "reader_misuse"}, "faults[0].at_round: expected the number of a"),
        ("spanish21", {"kind": "reader_misuse", "at_round": 0}, "faults[0].at_round"),
        ("spanish21", {"kind": "reader_misuse", "at_round": 2.5}, "faults[0].at_round: expected"),
        ("spanish21", {"kind": "reader_misuse", "at_round": 2, "code": 1}, "unknown key 'code'"),
        ("baccarat", {"kind": "reader_misuse", "at_round": 2}, "is for a spanish21 table"),
        ("spanish21", {"kind": "drawn_in_error", "at_round": 2}, "is for a baccarat or midi"),
        ("spanish21", {"kind": "player_third_card", "at_round": 2}, "is for a baccarat or"),
        ("baccarat", {"kind": "drawn_in_error", "at_round": -1}, "faults[0].at_round"),
        (
            "midibaccarat",
            {"kind": "drawn_in_error", "at_round": 2, "disclosed": "yes"},
            "faults[0].disclosed: expected true or false, got 'yes'",
        ),
        ("baccarat", {"kind": "drawn_in_error", "at_card": 2}, "unknown key 'at_card'"),
        (
            "baccarat",
            {"kind": "player_third_card", "at_round": 2, "disclosed": True},
            "unknown key 'disclosed' for a player_third_card fault",
        ),
        ("midibaccarat", {"kind": "player_third_card", "at_round": "2"}, "faults[0].at_round"),
    ],
)
def test_bad_dealer_faults_are_a_bad_scenario(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    game: str,
    fault: dict[str, Any],
    message: str,
) -> None:
    name = "spanish21-six-decks" if game == "spanish21" else "baccarat-eight-decks"
    data = scenario(name, [fault])
    data["game"] = game
    line = refusal(tmp_path, data, capsys)
    assert message in line, line


def test_a_reader_configuration_that_is_not_true_or_false_is_a_bad_scenario(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = short_spanish(0, {"reader_reveals_hole_card": "no"})
    path = write(tmp_path, data)
    assert bench(path, tmp_path / "out.jsonl") == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "rules.reader_reveals_hole_card: expected true or false, got 'no' (551.16(l))" in line


# --------------------------------------------------------------------------- Baccarat


CHAPTER = {"baccarat": "545.15", "midibaccarat": "543.14"}


def short_baccarat(game: str, faults: list[dict[str, Any]]) -> dict[str, Any]:
    """The Baccarat example's stacked shoe, the cover card moved up to card 41 (about
    eight rounds), autoplayed, as a ``game`` table."""
    data = scenario("baccarat-eight-decks", faults)
    shoe = [t for t in data["shoe"] if t != "CUT"]
    shoe.insert(40, "CUT")
    data.update(game=game, shoe=shoe)
    return data


def drawn(events: list[dict[str, Any]]) -> list[tuple[int, str]]:
    """Each card out of the shoe: where its line is, and the card."""
    return [
        (i, e["card"])
        for i, e in enumerate(events)
        if e["type"] == "device" and e["event"] == "card_drawn"
    ]


def card_after(events: list[dict[str, Any]], at: int) -> str:
    return next(card for i, card in drawn(events) if i > at)


def accounted(events: list[dict[str, Any]]) -> None:
    """Every card out of the shoe is burned, discarded or in exactly one round's hands."""
    (end,) = of(events, "shoe_end")
    placed = [*end["burned"], *end["discarded"]]
    for r in of(events, "round_end"):
        placed += r["player"] + r["banker"]
    assert sorted(placed) == sorted(card for _, card in drawn(events))


def rounds_by_number(events: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    return {e["round"]: e for e in of(events, "round_end")}


@GAMES
@pytest.mark.reg("545.15(a)", "543.14(a)")
def test_a_card_drawn_in_error_opens_the_next_hand(tmp_path: Path, game: str) -> None:
    events = play(tmp_path, short_baccarat(game, [{"kind": "drawn_in_error", "at_round": 2}]))
    (injected,) = [i for i, e in enumerate(events) if e["type"] == "fault_injected"]
    assert events[injected] == {
        "type": "fault_injected",
        "kind": "drawn_in_error",
        "device": "shoe",
        "at_round": 2,
        "round": 2,
        "disclosed": False,
    }
    error = card_after(events, injected)
    (irregular,) = of(events, "irregularity")
    assert irregular["section"] == f"{CHAPTER[game]}(a)" and irregular["card"] == error
    kinds = [e["type"] for e in events]
    # drawn before "no more bets" of round 2, then used as the Player's first card
    assert events.index(irregular) < kinds.index("no_more_bets", injected)
    second = rounds_by_number(events)[2]
    assert second["player"][0] == error and not second["void"]
    first_dealt = next(e for e in events[injected:] if e["type"] == "dealt")
    assert first_dealt == {"type": "dealt", "round": 2, "hand": "player", "card": error}
    accounted(events)
    assert of(events, "shoe_end")[0]["discarded"] == []


@GAMES
@pytest.mark.reg("545.15(c)", "543.14(c)")
def test_a_disclosed_card_drawn_in_error_goes_to_the_discard_with_one_more(
    tmp_path: Path, game: str
) -> None:
    fault = {"kind": "drawn_in_error", "at_round": 2, "disclosed": True}
    events = play(tmp_path, short_baccarat(game, [fault]))
    (injected,) = [i for i, e in enumerate(events) if e["type"] == "fault_injected"]
    error = card_after(events, injected)
    disclosed = events.index({"type": "command", "command": "disclosed_card"})
    more = card_after(events, disclosed)
    seen = [e for e in of(events, "irregularity") if e["section"] == f"{CHAPTER[game]}(c)"]
    assert [e["card"] for e in seen] == [error]
    (discard,) = of(events, "discard")
    assert discard["card"] == more and discard["face_up"] is False
    assert "DISCARD 1 MORE FACE DOWN" in [e.get("text") for e in events]
    # Neither card is used: round 2 opens with the next cards out of the shoe.
    cards = [card for i, card in drawn(events) if i > events.index(discard)]
    second = rounds_by_number(events)[2]
    assert second["player"][:2] == [cards[0], cards[2]]
    assert second["banker"][:2] == [cards[1], cards[3]]
    assert of(events, "shoe_end")[0]["discarded"] == [error, more]
    accounted(events)


@GAMES
@pytest.mark.reg("545.15(b)", "543.14(b)")
def test_a_third_card_the_player_may_not_take_is_the_bankers_or_the_next_hands(
    tmp_path: Path, game: str
) -> None:
    # In the example's shoe round 4's Player stands and its Banker draws; in round 5
    # both stand. A third card dealt to the Player in each:
    faults = [
        {"kind": "player_third_card", "at_round": 4},
        {"kind": "player_third_card", "at_round": 5},
    ]
    events = play(tmp_path, short_baccarat(game, faults))
    rounds = rounds_by_number(events)
    banker_draws, both_stand = (i for i, e in enumerate(events) if e["type"] == "fault_injected")
    assert [events[banker_draws]["round"], events[both_stand]["round"]] == [4, 5]
    # ... the Banker draws: the card is the Banker's third, nothing irregular in round 4.
    assert len(rounds[4]["player"]) == 2 and len(rounds[4]["banker"]) == 3
    assert rounds[4]["banker"][2] == card_after(events, banker_draws)
    assert events.index(rounds[4]) < both_stand
    # ... the Banker stays: the card is the next hand's first card.
    assert len(rounds[5]["player"]) == 2 and len(rounds[5]["banker"]) == 2
    assert events.index(rounds[5]) < both_stand
    error = card_after(events, both_stand)
    (irregular,) = of(events, "irregularity")
    assert irregular["card"] == error and irregular["section"] == f"{CHAPTER[game]}(a)"
    assert events.index(irregular) > both_stand
    assert rounds[6]["player"][0] == error
    accounted(events)


@GAMES
@pytest.mark.reg("545.15(e)", "543.14(e)")
def test_too_few_cards_void_the_round_and_return_the_wagers(tmp_path: Path, game: str) -> None:
    # A stacked shoe that runs out in round 2: the burn (A, then one more), round 1's
    # six cards, and two of round 2's.
    shoe = ["AS", "2S", "3S", "2D", "2C", "3H", "4D", "8C", "9D", "KC"]
    wagers = {"5": {"banker": 25}, "6": {"tie": 5}}
    data = {
        "game": game,
        "shoe": shoe,
        "rounds": [{"wagers": {"1": {"player": 10}}}, {"wagers": wagers}],
    }
    events = play(tmp_path, data)
    empty = next(i for i, e in enumerate(events) if e.get("event") == "shoe_empty")
    first, void = of(events, "round_end")
    assert not first["void"] and first["player"] == ["3S", "2C", "4D"]
    assert void == {
        "type": "round_end",
        "round": 2,
        "game": game,
        "void": True,
        "player": ["9D"],
        "banker": ["KC"],
        "player_total": None,
        "banker_total": None,
        "result": None,
        "natural": False,
        "shoe": 1,
        "returned": wagers,
        "reason": "the shoe is empty: too few cards for the round",
        "section": f"{CHAPTER[game]}(e)",
    }
    assert events.index(void) == empty + 1
    (end,) = of(events, "shoe_end")
    assert end["reason"] == "shoe_empty" and end["burned"] == ["AS", "2S"]
