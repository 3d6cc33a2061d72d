"""Baccarat (58 Pa. Code ch. 545) and Midibaccarat (ch. 543) as pure functions.

The two chapters share their numbering for the card values (.6), the order of the
initial four cards (.9(c)), the third-card rules (.10, .11), the announcements (.12)
and the payouts (.13(a)-(e)); a comment citing 545 applies to 543 as well unless it
names both. Cards are tokens of ``controller.rules.cards``.

The package's modules, each a concern of the chapters: ``points`` (the cards' values
and the Point Count), ``drawing`` (the order of the cards, the third-card rules and
the result), ``coup`` (a round's cards dealt one at a time, with those rules'
answers kept up to date), ``announcements`` (what the display shows), ``seats`` (what is offered
seat by seat, and to whom), ``settlement`` (the wagers, the vigorish and its ledger)
and ``options`` (the Rules Submission). This module is their public face.
"""

from controller.rules.baccarat.announcements import CARDS, LAST_HAND, NO_MORE_BETS, announcements
from controller.rules.baccarat.coup import Coup
from controller.rules.baccarat.drawing import (
    TABLE_1,
    Hand,
    Outcome,
    banker_draws,
    banker_draws_by_points,
    initial_order,
    next_to_draw,
    player_draws,
    player_draws_by_points,
    result,
)
from controller.rules.baccarat.options import (
    GAMES,
    BaccaratRules,
    Dealing,
    Game,
    Vigorish,
    VigorishCollection,
)
from controller.rules.baccarat.points import (
    burn_count,
    face_up_discard_count,
    is_natural,
    point,
    value,
)
from controller.rules.baccarat.seats import (
    COVER_CARD_FROM_BOTTOM,
    COVER_CARDS,
    OFFERABLE,
    Offer,
    Offerable,
    clockwise,
    counterclockwise,
    curator_passes,
    cut_order,
    shoe_order,
    squeeze_seat,
)
from controller.rules.baccarat.settlement import (
    BETS,
    Bet,
    Settlement,
    VigorishLedger,
    WagerError,
    collection_order,
    payment_order,
    round_vigorish,
    settle,
    vigorish_collected,
    wager_amount,
)
from controller.rules.options import RulesError  # callers import it here

__all__ = [
    "BETS",
    "CARDS",
    "COVER_CARDS",
    "COVER_CARD_FROM_BOTTOM",
    "GAMES",
    "LAST_HAND",
    "NO_MORE_BETS",
    "OFFERABLE",
    "TABLE_1",
    "BaccaratRules",
    "Bet",
    "Coup",
    "Dealing",
    "Game",
    "Hand",
    "Offer",
    "Offerable",
    "Outcome",
    "RulesError",
    "Settlement",
    "Vigorish",
    "VigorishCollection",
    "VigorishLedger",
    "WagerError",
    "announcements",
    "banker_draws",
    "banker_draws_by_points",
    "burn_count",
    "clockwise",
    "collection_order",
    "counterclockwise",
    "curator_passes",
    "cut_order",
    "face_up_discard_count",
    "initial_order",
    "is_natural",
    "next_to_draw",
    "payment_order",
    "player_draws",
    "player_draws_by_points",
    "point",
    "result",
    "round_vigorish",
    "settle",
    "shoe_order",
    "squeeze_seat",
    "value",
    "vigorish_collected",
    "wager_amount",
]
