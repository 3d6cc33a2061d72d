"""Spanish 21 wagering, players and shuffling options at the table: a player's boxes
(551.14), sitting out a round (551.6(k)), wagers fixed once the round is dealt
(551.6(d), (i), (j)), the continuous shuffling device (551.15), and the floorperson's
reshuffle and recut (551.5(a), (f), (g)). Each test cites the subsection it proves."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import invariant, rule

from controller.rules.options import RulesError
from controller.rules.spanish21 import Spanish21Rules
from controller.table.events import (
    DealersCard,
    ManualShuffle,
    Need,
    NewDealer,
    NoMoreBets,
    PermitWagering,
    Recut,
    Reshuffle,
    Wager,
)
from controller.table.spanish21 import Spanish21Table
from drivers import messages as m
from tests.support.spanish21 import Dealer, Spanish21Machine, box

SPANISH_DECKS = 6 * 48


def refused(d: Dealer, before: int) -> list[tuple[object, object]]:
    """The (section, command) of each refusal since ``before`` refusals."""
    return [(r["section"], r["command"]) for r in d.refusals()[before:]]


def stake(d: Dealer, seat: int, amount: int, player: str | None = None) -> int:
    """Wager on a box; 1 if the table refused it, else 0."""
    before = len(d.refusals())
    d.do(Wager(seat, "spanish21", amount, player))
    return len(d.refusals()) - before


def play_round(d: Dealer, players: dict[int, str | None], then: Need = Need.WAGERS) -> None:
    """A round on ``players``' boxes (None: the box's unnamed player): 9 up, every box
    stands on 17, the dealer stands on 17 (no peek behind a 9); ``then``: what the
    table needs after it."""
    for seat, player in players.items():
        assert stake(d, seat, 10, player) == 0, d.last_refusal()
    d.do(NoMoreBets())
    n = len(players)
    d.cards(["9C"] * n + ["9D"] + ["8C"] * n + ["8D"])
    for seat in sorted(players):
        d.decide(seat, "stand")
    d.do(DealersCard())
    assert d.need() is then, d.need()


# --------------------------------------------------------------------------- 551.14


@pytest.mark.reg("551.14")
def test_a_player_wagers_on_no_more_adjacent_boxes_than_the_rules_allow() -> None:
    d = Dealer(boxes_per_player=2)
    d.open()
    assert stake(d, 3, 10, "ann") == 0
    assert stake(d, 5, 10, "ann") == 1  # not next to box 3
    assert d.last_refusal()["section"] == "551.14"
    assert "adjacent" in str(d.last_refusal()["reason"])
    assert stake(d, 4, 10, "ann") == 0
    assert stake(d, 2, 10, "ann") == 1  # a third box
    assert d.last_refusal()["section"] == "551.14"
    assert "at most 2" in str(d.last_refusal()["reason"])
    assert stake(d, 3, 20, "ann") == 0  # her own box, a new amount
    assert stake(d, 4, 10, "bob") == 1  # ann's box
    assert d.last_refusal()["section"] == "551.2(b)(2)"
    assert stake(d, 5, 10, "bob") == 0
    d.do(Wager(5, "match_the_dealer", 5, "ann"))
    assert d.last_refusal()["section"] == "551.7(b)"  # on bob's wager
    wagers = [(e["box"], e.get("player"), e["amount"]) for e in d.io.of_type("wager")]
    assert wagers == [(3, "ann", 10), (4, "ann", 10), (3, "ann", 20), (5, "bob", 10)]


@pytest.mark.reg("551.14")
def test_a_withdrawal_may_not_leave_a_players_boxes_apart() -> None:
    d = Dealer(boxes_per_player=3)
    d.open()
    for seat in (3, 4, 5):
        assert stake(d, seat, 10, "ann") == 0
    assert stake(d, 4, 0, "ann") == 1
    assert d.last_refusal()["section"] == "551.14"
    assert stake(d, 5, 0) == 0  # the box's own player: ann
    assert stake(d, 4, 0) == 0
    assert stake(d, 5, 10, "bob") == 0  # a box given up is anyone's
    d.do(NoMoreBets())
    d.cards(["9C", "9C", "9D", "8C", "8C", "8D"])
    assert sorted(b for b in range(1, 8) if d.table.hands_of(b)) == [3, 5]


@pytest.mark.reg("551.14")
def test_by_default_a_player_holds_one_box_and_an_unnamed_box_is_its_own_player() -> None:
    d = Dealer()  # ruling R8: one box, the least a Rules Submission can allow
    d.open()
    assert stake(d, 3, 10, "ann") == 0
    assert stake(d, 4, 10, "ann") == 1
    assert d.last_refusal()["section"] == "551.14"
    for seat in (1, 2, 4, 5, 6, 7):
        assert stake(d, seat, 10) == 0  # existing callers: each box its own player
    assert not d.io.of_type("wager")[-1].get("player")
    d.do(Wager(3, "spanish21", 10, ""))
    assert d.last_refusal()["section"] == "551.14"


@pytest.mark.reg("551.14", "551.6(h)")
def test_the_fifty_dollars_go_to_the_other_players_not_to_the_winners_other_box() -> None:
    def round_with(players: dict[int, str | None]) -> dict[str, Any]:
        d = Dealer(boxes_per_player=2)
        d.open()
        for seat, player in players.items():
            assert stake(d, seat, 25, player) == 0
        d.do(NoMoreBets())
        # Boxes 1, 2, 4; the dealer's 7 up; box 1 hits its 7-7 to three 7s of hearts.
        d.cards(["7H", "9S", "9D", "7C", "7H", "8S", "9C", "QD"])
        d.decide(1, "hit")
        d.cards(["7H"])
        d.decide(2, "stand")
        d.decide(4, "stand")
        d.do(DealersCard())
        (end,) = d.rounds()
        assert box(end, 1)["hands"][0]["net"] == 25 * 2 + 5000
        return end

    named = round_with({1: "ann", 2: "ann", 4: "bob"})
    assert named["others_bonus"] == {"bob": 50}
    unnamed = round_with({1: None, 2: None, 4: None})
    assert unnamed["others_bonus"] == {"2": 50, "4": 50}


# --------------------------------------------------------------------------- 551.6(k)


@pytest.mark.reg("551.6(k)", "551.6(k)(1)")
def test_who_sits_out_a_round_waits_until_a_floorperson_lets_him_back() -> None:
    d = Dealer(no_mid_shoe_entry=True)
    d.open()
    play_round(d, {1: "ann", 2: "bob", 5: None})
    play_round(d, {1: "ann"})
    before = len(d.refusals())
    assert stake(d, 2, 10, "bob") == 1  # sat out round 2
    assert stake(d, 3, 10, "cy") == 1  # new to the table: "any person"
    assert stake(d, 5, 10) == 1  # box 5's unnamed player sat out too
    assert refused(d, before) == [("551.6(k)", "wager")] * 3
    assert stake(d, 1, 10, "ann") == 0  # played every round
    d.do(PermitWagering("bob"))
    (permit,) = d.io.of_type("wagering_permitted")
    assert permit["player"] == "bob" and permit["section"] == "551.6(k)(1)"
    assert stake(d, 2, 10, "bob") == 0
    d.do(PermitWagering("ann"))
    assert d.last_refusal()["section"] == "551.6(k)"  # she is not barred
    d.do(NoMoreBets())
    d.cards(["9C", "9C", "9D", "8C", "8C", "8D"])
    d.do(PermitWagering("5"))  # during the round: for the next one
    d.decide(1, "stand")
    d.decide(2, "stand")
    d.do(DealersCard())
    assert stake(d, 5, 10) == 0 and stake(d, 2, 10, "bob") == 0
    assert stake(d, 3, 10, "cy") == 1


@pytest.mark.reg("551.6(k)", "551.6(k)(1)")
def test_a_permit_not_used_lapses_with_the_round_it_was_for() -> None:
    d = Dealer(no_mid_shoe_entry=True)
    d.open()
    play_round(d, {1: "ann"})
    d.do(PermitWagering("bob"))
    play_round(d, {1: "ann"})  # bob let in, but he does not wager
    assert stake(d, 2, 10, "bob") == 1
    assert d.last_refusal()["section"] == "551.6(k)"


@pytest.mark.reg("551.6(k)(2)", "551.5(g)")
def test_a_reshuffle_lets_everyone_wager_again() -> None:
    d = Dealer(no_mid_shoe_entry=True)
    d.open()
    play_round(d, {1: "ann", 2: "bob"})
    play_round(d, {1: "ann"})
    assert stake(d, 2, 10, "bob") == 1
    d.do(Reshuffle())
    d.do(ManualShuffle())
    d.card("4S")  # the burn
    assert stake(d, 2, 10, "bob") == 0 and stake(d, 3, 10, "cy") == 0


@pytest.mark.reg("551.6(k)")
def test_without_the_option_anyone_may_wager_on_any_round() -> None:
    d = Dealer()
    d.open()
    play_round(d, {1: "ann", 2: "bob"})
    play_round(d, {1: "ann"})
    assert stake(d, 2, 10, "bob") == 0 and stake(d, 3, 10, "cy") == 0
    d.do(PermitWagering("bob"))
    assert d.last_refusal()["section"] == "551.6(k)"
    assert not d.io.of_type("wagering_permitted")


# --------------------------------------------------------------------------- 551.6(d), (i), (j)


@pytest.mark.reg("551.6(a)", "551.6(d)", "551.7(b)", "551.8(d)(1)")
def test_wagers_are_taken_until_the_first_card_even_after_the_deal_is_called() -> None:
    d = Dealer()
    d.open()
    assert stake(d, 4, 10) == 0
    d.do(NoMoreBets())
    assert stake(d, 2, 10) == 0  # no card is out yet
    d.do(Wager(2, "match_the_dealer", 5))
    assert stake(d, 4, 0) == 0
    assert not d.refusals()
    d.cards(["9C", "9D", "8C", "8D"])
    assert d.table.hands_of(2) and not d.table.hands_of(4)
    (mtd,) = d.io.of_type("match_the_dealer")
    assert mtd["box"] == 2
    # The last wager withdrawn before the first card: there is no round to deal.
    d.decide(2, "stand")
    d.do(DealersCard())
    assert stake(d, 6, 10) == 0
    d.do(NoMoreBets())
    assert stake(d, 6, 0) == 0
    (off,) = d.io.of_type("deal_called_off")
    assert off["section"] == "551.8(d)(1)" and d.need() is Need.WAGERS
    d.card("5S")  # drawn with no round to deal: held as the next card (551.16(c))
    assert len(d.io.of_type("dealt")) == 4
    assert d.io.of_type("irregularity")[-1]["section"] == "551.16(c)"


@pytest.mark.reg("551.6(d)", "551.6(i)", "551.7(b)")
def test_no_wager_is_made_increased_or_withdrawn_after_the_first_card() -> None:
    d = Dealer()
    d.open()
    d.do(Wager(1, "spanish21", 10))
    d.do(Wager(1, "match_the_dealer", 5))
    d.do(NoMoreBets())
    d.cards(["9C"])  # the first card of the round
    before = len(d.refusals())
    d.do(Wager(3, "spanish21", 10))  # made
    d.do(Wager(1, "spanish21", 20))  # increased
    d.do(Wager(1, "spanish21", 0))  # withdrawn
    d.do(Wager(1, "match_the_dealer", 0))  # not settled yet
    assert refused(d, before) == [
        ("551.6(d)", "wager"),
        ("551.6(i)", "wager"),
        ("551.6(i)", "wager"),
        ("551.6(i)", "wager"),
    ]
    d.cards(["9D", "8C", "8D"])
    d.do(Wager(1, "match_the_dealer", 5))  # settled: a new one would be made now
    assert d.last_refusal()["section"] == "551.6(d)"
    d.decide(1, "stand")
    d.do(DealersCard())
    (end,) = d.rounds()
    assert box(end, 1)["hands"][0]["net"] == 0  # 17 against 17, on the 10 wagered


@pytest.mark.reg("551.6(j)", "551.10(b)", "551.11(d)")
def test_confirmed_insurance_double_and_split_wagers_are_not_altered() -> None:
    d = Dealer()
    d.open()
    d.deal({1: 10, 2: 10, 3: 10}, ["5C", "8S", "9H", "AD", "6C", "8D", "9S", "5S"])
    d.do(Wager(1, "insurance", 5))
    before = len(d.refusals())
    d.do(Wager(1, "insurance", 2))
    d.do(Wager(1, "insurance", 0))
    assert refused(d, before) == [("551.6(j)", "wager")] * 2
    d.insert(blackjack=False)
    d.do(Wager(1, "insurance", 0))  # after the peek: still confirmed
    assert d.last_refusal()["section"] == "551.6(j)"
    d.decide(1, "double")
    d.cards(["9D"])  # 20
    d.do(Wager(1, "spanish21", 0))
    assert d.last_refusal()["section"] == "551.6(j)"
    assert "Double Down" in str(d.last_refusal()["reason"])
    d.decide(1, "rescue")  # 551.11(d): the one alteration the chapter allows
    assert d.io.of_type("decision")[-1]["decision"] == "rescue"
    d.decide(2, "split")
    d.do(Wager(2, "spanish21", 5))
    assert d.last_refusal()["section"] == "551.6(j)"
    assert "split" in str(d.last_refusal()["reason"])
    d.cards(["2C"])
    d.decide(2, "stand")
    d.cards(["3C"])
    d.decide(2, "stand")
    d.decide(3, "stand")
    d.do(DealersCard())
    d.cards(["4C"])  # 17 + 4: the dealer's 21 in three cards
    (end,) = d.rounds()
    assert box(end, 1)["insurance_net"] == -5
    assert [h["outcome"] for h in box(end, 1)["hands"]] == ["rescue"]
    assert len(box(end, 2)["hands"]) == 2


# --------------------------------------------------------------------------- 551.15


def device_shuffle(d: Dealer, count: int = SPANISH_DECKS) -> None:
    d.event(m.ShuffleCompleted("shuffler", d.id(), count))


@pytest.mark.reg("551.15")
def test_a_continuous_shuffler_shuffles_before_every_round_without_cut_or_burn() -> None:
    d = Dealer(continuous_shuffler=True)
    d.inspect()
    d.event(m.ShufflerAttached("shuffler", d.id()))
    d.do(ManualShuffle())
    d.event(m.ShufflerRemoved("shuffler", d.id()))
    d.do(ManualShuffle())
    assert d.last_refusal()["section"] == "551.15"  # the device shuffles, nothing else
    d.card("9C")
    assert d.last_refusal()["section"] == "551.15"
    device_shuffle(d)
    assert d.need() is Need.WAGERS  # no cutting card to insert, no burn card
    assert d.io.of_type("shuffled")[-1]["section"] == "551.15"
    d.do(Recut())
    assert d.last_refusal()["section"] == "551.15"
    d.do(Wager(1, "spanish21", 10))
    d.do(NoMoreBets())
    d.cards(["9C", "9D", "8C"])
    d.event(m.CutCardSeen("shoe", d.id()))
    assert d.last_refusal()["section"] == "551.15"
    d.cards(["8D"])
    d.decide(1, "stand")
    d.do(DealersCard())
    # The round's cards go back to the device, which confirms them all before the next.
    (shoe,) = d.io.of_type("shoe_end")
    assert shoe["reason"] == "continuous_shuffler" and shoe["burned"] == []
    assert d.need() is Need.SHUFFLE and "CARDS TO THE SHUFFLER" in d.io.shown
    d.do(Wager(1, "spanish21", 10))
    assert d.last_refusal()["section"] == "551.6(a)"
    device_shuffle(d, SPANISH_DECKS - 4)  # four cards not back in the device
    assert d.last_refusal()["section"] == "551.3(a)" and d.need() is Need.SHUFFLE
    device_shuffle(d)
    play_round(d, {2: None}, then=Need.SHUFFLE)
    assert [s["reason"] for s in d.io.of_type("shoe_end")] == ["continuous_shuffler"] * 2
    assert not d.io.of_type("burn")


@pytest.mark.reg("551.15", "551.8(e)", "551.16(a)")
def test_a_continuous_shuffler_round_ends_at_the_device_whatever_ends_it() -> None:
    d = Dealer(continuous_shuffler=True)
    d.inspect()
    device_shuffle(d)
    d.deal({1: 10}, ["9C", "AD", "8C", "KS"])
    d.insert(blackjack=True)  # the peek ends the round
    assert d.io.of_type("shoe_end")[-1]["reason"] == "continuous_shuffler"
    assert d.need() is Need.SHUFFLE
    device_shuffle(d)
    d.deal({1: 10}, ["9C"])
    d.card("4H", face_up=True)
    d.card("5H", face_up=True)  # a second face-up card voids the round
    (_, void) = d.rounds()
    assert void["void"] is True
    assert d.io.of_type("shoe_end")[-1]["reason"] == "face_up" and d.need() is Need.SHUFFLE


@pytest.mark.reg("551.15", "551.6(k)(2)")
def test_with_a_continuous_shuffler_every_round_follows_a_reshuffle() -> None:
    d = Dealer(continuous_shuffler=True, no_mid_shoe_entry=True)
    d.inspect()
    device_shuffle(d)
    play_round(d, {1: "ann", 2: "bob"}, then=Need.SHUFFLE)
    device_shuffle(d)
    play_round(d, {1: "ann"}, then=Need.SHUFFLE)
    device_shuffle(d)
    assert stake(d, 2, 10, "bob") == 0  # the device reshuffled after round 2


@pytest.mark.reg("551.15")
@pytest.mark.parametrize("value", [1, "yes", None])
def test_the_continuous_shuffler_option_is_true_or_false(value: object) -> None:
    with pytest.raises(RulesError, match=r"^rules\.continuous_shuffler: .*\(551\.15\)$"):
        Spanish21Rules.from_dict({"continuous_shuffler": value})


@pytest.mark.reg("551.6(k)", "551.14")
@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"no_mid_shoe_entry": "on"}, r"^rules\.no_mid_shoe_entry: .*\(551\.6\(k\)\)$"),
        ({"boxes_per_player": "2"}, r"^rules\.boxes_per_player: .*\(551\.14\)$"),
        ({"boxes_per_player": True}, r"^rules\.boxes_per_player: .*\(551\.14\)$"),
        ({"boxes_per_player": -1}, r"^rules\.boxes_per_player: .*\(551\.14, 551\.2\(b\)\(2\)\)$"),
    ],
)
def test_options_the_chapter_forbids_are_rejected(options: dict[str, object], message: str) -> None:
    with pytest.raises(RulesError, match=message):
        Spanish21Rules.from_dict(options)


@pytest.mark.reg("551.14")
def test_every_box_of_the_layout_may_be_one_players() -> None:
    d = Dealer(boxes_per_player=7)
    d.open()
    assert [stake(d, seat, 10, "ann") for seat in range(1, 8)] == [0] * 7


# --------------------------------------------------------------------------- 551.5


@pytest.mark.reg("551.5(a)", "551.5(g)")
def test_a_floorperson_may_have_the_cards_reshuffled_after_any_round() -> None:
    d = Dealer()
    d.open()
    d.do(Reshuffle())
    assert d.last_refusal()["section"] == "551.5(g)"  # no round since the shuffle
    d.deal({1: 10}, ["9C"])
    d.do(Reshuffle())
    assert d.last_refusal()["section"] == "551.5(g)"  # the round is in play
    d.cards(["9D", "8C", "8D"])
    d.decide(1, "stand")
    d.do(DealersCard())
    assert stake(d, 3, 10) == 0  # for the next round
    d.do(Reshuffle())
    (required,) = d.io.of_type("reshuffle_required")
    assert required["section"] == "551.5(g)" and required["rounds"] == 1
    (shoe,) = d.io.of_type("shoe_end")
    assert shoe["reason"] == "reshuffle" and d.need() is Need.SHUFFLE
    d.do(Reshuffle())
    assert d.last_refusal()["section"] == "551.5(g)"  # due already
    d.do(ManualShuffle())
    d.card("4S")
    d.do(NoMoreBets())  # the wager placed before the reshuffle rides
    d.cards(["9C", "9D", "8C", "8D"])
    assert d.table.hands_of(3) and d.table.shoe_number == 2


@pytest.mark.reg("551.5(a)", "551.5(g)")
def test_a_reshuffle_may_follow_a_round_while_a_new_dealer_burns() -> None:
    d = Dealer()
    d.open()
    play_round(d, {1: None})
    d.do(NewDealer())
    d.do(Reshuffle())
    assert d.io.of_type("shoe_end")[-1]["reason"] == "reshuffle" and d.need() is Need.SHUFFLE


@pytest.mark.reg("551.5(f)", "551.8(c)")
def test_a_floorperson_may_have_the_cards_recut_before_any_card_is_dealt() -> None:
    d = Dealer()
    d.inspect()
    d.do(Recut())
    assert d.last_refusal()["section"] == "551.5(f)"  # nothing is cut yet
    d.do(ManualShuffle())
    d.do(Recut())  # before the burn
    d.card("4S")
    d.do(Recut())  # after the burn, before any round: the recut stack is burned too
    assert d.need() is Need.CARD
    d.card("5S")
    burns = [(b["card"], b["reason"]) for b in d.io.of_type("burn")]
    assert burns == [("4S", "recut"), ("5S", "recut")]
    assert [r["section"] for r in d.io.of_type("recut")] == ["551.5(f)"] * 2
    d.deal({1: 10}, ["9C"])
    d.do(Recut())
    assert d.last_refusal()["section"] == "551.5(f)"  # a card is dealt
    d.cards(["9D", "8C", "8D"])
    d.decide(1, "stand")
    d.do(DealersCard())
    d.do(Recut())
    assert d.last_refusal()["section"] == "551.5(f)"
    assert d.table.shoe_number == 1 and not d.io.of_type("shoe_end")


@pytest.mark.reg("551.5(f)", "551.16(c)")
def test_no_recut_once_a_card_has_been_drawn_for_play() -> None:
    d = Dealer()
    d.open()
    d.card("7S")  # drawn in error: used as the next card (551.16(c))
    d.do(Recut())
    assert d.last_refusal()["section"] == "551.5(f)"


# --------------------------------------------------------------------------- invariants

PLAYERS = ("ann", "bob", "cy")


class OptionsMachine(Spanish21Machine):
    """The Spanish 21 machine's dealer and irregularities, at a table with the player
    options on, fed named wagers and the floorperson's reshuffles, recuts and permits."""

    RULES: ClassVar[Mapping[str, object]] = {"boxes_per_player": 2, "no_mid_shoe_entry": True}

    def __init__(self) -> None:
        super().__init__()
        self.d.table = Spanish21Table(
            Spanish21Rules.from_dict(self.RULES), self.ops, self.ops, gaming_day=lambda: self.d.day
        )
        self.ops.table = self.d.table

    def step(self, data: st.DataObject) -> None:
        """Wagers by named players (and unnamed boxes), several to a player, some
        withdrawn; the rest as the Spanish 21 machine's dealer does it."""
        if self.table.need is not Need.WAGERS:
            super().step(data)
            return
        seat, player = st.integers(1, 7), st.sampled_from((*PLAYERS, None))
        wagers = st.lists(st.tuples(seat, player, st.sampled_from([0, 10, 20])), max_size=6)
        for box_, who, amount in data.draw(wagers):
            self.d.do(Wager(box_, "spanish21", amount, who))
        self.d.do(NoMoreBets())
        self.deliver()

    @rule(command=st.sampled_from([Reshuffle(), Recut(), *map(PermitWagering, PLAYERS)]))
    def floorperson(self, command: Any) -> None:
        self.d.do(command)
        self.deliver()

    @invariant()
    def a_players_boxes_are_adjacent_and_within_the_limit(self) -> None:
        """Read from the journal alone: each wager line names a named player's wager."""
        owner: dict[int, str] = {}
        for entry in self.entries:
            if entry["type"] == "wager" and entry["bet"] == "spanish21":
                seat = int(str(entry["box"]))
                if entry["amount"]:
                    owner[seat] = str(entry.get("player", seat))
                else:
                    owner.pop(seat, None)
            elif entry["type"] in ("round_end", "wagers_returned"):
                owner = {}
        mine: dict[str, list[int]] = {}
        for seat, player in sorted(owner.items()):
            mine.setdefault(player, []).append(seat)
        for seats in mine.values():
            assert len(seats) <= self.table.rules.boxes_per_player
            assert seats[-1] - seats[0] == len(seats) - 1


