"""Baccarat (ch. 545) and Midibaccarat (ch. 543) rules: values, drawing, announcements,
Rules Submission options and settlement, each test marked with the section it proves."""

from __future__ import annotations

import json
from decimal import Decimal
from itertools import product
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.rules.baccarat import (
    CARDS,
    LAST_HAND,
    NO_MORE_BETS,
    BaccaratRules,
    Offer,
    Outcome,
    RulesError,
    Settlement,
    VigorishLedger,
    WagerError,
    announcements,
    banker_draws,
    burn_count,
    clockwise,
    collection_order,
    counterclockwise,
    curator_passes,
    cut_order,
    face_up_discard_count,
    initial_order,
    is_natural,
    next_to_draw,
    payment_order,
    player_draws,
    point,
    result,
    round_vigorish,
    settle,
    shoe_order,
    value,
)
from controller.rules.cards import CUT, CardError, deck
from tests.support.baccarat import GAMES, TABLE_1
from tests.support.paths import EXAMPLES

ZERO = "TJQK"


def with_value(v: int, suit: str = "S") -> str:
    """A card of value v (545.6(a))."""
    return ("K" if v == 0 else "A" if v == 1 else str(v)) + suit


def hand(points: int) -> list[str]:
    """Two cards with this Point Count."""
    return [with_value(points), "TH"]


def deal(cards: list[str]) -> tuple[list[str], list[str]]:
    """Deal a round from ``cards`` with next_to_draw."""
    source = iter(cards)
    player: list[str] = []
    banker: list[str] = []
    while (h := next_to_draw(player, banker)) is not None:
        (player if h == "player" else banker).append(next(source))
    return player, banker


def rules(game: str = "baccarat", **options: Any) -> BaccaratRules:
    return BaccaratRules.from_dict(game, options)


# --------------------------------------------------------------------------- values


@pytest.mark.reg("545.6(a)", "543.6(a)")
@pytest.mark.parametrize(
    ("token", "expected"),
    [("AS", 1), ("2H", 2), ("5D", 5), ("9C", 9), ("TS", 0), ("JH", 0), ("QD", 0), ("KC", 0)],
)
def test_card_values(token: str, expected: int) -> None:
    # 545.6(a), 543.6(a)
    assert value(token) == expected


@pytest.mark.reg("545.6(a)")
def test_ten_written_10_is_accepted_and_a_cut_card_has_no_value() -> None:
    assert value("10D") == 0
    with pytest.raises(CardError):
        value(CUT)


@pytest.mark.reg("545.6(b)", "543.6(b)")
def test_point_count_examples_of_the_text() -> None:
    # 545.6(b)(1), (2) and 543.6(b)(1), (2)
    assert point(["AS", "2H", "4D"]) == 7
    assert point(["AS", "2H", "9D"]) == 2
    assert point(["KS", "QH"]) == 0


@pytest.mark.reg("545.1", "543.1")
def test_natural_is_eight_or_nine_on_the_first_two_cards() -> None:
    # 545.1, 543.1 "Natural"
    assert is_natural(["4S", "4H"])
    assert is_natural(["KS", "9H"])
    assert not is_natural(["7S", "KH"])
    assert not is_natural(["4S", "2H", "2D"])  # 8 in three cards is no Natural


# --------------------------------------------------------------------------- burn


@pytest.mark.reg("545.5(f)")
@pytest.mark.parametrize("r", list("A23456789TJQK"))
def test_burn_counts_ten_count_cards_as_ten(r: str) -> None:
    # 545.5(f), 543.5(g): face value, 10/J/Q/K ten and an ace one - unlike 545.6(a).
    expected = 10 if r in ZERO else 1 if r == "A" else int(r)
    assert burn_count(r + "S") == expected


@pytest.mark.reg("545.15(d)")
@pytest.mark.parametrize(("token", "expected"), [("KS", 0), ("TD", 0), ("AH", 1), ("7C", 7)])
def test_card_found_face_up_takes_its_point_value_in_extra_cards(token: str, expected: int) -> None:
    # 545.15(d), 543.14(d) say "the value of the card", which 545.6(a) makes zero for a
    # ten-count card; the burn (545.5(f)) alone counts it as ten. Text over practice.
    assert face_up_discard_count(token) == expected


# --------------------------------------------------------------------------- drawing


@pytest.mark.reg("545.9(c)")
def test_first_four_cards_go_player_banker_player_banker() -> None:
    # 545.9(c), 543.9(c)
    assert initial_order() == ("player", "banker", "player", "banker")
    assert next_to_draw([], []) == "player"
    assert next_to_draw(["2S"], []) == "banker"
    assert next_to_draw(["2S"], ["3S"]) == "player"
    assert next_to_draw(["2S", "4S"], ["3S"]) == "banker"


