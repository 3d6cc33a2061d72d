"""What a Baccarat / Midibaccarat table offers seat by seat until a player accepts: the
cut (545.5(b), 543.5(c)) and its recut, the dealing shoe and with it the curator
(545.7, 545.14), and the right to turn over a hand's cards (545.15(f), 543.14(f)).
Seats are numbered from the dealer's far left (ruling R2): counterclockwise runs down
the seat numbers, clockwise up them."""

from __future__ import annotations

import pytest

from controller.rules.baccarat import counterclockwise
from controller.table.baccarat import SEATS
from controller.table.events import (
    ManualShuffle,
    Need,
    NoMoreBets,
    OfferAnswer,
    PlayerLeaves,
    Recut,
    Relinquish,
    Wager,
)
from drivers import messages as m
from tests.support.baccarat import GAMES, Dealer

REVEAL = {"baccarat": "545.15(f)", "midibaccarat": "543.14(f)"}
CUT = {"baccarat": "545.5(b)", "midibaccarat": "543.5(c)"}
RECUT = {"baccarat": "545.5(e)", "midibaccarat": "543.5(f)"}


def closed(d: Dealer, what: str) -> list[dict[str, object]]:
    return [c for c in d.io.of_type("offer_closed") if c["what"] == what]


def offered(d: Dealer, what: str) -> list[object]:
    return [o["seat"] for o in d.io.of_type("offer") if o["what"] == what]


def answer(d: Dealer, what: str, seats: object, reply: str = "decline") -> None:
    assert isinstance(seats, tuple | list | range)
    for seat in seats:
        d.table.handle(OfferAnswer(what, seat, reply))


def curator(d: Dealer, seat: int) -> None:
    """Every seat offered the new shoe before ``seat`` declines; ``seat`` accepts."""
    order = (1, *counterclockwise(14, 1))
    answer(d, "shoe", order[: order.index(seat)])
    d.table.handle(OfferAnswer("shoe", seat, "accept"))
    assert d.table.curator == seat


# --------------------------------------------------------------------------- the shoe


@pytest.mark.reg("545.7(b)", "545.7(c)")
def test_a_new_shoe_is_offered_from_seat_one_then_counterclockwise() -> None:
    d = Dealer()
    d.table.handle(ManualShuffle())
    d.cards(["AS"])
    assert d.table.offered("shoe") is None  # the dealer burns first (545.5(f))
    d.cards(["2S"])
    assert d.table.offered("shoe") == 1 and d.table.curator is None
    d.table.handle(OfferAnswer("shoe", 1, "decline"))
    d.table.handle(OfferAnswer("shoe", 2, "accept"))  # seat 1's right is seat 14
    (refused,) = d.refusals()
    assert refused["section"] == "545.7(b)" and "seat 14" in str(refused["reason"])
    d.table.handle(OfferAnswer("shoe", 14, "decline"))  # or nobody sits there
    d.table.handle(OfferAnswer("shoe", 13, "accept"))
    assert d.table.curator == 13 and d.table.offered("shoe") is None
    assert offered(d, "shoe") == [1, 14, 13]
    assert closed(d, "shoe") == [
        {
            "type": "offer_closed",
            "what": "shoe",
            "holder": 13,
            "how": "accepted",
            "section": "545.7(c)",
        }
    ]
    d.table.handle(OfferAnswer("shoe", 12, "accept"))  # the shoe has its curator
    assert d.refusals()[-1]["section"] == "545.7(b)"
    d.play(["2H", "9S", "3C", "KD"])  # the Banker wins: the curator keeps the shoe
    assert d.table.curator == 13


