"""The Spanish 21 table machine (58 Pa. Code ch. 551 and § 635a.7).

The game's rules are the pure functions of ``controller.rules.spanish21``; this
package holds the procedure around them: shuffled cards and the burn, wagers before
the first card, the initial deal, Match-the-Dealer settled at once, Insurance and
the card reader behind an A/K/Q/J, player decisions box by box, "Dealer's Card",
the dealer's draws, the cutting card, and the irregularities the devices can see.

``machine`` holds the states and the transitions as data, ``refusals`` why a trigger
is refused in a state, and ``table`` the table, whose components each own a part of
its state and the procedure around it: the shoe in play (``shoe``), the hole card's
seals (``hole_card``), the card reader (``reader``), the wagers (``wagers``), the
round on the layout (``round``) and its end (``round_end``), the discard rack
(``rack``), and the dealer's errors (``dealer_errors``, ``missed_cards``).
"""

from controller.table.spanish21.machine import (
    BURN_DUE,
    DEALER_TURN,
    DEALING,
    DRAWS,
    GAME,
    IN_PLAY,
    IN_ROUND,
    PEEK_DUE,
    PEEKING,
    PLAYING,
    RACK_BURN_DUE,
    RACK_SHUFFLE_DUE,
    SHUFFLE_DUE,
    STATES,
    WAGERING,
)
from controller.table.spanish21.round_end import ROUND_VOID, Void
from controller.table.spanish21.shoe import CARDS_PER_DECK
from controller.table.spanish21.table import Spanish21Table
from controller.table.spanish21.wagers import BETS, PLACE_BETS

__all__ = [
    "BETS",
    "BURN_DUE",
    "CARDS_PER_DECK",
    "DEALER_TURN",
    "DEALING",
    "DRAWS",
    "GAME",
    "IN_PLAY",
    "IN_ROUND",
    "PEEKING",
    "PEEK_DUE",
    "PLACE_BETS",
    "PLAYING",
    "RACK_BURN_DUE",
    "RACK_SHUFFLE_DUE",
    "ROUND_VOID",
    "SHUFFLE_DUE",
    "STATES",
    "WAGERING",
    "Spanish21Table",
    "Void",
]
