"""The Baccarat / Midibaccarat table machine fed synthetic device events and console
commands: no I/O. Each rule's test cites the subsection it proves."""

from __future__ import annotations

import random
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.rules.baccarat import next_to_draw, point, result
from controller.table.events import (
    DisclosedCard,
    FloorClear,
    ManualShuffle,
    Need,
    NoMoreBets,
    PlayerLeaves,
    Wager,
)
from drivers import messages as m
from tests.support.baccarat import CH, GAMES, TABLE_1, Dealer

BURN = {"baccarat": "545.5(f)", "midibaccarat": "543.5(g)"}


def tokens(value: object) -> list[str]:
    assert isinstance(value, list)
    return [str(v) for v in value]


# --------------------------------------------------------------------------- shoe


@GAMES
@pytest.mark.reg("545.5(a)", "543.5(a)")
def test_no_card_before_the_cards_are_shuffled(game: str) -> None:
    d = Dealer(game)
    d.card("AS")
    (refused,) = d.refusals()
    assert refused["section"] == f"{CH[game]}.5(a)" and refused["event"] == "card_drawn"
    assert d.need() is Need.SHUFFLE
    d.table.handle(Wager(1, "banker", 10))
    assert d.refusals()[-1]["section"] == f"{CH[game]}.5(a)"


@pytest.mark.reg("545.3(a)", "545.5(a)")
def test_a_shuffle_counts_only_with_the_decks_card_count() -> None:
    d = Dealer(decks=6)
    d.event(m.ShuffleCompleted("shuffler", 1, 6 * 52 - 1))
    assert d.refusals()[-1]["section"] == "545.3(a)" and d.need() is Need.SHUFFLE
    d.event(m.ShufflerJam("shuffler", 2))
    assert d.io.of_type("shuffle_failed") and d.need() is Need.SHUFFLE
    d.event(m.ShuffleCompleted("shuffler", 3, 6 * 52))
    assert d.table.state == "burn_due"
    assert d.io.of_type("shuffled") == [
        {"type": "shuffled", "shoe": 1, "how": "shuffler", "cards": 312}
    ]


@GAMES
@pytest.mark.reg("545.3(b)", "543.3(b)")
def test_no_new_shuffle_while_a_shoe_is_in_play(game: str) -> None:
    d = Dealer(game)
    d.open()
    d.table.handle(ManualShuffle())
    d.event(m.ShuffleCompleted("shuffler", 1, 416))
    assert [r["section"] for r in d.refusals()] == [f"{CH[game]}.3(b)"] * 2
    assert d.table.state == "wagering"


