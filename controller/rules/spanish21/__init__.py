"""Spanish 21 (58 Pa. Code ch. 551 and § 635a.7) as pure functions.

Cards are tokens of ``controller.rules.cards``; a ten is no card of this game
(551.3(a)). Boxes are numbered 1 to 7 from the dealer's far left (ruling R2).
Money is ``Decimal`` in currency units, as in ``controller.rules.baccarat``: 3 to 2
on an odd wager is half a unit, and only ``Decimal`` keeps it exact.

A box's hands are a tuple of frozen ``Hand`` values in the order they are played
(551.12(b), ruling R6). The table's state machine drives them:

    hands = (Hand(("8H", "8D"), Decimal(10)),)
    hands = apply_decision(hands, 0, "split", up_card="6S", peeked=False)
    hands = deal_card(hands, "3C")  # the first split hand's second card
    ...
    settle_round({1: BoxRound("ann", hands)}, dealer_cards)

The package's modules, each a concern of the chapter: ``hands`` (the layout's places,
the cards' values, ``Hand``), ``options`` (the Rules Submission), ``dealing`` (the
order of the boxes and the initial deal, the card reader, the dealer's drawing),
``wagers`` (who wagers where, Match-the-Dealer and Insurance), ``decisions`` (the
player's decisions on a box's hands), ``settlement`` (the hands' results, the
bonuses, the round) and ``voids`` (what a void round returns, ruling R10). This
module is their public face.
"""

from controller.rules.spanish21.dealing import (
    InitialCard,
    PeekTarget,
    Place,
    ReaderMisuse,
    blackjack_paid_at_once,
    dead_boxes,
    dealer_draws,
    dealer_needs_to_draw,
    depends_on_dealer,
    initial_deal_order,
    peek_target,
    player_order,
    reader_allowed,
    reader_misuse,
    surrender_settled_at_once,
)
from controller.rules.spanish21.decisions import (
    DECISIONS,
    MAX_SPLIT_HANDS,
    Decision,
    DecisionContext,
    allowed_decisions,
    apply_decision,
    box_context,
    deal_card,
    next_hand,
)
from controller.rules.spanish21.hands import (
    BOXES,
    DEALER,
    Dealer,
    Hand,
    PlayError,
    card_value,
    dealer_blackjack,
    hand_value,
    is_blackjack,
    is_bust,
)
from controller.rules.spanish21.options import SettlementOrder, Spanish21Rules
from controller.rules.spanish21.settlement import (
    OTHERS_SUPER_BONUS,
    BoxRound,
    HandResult,
    Outcome,
    Payout,
    RoundResult,
    SettlementStep,
    bonus_payout,
    settle_box,
    settle_round,
    settlement_steps,
    super_bonus,
)
from controller.rules.spanish21.voids import (
    SideWager,
    VoidedBox,
    settled_before_void,
    void_box,
)
from controller.rules.spanish21.wagers import (
    check_insurance,
    check_match_the_dealer,
    check_player_boxes,
    insurance_allowed,
    insurance_max,
    insurance_net,
    match_the_dealer_max,
    match_the_dealer_net,
    match_the_dealer_order,
    may_wager,
)

__all__ = [
    "BOXES",
    "DEALER",
    "DECISIONS",
    "MAX_SPLIT_HANDS",
    "OTHERS_SUPER_BONUS",
    "BoxRound",
    "Dealer",
    "Decision",
    "DecisionContext",
    "Hand",
    "HandResult",
    "InitialCard",
    "Outcome",
    "Payout",
    "PeekTarget",
    "Place",
    "PlayError",
    "ReaderMisuse",
    "RoundResult",
    "SettlementOrder",
    "SettlementStep",
    "SideWager",
    "Spanish21Rules",
    "VoidedBox",
    "allowed_decisions",
    "apply_decision",
    "blackjack_paid_at_once",
    "bonus_payout",
    "box_context",
    "card_value",
    "check_insurance",
    "check_match_the_dealer",
    "check_player_boxes",
    "dead_boxes",
    "deal_card",
    "dealer_blackjack",
    "dealer_draws",
    "dealer_needs_to_draw",
    "depends_on_dealer",
    "hand_value",
    "initial_deal_order",
    "insurance_allowed",
    "insurance_max",
    "insurance_net",
    "is_blackjack",
    "is_bust",
    "match_the_dealer_max",
    "match_the_dealer_net",
    "match_the_dealer_order",
    "may_wager",
    "next_hand",
    "peek_target",
    "player_order",
    "reader_allowed",
    "reader_misuse",
    "settle_box",
    "settle_round",
    "settled_before_void",
    "settlement_steps",
    "super_bonus",
    "surrender_settled_at_once",
    "void_box",
]