@pytest.mark.reg("545.7(d)")
def test_the_dealer_deals_when_no_player_accepts_the_shoe() -> None:
    d = Dealer()
    d.open()
    answer(d, "shoe", (1, *range(14, 1, -1)))
    assert d.table.offered("shoe") is None and d.table.curator is None
    assert closed(d, "shoe")[-1] == {
        "type": "offer_closed",
        "what": "shoe",
        "holder": "dealer",
        "how": "none_accepted",
        "section": "545.7(d)(2)",
    }
    # Unanswered when "no more bets" is announced: no player took it either.
    d = Dealer()
    d.open()
    d.table.handle(OfferAnswer("shoe", 1, "decline"))
    d.play(["2H", "9S", "3C", "KD"])
    assert closed(d, "shoe")[-1]["how"] == "no_answer"
    assert closed(d, "shoe")[-1]["section"] == "545.7(d)(2)"
    entries = d.io.journal.entries
    shoe_closed = next(i for i, e in enumerate(entries) if e in closed(d, "shoe"))
    assert shoe_closed < next(i for i, e in enumerate(entries) if e["type"] == "no_more_bets")
    assert d.table.curator is None and not d.refusals()


@pytest.mark.reg("545.7(d)(1)", "545.14(b)")
def test_a_player_who_accepts_the_shoe_may_have_the_dealer_deal() -> None:
    d = Dealer()
    d.open()
    d.table.handle(OfferAnswer("shoe", 1, "dealer"))
    assert d.table.curator is None
    (entry,) = closed(d, "shoe")
    assert entry["holder"] == "dealer" and entry["how"] == "designated_dealer"
    assert entry["section"] == "545.7(d)(1)" and entry["designated_by"] == 1
    d.play(["9H", "2C", "KD", "3S"])  # the Banker loses: the shoe passes from seat 1
    (passed,) = d.io.of_type("relinquished")
    assert passed["seat"] == 1 and passed["compulsory"] is True
    assert d.table.offered("shoe") == 14


@pytest.mark.reg("545.14(a)", "545.14(b)")
def test_the_curator_passes_the_shoe_to_the_right_when_the_banker_loses() -> None:
    d = Dealer()
    d.open()
    curator(d, 5)
    d.play(["4S", "3C", "3H", "4D"])  # a tie is no loss of the Banker's Hand
    d.play(["2H", "9S", "3C", "KD"])  # the Banker wins
    assert d.table.curator == 5 and not d.io.of_type("relinquished")
    d.play(["9H", "2C", "KD", "3S"])  # the Player wins
    assert d.io.of_type("relinquished") == [
        {
            "type": "relinquished",
            "what": "shoe",
            "seat": 5,
            "compulsory": True,
            "section": "545.14(a)(1)",
        }
    ]
    assert d.table.curator is None and d.table.offered("shoe") == 4
    answer(d, "shoe", (4, 3, 2, 1, *range(14, 5, -1)))  # each other player in turn
    assert offered(d, "shoe")[-13:] == [4, 3, 2, 1, *range(14, 5, -1)]  # never seat 5
    assert closed(d, "shoe")[-1]["holder"] == "dealer"
    d.play(["9H", "2C", "KD", "3S"])  # the dealer as curator passes it too
    assert d.table.offered("shoe") == 14  # the dealer's right


@pytest.mark.reg("545.14(a)", "545.14(a)(2)", "545.14(b)")
def test_the_curator_passes_between_rounds_by_choice_or_by_order() -> None:
    d = Dealer()
    d.open()
    curator(d, 1)
    d.play(["2H", "9S", "3C", "KD"])  # the Banker wins
    d.table.handle(NoMoreBets())
    d.table.handle(Relinquish("shoe"))  # in the middle of a round
    assert d.refusals()[-1]["section"] == "545.14(a)"
    d.cards(["2H", "9S", "3C", "KD"])  # the Banker wins again
    d.table.handle(Relinquish("shoe", compulsory=True))  # the floorperson orders it
    assert d.io.of_type("relinquished")[-1] == {
        "type": "relinquished",
        "what": "shoe",
        "seat": 1,
        "compulsory": True,
        "section": "545.14(a)(2)",
    }
    assert d.table.offered("shoe") == 14
    d.table.handle(Relinquish("shoe"))  # it is being offered already
    assert d.refusals()[-1]["section"] == "545.14(b)"
    d.table.handle(OfferAnswer("shoe", 14, "accept"))
    d.table.handle(Relinquish("shoe"))  # the new curator passes it of his own accord
    assert d.io.of_type("relinquished")[-1]["section"] == "545.14(a)"
    assert d.table.offered("shoe") == 13 and len(d.refusals()) == 2