@GAMES
@pytest.mark.parametrize(("first", "more"), [("5S", 5), ("KD", 10), ("TC", 10), ("AH", 1)])
@pytest.mark.reg("545.5(f)", "543.5(g)")
def test_burn_is_the_first_card_and_its_face_value_in_cards(
    game: str, first: str, more: int
) -> None:
    d = Dealer(game)
    d.table.handle(ManualShuffle())
    burn = [first, *["2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "TC"][: more - 1]]
    d.cards(burn)
    assert d.need() is Need.CARD  # one more to burn
    d.table.handle(Wager(1, "player", 10))
    assert d.refusals()[-1]["section"] == BURN[game]
    d.card("2D")
    assert d.need() is Need.WAGERS
    assert [b["card"] for b in d.io.of_type("burn")] == [*burn, "2D"]
    assert (f"BURN {more} MORE CARDS" if more > 1 else "BURN 1 MORE CARD") in d.io.shown


# --------------------------------------------------------------------------- wagers


@GAMES
@pytest.mark.reg("545.8(c)", "543.8(c)", "545.9(b)", "543.9(b)")
def test_no_more_bets_closes_wagering(game: str) -> None:
    d = Dealer(game)
    d.open()
    d.table.handle(Wager(3, "banker", 100))
    d.table.handle(Wager(3, "tie", 5))
    d.table.handle(Wager(3, "tie", 0))  # withdrawn before "no more bets"
    d.table.handle(NoMoreBets())
    assert "NO MORE BETS" in d.io.shown
    for late in (Wager(3, "banker", 200), Wager(3, "banker", 0), Wager(4, "player", 5)):
        d.table.handle(late)
    d.table.handle(NoMoreBets())
    assert [r["section"] for r in d.refusals()] == [f"{CH[game]}.8(c)"] * 4
    d.cards(["9H", "2C", "KD", "3S"])  # Player 9 against Banker 5
    (end,) = d.rounds()
    assert end["seats"] == {
        "3": {"net": Decimal(-100), "vigorish": Decimal(0), "vigorish_deferred": False}
    }


@pytest.mark.parametrize(
    ("game", "wager", "section"),
    [
        ("baccarat", Wager(15, "banker", 10), "545.2(a)"),
        ("midibaccarat", Wager(10, "banker", 10), "543.2(a)"),
        ("baccarat", Wager(1, "dragon", 10), "545.8(a)"),
        ("baccarat", Wager(1, "banker", -10), "545.8(b)"),
        ("midibaccarat", Wager(1, "player", Decimal("0.001")), "543.8(b)"),
    ],
)
@pytest.mark.reg("545.2(a)", "543.2(a)", "545.8(a)", "545.8(b)", "543.8(b)")
def test_a_wager_the_table_cannot_take_is_refused(game: str, wager: Wager, section: str) -> None:
    d = Dealer(game)
    d.open()
    d.table.handle(wager)
    (refused,) = d.refusals()
    assert refused["section"] == section and refused["command"] == "wager"
    assert not d.io.of_type("wager")


# --------------------------------------------------------------------------- dealing


@GAMES
@pytest.mark.reg("545.9(c)", "543.9(c)", "545.10(c)", "543.10(c)", "545.11(g)", "543.11(c)")
@pytest.mark.reg("543.11(g)")
def test_initial_order_then_third_cards_player_first(game: str) -> None:
    d = Dealer(game)
    d.open()
    # 545.11(g)'s own example: Banker 5 draws against the Player's third card 4.
    d.play(["3S", "2D", "2C", "3H", "4D", "8C"])
    dealt = [(e["hand"], e["card"]) for e in d.io.of_type("dealt")]
    assert dealt == [
        ("player", "3S"),
        ("banker", "2D"),
        ("player", "2C"),
        ("banker", "3H"),
        ("player", "4D"),
        ("banker", "8C"),
    ]
    (end,) = d.rounds()
    assert (end["player_total"], end["banker_total"], end["result"]) == (9, 3, "player")


@pytest.mark.reg("545.10(a)", "545.10(b)", "545.12(a)", "543.10(a)", "543.12(a)")
def test_prompts_and_the_controllers_result_are_shown_on_the_display() -> None:
    d = Dealer()
    d.open()
    d.io.shown.clear()
    d.play(["3S", "2D", "2C", "3H", "4D", "8C"])
    assert d.io.shown == [
        "NO MORE BETS",
        "CARDS",
        "PLAYER 5",
        "BANKER 5",
        "PLAYER DRAWS",
        "BANKER DRAWS",
        "PLAYER 9 BANKER 3 PLAYER WINS",
        "PASS THE SHOE",
        "PLACE YOUR BETS",
    ]
    d.play(["4S", "3C", "3H", "4D"])  # 7 against 7
    assert "PLAYER 7 BANKER 7 TIE HAND" in d.io.shown
    prompts = [str(p["text"]) for p in d.io.of_type("prompt")]
    assert prompts[-len(d.io.shown) :] == d.io.shown  # every prompt shown is recorded
    assert all(len(t) <= m.DISPLAY_MAX and t.isprintable() for t in prompts)


@GAMES
@pytest.mark.reg("545.11(a)", "543.11(a)")
def test_a_natural_ends_the_deal(game: str) -> None:
    d = Dealer(game)
    d.open()
    d.play(["2H", "6S", "7C", "JD"])
    (end,) = d.rounds()
    assert end["natural"] is True and end["result"] == "player"
    assert d.need() is Need.WAGERS


@GAMES
@pytest.mark.reg("545.10(d)", "543.10(d)", "545.15(a)", "543.14(a)")
def test_no_hand_takes_a_fourth_card_and_a_card_before_no_more_bets_opens_the_next(
    game: str,
) -> None:
    d = Dealer(game)
    d.open()
    d.play(["3S", "2D", "2C", "3H", "4D", "8C"])
    d.card("KH")  # out of the shoe after the round, before "no more bets"
    (irregular,) = d.io.of_type("irregularity")
    assert irregular["section"] == f"{CH[game]}.{'15' if game == 'baccarat' else '14'}(a)"
    first = d.rounds()[0]
    assert len(tokens(first["player"])) == 3 and len(tokens(first["banker"])) == 3
    d.play(["9D", "TC", "KS"])  # KH is the Player's first card
    second = d.rounds()[1]
    assert second["player"] == ["KH", "TC"] and second["banker"] == ["9D", "KS"]


@GAMES
@pytest.mark.reg("545.15(b)", "543.14(b)")
def test_a_third_card_the_player_may_not_take_is_the_bankers_or_the_next_hands(
    game: str,
) -> None:
    # The controller places each card where the rules put it, whatever side of the
    # layout the dealer puts it on: with the Player standing on 6, the next card is the
    # Banker's third when the Banker draws (5 or less) ...
    d = Dealer(game)
    d.open()
    d.play(["4S", "2D", "2C", "3H", "9H"])
    assert d.rounds()[0]["player"] == ["4S", "2C"]
    assert d.rounds()[0]["banker"] == ["2D", "3H", "9H"]
    # ... and the next hand's first card when the Banker stays (7).
    d.play(["4C", "4D", "2H", "3S"])
    d.card("8D")
    assert d.rounds()[1]["banker"] == ["4D", "3S"] and d.io.of_type("irregularity")
    d.play(["9D", "TC", "KS"])
    assert d.rounds()[2]["player"] == ["8D", "TC"]


@GAMES
@pytest.mark.reg("545.15(c)", "543.14(c)")
def test_a_disclosed_card_drawn_in_error_goes_to_the_discard_with_one_more(game: str) -> None:
    d = Dealer(game)
    d.open()
    d.table.handle(DisclosedCard())  # nothing drawn in error: refused
    section = f"{CH[game]}.{'15' if game == 'baccarat' else '14'}(c)"
    assert d.refusals()[-1]["section"] == section
    d.card("7S")
    d.table.handle(DisclosedCard())
    assert d.need() is Need.CARD and "DISCARD 1 MORE FACE DOWN" in d.io.shown
    d.card("5H")  # face down to the discard
    assert d.need() is Need.WAGERS and d.io.shown[-1] == "PLACE YOUR BETS"
    (discard,) = d.io.of_type("discard")
    assert discard["card"] == "5H" and discard["section"] == section
    d.play(["2H", "6S", "7C", "JD"])
    assert d.rounds()[0]["player"] == ["2H", "7C"]  # neither discarded card is used
    d.play(["4S", "3C", "3H", "CUT", "4D"])
    d.play(["9D", "TC", "KS", "8S"])
    (end,) = d.io.of_type("shoe_end")
    assert end["discarded"] == ["7S", "5H"]


# --------------------------------------------------------------------------- cover card


@GAMES
@pytest.mark.reg("545.10(e)", "543.10(e)")
def test_cover_card_during_a_hand_then_last_hand_then_the_shoe_ends(game: str) -> None:
    d = Dealer(game)
    d.open()
    d.play(["2H", "6S", "CUT", "7C", "JD"])  # round 1: the cover card appears in it
    assert d.io.of_type("cover_card")[0]["round"] == 1
    assert d.io.of_type("last_hand") == [
        {"type": "last_hand", "round": 2, "section": f"{CH[game]}.10(e)"}
    ]
    assert d.io.shown[-2:] == ["LAST HAND", "LAST HAND: PLACE YOUR BETS"]
    d.play(["4S", "3C", "3H", "4D"])  # the one more hand
    assert d.need() is Need.SHUFFLE
    (end,) = d.io.of_type("shoe_end")
    assert end["rounds"] == 2 and end["burned"] == ["AS", "2S"] and end["reason"] == "last_hand"
    d.card("5D")  # the shoe is over: no card without new decks
    assert d.refusals()[-1]["section"] == f"{CH[game]}.3(b)"


@pytest.mark.parametrize("before_no_more_bets", [False, True])
@pytest.mark.reg("543.10(e)", "545.10(e)")
def test_cover_card_as_the_first_card_of_a_hand_belongs_to_that_hand(
    before_no_more_bets: bool,
) -> None:
    # Ruling R1: out of the shoe as (or before) the first card of hand 2, it appeared
    # during hand 2: hand 2 is completed, "last hand" is hand 3, then the shoe ends.
    d = Dealer("midibaccarat")
    d.open()
    d.play(["2H", "6S", "7C", "JD"])
    if before_no_more_bets:
        d.cards(["CUT"])
        d.play(["4S", "3C", "3H", "4D"])
    else:
        d.play(["CUT", "4S", "3C", "3H", "4D"])
    assert d.io.of_type("cover_card")[0]["round"] == 2
    assert d.io.of_type("last_hand")[0]["round"] == 3
    d.play(["9D", "TC", "KS", "8S"])
    assert [e["round"] for e in d.rounds()] == [1, 2, 3]
    assert d.io.of_type("shoe_end")[0]["rounds"] == 3


@pytest.mark.reg("545.5(d)", "545.10(e)")
def test_the_other_cover_card_changes_nothing() -> None:
    d = Dealer()
    d.open()
    d.play(["2H", "CUT", "6S", "7C", "CUT", "JD"])
    assert [c["first"] for c in d.io.of_type("cover_card")] == [True, False]
    assert len(d.io.of_type("last_hand")) == 1 and not d.refusals()


# --------------------------------------------------------------------------- irregularities


@GAMES
@pytest.mark.reg("545.15(d)", "543.14(d)")
def test_a_card_found_face_up_is_discarded_with_as_many_cards_as_its_value(game: str) -> None:
    d = Dealer(game)
    d.open()
    d.play(["3S", "2D"])
    d.card("7H", face_up=True)
    assert d.table.state == "discarding"
    d.cards(["9C"] * 6)
    d.card("2H", face_up=True)  # found face up among the discards: two more
    d.cards(["5C", "5D"])
    d.cards(["2C", "3H", "4D", "8C"])  # the hand continues where it was
    (end,) = d.rounds()
    assert end["player"] == ["3S", "2C", "4D"] and end["banker"] == ["2D", "3H", "8C"]
    d.card("KS", face_up=True)  # a ten-count card: no further card goes with it
    assert d.need() is Need.WAGERS
    d.play(["4S", "3C", "3H", "4D"])
    assert [e["card"] for e in d.io.of_type("irregularity")] == ["7H", "KS"]
    section = f"{CH[game]}.{'15' if game == 'baccarat' else '14'}(d)"
    assert {e["section"] for e in d.io.of_type("discard")} == {section}
    assert len(d.io.of_type("discard")) == 9


@GAMES
@pytest.mark.reg("545.15(e)", "543.14(e)")
def test_too_few_cards_void_the_round_and_return_the_wagers(game: str) -> None:
    d = Dealer(game)
    d.open()
    d.play(["3S", "2D", "2C"], wagers={5: {"banker": 25}, 6: {"tie": 5}})
    d.event(m.ShoeEmpty("shoe", d.id()))
    (end,) = d.rounds()
    assert end["void"] is True and end["result"] is None
    assert end["returned"] == {"5": {"banker": Decimal(25)}, "6": {"tie": Decimal(5)}}
    assert end["section"] == f"{CH[game]}.{'15' if game == 'baccarat' else '14'}(e)"
    assert d.io.of_type("shoe_end")[0]["reason"] == "shoe_empty"
    assert d.need() is Need.SHUFFLE


@pytest.mark.reg("545.15(e)")
def test_an_empty_shoe_between_rounds_returns_the_wagers_taken() -> None:
    d = Dealer()
    d.open()
    d.table.handle(Wager(2, "player", 10))
    d.event(m.ShoeEmpty("shoe", d.id()))
    assert not d.rounds()
    (returned,) = d.io.of_type("wagers_returned")
    assert returned["returned"] == {"2": {"player": Decimal(10)}}


# --------------------------------------------------------------------------- faults


@pytest.mark.reg("545.3(a)", "545.15(e)")
def test_a_card_the_decks_cannot_hold_stops_play_and_ends_the_shoe() -> None:
    d = Dealer(decks=6)
    d.open(burn=["AS", "AS"])
    d.play(["AS", "AS", "AS", "AS", "KD", "KC"])  # six aces of spades out
    d.play(["3D", "AS"], wagers={1: {"player": 10}})  # the seventh: foreign
    (halt,) = d.io.of_type("halt")
    assert halt["cause"] == "foreign_card" and halt["section"] == "545.3(a)"
    assert d.need() is Need.FLOOR
    d.card("4D")  # held, not dealt
    d.table.handle(Wager(1, "banker", 5))
    assert d.refusals()[-1]["section"] is None  # the controller's fail-safe
    assert d.table.can_clear
    d.table.handle(FloorClear())
    void = d.rounds()[-1]
    assert void["void"] is True and void["player"] == ["3D"]
    assert d.io.of_type("shoe_end")[0]["reason"] == "floorperson"
    assert d.refusals()[-1]["event"] == "card_drawn"  # the held card meets a closed shoe


def test_a_lost_device_stops_play_until_it_is_back_and_a_floorperson_clears() -> None:
    d = Dealer()
    d.open()
    d.play(["3S", "2D"])
    d.event(m.DeviceLost("shoe", None, "end of file"))
    assert d.need() is Need.FLOOR and "STOP: CALL THE FLOOR" in d.io.shown
    d.card("2C")  # replayed after the reconnect: held until the floorperson clears
    d.table.handle(FloorClear())
    assert "shoe not connected" in str(d.refusals()[-1]["reason"])
    d.event(m.DeviceConnected("shoe", None, "shoe", "SIM", "1", "1.0"))
    assert d.need() is Need.FLOOR  # never resumes by itself
    d.table.handle(FloorClear())
    assert d.table.state == "dealing" and d.io.shown[-1] == "CARDS"  # as before the stop
    assert [e["card"] for e in d.io.of_type("dealt")] == ["3S", "2D", "2C"]
    d.cards(["3H", "4D", "8C"])
    assert d.rounds()[0]["result"] == "player"


@pytest.mark.parametrize(
    ("event", "ends_shoe"),
    [
        (m.DeviceFault("shoe", 9, 1, 0), False),
        (m.LinkTamper("shoe", None, 5), False),
        (m.DeviceLost("shuffler", None, "gone"), False),
        (m.EventGap("shoe", None, 10, 12), True),
        (m.MalformedEvent("shoe", 11, 0x20, "bad card"), True),
        (m.EventGap("shuffler", None, 3, 5), False),
        (m.CardsLoaded("shoe", 12, 416), True),
    ],
)
def test_device_trouble_stops_play_and_untrusted_cards_end_the_shoe(
    event: m.Event, ends_shoe: bool
) -> None:
    d = Dealer()
    d.open()
    d.play(["3S", "2D"])
    d.event(event)
    assert d.need() is Need.FLOOR
    if isinstance(event, m.DeviceLost):
        d.event(m.DeviceConnected(event.device, None, "shuffler", "SIM", "1", "1.0"))
    d.table.handle(FloorClear())
    assert bool(d.io.of_type("shoe_end")) is ends_shoe
    assert d.table.state == ("shuffle_due" if ends_shoe else "dealing")


def test_an_unreadable_card_waits_for_the_floorperson_to_enter_it() -> None:
    d = Dealer()
    d.open()
    d.play(["3S", "2D"])
    d.event(m.UnreadableCard("shoe", d.id()))
    d.card("3H")  # the next card, held behind the unreadable one
    assert not d.table.can_clear
    d.table.handle(FloorClear())
    assert d.refusals()[-1]["reason"] == "enter the card the shoe could not read"
    d.table.handle(FloorClear(card="2c"))
    d.cards(["4D", "8C"])
    (end,) = d.rounds()
    assert end["player"] == ["3S", "2C", "4D"] and end["banker"] == ["2D", "3H", "8C"]


def test_a_bug_stops_the_table_instead_of_the_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*_: object) -> tuple[str, ...]:
        raise ValueError("broken announcements")

    d = Dealer()
    d.open()
    monkeypatch.setattr("controller.table.baccarat.round.announcements", broken)
    d.play(["3S"])
    (error,) = d.io.of_type("internal_error")
    assert "broken announcements" in str(error["detail"])
    assert d.need() is Need.FLOOR
    monkeypatch.undo()
    d.table.handle(FloorClear())
    assert d.io.of_type("shoe_end")[0]["reason"] == "floorperson"


def test_nothing_to_clear_when_play_is_not_stopped() -> None:
    d = Dealer()
    d.table.handle(FloorClear())
    assert d.refusals()[0]["reason"] == (
        "nothing to clear: play is not stopped; the table is shuffle_due"
    )


# --------------------------------------------------------------------------- record, money


def test_every_device_event_is_recorded_before_it_is_committed() -> None:
    d = Dealer()
    d.open()
    d.play(["2H", "6S", "7C", "JD"])
    recorded: set[int] = set()
    commits = 0
    for op, value in d.io.ops:
        if op == "record" and isinstance(value, dict) and value.get("type") == "device":
            recorded.add(int(value["event_id"]))
        elif op == "commit":
            assert isinstance(value, tuple)
            assert value[1] in recorded, f"event {value[1]} committed before it was recorded"
            commits += 1
    assert commits == 6


@pytest.mark.reg("545.14(a)")
def test_the_curator_passes_the_shoe_when_the_banker_loses() -> None:
    d = Dealer()
    d.open()
    d.play(["9H", "2C", "KD", "3S"])  # Player wins
    assert d.io.shown[-2:] == ["PASS THE SHOE", "PLACE YOUR BETS"]
    midi = Dealer("midibaccarat")
    midi.open()
    midi.play(["9H", "2C", "KD", "3S"])
    assert "PASS THE SHOE" not in midi.io.shown  # 543.7: the dealer deals Midibaccarat


@pytest.mark.reg("545.13(c)", "545.13(e)", "543.13(e)")
def test_deferred_vigorish_is_collected_before_a_new_shoe() -> None:
    d = Dealer(vigorish_collection="deferred")
    d.open()
    d.play(["2H", "CUT", "9S", "3C", "KD"], wagers={4: {"banker": 100}})  # Banker 9 wins
    d.play(["2H", "9S", "3C", "KD"], wagers={4: {"banker": 40}})
    first = d.rounds()[0]
    assert first["natural"] is True  # the Banker's 9; the Player's 5 is not one
    assert first["seats"] == {
        "4": {"net": Decimal(95), "vigorish": Decimal(5), "vigorish_deferred": True}
    }
    (collected,) = d.io.of_type("vigorish_collected")
    assert collected["owed"] == {"4": Decimal(7)} and collected["section"] == "545.13(e)"
    kinds = [e["type"] for e in d.io.journal.entries]
    assert kinds.index("vigorish_collected") < kinds.index("shoe_end")


@pytest.mark.reg("545.13(e)", "543.13(e)")
@GAMES
def test_deferred_vigorish_is_collected_when_the_player_leaves(game: str) -> None:
    d = Dealer(game, vigorish_collection="deferred")
    d.open()
    d.play(["2H", "9S", "3C", "KD"], wagers={4: {"banker": 100}, 6: {"banker": 20}})
    d.table.handle(PlayerLeaves(4))  # between rounds, chips picked up
    (collected,) = d.io.of_type("vigorish_collected")
    assert collected["owed"] == {"4": Decimal(5)}
    d.table.handle(Wager(6, "player", 10))
    d.table.handle(PlayerLeaves(6))  # a wager still down: withdraw it first
    (refused,) = d.refusals()
    assert "still has wagers down" in str(refused)
    d.table.handle(Wager(6, "player", 0))
    d.table.handle(PlayerLeaves(6))
    assert [c["owed"] for c in d.io.of_type("vigorish_collected")] == [
        {"4": Decimal(5)},
        {"6": Decimal(1)},
    ]


# --------------------------------------------------------------------------- whole shoes


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), decks=st.integers(6, 8), face_up=st.integers(0, 40))
@pytest.mark.reg("545.10(d)", "545.11(b)", "545.11(c)", "545.12(a)")
def test_any_shoe_deals_by_the_rules_and_accounts_for_every_card(
    seed: int, decks: int, face_up: int
) -> None:
    rng = random.Random(seed)
    shoe = [r + s for r in "A23456789TJQK" for s in "SHDC"] * decks
    rng.shuffle(shoe)
    shoe.insert(len(shoe) - rng.randint(14, 60), "CUT")
    d = Dealer(decks=decks)
    d.table.handle(ManualShuffle())
    out: list[str] = []
    for i, token in enumerate(shoe):
        if d.need() is Need.WAGERS:
            if token != "CUT" and rng.random() < 0.05:
                d.card(token)  # drawn in error before "no more bets"
                out.append(token)
                continue
            d.table.handle(NoMoreBets())
        if d.need() is Need.SHUFFLE:
            break
        if token == "CUT":
            d.cards(["CUT"])
        else:
            d.card(token, face_up=(i % 50 == face_up))
            out.append(token)
    if d.need() is not Need.SHUFFLE:
        d.event(m.ShoeEmpty("shoe", d.id()))
    assert not d.io.of_type("internal_error") and not d.refusals()
    (end,) = d.io.of_type("shoe_end")
    used = tokens(end["burned"]) + tokens(end["discarded"])
    for r in d.rounds():
        player, banker = tokens(r["player"]), tokens(r["banker"])
        used += player + banker
        assert len(player) <= 3 and len(banker) <= 3
        if not r["void"]:
            assert next_to_draw(player, banker) is None
            assert r["result"] == result(player, banker)
            assert (r["player_total"], r["banker_total"]) == (point(player), point(banker))
    assert sorted(used) == sorted(out)  # each card out of the shoe exactly once


