"""Spanish 21 procedure through ``tablectl bench`` over real pseudo-terminals: a shoe
that runs out mid-round completed from the reshuffled discard rack (551.16(g)), by
hand and by the simulated shuffler; a continuous shuffling device (551.15); players
with more than one box (551.14) and a Double Down for less (551.11(a)); and the bad
scenarios these keys make. The shoes are a few cards long."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from controller.bench import continuous_batch, load_scenario
from tests.support.bench import of, refusal
from tests.support.bench import play as bench_play

# Round 1 puts the burn 2S and 9C 8D (box 1) 7H 9S 4C (dealer) in the discard rack;
# round 2 deals 5H (box 1), 6D (up), 3C (box 1), 8S (hole) and the shoe is empty.
RACK = ["2S", "9C", "7H", "8D", "9S", "4C"]
RUNS_OUT_IN_PLAY = [*RACK, "5H", "6D", "3C", "8S"]
# Round 2 deals 5H (box 1), KS (up), 3C (box 1): the hole card comes from the rack.
RUNS_OUT_IN_THE_DEAL = [*RACK, "5H", "KS", "3C"]


def run(tmp_path: Path, scenario: dict[str, Any]) -> list[dict[str, Any]]:
    return bench_play(tmp_path, scenario, never={"refused", "halt", "internal_error"})


def device(events: list[dict[str, Any]], name: str, event: str) -> list[dict[str, Any]]:
    return [
        e for e in events if e["type"] == "device" and (e["device"], e["event"]) == (name, event)
    ]


def round_cards(end: dict[str, Any]) -> list[str]:
    hands = [h["cards"] for box in end["boxes"].values() for h in box["hands"]]
    return [*end["dealer"], *(c for cards in hands for c in cards)]


def two_rounds(shoe: list[str], decisions: list[str], **extra: object) -> dict[str, Any]:
    return {
        "game": "spanish21",
        "shoe": shoe,
        "rounds": [
            {"wagers": {"1": 10}, "decisions": {"1": ["stand"]}},
            {"wagers": {"1": 10}, "decisions": {"1": decisions}},
        ],
        **extra,
    }


def assert_completed_from_the_rack(events: list[dict[str, Any]], how: str) -> dict[str, Any]:
    """The rack's six cards shuffled, the first burned, round 2 completed with the
    others, and the shoe ended after it; returns round 2's round_end."""
    kinds = [e["type"] for e in events]
    (ran_out,) = [e for e in of(events, "irregularity") if e["section"] == "551.16(g)"]
    assert ran_out["round"] == 2 and ran_out["rack"] == len(RACK)
    (rack,) = of(events, "rack_shuffled")
    assert rack == {
        "type": "rack_shuffled",
        "shoe": 1,
        "round": 2,
        "cards": len(RACK),
        "how": how,
        "section": "551.16(g)",
    }
    at = events.index(rack)
    assert events.index(ran_out) < at
    # The reshuffled rack went into the simulated shoe before its first card came out.
    (loaded,) = [e for e in device(events, "shoe", "cards_loaded") if events.index(e) > at]
    assert loaded["count"] == len(RACK)
    after = [e for e in device(events, "shoe", "card_drawn") if events.index(e) > at]
    assert events.index(loaded) < events.index(after[0])
    assert all(e["card"] is None or e["card"] in RACK for e in after)  # a sealed hole card
    burn = of(events, "burn")[-1]
    assert kinds.index("rack_shuffled") < events.index(burn)
    assert burn["reason"] == "discard rack reshuffled" and burn["section"] == "551.16(g)"
    assert burn["card"] in RACK
    first, second = of(events, "round_end")
    assert not second["void"] and second["round"] == 2
    assert sorted(round_cards(first)) == sorted(RACK[1:])  # what round 1 put in the rack
    from_rack = [c for c in round_cards(second) if c not in ("5H", "6D", "KS", "3C", "8S")]
    assert from_rack and set(from_rack) <= set(RACK) - {burn["card"]}
    assert len(after) == 1 + len(from_rack)  # the burn, then every card the round took
    (end,) = of(events, "shoe_end")
    assert end["reason"] == "shoe_empty" and end["rounds"] == 2
    assert end["burned"] == ["2S", burn["card"]]
    assert kinds.index("round_end", kinds.index("rack_shuffled")) < kinds.index("shoe_end")
    return second