@pytest.mark.reg("545.11(c)(2)(iii)")
@pytest.mark.parametrize(("banker_point", "third"), sorted(TABLE_1))
def test_table_1_cell_by_cell(banker_point: int, third: int) -> None:
    # 545.11(c)(2)(iii), (d)-(g) and 543.11(c)(2)(iii): every ten-count card as the
    # Player's third card is value 0 (545.11(e): its value, not the Player's count).
    thirds = [r + "C" for r in ZERO] if third == 0 else [with_value(third, "C")]
    for card in thirds:
        assert banker_draws(hand(banker_point), card) is TABLE_1[(banker_point, third)]


@pytest.mark.reg("545.11(g)")
def test_the_example_of_545_11_g() -> None:
    # Banker's Hand 5 against a Player's third card of 4: draw.
    assert banker_draws(["2D", "3H"], "4D")


@pytest.mark.reg("545.11(c)(2)(i)")
@pytest.mark.parametrize(("banker_point", "third"), list(product(range(3), range(10))))
def test_banker_under_three_draws_whatever_the_third_card(banker_point: int, third: int) -> None:
    assert banker_draws(hand(banker_point), with_value(third))


@pytest.mark.reg("545.11(c)(2)(ii)")
@pytest.mark.parametrize("third", range(10))
def test_banker_seven_stays_whatever_the_third_card(third: int) -> None:
    assert not banker_draws(hand(7), with_value(third))


@pytest.mark.reg("545.11(c)(1)")
@pytest.mark.parametrize("banker_point", range(8))
def test_banker_draws_on_five_or_less_when_the_player_stayed(banker_point: int) -> None:
    assert banker_draws(hand(banker_point), None) is (banker_point <= 5)


@pytest.mark.reg("545.11(b)")
@pytest.mark.parametrize(("player_point", "banker_point"), list(product(range(8), range(8))))
def test_player_draws_under_six_and_stays_on_six_or_seven(
    player_point: int, banker_point: int
) -> None:
    assert player_draws(hand(player_point), hand(banker_point)) is (player_point < 6)


@pytest.mark.reg("545.11(a)")
@pytest.mark.parametrize(
    ("player_point", "banker_point"),
    [(p, b) for p, b in product(range(10), range(10)) if max(p, b) >= 8],
)
def test_a_natural_on_either_side_ends_the_deal(player_point: int, banker_point: int) -> None:
    player, banker = hand(player_point), hand(banker_point)
    assert not player_draws(player, banker)
    assert next_to_draw(player, banker) is None


def _banker_by_text(banker_point: int, third: int | None) -> bool:
    """545.11(c) read straight from the text, with Table 1 parsed above."""
    if third is None:
        return banker_point <= 5
    if banker_point < 3:
        return True
    if banker_point == 7:
        return False
    return TABLE_1[(banker_point, third)]


@pytest.mark.reg("545.11(a)", "545.11(b)", "545.11(c)", "545.11(e)")
def test_next_to_draw_for_every_combination_of_values() -> None:
    # Every two-card Point Count pair with every value of the fifth and sixth cards.
    for pp, bp, x, y in product(range(10), range(10), range(10), range(10)):
        (p1, p2), (b1, b2) = hand(pp), hand(bp)
        fifth, sixth = with_value(x, "D"), with_value(y, "C")
        player, banker = deal([p1, b1, p2, b2, fifth, sixth])
        natural = pp >= 8 or bp >= 8
        player_third = not natural and pp <= 5
        banker_third = not natural and _banker_by_text(bp, x if player_third else None)
        assert player == [p1, p2, fifth][: 2 + player_third]
        assert banker == [b1, b2, *([sixth] if player_third else [fifth])][: 2 + banker_third]


@pytest.mark.reg("545.10(d)")
@given(st.lists(st.sampled_from(deck()), min_size=6, max_size=6))
def test_a_round_from_any_six_cards_obeys_the_drawing_rules(cards: list[str]) -> None:
    player, banker = deal(cards)
    assert 2 <= len(player) <= 3 and 2 <= len(banker) <= 3  # 545.10(d)
    order = [player[0], banker[0], player[1], banker[1], *player[2:], *banker[2:]]
    assert order == cards[: len(order)]  # 545.9(c), 545.10(c)
    natural = is_natural(player[:2]) or is_natural(banker[:2])
    if natural:  # 545.11(a)
        assert len(player) == len(banker) == 2
    else:
        assert (len(player) == 3) is (point(player[:2]) <= 5)  # 545.11(b)
        third = value(player[2]) if len(player) == 3 else None
        assert (len(banker) == 3) is _banker_by_text(point(banker[:2]), third)  # 545.11(c)
    p, b = point(player), point(banker)
    assert result(player, banker) == ("tie" if p == b else "player" if p > b else "banker")