@pytest.mark.reg("545.9(d)", "543.9(c)")
@GAMES
def test_players_reveal_hands_the_cards_to_the_highest_wager(game: str) -> None:
    d = Dealer(game, dealing="players_reveal")
    d.open()
    # Seats 2 and 5 tie on the Player's Hand; nobody wagers on the Banker's Hand.
    d.play(["3S", "2D", "2C", "3H", "4D", "8C"], {2: {"player": 50}, 5: {"player": 50}})
    handed = [(e["hand"], e["seat"]) for e in d.io.of_type("cards_handed")]
    # Ruling proposed in the issue note: counterclockwise from the dealer starts at the
    # highest seat (R2 numbers seats from the dealer's far left), so seat 5 of the tie.
    assert handed == [("player", 5), ("banker", None), ("player", 5), ("banker", None)]
    assert "PLAYER TO SEAT 5" in d.io.shown and "BANKER FACE UP" in d.io.shown


@GAMES
def test_face_up_dealing_hands_no_cards(game: str) -> None:
    d = Dealer(game)
    d.open()
    d.play(["3S", "2D", "2C", "3H", "4D", "8C"], {2: {"player": 50}})
    assert d.io.of_type("cards_handed") == []


# --------------------------------------------------------------------------- cover cards


def deal_through(d: Dealer, shoe: list[str]) -> None:
    """Deal ``shoe`` round after round ("no more bets" whenever wagering is open) until
    the table needs new cards."""
    for token in shoe:
        if d.need() is Need.WAGERS:
            d.table.handle(NoMoreBets())
        if d.need() is Need.SHUFFLE:
            return
        d.cards([token])