@pytest.mark.reg("545.14(b)")
def test_a_curator_who_leaves_the_table_passes_the_shoe() -> None:
    d = Dealer()
    d.open()
    curator(d, 3)
    d.table.handle(PlayerLeaves(3))
    (passed,) = d.io.of_type("relinquished")
    assert passed["seat"] == 3 and passed["compulsory"] is False
    assert d.table.curator is None and d.table.offered("shoe") == 2


@pytest.mark.reg("543.9(c)")
def test_midibaccarat_has_no_curator() -> None:
    d = Dealer("midibaccarat")
    d.open()
    d.table.handle(Relinquish("shoe"))
    d.table.handle(OfferAnswer("shoe", 1, "accept"))
    assert [r["section"] for r in d.refusals()] == ["543.9(c)", "543.9(c)"]
    d.play(["9H", "2C", "KD", "3S"])  # the Banker loses: the dealer deals on
    assert not offered(d, "shoe") and d.table.curator is None


# --------------------------------------------------------------------------- the cut


@GAMES
@pytest.mark.reg("545.5(b)", "543.5(c)")
def test_the_cut_is_offered_from_the_highest_seat_clockwise(game: str) -> None:
    top = SEATS[game]
    d = Dealer(game)
    d.table.handle(ManualShuffle())
    assert d.table.offered("cut") == top
    d.table.handle(OfferAnswer("cut", 1, "accept"))  # not seat 1's turn yet
    d.table.handle(OfferAnswer("cut", top, "decline"))
    assert d.table.offered("cut") == 1  # clockwise past the dealer
    d.table.handle(OfferAnswer("cut", 1, "dealer"))  # only the shoe's curator names the dealer
    assert [r["section"] for r in d.refusals()] == [CUT[game]] * 2
    d.table.handle(OfferAnswer("cut", 1, "decline"))
    d.table.handle(OfferAnswer("cut", 2, "accept"))
    assert closed(d, "cut") == [
        {
            "type": "offer_closed",
            "what": "cut",
            "holder": 2,
            "how": "accepted",
            "section": CUT[game],
        }
    ]
    assert offered(d, "cut") == [top, 1, 2]
    d.cards(["AS", "2S"])
    assert d.need() is Need.WAGERS
    d.table.handle(OfferAnswer("cut", 3, "accept"))  # the cut is over
    assert d.refusals()[-1]["section"] == CUT[game]
    # Nobody accepts: the dealer cuts; nobody answers before the burn: the dealer cut.
    d = Dealer(game)
    d.table.handle(ManualShuffle())
    answer(d, "cut", (top, *range(1, top)))
    assert closed(d, "cut")[-1]["holder"] == "dealer"
    assert closed(d, "cut")[-1]["how"] == "none_accepted"
    d = Dealer(game)
    d.open()
    assert closed(d, "cut")[-1]["how"] == "no_answer"


@pytest.mark.reg("545.5(b)")
def test_a_reshuffle_is_offered_for_the_cut_to_the_last_curator_first() -> None:
    d = Dealer()
    d.open()
    curator(d, 7)
    d.play(["2H", "9S", "CUT", "3C", "KD"])  # the Banker wins; the cover card is out
    d.play(["4S", "3C", "3H", "4D"])  # the last hand, a tie: seat 7 is the last curator
    assert d.need() is Need.SHUFFLE
    d.table.handle(ManualShuffle())
    assert d.table.offered("cut") == 7
    d.table.handle(OfferAnswer("cut", 7, "decline"))
    assert d.table.offered("cut") == 8  # then clockwise
    d.cards(["AS", "2S"])  # the new shoe is offered from seat one again (545.7(b))
    assert d.table.offered("shoe") == 1 and d.table.curator is None