@pytest.mark.reg("545.10(c)")
def test_the_players_third_card_comes_before_the_bankers() -> None:
    # 545.10(c): Player 3 draws; a Banker's third card first is out of order.
    with pytest.raises(ValueError, match=r"545\.10\(c\)"):
        next_to_draw(hand(3), [*hand(2), "4S"])


@pytest.mark.reg("545.10(d)")
def test_no_hand_takes_a_fourth_card() -> None:
    with pytest.raises(ValueError, match=r"545\.10\(d\)"):
        next_to_draw([*hand(2), "AS", "AH"], [*hand(2), "AD"])


@pytest.mark.reg("545.11(a)", "545.11(b)", "545.11(c)")
@pytest.mark.parametrize(
    ("player", "banker"),
    [
        ([*hand(6), "AS"], hand(2)),  # Player 6 stays (545.11(b)(2))
        (hand(9), [*hand(2), "AS"]),  # Player Natural (545.11(a))
        (hand(6), [*hand(6), "AS"]),  # Banker 6 stays when the Player stayed (545.11(c)(1))
        ([*hand(2), "8S"], [*hand(3), "AS"]),  # Table 1: 3 stays against an 8
    ],
)
def test_a_third_card_the_hand_was_not_entitled_to_is_refused(
    player: list[str], banker: list[str]
) -> None:
    # 545.15(b) is the table's business; the rules refuse the position.
    with pytest.raises(ValueError, match="not entitled"):
        next_to_draw(player, banker)


@pytest.mark.reg("545.9(c)")
@pytest.mark.parametrize(("p", "b"), [(0, 1), (2, 0), (0, 2), (1, 2)])
def test_initial_cards_out_of_order_are_refused(p: int, b: int) -> None:
    with pytest.raises(ValueError, match=r"545\.9\(c\)"):
        next_to_draw(["2S"] * p, ["3S"] * b)


@pytest.mark.reg("545.12(a)")
def test_result_only_of_a_complete_round() -> None:
    assert result(hand(9), hand(6)) == "player"
    assert result(hand(7), hand(7)) == "tie"
    assert result([*hand(4), "8D"], [*hand(3)]) == "banker"
    with pytest.raises(ValueError, match=r"545\.12\(a\)"):
        result(hand(3), hand(3))


# --------------------------------------------------------------------------- announcements


@pytest.mark.reg("545.12(a)")
@pytest.mark.parametrize(
    ("player", "banker", "expected"),
    [
        (["2S"], ["6S"], ()),
        (["2H", "7C"], ["6S", "JD"], ("PLAYER 9", "BANKER 6", "PLAYER 9 BANKER 6 PLAYER WINS")),
        (["3S", "2C"], ["2D", "3H"], ("PLAYER 5", "BANKER 5", "PLAYER DRAWS")),
        (["3S", "2C", "4D"], ["2D", "3H"], ("BANKER DRAWS",)),
        (["3S", "2C", "4D"], ["2D", "3H", "8C"], ("PLAYER 9 BANKER 3 PLAYER WINS",)),
        (["KC", "4H", "8D"], ["AH", "2S"], ("BANKER STAYS", "PLAYER 2 BANKER 3 BANKER WINS")),
        (
            ["QH", "6D"],
            ["2C", "3D"],
            ("PLAYER 6", "BANKER 5", "PLAYER STAYS", "BANKER DRAWS"),
        ),
        (
            ["4S", "3H"],
            ["3C", "4D"],
            ("PLAYER 7", "BANKER 7", "PLAYER STAYS", "BANKER STAYS", "PLAYER 7 BANKER 7 TIE HAND"),
        ),
    ],
)
def test_announcements(player: list[str], banker: list[str], expected: tuple[str, ...]) -> None:
    # 545.10(a) counts, 545.10(b) draw or stay ("stay" is the text's word, 545.11(b)(2)),
    # 545.12(a) final counts and the winner, or "tie hand".
    assert announcements(player, banker) == expected


