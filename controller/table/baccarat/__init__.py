"""The Baccarat (58 Pa. Code ch. 545) and Midibaccarat (ch. 543) table machine.

The game's rules are the pure functions of ``controller.rules.baccarat``; this
package holds the procedure around them: shuffled cards before any card, the burn,
wagering closed by "no more bets", every card placed where the rules put it, the
cover card and the last hand, the irregularities the shoe can see, and the
controller's own result on the shoe's display.

    shuffle_due --shuffled--> burn_due --card--> burning --card (last burn)--> wagering
    wagering --no_more_bets--> dealing --card (round complete)--> wagering | shuffle_due
    (any card found face up: discarding, then back; any fault: halted, then back)

``machine``: the states, the transitions as data and each chapter's sections.
``table``: ``BaccaratTable``, which routes every input and runs the steps that take
more than one of its parts. The parts, each owning its state: ``shoe`` (the shoe in
play: the burn, the cover card, its end), ``discards`` (cards that go to no hand),
``round`` (wagers, the hands, settlement and the vigorish, a void) and ``offers``
(the cut, the shoe and the curator, the right to turn a hand over, seat by seat).
"""

from controller.table.baccarat.machine import SEATS
from controller.table.baccarat.table import BaccaratTable

__all__ = ["SEATS", "BaccaratTable"]