@GAMES
@pytest.mark.reg("545.3(a)", "543.3(a)")
def test_a_third_cover_card_stops_play_and_ends_the_shoe(game: str) -> None:
    d = Dealer(game)
    d.open()
    d.play(["2H", "CUT", "6S", "7C", "JD"])
    d.cards(["CUT"])  # the other cover card: a shoe has two
    assert d.need() is Need.WAGERS and not d.io.of_type("halt")
    d.cards(["CUT"])
    (halt,) = d.io.of_type("halt")
    assert halt["cause"] == "extra_cover_card" and halt["section"] == f"{CH[game]}.3(a)"
    assert halt["ends_shoe"] is True
    d.table.handle(FloorClear())
    assert d.io.of_type("shoe_end")[0]["reason"] == "floorperson"
    assert len(d.io.of_type("cover_card")) == 2


@GAMES
@pytest.mark.parametrize("left", [13, 14])
@pytest.mark.reg("545.5(d)", "543.5(e)")
def test_the_cover_card_lies_at_least_14_cards_above_the_bottom(game: str, left: int) -> None:
    shoe = [r + s for r in "A23456789TJQK" for s in "SHDC"] * 6
    random.Random(left).shuffle(shoe)
    shoe.insert(len(shoe) - left, "CUT")
    d = Dealer(game, decks=6)
    d.table.handle(ManualShuffle())
    deal_through(d, shoe)
    assert d.need() is Need.SHUFFLE and d.io.of_type("shoe_end")[0]["reason"] == "last_hand"
    found = d.io.of_type("irregularity")
    if left >= 14:
        assert not found
    else:
        (irregular,) = found
        assert irregular["section"] == ("545.5(d)" if game == "baccarat" else "543.5(e)")
        assert "13 cards left" in str(irregular["reason"])