@pytest.mark.reg("545.12(a)")
@given(st.lists(st.sampled_from(deck()), min_size=6, max_size=6))
def test_announcements_fit_the_display_and_end_on_the_result(cards: list[str]) -> None:
    source = iter(cards)
    player: list[str] = []
    banker: list[str] = []
    while (h := next_to_draw(player, banker)) is not None:
        (player if h == "player" else banker).append(next(source))
        for line in announcements(player, banker):
            assert line.isascii() and line.isprintable() and len(line) <= 32
    last = announcements(player, banker)[-1]
    assert last.startswith(f"PLAYER {point(player)} BANKER {point(banker)} ")
    outcome = result(player, banker)
    assert last.endswith("TIE HAND" if outcome == "tie" else f"{outcome.upper()} WINS")


@pytest.mark.reg("545.10(e)")
def test_fixed_announcements_fit_the_display() -> None:
    # 545.9(b) "no more bets" and "cards"; 545.10(e) "last hand".
    assert (NO_MORE_BETS, CARDS, LAST_HAND) == ("NO MORE BETS", "CARDS", "LAST HAND")


# --------------------------------------------------------------------------- table order


@pytest.mark.reg("545.12(b)")
def test_winning_seats_are_paid_from_the_highest_number_down() -> None:
    assert payment_order([3, 11, 1, 7, 3]) == (11, 7, 3, 1)


@pytest.mark.reg("545.14(a)(1)")
@pytest.mark.parametrize(
    ("outcome", "passes"), [("player", True), ("banker", False), ("tie", False)]
)
def test_curator_passes_the_shoe_when_the_banker_loses(outcome: Outcome, passes: bool) -> None:
    # A tie is no loss: the Banker wager is void (545.8(a)(1)(iii)).
    assert curator_passes(outcome) is passes


# --------------------------------------------------------------------------- rules


@pytest.mark.reg("545.13(b)")
@pytest.mark.parametrize("game", ["baccarat", "midibaccarat"])
def test_defaults_are_the_minimums(game: str) -> None:
    # ruling R8: eight decks, 5% commission, Tie 8 to 1.
    r = BaccaratRules.from_dict(game, {})
    assert (r.decks, r.commission, r.tie_odds) == (8, 5, 8)
    assert (r.dealing, r.vigorish_collection, r.vigorish) == ("face_up", "at_payout", "commission")
    assert r.vigorish_rounding is False
    assert r.commission_rate == Decimal("0.05")


@pytest.mark.reg("545.3(a)", "543.3(a)")
@pytest.mark.parametrize(("game", "ch"), [("baccarat", "545"), ("midibaccarat", "543")])
def test_six_to_eight_decks(game: str, ch: str) -> None:
    for decks in (6, 7, 8):
        assert rules(game, decks=decks).decks == decks
    for decks in (1, 5, 9):
        with pytest.raises(RulesError, match=rf"^rules\.decks: .*\({ch}\.3\(a\)\)$"):
            rules(game, decks=decks)


@pytest.mark.reg("545.13(c)", "543.13(c)")
@pytest.mark.parametrize(("game", "ch"), [("baccarat", "545"), ("midibaccarat", "543")])
def test_commission_is_four_or_five_percent(game: str, ch: str) -> None:
    assert rules(game, commission=4).commission_rate == Decimal("0.04")
    for bad in (0, 3, 6, 10):
        with pytest.raises(RulesError, match=rf"^rules\.commission: {bad} .*\({ch}\.13\(c\)\)$"):
            rules(game, commission=bad)


@pytest.mark.reg("545.13(b)", "543.13(b)")
def test_tie_odds_at_least_eight_to_one() -> None:
    assert rules(tie_odds=9).tie_odds == 9
    with pytest.raises(RulesError) as exc:
        rules(tie_odds=7)
    assert str(exc.value) == "rules.tie_odds: 7 is under the 8 to 1 minimum (545.13(b))"
    with pytest.raises(RulesError, match=r"\(543\.13\(b\)\)"):
        rules("midibaccarat", tie_odds=5)


@pytest.mark.reg("545.9(d)")
def test_dealing_procedures_of_each_chapter() -> None:
    # 545.9(c) or (d); 543.9(c)(1), (2) or (3). Only Midibaccarat has (c)(2).
    assert rules(dealing="players_reveal").dealing == "players_reveal"
    for option in ("face_up", "banker_under_shoe", "players_reveal"):
        assert rules("midibaccarat", dealing=option).dealing == option
    with pytest.raises(RulesError, match=r"^rules\.dealing: 'banker_under_shoe' .*545\.9"):
        rules(dealing="banker_under_shoe")
    with pytest.raises(RulesError, match=r"^rules\.dealing: 'squeeze' .*543\.9\(c\)"):
        rules("midibaccarat", dealing="squeeze")