# --------------------------------------------------------------------------- 551.16(g)


@pytest.mark.reg("551.16(g)", "551.5(a)", "551.8(c)")
def test_a_stacked_shoe_that_runs_out_in_play_is_completed_from_the_reshuffled_rack(
    tmp_path: Path,
) -> None:
    events = run(tmp_path, two_rounds(RUNS_OUT_IN_PLAY, ["hit", "stand"]))
    second = assert_completed_from_the_rack(events, "manual")
    assert not [e for e in of(events, "device") if e["device"] == "shuffler"]
    hand = second["boxes"]["1"]["hands"][0]
    assert hand["cards"][:2] == ["5H", "3C"] and len(hand["cards"]) == 3
    assert hand["cards"][2] in RACK  # the hit came out of the reshuffled rack
    assert second["dealer"][:2] == ["6D", "8S"]
    assert [e["command"] for e in of(events, "command") if e["command"] == "manual_shuffle"] == [
        "manual_shuffle",
        "manual_shuffle",
    ]


@pytest.mark.reg("551.16(g)", "551.16(k)", "551.8(e)")
def test_with_the_shuffler_the_rack_is_counted_shuffled_and_loaded_into_the_shoe(
    tmp_path: Path,
) -> None:
    # The shoe runs out in the initial deal, a K up: the hole card is the reshuffled
    # rack's second card, and the dealer, who loaded it, puts it in the reader.
    events = run(tmp_path, two_rounds(RUNS_OUT_IN_THE_DEAL, ["stand"], shuffler=True))
    second = assert_completed_from_the_rack(events, "shuffler")
    full, rack = device(events, "shuffler", "shuffle_completed")
    assert full["card_count"] == 288 and rack["card_count"] == len(RACK)
    assert device(events, "shuffler", "batch_ready")[-1]["card_count"] == len(RACK)
    assert not [e for e in of(events, "command") if e["command"] == "manual_shuffle"]
    assert second["dealer"][0] == "KS" and second["dealer"][1] in RACK
    (peek,) = [e for e in of(events, "peek") if e["round"] == 2]
    assert peek["blackjack"] is (second["dealer"][1][0] == "A")
    assert of(events, "reveal")[-1]["card"] == second["dealer"][1]


# --------------------------------------------------------------------------- 551.15


@pytest.mark.reg("551.15")
def test_a_continuous_shuffler_shuffles_and_refills_the_shoe_before_every_round(
    tmp_path: Path,
) -> None:
    scenario = {
        "game": "spanish21",
        "decks": 6,
        "seed": 3,
        "rules": {"continuous_shuffler": True},
        "rounds": [{"wagers": {"1": 10}}, {"wagers": {"2": 10, "3": 5}}, {"wagers": {"1": 25}}],
    }
    events = run(tmp_path, scenario)
    assert not of(events, "burn") and not of(events, "cutting_card")
    assert not device(events, "shoe", "cut_card_seen")
    shuffled = of(events, "shuffled")
    assert [(s["shoe"], s["how"], s["cards"], s["section"]) for s in shuffled] == [
        (n, "shuffler", 288, "551.15") for n in (1, 2, 3)
    ]
    ends = of(events, "shoe_end")
    assert [(e["shoe"], e["rounds"], e["reason"]) for e in ends] == [
        (n, 1, "continuous_shuffler") for n in (1, 2, 3)
    ]
    rounds = of(events, "round_end")
    assert [(r["shoe"], r["round"], sorted(r["boxes"])) for r in rounds] == [
        (1, 1, ["1"]),
        (2, 1, ["2", "3"]),
        (3, 1, ["1"]),
    ]
    assert events[-1]["rounds"] == 3
    played = load_scenario(str(tmp_path / "scenario.json"))
    for n, (shuffle, end) in enumerate(zip(shuffled, ends, strict=True)):
        at, stop = events.index(shuffle), events.index(end)
        # The device's cards went into the shoe, then it confirmed its shuffle, before
        # any wager; the round's cards are the top of that batch, in order.
        loads = [e for e in device(events, "shoe", "cards_loaded") if events.index(e) < at]
        assert loads[-1]["count"] == 288
        drawn = [e for e in device(events, "shoe", "card_drawn") if at < events.index(e) < stop]
        batch = continuous_batch(played, n)
        assert [e["card"] or batch[i] for i, e in enumerate(drawn)] == batch[: len(drawn)]
        assert sorted(round_cards(rounds[n])) == sorted(batch[: len(drawn)])
        wagers = [w for w in of(events, "wager") if at < events.index(w) < stop]
        assert wagers and all(events.index(w) > at for w in wagers)