# --------------------------------------------------------------------------- definitions, values


@GAMES
@pytest.mark.reg("545.1", "543.1")
def test_the_table_calls_a_natural_only_an_8_or_9_on_the_first_two_cards(game: str) -> None:
    d = Dealer(game)
    d.open()
    d.play(["4S", "KD", "4H", "2C"])  # Player 8 in two cards
    d.play(["2S", "3D", "AH", "3C", "5D"])  # Player 3 draws a 5: 8 in three cards
    d.play(["5S", "9D", "KH", "JC"])  # Banker 9 in two cards
    assert [(r["natural"], r["player_total"], r["banker_total"]) for r in d.rounds()] == [
        (True, 8, 2),
        (False, 8, 6),
        (True, 5, 9),
    ]
    assert "PLAYER STAYS" not in d.io.shown[: d.io.shown.index("PLAYER 8 BANKER 2 PLAYER WINS")]


@GAMES
@pytest.mark.reg("545.6(a)", "545.6(b)", "543.6(a)", "543.6(b)")
def test_the_tables_point_counts_are_those_of_the_text(game: str) -> None:
    d = Dealer(game)
    d.open()
    # 545.6(b)(1): ace, 2 and 4 count 7; the king and queen count zero.
    d.play(["AS", "KD", "2H", "QC", "4D", "9C"])
    # 545.6(b)(2): ace, 2 and 9 total 12, a Point Count of 2; ten and 5 count 5.
    d.play(["AH", "TC", "2D", "5S", "9D"])
    assert [(r["player_total"], r["banker_total"], r["result"]) for r in d.rounds()] == [
        (7, 9, "banker"),
        (2, 5, "banker"),
    ]