@pytest.mark.reg("545.13(e)")
def test_vigorish_collection_at_payout_or_deferred() -> None:
    assert rules(vigorish_collection="deferred").vigorish_collection == "deferred"
    with pytest.raises(RulesError, match=r"^rules\.vigorish_collection: .*\(545\.13\(e\)\)$"):
        rules(vigorish_collection="weekly")


@pytest.mark.reg("543.13(f)")
def test_the_25_percent_tie_vigorish_is_midibaccarat_only_and_replaces_commission() -> None:
    r = rules("midibaccarat", vigorish="tie_25")
    assert (r.vigorish, r.commission) == ("tie_25", 0)
    with pytest.raises(RulesError, match=r"^rules\.vigorish: .*545\.8\(a\)\(1\)\(iii\)"):
        rules(vigorish="tie_25")
    with pytest.raises(RulesError, match=r"^rules\.commission: .*\(543\.13\(f\)\)$"):
        rules("midibaccarat", vigorish="tie_25", commission=5)
    # Collected at the end of the round and before the next is dealt: never deferred.
    with pytest.raises(RulesError, match=r"^rules\.vigorish_collection: .*\(543\.13\(f\)\)$"):
        rules("midibaccarat", vigorish="tie_25", vigorish_collection="deferred")
    with pytest.raises(RulesError, match=r"^rules\.vigorish: 'half' "):
        rules("midibaccarat", vigorish="half")


@pytest.mark.reg("545.3(a)")
@pytest.mark.parametrize(
    ("options", "pattern"),
    [
        ({"decks": "8"}, r"^rules\.decks: expected a whole number, got '8' \(545\.3\(a\)\)$"),
        ({"decks": 8.0}, r"^rules\.decks: expected a whole number"),
        ({"tie_odds": True}, r"^rules\.tie_odds: expected a whole number"),
        ({"dealing": 1}, r"^rules\.dealing: expected a string"),
        ({"vigorish_rounding": "yes"}, r"^rules\.vigorish_rounding: .*\(545\.13\(d\)\)$"),
        ({"tie_pays": 8}, r"^rules\.tie_pays: unknown option; expected one of decks, "),
    ],
)
def test_wrong_types_and_unknown_keys_are_refused(options: dict[str, Any], pattern: str) -> None:
    with pytest.raises(RulesError, match=pattern) as exc:
        rules(**options)
    assert "\n" not in str(exc.value)


@pytest.mark.reg("545.3(a)")
def test_unknown_game_and_non_table_are_refused() -> None:
    with pytest.raises(RulesError, match="unknown game 'blackjack'"):
        BaccaratRules.from_dict("blackjack", {})
    with pytest.raises(RulesError, match="expected a table"):
        BaccaratRules.from_dict("baccarat", [("decks", 8)])  # type: ignore[arg-type]


@pytest.mark.reg("545.13(b)")
def test_the_constructor_checks_values_too() -> None:
    with pytest.raises(RulesError, match=r"545\.13\(b\)"):
        BaccaratRules(tie_odds=7)
    with pytest.raises(RulesError, match=r"543\.13\(f\)"):
        BaccaratRules(game="midibaccarat", vigorish="tie_25")  # commission 5 by default


# --------------------------------------------------------------------------- settlement

D = Decimal


@GAMES
@pytest.mark.reg("545.13(a)", "543.13(a)")
def test_player_wager_pays_one_to_one(game: str) -> None:
    s = settle({"player": 10}, "player", rules(game))
    assert s == Settlement(D(10), D(0), D(0), D(0), False)
    assert settle({"player": 10}, "banker", rules(game)).net == D(-10)


@GAMES
@pytest.mark.reg("545.13(c)", "543.13(c)")
@pytest.mark.parametrize(("commission", "vig"), [(5, "0.50"), (4, "0.40")])
def test_banker_wager_pays_one_to_one_less_the_commission(
    game: str, commission: int, vig: str
) -> None:
    s = settle({"banker": 10}, "banker", rules(game, commission=commission))
    assert (s.banker, s.vigorish, s.net) == (D(10), D(vig), D(10) - D(vig))
    assert settle({"banker": 10}, "player", rules(game)).net == D(-10)


@pytest.mark.reg("545.13(c)")
def test_commission_without_rounding_is_exact() -> None:
    # Money is Decimal: 5% of $10.01 is 0.5005, exactly as 545.13(c) states it.
    assert settle({"banker": D("10.01")}, "banker", rules()).vigorish == D("0.5005")


