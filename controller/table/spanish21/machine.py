"""The Spanish 21 table's machine as data: its states, their groups and its transitions.

    shuffle_due --shuffled--> burn_due --card (burn)--> wagering
    wagering --no_more_bets--> dealing --card (hole card)--> peek_due | playing
    peek_due --inserted--> peeking --peek--> playing | wagering (dealer Blackjack)
    playing --decide, card--> playing --dealers_card--> dealer_turn | wagering
    dealer_turn --card--> wagering; after the cutting card's round: shuffle_due
    dealing | playing | dealer_turn --shoe_ran_out--> rack_shuffle_due --shuffled-->
        rack_burn_due --card (burn)--> back; the shoe ends after that round (551.16(g))
    (a void round: wagering or shuffle_due; any fault: halted, then back)

A condition or callback ``"part.method"`` is the method ``method`` of the table's
component ``part`` (``controller.table.spanish21.table``), bound when the machine is
built (``controller.table.machine``).
"""

from __future__ import annotations

from typing import Any, Final

SHUFFLE_DUE = "shuffle_due"  # no shoe in play: shuffled cards are needed
BURN_DUE = "burn_due"  # the next card is burned: a new batch or a new dealer
WAGERING = "wagering"  # wagers are taken until the round is dealt
DEALING = "dealing"  # the initial deal (551.8(d))
PEEK_DUE = "peek_due"  # A/K/Q/J up: Insurance open (ace), the reader armed
PEEKING = "peeking"  # the hole card is in the reader; its answer is on its way
PLAYING = "playing"  # decisions box by box and their cards
DEALER_TURN = "dealer_turn"  # the hole card is turned; the dealer draws
# 551.16(g): the shoe ran out mid-round; the discard rack is shuffled and cut, then burned.
RACK_SHUFFLE_DUE = "rack_shuffle_due"
RACK_BURN_DUE = "rack_burn_due"
STATES = (
    SHUFFLE_DUE,
    BURN_DUE,
    WAGERING,
    DEALING,
    PEEK_DUE,
    PEEKING,
    PLAYING,
    DEALER_TURN,
    RACK_SHUFFLE_DUE,
    RACK_BURN_DUE,
)
IN_PLAY = STATES[1:]  # a shoe is in play
# A round is being dealt.
IN_ROUND = (DEALING, PEEK_DUE, PEEKING, PLAYING, DEALER_TURN, RACK_SHUFFLE_DUE, RACK_BURN_DUE)
DRAWS = (DEALING, PLAYING, DEALER_TURN)  # a round's states that take cards from the shoe

GAME = "spanish21"