@GAMES
@pytest.mark.reg("545.9(a)", "543.9(a)")
def test_every_round_is_two_hands_the_players_and_the_bankers(game: str) -> None:
    shoe = [r + s for r in "A23456789TJQK" for s in "SHDC"] * 8
    random.Random(9).shuffle(shoe)
    shoe.insert(len(shoe) - 20, "CUT")
    d = Dealer(game)
    d.table.handle(ManualShuffle())
    deal_through(d, shoe)
    rounds = d.rounds()
    assert len(rounds) > 50
    assert {e["hand"] for e in d.io.of_type("dealt")} == {"player", "banker"}
    for r in rounds:
        player, banker = tokens(r["player"]), tokens(r["banker"])
        assert 2 <= len(player) <= 3 and 2 <= len(banker) <= 3
        dealt = [(e["hand"], e["card"]) for e in d.io.of_type("dealt") if e["round"] == r["round"]]
        assert sorted(dealt) == sorted(
            [("player", c) for c in player] + [("banker", c) for c in banker]
        )
        assert r["result"] in ("player", "banker", "tie")


# --------------------------------------------------------------------------- third cards


@GAMES
@pytest.mark.reg("545.10(b)", "543.10(b)")
def test_the_counts_are_announced_before_any_third_card(game: str) -> None:
    d = Dealer(game)
    d.open()
    d.io.shown.clear()
    d.play(["3S", "2D", "2C", "3H"])
    after = d.io.shown[d.io.shown.index("NO MORE BETS") :]
    assert after[-3:] == ["PLAYER 5", "BANKER 5", "PLAYER DRAWS"] and d.need() is Need.CARD
    d.card("4D")
    assert d.io.shown[-1] == "BANKER DRAWS" and d.need() is Need.CARD
    d.card("8C")
    assert d.io.shown[d.io.shown.index("BANKER DRAWS") + 1] == "PLAYER 9 BANKER 3 PLAYER WINS"