@pytest.mark.reg("545.8(a)(1)(iii)")
@pytest.mark.parametrize("game", ["baccarat", "midibaccarat"])
def test_player_and_banker_wagers_are_returned_on_a_tie(game: str) -> None:
    # 545.8(a)(1)(iii), (2)(iii); 543.8(a)(1)(iii)(A), (2)(iii): void, no commission.
    s = settle({"player": 10, "banker": 20}, "tie", rules(game))
    assert s == Settlement(D(0), D(0), D(0), D(0), False)


@GAMES
@pytest.mark.reg("545.13(b)", "543.13(b)")
@pytest.mark.parametrize("odds", [8, 9])
def test_tie_bet_pays_the_configured_odds(game: str, odds: int) -> None:
    assert settle({"tie": 5}, "tie", rules(game, tie_odds=odds)).net == D(5 * odds)
    assert settle({"tie": 5}, "banker", rules(game, tie_odds=odds)).net == D(-5)  # (a)(3)(ii)


@pytest.mark.reg("545.13(d)")
@pytest.mark.parametrize(
    ("commission", "amount", "vig"),
    [
        (5, "1", "0.25"),  # 0.05 -> 25 cents: the text's minimum unit, not common practice
        (5, "10", "0.50"),
        (5, "11", "0.75"),  # 0.55 -> next multiple of 25 cents
        (5, "100", "5.00"),
        (4, "1", "0.20"),
        (4, "10", "0.40"),
        (4, "11", "0.60"),  # 0.44 -> next multiple of 20 cents
    ],
)
def test_baccarat_rounds_the_vigorish_up_to_25_or_20_cents(
    commission: int, amount: str, vig: str
) -> None:
    # 545.13(d): "round off ... to 25 cents or the next highest multiple of 25 cents" is
    # rounding up, so a $1 Banker win at 5% is charged a quarter. The text, not practice.
    r = rules(commission=commission, vigorish_rounding=True)
    assert settle({"banker": D(amount)}, "banker", r).vigorish == D(vig)


@pytest.mark.reg("543.13(d)")
@pytest.mark.parametrize(
    ("options", "amount", "outcome", "vig"),
    [
        ({}, "11", "banker", "0.55"),
        ({}, "1.10", "banker", "0.10"),  # 0.055 -> 0.10
        ({"commission": 4}, "1", "banker", "0.05"),  # 0.04 -> 0.05
        ({"vigorish": "tie_25"}, "0.30", "tie", "0.10"),  # 0.075 -> 0.10
    ],
)
def test_midibaccarat_rounds_any_vigorish_up_to_5_cents(
    options: dict[str, Any], amount: str, outcome: Outcome, vig: str
) -> None:
    r = rules("midibaccarat", vigorish_rounding=True, **options)
    assert settle({"banker": D(amount)}, outcome, r).vigorish == D(vig)


@pytest.mark.reg("543.13(f)")
def test_midibaccarat_25_percent_of_the_banker_wager_on_a_tie() -> None:
    # 543.8(a)(1)(iii)(B), 543.13(f): a Banker wager on a tie is void and charged 25%;
    # a winning Banker wager then pays 1 to 1 with no commission (not EZ-style practice).
    r = rules("midibaccarat", vigorish="tie_25")
    tie = settle({"banker": 20, "tie": 5}, "tie", r)
    assert tie == Settlement(D(0), D(0), D(40), D(5), False)
    assert tie.net == D(35)
    win = settle({"banker": 20}, "banker", r)
    assert (win.banker, win.vigorish) == (D(20), D(0))
    assert settle({"player": 20}, "tie", r).vigorish == D(0)


@pytest.mark.reg("545.13(e)")
def test_deferred_vigorish_is_marked_and_collected_before_a_new_shoe_or_on_leaving() -> None:
    r = rules(vigorish_collection="deferred")
    s = settle({"banker": 10}, "banker", r)
    assert s.vigorish_deferred and s.vigorish == D("0.50")
    assert not settle({"banker": 10}, "player", r).vigorish_deferred  # nothing owed
    ledger = VigorishLedger().mark(3, s.vigorish).mark(7, D("0.25")).mark(3, D("1.00"))
    assert ledger.due(3) == D("1.50") and ledger.due(7) == D("0.25") and ledger.due(1) == 0
    owed, rest = ledger.collect(3)  # the player at seat 3 leaves
    assert owed == D("1.50") and rest.owed == ((7, D("0.25")),)
    everything, empty = ledger.collect_all()  # before play with a new shoe
    assert everything == ((3, D("1.50")), (7, D("0.25"))) and empty.owed == ()
    with pytest.raises(ValueError):
        ledger.mark(3, D("-1"))