# --------------------------------------------------------------------------- 551.14


@pytest.mark.reg("551.14", "551.11(a)")
def test_players_with_two_boxes_and_a_double_down_for_less(tmp_path: Path) -> None:
    # Boxes 1 and 2 are ann's: 5H 3C and 9D 8H against 6D and the hole card 8S; box 1
    # doubles for 5 of its 10 and takes 9C; the cutting card, then the dealer's 7H: 21.
    scenario = {
        "game": "spanish21",
        "rules": {"boxes_per_player": 2},
        "players": {"1": "ann", "2": "ann"},
        "shoe": ["2S", "5H", "9D", "6D", "3C", "8H", "8S", "9C", "CUT", "7H"],
        "rounds": [{"wagers": {"1": 10, "2": 10}, "decisions": {"1": [{"double": 5}]}}],
    }
    events = run(tmp_path, scenario)
    wagers = of(events, "wager")
    assert [(w["box"], w["amount"], w["player"]) for w in wagers] == [
        (1, 10, "ann"),
        (2, 10, "ann"),
    ]
    commands = [e for e in of(events, "command") if e["command"] == "wager"]
    assert {c["player"] for c in commands} == {"ann"}
    (double,) = [d for d in of(events, "decision") if d["decision"] == "double"]
    assert double["box"] == 1 and double["amount"] == 5 and double["section"] == "551.11(a)"
    (command,) = [c for c in of(events, "command") if c.get("decision") == "double"]
    assert command["amount"] == 5
    (end,) = of(events, "round_end")
    assert end["dealer_total"] == 21
    assert end["boxes"]["1"]["hands"] == [
        {"cards": ["5H", "3C", "9C"], "total": 17, "outcome": "lose", "net": -15}
    ]
    assert end["boxes"]["2"]["hands"][0]["net"] == -10


# --------------------------------------------------------------------------- bad input

SHORT = ["2S", "5H", "9D", "6D", "3C", "8H", "8S", "9C", "CUT", "7H"]


def spanish(**extra: object) -> dict[str, Any]:
    return {"game": "spanish21", "shoe": SHORT, **extra}


def one_round(**script: object) -> dict[str, Any]:
    return spanish(rounds=[{"wagers": {"1": 10}, **script}])