# The Banker's two cards total ten or more, so the row is their Point Count (545.11(d));
# the Player's 7 and 8 count 5, so his third card's value and his Point Count differ.
BANKER_TWO = {3: ("6D", "7C"), 4: ("6C", "8D"), 5: ("7D", "8C"), 6: ("7H", "9D")}


@GAMES
@pytest.mark.parametrize("banker_point", [3, 4, 5, 6])
@pytest.mark.reg("545.11(d)", "545.11(e)", "545.11(f)", "543.11(d)", "543.11(e)", "543.11(f)")
def test_table_1_at_the_table_draws_on_d_and_stays_on_s(game: str, banker_point: int) -> None:
    for third in range(10):
        d = Dealer(game)
        d.open()
        third_card = ("K" if third == 0 else "A" if third == 1 else str(third)) + "S"
        b1, b2 = BANKER_TWO[banker_point]
        d.play(["7S", b1, "8H", b2, third_card])
        draws = TABLE_1[(banker_point, third)]
        assert (d.need() is Need.CARD) is draws, (banker_point, third)
        d.card("2C")  # the Banker's third card on D; the next hand's first card on S
        (end,) = d.rounds()
        assert len(tokens(end["banker"])) == 2 + draws
        assert bool(d.io.of_type("irregularity")) is not draws