@pytest.mark.reg("545.8(a)")
@pytest.mark.parametrize(
    "wagers",
    [
        {"side": 5},
        {"player": 0},
        {"player": -5},
        {"player": 1.5},
        {"player": True},
        {"tie": D("0.001")},
    ],
)
def test_wagers_that_are_not_money_are_refused(wagers: dict[str, Any]) -> None:
    with pytest.raises(WagerError):
        settle(wagers, "player", rules())


_rules_strategy = st.one_of(
    st.builds(
        lambda game, c, odds, rnd, coll: BaccaratRules.from_dict(
            game,
            {
                "commission": c,
                "tie_odds": odds,
                "vigorish_rounding": rnd,
                "vigorish_collection": coll,
            },
        ),
        st.sampled_from(["baccarat", "midibaccarat"]),
        st.sampled_from([4, 5]),
        st.integers(8, 50),
        st.booleans(),
        st.sampled_from(["at_payout", "deferred"]),
    ),
    st.builds(
        lambda odds, rnd: BaccaratRules.from_dict(
            "midibaccarat", {"vigorish": "tie_25", "tie_odds": odds, "vigorish_rounding": rnd}
        ),
        st.integers(8, 50),
        st.booleans(),
    ),
)
_cents = st.integers(1, 10**9).map(lambda c: D(c) / 100)


@pytest.mark.reg("545.8(a)", "543.8(a)", "545.13(a)", "545.13(b)", "545.13(c)", "545.13(d)")
@pytest.mark.reg("543.13(a)", "543.13(b)", "543.13(c)", "543.13(d)", "543.13(f)")
@given(
    st.dictionaries(st.sampled_from(["player", "banker", "tie"]), _cents, min_size=1),
    st.sampled_from(["player", "banker", "tie"]),
    _rules_strategy,
)
def test_settlement_is_exact(
    wagers: dict[str, Decimal], outcome: Outcome, r: BaccaratRules
) -> None:
    s = settle(wagers, outcome, r)
    p, b, t = (wagers.get(k, D(0)) for k in ("player", "banker", "tie"))
    assert s.player == {"player": p, "banker": -p, "tie": 0}[outcome]
    assert s.banker == {"player": -b, "banker": b, "tie": 0}[outcome]
    assert s.tie == (t * r.tie_odds if outcome == "tie" else -t)
    exact = {"banker": b * r.commission / 100, "tie": b / 4 if r.vigorish == "tie_25" else 0}
    owed = D(exact.get(outcome, 0))
    deferred = owed > 0 and r.vigorish_collection == "deferred"
    if r.vigorish_rounding and owed and not deferred:  # ruling R11: rounded when collected
        unit = D("0.05") if r.game == "midibaccarat" else D(r.commission * 5) / 100
        assert s.vigorish % unit == 0 and owed <= s.vigorish < owed + unit
        assert round_vigorish(owed, r) == s.vigorish
    else:
        assert s.vigorish == owed
    assert s.net == s.player + s.banker + s.tie - s.vigorish
    assert s.vigorish_deferred is deferred


# --------------------------------------------------------------------------- examples


def _replay(shoe: list[str]) -> tuple[list[str], list[dict[str, Any]]]:
    """Burn, then deal hand by hand until one more hand after the cover card's (R1)."""
    cards = iter(shoe)
    first = next(cards)
    burned = [first, *(next(cards) for _ in range(burn_count(first)))]  # 545.5(f)
    rounds: list[dict[str, Any]] = []
    last_hand = False
    while True:
        player: list[str] = []
        banker: list[str] = []
        cover_card = False
        while (h := next_to_draw(player, banker)) is not None:
            token = next(cards)
            if token == CUT:  # 545.10(e): set aside; it appears during this hand (R1)
                cover_card = True
                token = next(cards)
            (player if h == "player" else banker).append(token)
        rounds.append(
            {
                "player": player,
                "banker": banker,
                "player_total": point(player),
                "banker_total": point(banker),
                "result": result(player, banker),
                "natural": is_natural(player[:2]) or is_natural(banker[:2]),
            }
        )
        if last_hand:
            return burned, rounds
        last_hand = cover_card