@pytest.mark.parametrize(
    ("scenario", "message"),
    [
        pytest.param(
            spanish(players=["ann"]),
            "players: expected boxes mapped to players' names",
            id="players not an object",
        ),
        pytest.param(
            spanish(players={"8": "ann"}),
            "players.8: not a box 1..7 (551.2(b)(2))",
            id="a player at box 8",
        ),
        pytest.param(
            spanish(players={"1": 5}),
            "players.1: expected a player's name, got 5",
            id="a name that is a number",
        ),
        pytest.param(
            spanish(players={"1": ""}),
            "players.1: expected a player's name, got ''",
            id="a blank name",
        ),
        pytest.param(
            one_round(players={"x": "bob"}),
            "rounds[0].players.x: not a box 1..7 (551.2(b)(2))",
            id="a round's player at no box",
        ),
        pytest.param(
            one_round(players="bob"),
            "rounds[0].players: expected boxes mapped to players' names",
            id="a round's players not an object",
        ),
        pytest.param(
            {"game": "baccarat", "shoe": ["AS", "KD"], "players": {"1": "ann"}},
            "players: names a Spanish 21 box's player (551.14); this is baccarat",
            id="players at a baccarat table",
        ),
        pytest.param(
            spanish(
                players={"1": "ann", "3": "ann"},
                rules={"boxes_per_player": 2},
                rounds=[{"wagers": {"1": 10, "3": 10}}],
            ),
            "rounds[0].wagers.3: round 1, box 3: spanish21 wager of 10 by ann refused: ann: "
            "boxes 1, 3: a player's boxes must be adjacent (551.14)",
            id="a player's boxes not adjacent",
        ),
        pytest.param(
            spanish(players={"1": "ann", "2": "ann"}, rounds=[{"wagers": {"1": 10, "2": 10}}]),
            "rounds[0].wagers.2: round 1, box 2: spanish21 wager of 10 by ann refused: ann: "
            "boxes 1, 2: a player may wager on at most 1 box(es) (551.14)",
            id="more boxes than the rules allow",
        ),
        pytest.param(
            spanish(
                rules={"boxes_per_player": 2},
                players={"3": "ann"},
                rounds=[{"wagers": {"1": 10, "3": 5}, "players": {"1": "ann"}}],
            ),
            "rounds[0].wagers.3: round 1, box 3: spanish21 wager of 5 by ann refused: ann: "
            "boxes 1, 3: a player's boxes must be adjacent (551.14)",
            id="a round's players over the scenario's",
        ),
        pytest.param(
            one_round(decisions={"1": [{"double": 20}]}),
            "rounds[0].decisions.1[0]: round 1, box 1: {'double': 20} refused: hand 1: "
            "double down 20: more than 0 and at most the wager 10 (551.11(a))",
            id="a double down for more than the wager",
        ),
        pytest.param(
            one_round(decisions={"1": [{"double": "5"}]}),
            "rounds[0].decisions.1[0].double: '5' is not an amount more than 0 (551.11(a))",
            id="a double down amount as text",
        ),
        pytest.param(
            one_round(decisions={"1": [{"double": 0}]}),
            "rounds[0].decisions.1[0].double: 0 is not an amount more than 0 (551.11(a))",
            id="a double down for 0",
        ),
        pytest.param(
            one_round(decisions={"1": [{"double": True}]}),
            "rounds[0].decisions.1[0].double: True is not an amount more than 0",
            id="a double down for true",
        ),
        pytest.param(
            one_round(decisions={"1": [{"split": 5}]}),
            "rounds[0].decisions.1[0]: {'split': 5} is not a decision: one of hit, stand",
            id="an amount on another decision",
        ),
        pytest.param(
            one_round(decisions={"1": [{"double": 5, "hit": 1}]}),
            "rounds[0].decisions.1[0]: {'double': 5, 'hit': 1} is not a decision",
            id="two keys in a decision",
        ),
        pytest.param(
            spanish(shuffler="yes"),
            "shuffler: expected true or false, got 'yes'",
            id="shuffler not a boolean",
        ),
        pytest.param(
            {"game": "spanish21", "decks": 6, "seed": 1, "shuffler": True},
            "shuffler: a seeded shoe is always the shuffler's; the key is for a stacked shoe",
            id="shuffler with a seeded shoe",
        ),
        pytest.param(
            spanish(rules={"continuous_shuffler": True}),
            "shoe: with rules.continuous_shuffler the device shuffles the cards before every "
            "round (551.15): give decks and seed, not a stacked shoe",
            id="a continuous shuffler with a stacked shoe",
        ),
        pytest.param(
            {"game": "spanish21", "decks": 6, "cut_at": 80, "rules": {"continuous_shuffler": True}},
            "cut_at: a continuous shuffling device's cards have no cutting card (551.15)",
            id="a continuous shuffler with a cutting card",
        ),
        pytest.param(
            {"game": "spanish21", "decks": 6, "rules": {"continuous_shuffler": "on"}},
            "rules.continuous_shuffler",
            id="continuous_shuffler not a boolean",
        ),
    ],
)
def test_bad_procedure_keys_are_one_line_and_exit_2(
    scenario: object, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    line = refusal(tmp_path, scenario, capsys)  # refused before anything started
    assert message in line, line


@pytest.mark.reg("551.16(j)", "551.16(g)")
def test_a_stacked_shoe_with_the_shuffler_takes_the_shuffler_faults(tmp_path: Path) -> None:
    scenario = two_rounds(
        RUNS_OUT_IN_THE_DEAL, ["stand"], shuffler=True, faults=[{"kind": "shuffler_jam"}]
    )
    events = run(tmp_path, scenario)
    (failed,) = of(events, "shuffle_failed")
    assert failed["event"] == "shuffler_jam"
    counts = [e["card_count"] for e in device(events, "shuffler", "shuffle_completed")]
    assert counts == [288, len(RACK)]