@GAMES
@pytest.mark.reg("545.5(e)", "543.5(f)")
def test_a_recut_goes_to_the_next_person_entitled_to_cut(game: str) -> None:
    top = SEATS[game]
    d = Dealer(game)
    d.table.handle(Recut())  # nothing shuffled
    d.table.handle(ManualShuffle())
    d.table.handle(Recut())  # not cut yet
    d.table.handle(OfferAnswer("cut", top, "decline"))
    d.table.handle(OfferAnswer("cut", 1, "accept"))
    d.table.handle(Recut())
    assert d.io.of_type("recut") == [{"type": "recut", "section": RECUT[game]}]
    assert d.table.offered("cut") == 2  # the next person entitled after seat 1
    d.table.handle(OfferAnswer("cut", 2, "accept"))
    d.card("AS")  # the cards are in the shoe
    d.table.handle(Recut())
    assert [r["section"] for r in d.refusals()] == [RECUT[game]] * 3
    assert "in the dealing shoe" in str(d.refusals()[-1]["reason"])
    assert [c["holder"] for c in closed(d, "cut")] == [1, 2]
    # After the dealer's cut nobody else is entitled: the dealer recuts.
    d = Dealer(game)
    d.table.handle(ManualShuffle())
    answer(d, "cut", (top, *range(1, top)))
    d.table.handle(Recut())
    assert [(c["holder"], c["how"]) for c in closed(d, "cut")] == [("dealer", "none_accepted")] * 2


# --------------------------------------------------------------------------- the dealing shoe


@GAMES
@pytest.mark.reg("545.7(a)", "543.7")
def test_cards_come_only_from_the_tables_dealing_shoe(game: str) -> None:
    d = Dealer(game)
    d.open()
    d.play(["2H", "6S"])
    d.event(m.CardDrawn("spare_shoe", 1, "7", "C", False))
    d.event(m.CutCardSeen("spare_shoe", 2))
    d.event(m.ShoeEmpty("spare_shoe", 3))
    refused = d.refusals()
    assert [r["event"] for r in refused] == ["card_drawn", "cut_card_seen", "shoe_empty"]
    assert {r["section"] for r in refused} == {"545.7(a)" if game == "baccarat" else "543.7"}
    assert not d.io.of_type("cover_card") and not d.io.of_type("shoe_end")
    d.cards(["7C", "JD"])
    (end,) = d.rounds()
    assert end["player"] == ["2H", "7C"] and end["void"] is False


# --------------------------------------------------------------------------- turning the cards


def handed(d: Dealer) -> list[tuple[object, object]]:
    return [(e["hand"], e["seat"]) for e in d.io.of_type("cards_handed")]


@GAMES
@pytest.mark.reg("545.15(f)", "543.14(f)")
def test_the_right_to_turn_over_the_cards_goes_to_the_right_then_counterclockwise(
    game: str,
) -> None:
    d = Dealer(game, dealing="players_reveal")
    d.open()
    wagers = {5: {"player": 50}, 3: {"player": 20}, 8: {"banker": 30}}
    d.play(["3S", "2D", "2C", "3H"], wagers)  # Player 5 draws; Banker 5
    assert handed(d) == [("player", 5), ("banker", 8)]
    d.table.handle(Relinquish("player", compulsory=True))  # seat 5 delays the game
    assert d.io.of_type("relinquished") == [
        {
            "type": "relinquished",
            "what": "player",
            "seat": 5,
            "compulsory": True,
            "section": REVEAL[game],
        }
    ]
    assert d.table.offered("player") == 4
    d.table.handle(OfferAnswer("player", 3, "accept"))  # seat 4 is asked first
    assert d.refusals()[-1]["section"] == REVEAL[game]
    d.table.handle(OfferAnswer("player", 4, "decline"))
    d.table.handle(OfferAnswer("player", 3, "accept"))
    assert handed(d)[-1] == ("player", 3) and d.io.shown[-1] == "PLAYER TO SEAT 3"
    d.card("4D")  # the Player's third card goes to the player who took the right
    assert handed(d)[-1] == ("player", 3)
    # Seat 8 gives the Banker's Hand up and no other player takes it.
    d.table.handle(Relinquish("banker"))
    answer(d, "banker", counterclockwise(SEATS[game], 8))
    assert closed(d, "banker")[-1]["holder"] == "dealer"
    assert handed(d)[-1] == ("banker", None) and d.io.shown[-1] == "BANKER FACE UP"
    d.card("8C")  # the dealer turns the Banker's third card over
    assert handed(d)[-1] == ("banker", None)
    (end,) = d.rounds()
    assert end["result"] == "player" and len(d.refusals()) == 1
    d.play(["3S", "2D", "2C", "3H"], {5: {"player": 50}})  # the right is for that round only
    assert handed(d)[-2] == ("player", 5)