# --------------------------------------------------------------------------- money


@GAMES
@pytest.mark.reg("545.12(b)", "543.12(b)")
def test_losing_wagers_are_collected_then_winners_paid_from_the_highest_seat(game: str) -> None:
    d = Dealer(game)
    d.open()
    wagers = {
        1: {"banker": 5},
        2: {"player": 10},
        4: {"banker": 10, "tie": 5},
        7: {"tie": 5},
        9: {"banker": 20},
    }
    d.play(["2H", "9S", "3C", "KD"], wagers)  # the Banker wins
    d.play(["4S", "3C", "3H", "4D"], {2: {"player": 10}, 7: {"tie": 5}, 9: {"banker": 20}})
    first, tie = d.io.of_type("settlement")
    section = f"{CH[game]}.12(b)"
    assert first == {
        "type": "settlement",
        "round": 1,
        "collect": [2, 4, 7],
        "pay": [9, 4, 1],
        "section": section,
    }
    assert (tie["collect"], tie["pay"]) == ([], [7])  # Player and Banker wagers are returned
    kinds = [e["type"] for e in d.io.journal.entries]
    assert kinds[kinds.index("round_end") + 1] == "settlement"


@GAMES
@pytest.mark.parametrize("commission", [4, 5])
@pytest.mark.reg("545.13(f)", "543.13(g)")
def test_one_vigorish_percentage_for_every_player_at_the_table(game: str, commission: int) -> None:
    d = Dealer(game, commission=commission)
    d.open()
    amounts = {1: 10, 5: 25, 9: 100}
    d.play(["2H", "9S", "3C", "KD"], {seat: {"banker": a} for seat, a in amounts.items()})
    seats = d.rounds()[0]["seats"]
    assert isinstance(seats, dict)
    rate = Decimal(commission) / 100
    assert {int(s): v["vigorish"] for s, v in seats.items()} == {
        s: a * rate for s, a in amounts.items()
    }


@pytest.mark.reg("543.13(g)", "543.13(f)")
def test_the_25_percent_tie_vigorish_is_charged_to_every_banker_wager() -> None:
    d = Dealer("midibaccarat", vigorish="tie_25")
    d.open()
    d.play(["4S", "3C", "3H", "4D"], {1: {"banker": 10}, 5: {"banker": 40}, 9: {"player": 8}})
    seats = d.rounds()[0]["seats"]
    assert isinstance(seats, dict)
    assert {s: v["vigorish"] for s, v in seats.items()} == {
        "1": Decimal("2.5"),
        "5": Decimal(10),
        "9": Decimal(0),
    }


@GAMES
@pytest.mark.reg("545.8(a)", "543.8(a)")
def test_the_table_takes_and_settles_only_the_three_wagers_of_the_text(game: str) -> None:
    d = Dealer(game)
    d.open()
    d.table.handle(Wager(1, "dragon", 10))
    assert d.refusals()[-1]["section"] == f"{CH[game]}.8(a)"
    bets = {1: {"banker": 10}, 2: {"player": 10}, 3: {"tie": 10}}
    d.play(["2H", "9S", "3C", "KD"], bets)  # the Banker's Hand wins
    d.play(["9H", "2C", "KD", "3S"], bets)  # the Player's Hand wins
    d.play(["4S", "3C", "3H", "4D"], bets)  # equal Point Counts
    nets = [
        {int(s): v["net"] for s, v in r["seats"].items()}  # type: ignore[union-attr]
        for r in d.rounds()
    ]
    assert nets == [
        {1: Decimal("9.5"), 2: Decimal(-10), 3: Decimal(-10)},
        {1: Decimal(-10), 2: Decimal(10), 3: Decimal(-10)},
        {1: Decimal(0), 2: Decimal(0), 3: Decimal(80)},
    ]