class ContinuousMachine(OptionsMachine):
    """The same with a continuous shuffling device: the device's shuffle stands in for
    the dealer's; the table never waits on a cutting card or burns a batch's first card."""

    RULES: ClassVar[Mapping[str, object]] = {"continuous_shuffler": True, "no_mid_shoe_entry": True}

    def step(self, data: st.DataObject) -> None:
        if self.table.need is Need.SHUFFLE:
            self.d.event(m.ShuffleCompleted("shuffler", self.d.id(), SPANISH_DECKS))
            self.deliver()
        else:
            super().step(data)

    @invariant()
    def every_round_is_shuffled_by_the_device_alone(self) -> None:
        types = [e["type"] for e in self.entries]
        assert "cutting_card" not in types
        assert all(e["reason"] == "new dealer" for e in self.ops.of_type("burn"))
        ends = self.ops.of_type("shoe_end")
        assert all(e["rounds"] <= 1 for e in ends)


_settings = settings(max_examples=40, stateful_step_count=50, deadline=None)
OptionsMachine.TestCase.settings = _settings
ContinuousMachine.TestCase.settings = _settings
test_player_options_invariants = pytest.mark.reg("551.14", "551.6(k)", "551.5(g)")(
    OptionsMachine.TestCase
)
test_continuous_shuffler_invariants = pytest.mark.reg("551.15")(ContinuousMachine.TestCase)
