"""Who may wager on which boxes (551.14, 551.6(k)), and the side wagers beside a box's
hand: Match-the-Dealer (551.7, § 635a.7(f)) and Insurance (551.10), each placed and
settled apart from the hand (551.7(f), 551.9(b)).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from decimal import ROUND_CEILING, Decimal

from controller.rules.cards import card, rank
from controller.rules.spanish21.dealing import player_order
from controller.rules.spanish21.hands import FACES, ZERO, PlayError
from controller.rules.spanish21.options import Spanish21Rules


def check_player_boxes(boxes: Collection[int], rules: Spanish21Rules) -> None:
    """PlayError unless one player's boxes are adjacent and no more than the Rules
    Submission allows (551.14)."""
    order = player_order(boxes)
    if len(order) > rules.boxes_per_player:
        raise PlayError(
            f"boxes {', '.join(map(str, order))}: a player may wager on at most "
            f"{rules.boxes_per_player} box(es) (551.14)"
        )
    if order and order[-1] - order[0] != len(order) - 1:
        raise PlayError(
            f"boxes {', '.join(map(str, order))}: a player's boxes must be adjacent (551.14)"
        )


def may_wager(rules: Spanish21Rules, *, sat_out_since_shuffle: bool, readmitted: bool) -> bool:
    """Whether a person may wager this round under the no-mid-shoe-entry option.

    551.6(k): where the certificate holder elects it, someone who let a round pass
    without a wager since the shuffle waits for the next shuffle unless readmitted.
    """
    return not rules.no_mid_shoe_entry or not sat_out_since_shuffle or readmitted


# --------------------------------------------------------------------------- Insurance


def insurance_allowed(up_card: str) -> bool:
    """Insurance is offered only when the dealer's first card is an ace (551.10(a))."""
    return rank(card(up_card)) == "A"


def insurance_max(wager: Decimal, rules: Spanish21Rules) -> Decimal:
    """Half the initial wager, up to the next chip unit when half cannot be bet.

    551.10(b). Reading: ``rules.chip_unit`` is the smallest chip a player can wager;
    half the wager is rounded up to a whole number of those units, and never further.
    """
    units = (wager / 2 / rules.chip_unit).to_integral_value(rounding=ROUND_CEILING)
    return units * rules.chip_unit


def check_insurance(amount: Decimal, wager: Decimal, up_card: str, rules: Spanish21Rules) -> None:
    """PlayError unless an Insurance Wager of ``amount`` may be placed on ``wager``."""
    if not insurance_allowed(up_card):
        raise PlayError(f"up card {card(up_card)}: insurance only against an ace (551.10(a))")
    limit = insurance_max(wager, rules)
    if not 0 < amount <= limit:
        raise PlayError(
            f"insurance {amount}: must be more than 0 and at most {limit} on a "
            f"{wager} wager (551.10(b))"
        )
    _check_whole_chips("insurance", amount, rules, "551.10(b)")


def insurance_net(amount: Decimal, dealer_cards: Sequence[str]) -> Decimal:
    """An Insurance Wager wins 2 to 1 if the hole card is a K, Q or J and loses on
    anything else (551.10(a), (c)); it stands apart from the hand (551.9(b))."""
    if amount == 0:
        return ZERO
    if not insurance_allowed(dealer_cards[0]):
        raise PlayError("insurance without an ace up card (551.10(a))")
    return 2 * amount if rank(card(dealer_cards[1])) in FACES else -amount


# --------------------------------------------------------------------------- Match-the-Dealer


def match_the_dealer_max(wager: Decimal, rules: Spanish21Rules) -> Decimal:
    """The larger Match-the-Dealer wager allowed: the box's wager or the Rules
    Submission's maximum, whichever is less (551.7(b))."""
    if rules.match_the_dealer_max is None:
        return wager
    return min(wager, rules.match_the_dealer_max)


def check_match_the_dealer(amount: Decimal, wager: Decimal, rules: Spanish21Rules) -> None:
    """PlayError unless a Match-the-Dealer wager of ``amount`` may go beside ``wager``."""
    if not rules.match_the_dealer:
        raise PlayError("Match-the-Dealer is not offered at this table (551.2(c)(5), 551.7)")
    if wager <= 0:
        raise PlayError("Match-the-Dealer needs the basic wager on the box (551.7(b))")
    limit = match_the_dealer_max(wager, rules)
    if not 1 <= amount <= limit:
        raise PlayError(f"Match-the-Dealer {amount}: must be from 1 to {limit} (551.7(b))")
    _check_whole_chips("Match-the-Dealer", amount, rules, "551.7(c)")


def _check_whole_chips(what: str, amount: Decimal, rules: Spanish21Rules, section: str) -> None:
    """A side wager is placed in chips as well (ruling R16), once within its limits."""
    if amount % rules.chip_unit != 0:
        raise PlayError(
            f"{what} {amount}: not a whole number of the table's {rules.chip_unit} chips "
            f"({section}, ruling R16)"
        )


def match_the_dealer_net(
    initial_cards: Sequence[str], up_card: str, amount: Decimal, rules: Spanish21Rules
) -> Decimal:
    """The net of a Match-the-Dealer wager on a box's initial two cards.

    Each card of the up card's rank is paid, at the same-suit or the other-suit odds
    (551.7(a), (e), § 635a.7(f)(2)); ranks must be identical, so a king matches only
    a king (§ 635a.7(f)(1)). Nothing else in the round bears on it (551.7(f)).
    """
    if amount == 0:
        return ZERO
    if len(initial_cards) != 2:
        raise PlayError("Match-the-Dealer is settled on the initial two cards (551.7(a), (d))")
    up = card(up_card)
    odds = 0
    for c in map(card, initial_cards):
        if rank(c) == rank(up):
            same_suit = c[1] == up[1]
            odds += (
                rules.match_the_dealer_same_suit
                if same_suit
                else rules.match_the_dealer_different_suit
            )
    return amount * odds if odds else -amount


def match_the_dealer_order(boxes: Iterable[int]) -> tuple[int, ...]:
    """Boxes in the order Match-the-Dealer wagers are settled: from the dealer's
    right, so the highest box first (§ 635a.7(f); ruling R2)."""
    return tuple(reversed(player_order(boxes)))