@pytest.mark.reg("545.10(e)")
@pytest.mark.parametrize("name", ["baccarat-eight-decks", "midibaccarat-cover-card-at-hand-start"])
def test_example_shoes_replay_round_by_round(name: str) -> None:
    # The bench examples (tests/spec/examples, the copy of ../shared/examples).
    scenario = json.loads((EXAMPLES / f"{name}.json").read_text())
    lines = [json.loads(x) for x in (EXAMPLES / f"{name}.expected.jsonl").read_text().splitlines()]
    expected_rounds = [x for x in lines if x["type"] == "round_end"]
    (shoe_end,) = [x for x in lines if x["type"] == "shoe_end"]
    burned, rounds = _replay(scenario["shoe"])
    assert burned == shoe_end["burned"]
    assert len(rounds) == shoe_end["rounds"] == len(expected_rounds)
    for got, want in zip(rounds, expected_rounds, strict=True):
        assert not want["void"]
        assert got == {k: want[k] for k in got}, f"round {want['round']}"


@pytest.mark.reg("545.9(d)", "543.9(c)")
def test_squeeze_seat_highest_wager_then_counterclockwise_then_face_up() -> None:
    from controller.rules.baccarat import squeeze_seat

    d = Decimal
    wagers = {1: {"player": d(100)}, 3: {"player": d(40), "banker": d(10)}, 7: {"banker": d(10)}}
    assert squeeze_seat(wagers, "player") == 1
    assert squeeze_seat(wagers, "banker") == 7  # a tie: the higher seat, nearer counterclockwise
    assert squeeze_seat({2: {"tie": d(5)}}, "banker") is None  # 545.9(d)(7): turned face up


# --------------------------------------------------------------------------- offers


@pytest.mark.reg("545.14(b)", "545.15(f)", "543.14(f)")
def test_counterclockwise_is_down_the_seat_numbers_from_the_right_of_a_seat() -> None:
    # Ruling R2 numbers seats from the dealer's far left: a player's right, and
    # counterclockwise, is the next lower seat; past seat 1 lies the dealer, then the
    # highest seat. The seat itself is not offered again ("each of the other players").
    assert counterclockwise(14, 5) == (4, 3, 2, 1, 14, 13, 12, 11, 10, 9, 8, 7, 6)
    assert counterclockwise(9, 1) == (9, 8, 7, 6, 5, 4, 3, 2)
    assert counterclockwise(9, None) == (9, 8, 7, 6, 5, 4, 3, 2, 1)  # from the dealer's right
    for seats, after in product((9, 14), range(1, 15)):
        if after <= seats:
            assert sorted(counterclockwise(seats, after)) == [
                s for s in range(1, seats + 1) if s != after
            ]


@pytest.mark.reg("545.5(b)", "543.5(c)", "545.7(b)")
def test_the_cut_and_a_new_shoe_are_offered_in_the_texts_order() -> None:
    # 545.5(b), 543.5(c): the highest seat (or the last curator), then clockwise, up the
    # seat numbers and on past the dealer to seat 1.
    assert cut_order(9, None) == (9, 1, 2, 3, 4, 5, 6, 7, 8)
    assert cut_order(14, 7) == (7, 8, 9, 10, 11, 12, 13, 14, 1, 2, 3, 4, 5, 6)
    assert clockwise(14, 1) == tuple(range(1, 15))
    # 545.7(b): seat one, then each other seat in turn counterclockwise.
    assert shoe_order(14) == (1, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2)


@pytest.mark.reg("545.5(e)", "545.14(b)")
def test_an_offer_walks_its_order_and_knows_who_is_entitled_next() -> None:
    offer = Offer((3, 2, 1), "545.14(b)")
    assert offer.seat == 3 and offer.after() == (2, 1)
    offer = offer.declined()
    assert offer.seat == 2 and offer.after() == (1,)  # a recut after seat 2's cut: seat 1
    assert offer.declined().declined().seat is None


@pytest.mark.reg("545.12(b)", "543.12(b)")
def test_losing_wagers_are_collected_before_winners_are_paid_highest_seat_first() -> None:
    r = rules()
    settled = {
        2: settle({"player": 10}, "banker", r),
        4: settle({"banker": 10, "tie": 5}, "banker", r),  # wins one, loses one
        9: settle({"banker": 20}, "banker", r),
        11: settle({"tie": 5}, "banker", r),
        1: settle({"banker": 5}, "banker", r),
    }
    assert collection_order(settled) == ((2, 4, 11), (9, 4, 1))
    on_a_tie = {3: settle({"player": 10}, "tie", r), 6: settle({"tie": 5}, "tie", r)}
    assert collection_order(on_a_tie) == ((), (6,))  # a returned wager is neither