TRANSITIONS: Final[tuple[dict[str, Any], ...]] = (
    # 551.15: a continuous shuffling device confirms its shuffled cards before each
    # round, in lieu of 551.5's shuffle and cut; no batch goes in the shoe, so no burn.
    {
        "trigger": "shuffled",
        "source": SHUFFLE_DUE,
        "dest": WAGERING,
        "conditions": "in_play.continuous",
        "after": ["in_play.shuffled", "wagers.open_wagering"],
    },
    # 551.5(a), § 635a.5: shuffled and cut cards before play.
    {"trigger": "shuffled", "source": SHUFFLE_DUE, "dest": BURN_DUE, "after": "in_play.shuffled"},
    # 551.5(f): a floorperson may have the cut done again before any card is dealt.
    {
        "trigger": "recut",
        "source": [BURN_DUE, WAGERING],
        "dest": BURN_DUE,
        "conditions": "in_play.nothing_dealt",
        "unless": "in_play.continuous",
        "after": "in_play.recut",
    },
    # 551.5(a), (g): a floorperson may have the cards reshuffled after any round.
    {
        "trigger": "reshuffle",
        "source": [BURN_DUE, WAGERING],
        "dest": SHUFFLE_DUE,
        "conditions": "in_play.round_played",
        "after": "in_play.reshuffle_required",
    },
    # 551.5(h): with no gaming activity the cards come out of the shoe and are
    # spread for inspection; they are shuffled again before play.
    {
        "trigger": "cards_spread",
        "source": [BURN_DUE, WAGERING],
        "dest": SHUFFLE_DUE,
        "conditions": "in_play.no_gaming_activity",
        "after": "in_play.spread",
    },
    # 551.8(c), § 635a.7(c): the first card of a new batch, and one for each new
    # dealer, goes to the discard rack.
    {
        "trigger": "card",
        "source": BURN_DUE,
        "dest": WAGERING,
        "before": "in_play.burn",
        "after": "wagers.open_wagering",
    },
    {"trigger": "new_dealer", "source": WAGERING, "dest": BURN_DUE, "after": "in_play.new_dealer"},
    # 551.6(a), (d), 551.7(b): wagers before the first card of the round.
    {
        "trigger": "wager",
        "source": WAGERING,
        "dest": None,
        "unless": "wagers.is_insurance",
        "before": "wagers.place",
    },
    # The deal is called, but its first card is not out: wagers are still taken,
    # and the round is off if its last wager is withdrawn (551.8(d)(1)).
    {
        "trigger": "wager",
        "source": DEALING,
        "dest": WAGERING,
        "conditions": ["round.before_first_card", "wagers.withdraws_the_last_wager"],
        "unless": "wagers.is_insurance",
        "before": "wagers.place",
        "after": "round.call_off_deal",
    },
    {
        "trigger": "wager",
        "source": DEALING,
        "dest": None,
        "conditions": "round.before_first_card",
        "unless": "wagers.is_insurance",
        "before": ["wagers.place", "round.order_deal"],
    },
    {
        "trigger": "no_more_bets",
        "source": WAGERING,
        "dest": DEALING,
        "conditions": ["wagers.has_wagers", "reader.reader_inspected_today"],
        "after": "round.start",
    },
    # 551.16(c): a card drawn in error, unseen, is used as the next card.
    {
        "trigger": "card",
        "source": [WAGERING, PEEK_DUE, PEEKING],
        "dest": None,
        "before": "in_play.drawn_in_error",
    },
    {
        "trigger": "card",
        "source": PLAYING,
        "dest": None,
        "unless": "round.card_expected",
        "before": "in_play.drawn_in_error",
    },
    # 551.8(d), § 635a.7(e): the initial deal. With the hole card, Match-the-Dealer
    # is settled before any other card and before the reader is used (551.7(d)).
    {
        "trigger": "card",
        "source": DEALING,
        "dest": PEEK_DUE,
        "conditions": ["round.is_hole_card", "reader.reader_needed"],
        "before": "round.deal_initial",
        "after": ["wagers.settle_match_the_dealer", "wagers.offer_insurance"],
    },
    {
        "trigger": "card",
        "source": DEALING,
        "dest": PLAYING,
        "conditions": "round.is_hole_card",
        "before": "round.deal_initial",
        "after": ["wagers.settle_match_the_dealer", "round.start_decisions"],
    },
    {"trigger": "card", "source": DEALING, "dest": None, "before": "round.deal_initial"},
    # 551.10(a), (b): Insurance against an ace, until the hole card goes in the reader.
    {
        "trigger": "wager",
        "source": PEEK_DUE,
        "dest": None,
        "conditions": "wagers.insurance_open",
        "before": "wagers.place_insurance",
    },
    # 551.8(e), § 635a.7(g): the peek; an answer the shoe's reading of the hole card
    # contradicts is a malfunction (551.16(m)), and the peek is done again.
    {
        "trigger": "inserted",
        "source": PEEK_DUE,
        "dest": PEEKING,
        "conditions": "reader.reader_armed",
        "after": "reader.hole_card_in_reader",
    },
    {"trigger": "reader_failed", "source": PEEKING, "dest": PEEK_DUE},
    {
        "trigger": "peek",
        "source": PEEKING,
        "dest": SHUFFLE_DUE,
        "conditions": ["reader.reader_agrees", "reader.dealer_blackjack", "in_play.is_last_round"],
        "after": ["reader.peeked_blackjack", "round_end.end", "in_play.end_after_round"],
    },
    {
        "trigger": "peek",
        "source": PEEKING,
        "dest": WAGERING,
        "conditions": ["reader.reader_agrees", "reader.dealer_blackjack"],
        "after": ["reader.peeked_blackjack", "round_end.end", "wagers.open_wagering"],
    },
    {
        "trigger": "peek",
        "source": PEEKING,
        "dest": PLAYING,
        "conditions": "reader.reader_agrees",
        "after": ["reader.peeked_no_blackjack", "round.start_decisions"],
    },
    # 551.8(f)-(g), 551.9, 551.11-551.13: decisions box by box, and their cards.
    {"trigger": "decide", "source": PLAYING, "dest": None, "before": "round.apply_decision"},
    {"trigger": "card", "source": PLAYING, "dest": None, "before": "round.deal_to_player"},
    # 551.8(h): "Dealer's Card" once every decision is made; the dealer draws only
    # while a result depends on it (551.13(b)-(c), § 635a.7(l)-(m), ruling R7).
    {
        "trigger": "dealers_card",
        "source": PLAYING,
        "dest": SHUFFLE_DUE,
        "conditions": ["round.all_decided", "round.dealer_stands", "in_play.is_last_round"],
        "after": ["round.reveal", "round_end.end", "in_play.end_after_round"],
    },
    {
        "trigger": "dealers_card",
        "source": PLAYING,
        "dest": WAGERING,
        "conditions": ["round.all_decided", "round.dealer_stands"],
        "after": ["round.reveal", "round_end.end", "wagers.open_wagering"],
    },
    {
        "trigger": "dealers_card",
        "source": PLAYING,
        "dest": DEALER_TURN,
        "conditions": "round.all_decided",
        "after": "round.reveal",
    },
    {
        "trigger": "card",
        "source": DEALER_TURN,
        "dest": SHUFFLE_DUE,
        "conditions": ["round.dealer_done_with", "in_play.is_last_round"],
        "before": "round.deal_to_dealer",
        "after": ["round_end.end", "in_play.end_after_round"],
    },
    {
        "trigger": "card",
        "source": DEALER_TURN,
        "dest": WAGERING,
        "conditions": "round.dealer_done_with",
        "before": "round.deal_to_dealer",
        "after": ["round_end.end", "wagers.open_wagering"],
    },
    {"trigger": "card", "source": DEALER_TURN, "dest": None, "before": "round.deal_to_dealer"},
    # 551.8(j), § 635a.7(d): the round the cutting card appears in is completed, then
    # the cards are collected and reshuffled. A continuous shuffling device's cards
    # carry no cutting card (551.15).
    {
        "trigger": "cutting_card",
        "source": list(IN_PLAY),
        "dest": None,
        "unless": "in_play.continuous",
        "before": "in_play.cut",
    },
    # A void round: a second card found face up (551.16(a)) reshuffles; the reader
    # used behind another up card (551.16(l)(1)) plays on with the same shoe.
    {
        "trigger": "void",
        "source": list(IN_PLAY),
        "dest": SHUFFLE_DUE,
        "conditions": "round_end.void_reshuffles",
        "after": ["round_end.void", "in_play.end_after_void"],
    },
    {
        "trigger": "void",
        "source": list(IN_ROUND),
        "dest": WAGERING,
        "after": ["round_end.void", "wagers.open_wagering"],
    },
    # 551.16(g): too few cards to complete the round. The discard rack is shuffled
    # and cut (551.5), its first card burned, and the round completed; the shoe
    # ends after it.
    {
        "trigger": "shoe_ran_out",
        "source": list(DRAWS),
        "dest": RACK_SHUFFLE_DUE,
        "before": "rack.shoe_ran_out",
    },
    {
        "trigger": "shuffled",
        "source": RACK_SHUFFLE_DUE,
        "dest": RACK_BURN_DUE,
        "after": "rack.shuffled",
    },
    *(
        {
            "trigger": "card",
            "source": RACK_BURN_DUE,
            "dest": state,
            "conditions": f"rack.resumes_{state}",
            "before": "in_play.burn",
            "after": "rack.round_resumes",
        }
        for state in DRAWS
    ),
    # 551.16(c)-(f), (h), (i): the dealer's errors, as the dealer declares them.
    {
        "trigger": "exposed_card",
        "source": [PEEK_DUE, PEEKING, PLAYING],
        "dest": None,
        "before": "dealer_errors.expose",
    },
    {
        "trigger": "refuse_card",
        "source": PLAYING,
        "dest": None,
        "before": "dealer_errors.refuse_card",
    },
    {
        "trigger": "dealer_overdraw",
        "source": WAGERING,
        "dest": None,
        "before": "dealer_errors.discard_overdraw",
    },
    {
        "trigger": "missed_card",
        "source": DEALING,
        "dest": None,
        "before": "missed_cards.missed_card",
    },
    {
        "trigger": "card_not_dealt",
        "source": PLAYING,
        "dest": None,
        "before": "dealer_errors.card_not_dealt",
    },
)