@pytest.mark.reg("545.15(f)")
def test_a_seat_that_gave_the_right_up_is_not_offered_it_again_that_round() -> None:
    d = Dealer(dealing="players_reveal")
    d.open()
    d.play(["3S", "2D", "2C", "3H"], {5: {"player": 50}})
    d.table.handle(Relinquish("player"))
    d.table.handle(OfferAnswer("player", 4, "accept"))
    d.table.handle(Relinquish("player"))  # seat 4 gives it up as well
    rest = [s for s in counterclockwise(14, 4) if s != 5]
    answer(d, "player", rest)
    assert offered(d, "player") == [4, *rest]
    assert closed(d, "player")[-1]["how"] == "none_accepted"


@pytest.mark.reg("545.15(f)", "545.9(d)")
def test_the_right_to_turn_over_the_cards_only_where_a_player_holds_it() -> None:
    d = Dealer()
    d.open()
    d.play(["3S", "2D"], {5: {"player": 50}})
    d.table.handle(Relinquish("player"))  # the dealer turns the cards at this table
    assert d.refusals()[-1]["section"] == "545.9(d)"
    d = Dealer(dealing="players_reveal")
    d.open()
    d.table.handle(Wager(5, "player", 50))
    d.table.handle(Relinquish("player"))  # no round is being dealt
    d.table.handle(NoMoreBets())
    d.table.handle(Relinquish("banker"))  # nobody wagered on it: the dealer turns it
    d.table.handle(OfferAnswer("banker", 4, "accept"))  # nothing offered
    d.table.handle(Relinquish("player"))
    d.table.handle(Relinquish("player"))  # being offered already
    assert [r["section"] for r in d.refusals()] == ["545.15(f)"] * 4
    d.table.handle(Relinquish("dragon"))
    assert d.refusals()[-1]["section"] is None
    # Unanswered at the end of the round: the dealer turned the cards over.
    d.cards(["2H", "6S", "7C", "JD"])
    assert closed(d, "player")[-1]["how"] == "no_answer"
    assert handed(d)[-1] == ("player", None) and d.table.offered("player") is None
    assert d.rounds()[0]["result"] == "player"


def test_offers_end_with_their_shoe() -> None:
    d = Dealer()
    d.open()
    d.table.handle(Wager(2, "player", 10))
    d.event(m.ShoeEmpty("shoe", d.id()))
    (withdrawn,) = d.io.of_type("offer_withdrawn")
    assert withdrawn["what"] == "shoe" and d.table.offered("shoe") is None


@GAMES
@pytest.mark.reg("545.15(f)", "543.14(f)")
def test_a_hand_whose_right_is_on_offer_waits_for_the_answer(game: str) -> None:
    d = Dealer(game, dealing="players_reveal")
    d.open()
    d.play(["3S", "2D"], {5: {"player": 50}, 2: {"banker": 10}})
    d.table.handle(Relinquish("player"))  # before the hands are handed out
    d.cards(["2C", "3H"])
    assert handed(d) == [("banker", 2)]  # not to seat 5, who gave the right up
    d.table.handle(OfferAnswer("player", 4, "accept"))
    assert handed(d) == [("banker", 2), ("player", 4)]
    assert d.io.shown[-1] == "PLAYER TO SEAT 4" and not d.refusals()
