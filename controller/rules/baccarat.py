"""Baccarat (58 Pa. Code ch. 545) and Midibaccarat (ch. 543) as pure functions.

The two chapters share their numbering for the card values (.6), the order of the
initial four cards (.9(c)), the third-card rules (.10, .11), the announcements (.12)
and the payouts (.13(a)-(e)); a comment citing 545 applies to 543 as well unless it
names both. Cards are tokens of ``controller.rules.cards``.

Money is ``Decimal`` in currency units (dollars, as the bench scenarios give wagers):
the rounding of 545.13(d) / 543.13(d) is stated in cents, and a 5% vigorish on an
amount in whole cents need not be whole cents, so integers of one unit cannot hold
the exact vigorish that 545.13(c) requires when no rounding is elected.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_CEILING, Decimal
from typing import Any, Literal, cast, get_args

from controller.rules.cards import card, rank
from controller.rules.options import RulesError as RulesError  # re-exported: callers import it here
from controller.rules.options import flag, text, whole

Game = Literal["baccarat", "midibaccarat"]
Hand = Literal["player", "banker"]
Outcome = Literal["player", "banker", "tie"]
Bet = Literal["player", "banker", "tie"]
Dealing = Literal["face_up", "banker_under_shoe", "players_reveal"]
VigorishCollection = Literal["at_payout", "deferred"]
Vigorish = Literal["commission", "tie_25"]

BETS: tuple[Bet, ...] = get_args(Bet)
GAMES: tuple[Game, ...] = get_args(Game)


class WagerError(ValueError):
    """A wager that cannot be settled: unknown bet or an amount that is not money."""


# --------------------------------------------------------------------------- cards


def _face_value(token: str) -> int:
    r = rank(card(token))
    return 10 if r in "TJQK" else 1 if r == "A" else int(r)


def value(token: str) -> int:
    """The value of a card: 2-9 face value, 10/J/Q/K zero, ace one (545.6(a))."""
    return _face_value(token) % 10


def point(cards: Iterable[str]) -> int:
    """The Point Count: the right digit of the total value (545.6(b))."""
    return sum(value(c) for c in cards) % 10


def is_natural(cards: Sequence[str]) -> bool:
    """A Point Count of 8 or 9 on the first two cards (545.1 / 543.1 "Natural")."""
    return len(cards) == 2 and point(cards) >= 8


def burn_count(first_card: str) -> int:
    """Cards burned after the first one: its face value, 10/J/Q/K ten, ace one.

    545.5(f) / 543.5(g) count a ten-count card as ten here, unlike 545.6(a).
    """
    return _face_value(first_card)


def face_up_discard_count(found: str) -> int:
    """Cards discarded with a card found face up in the shoe (545.15(d) / 543.14(d)).

    The text says "the value of the card", the 545.6 value, so a ten-count card
    takes no further card with it, where the burn (545.5(f)) counts it as ten.
    """
    return value(found)


# --------------------------------------------------------------------------- drawing


def initial_order() -> tuple[Hand, Hand, Hand, Hand]:
    """Which hand takes each of the first four cards (545.9(c) / 543.9(c))."""
    return ("player", "banker", "player", "banker")


# 545.11(c)(2)(iii) Table 1, as printed: the Banker's two-card Point Count (rows)
# against the value of the Player's third card (columns 0-9); "D" draws, "S" stays.
TABLE_1: Mapping[int, str] = {
    3: "DDDDDDDDSD",
    4: "SSDDDDDDSS",
    5: "SSSSDDDDSS",
    6: "SSSSSSDDSS",
}


def player_draws_by_points(player_point: int, banker_point: int) -> bool:
    """545.11(a)-(b) on the two-card Point Counts."""
    if player_point >= 8 or banker_point >= 8:
        return False  # 545.11(a): a Natural on either side ends the deal
    return player_point < 6  # 545.11(b)(1); 6 or 7 stays, 545.11(b)(2)


def banker_draws_by_points(banker_point: int, player_third: int | None) -> bool:
    """545.11(c) on the Banker's two-card Point Count and the Player's third card value.

    ``None`` means the Player's Hand stayed. Like 545.11(c) itself this presumes the
    Player's Hand is not a Natural; ``next_to_draw`` applies 545.11(a) to both hands.
    """
    if banker_point >= 8:
        return False  # 545.11(a)
    if player_third is None:
        return banker_point <= 5  # 545.11(c)(1)
    if banker_point < 3:
        return True  # 545.11(c)(2)(i)
    if banker_point == 7:
        return False  # 545.11(c)(2)(ii)
    return TABLE_1[banker_point][player_third] == "D"  # 545.11(c)(2)(iii), (g)


def _check_two(hand: Hand, cards: Sequence[str]) -> None:
    if len(cards) != 2:
        raise ValueError(f"the {hand}'s first two cards are wanted, not {len(cards)} cards")


def player_draws(player: Sequence[str], banker: Sequence[str]) -> bool:
    """Whether the Player's Hand takes a third card, from both hands' first two cards."""
    _check_two("player", player)
    _check_two("banker", banker)
    return player_draws_by_points(point(player), point(banker))


def banker_draws(banker: Sequence[str], player_third: str | None) -> bool:
    """Whether the Banker's Hand takes a third card (545.11(c), Table 1).

    ``player_third`` is the Player's third card, or ``None`` when the Player's Hand
    stayed. As in 545.11(c) the Player's Hand is presumed not to be a Natural.
    """
    _check_two("banker", banker)
    third = None if player_third is None else value(player_third)
    return banker_draws_by_points(point(banker), third)


def next_to_draw(player: Sequence[str], banker: Sequence[str]) -> Hand | None:
    """The hand that takes the next card, or ``None`` once the round's cards are out.

    ValueError if the cards so far could not have been dealt under 545.9(c), 545.10(c),
    (d) and 545.11: the caller has an irregularity (545.15) to handle.
    """
    p, b = len(player), len(banker)
    if p + b < 4:
        if (p, b) not in ((0, 0), (1, 0), (1, 1), (2, 1)):
            raise ValueError(f"{p} Player and {b} Banker cards: not the order of 545.9(c)")
        return initial_order()[p + b]
    if p > 3 or b > 3:
        raise ValueError("no hand takes more than one additional card (545.10(d))")
    if p < 2 or b < 2:
        raise ValueError(f"{p} Player and {b} Banker cards: not the order of 545.9(c)")
    player_third = player[2] if p == 3 else None
    wants_player = player_draws(player[:2], banker[:2])
    wants_banker = not is_natural(player[:2]) and banker_draws(banker[:2], player_third)
    if p == 3 and not wants_player:
        raise ValueError("the Player's Hand was not entitled to a third card (545.11)")
    if b == 3 and not wants_banker:
        raise ValueError("the Banker's Hand was not entitled to a third card (545.11)")
    if p == 2 and wants_player:
        if b == 3:
            raise ValueError("the Player's third card is dealt first (545.10(c))")
        return "player"
    if b == 2 and wants_banker:
        return "banker"
    return None


def result(player: Sequence[str], banker: Sequence[str]) -> Outcome:
    """The winning hand of a complete round, or "tie" (545.8(a), 545.12(a))."""
    if next_to_draw(player, banker) is not None:
        raise ValueError("the round is not complete (545.12(a))")
    p, b = point(player), point(banker)
    if p == b:
        return "tie"
    return "player" if p > b else "banker"


# --------------------------------------------------------------------------- prompts

NO_MORE_BETS = "NO MORE BETS"  # 545.9(b), 543.9(b)
CARDS = "CARDS"  # 545.9(b): the dealer calling the game instructs the curator
LAST_HAND = "LAST HAND"  # 545.10(e), ruling R1


def announcements(player: Sequence[str], banker: Sequence[str]) -> tuple[str, ...]:
    """What the dealer announces once these cards are out, in order, for the display.

    Each line is printable ASCII of at most 32 characters. Nothing is due before the
    fourth card. After it: the Player's then the Banker's Point Count (545.10(a);
    also the order in which 545.9(d) and 543.9(c)(3) reveal them), then whether each
    hand draws or stays (545.10(b)), and once the round is complete the final Point
    Counts with the winning hand or "TIE HAND" (545.12(a)). The last card dealt is
    the one the order of 545.9(c) and 545.10(c) puts last.
    """
    nxt = next_to_draw(player, banker)
    p, b = len(player), len(banker)
    if p + b < 4:
        return ()
    natural = is_natural(player[:2]) or is_natural(banker[:2])
    lines: list[str] = []
    if (p, b) == (2, 2):
        lines += [f"PLAYER {point(player)}", f"BANKER {point(banker)}"]
        if nxt == "player":
            return (*lines, "PLAYER DRAWS")
        if not natural:
            lines.append("PLAYER STAYS")
    if nxt == "banker":
        return (*lines, "BANKER DRAWS")
    if b == 2 and not natural:
        lines.append("BANKER STAYS")
    return (*lines, _result_line(player, banker))


def _result_line(player: Sequence[str], banker: Sequence[str]) -> str:
    outcome = result(player, banker)
    won = "TIE HAND" if outcome == "tie" else f"{outcome.upper()} WINS"
    return f"PLAYER {point(player)} BANKER {point(banker)} {won}"


# --------------------------------------------------------------------------- table order


def payment_order(seats: Iterable[int]) -> tuple[int, ...]:
    """Seats with a winning wager in the order they are paid: highest first (545.12(b))."""
    return tuple(sorted(set(seats), reverse=True))


def squeeze_seat(wagers: Mapping[int, Mapping[str, Decimal]], hand: Hand) -> int | None:
    """The seat handed ``hand``'s cards under the players-reveal dealing option: the
    highest wager on that hand; of equal highest wagers, the one closest to the dealer
    moving counterclockwise (545.9(d)(2)-(6), 543.9(c)(3)(i)-(v)). None when nobody
    wagered on it: the dealer turns it face up (545.9(d)(7)).

    Seats are numbered from the dealer's far left (ruling R2), so counterclockwise from
    the dealer starts at the dealer's right, the highest seat number, as in 635a.7(f)
    ("farthest to the dealer's right ... counterclockwise").
    """
    bets = {seat: b[hand] for seat, b in wagers.items() if b.get(hand, 0) > 0}
    if not bets:
        return None
    return max(bets, key=lambda seat: (bets[seat], seat))


def curator_passes(outcome: Outcome) -> bool:
    """Whether the curator must pass the shoe: when the Banker's Hand loses (545.14(a)(1)).

    A tie is not a loss of the Banker's Hand (545.8(a)(1)(iii)).
    """
    return outcome == "player"


def collection_order(settled: Mapping[int, Settlement]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """545.12(b), 543.12(b): the seats whose losing wagers are collected first, then the
    seats with a winning wager in the order each one's vigorish is marked or collected
    and its winning wager paid, the highest seat number first. A wager returned on a tie
    is neither."""
    losing = sorted(s for s, x in settled.items() if min(x.player, x.banker, x.tie) < 0)
    winning = (s for s, x in settled.items() if max(x.player, x.banker, x.tie) > 0)
    return tuple(losing), payment_order(winning)


# --------------------------------------------------------------------------- offers
#
# The cut (545.5(b), 543.5(c)), the dealing shoe (545.7(b), 545.14(b)) and the right to
# turn over a hand's cards (545.15(f), 543.14(f)) are offered seat by seat until a
# player accepts. Seats are numbered from the dealer's far left (ruling R2), so
# clockwise runs up the seat numbers and counterclockwise down them; past seat 1
# counterclockwise (past the highest seat clockwise) comes the dealer, then the other
# end of the table. The dealer's right is the highest seat, as in ``squeeze_seat``.

Offerable = Literal["cut", "shoe", "player", "banker"]
OFFERABLE: tuple[Offerable, ...] = get_args(Offerable)
COVER_CARDS = 2  # 545.3(a), 543.3(a): two cover cards besides the decks
COVER_CARD_FROM_BOTTOM = 14  # 545.5(d), 543.5(e): at least 14 cards above the bottom


def counterclockwise(seats: int, after: int | None) -> tuple[int, ...]:
    """Every other seat in turn counterclockwise, starting with the one immediately to
    the right of seat ``after`` (None: of the dealer, the highest seat first)."""
    if after is None:
        return tuple(range(seats, 0, -1))
    return tuple((after - 1 - i - 1) % seats + 1 for i in range(seats - 1))


def clockwise(seats: int, first: int) -> tuple[int, ...]:
    """Every seat in turn clockwise, starting with ``first``."""
    return tuple((first - 1 + i) % seats + 1 for i in range(seats))


def cut_order(seats: int, last_curator: int | None) -> tuple[int, ...]:
    """The order in which the stack is offered for the cut: the highest seat number or,
    on a reshuffle, the last curator, then clockwise (545.5(b), 543.5(c))."""
    return clockwise(seats, seats if last_curator is None else last_curator)


def shoe_order(seats: int) -> tuple[int, ...]:
    """The order in which a new shoe is offered: seat one, then each other seat in turn
    counterclockwise (545.7(b))."""
    return (1, *counterclockwise(seats, 1))


@dataclass(frozen=True)
class Offer:
    """Something offered seat by seat, in ``order``, until a player accepts; ``section``
    is the rule that sets the order. A seat declines for its player, or because nobody
    sits there (545.7(b), 545.14(b): "there is no player in that position")."""

    order: tuple[int, ...]
    section: str
    at: int = 0

    @property
    def seat(self) -> int | None:
        """The seat offered now; None once every seat has declined."""
        return self.order[self.at] if self.at < len(self.order) else None

    def declined(self) -> Offer:
        return Offer(self.order, self.section, self.at + 1)

    def after(self) -> tuple[int, ...]:
        """The seats still entitled after the one offered now (a recut, 545.5(e))."""
        return self.order[self.at + 1 :]


# --------------------------------------------------------------------------- rules


def _chapter(game: Game) -> str:
    return "545" if game == "baccarat" else "543"


def _unknown_game(game: str) -> RulesError:
    return RulesError(f"rules: unknown game {game!r}; expected baccarat or midibaccarat")


def _dealing_section(game: Game) -> str:
    return "545.9(c)-(d)" if game == "baccarat" else "543.9(c)"


_VIGORISH: Mapping[Game, tuple[Vigorish, ...]] = {
    "baccarat": ("commission",),  # 545.13(c); a tie returns the wager, 545.8(a)(1)(iii)
    "midibaccarat": ("commission", "tie_25"),  # 543.13(c), (f)
}
_DEALING: Mapping[Game, tuple[Dealing, ...]] = {
    "baccarat": ("face_up", "players_reveal"),  # 545.9(c), 545.9(d)
    "midibaccarat": ("face_up", "banker_under_shoe", "players_reveal"),  # 543.9(c)(1)-(3)
}


@dataclass(frozen=True)
class BaccaratRules:
    """The Rules Submission options of one Baccarat or Midibaccarat table.

    Build it with ``from_dict``; the constructor checks the values as well. Defaults
    are the chapters' minimums (ruling R8).
    """

    game: Game = "baccarat"
    decks: int = 8  # 545.3(a)
    commission: int = 5  # percent of the amount won (545.13(c)); 0 under "tie_25"
    tie_odds: int = 8  # pays tie_odds to 1 (545.13(b))
    dealing: Dealing = "face_up"  # 545.9(c)-(d), 543.9(c)(1)-(3)
    vigorish_collection: VigorishCollection = "at_payout"  # 545.13(e)
    vigorish: Vigorish = "commission"  # "tie_25": 543.13(f)
    vigorish_rounding: bool = False  # 545.13(d), 543.13(d)

    def __post_init__(self) -> None:
        if self.game not in GAMES:
            raise _unknown_game(self.game)
        ch = _chapter(self.game)
        if not 6 <= self.decks <= 8:
            raise RulesError(f"rules.decks: {self.decks} is outside six to eight decks ({ch}.3(a))")
        if self.vigorish not in _VIGORISH[self.game]:
            if self.vigorish == "tie_25":
                raise RulesError(
                    "rules.vigorish: 'tie_25' is a Midibaccarat option (543.13(f)); a "
                    "Baccarat Banker wager on a tie is returned (545.8(a)(1)(iii))"
                )
            expected = " or ".join(repr(v) for v in _VIGORISH[self.game])
            raise RulesError(
                f"rules.vigorish: {self.vigorish!r} is not {expected} ({ch}.13(c), 543.13(f))"
            )
        if self.vigorish == "tie_25":
            if self.commission != 0:
                raise RulesError(
                    "rules.commission: no commission on winning Banker wagers when "
                    "vigorish is 'tie_25' (543.13(f))"
                )
            if self.vigorish_collection != "at_payout":
                raise RulesError(
                    "rules.vigorish_collection: the 25% tie vigorish is collected at the "
                    "end of the round, never deferred (543.13(f))"
                )
        elif self.commission not in (4, 5):
            raise RulesError(
                f"rules.commission: {self.commission} is not allowed; the percentage is "
                f"4 or 5 ({ch}.13(c))"
            )
        if self.tie_odds < 8:
            raise RulesError(
                f"rules.tie_odds: {self.tie_odds} is under the 8 to 1 minimum ({ch}.13(b))"
            )
        allowed = _DEALING[self.game]
        if self.dealing not in allowed:
            raise RulesError(
                f"rules.dealing: {self.dealing!r} is not a {self.game} procedure; expected "
                f"{' or '.join(repr(a) for a in allowed)} ({_dealing_section(self.game)})"
            )
        if self.vigorish_collection not in get_args(VigorishCollection):
            raise RulesError(
                f"rules.vigorish_collection: {self.vigorish_collection!r} is not "
                f"'at_payout' or 'deferred' ({ch}.13(e))"
            )

    @classmethod
    def from_dict(cls, game: str, d: Mapping[str, Any]) -> BaccaratRules:
        """Validated rules from a Rules Submission table (TOML or JSON), defaults filled.

        RulesError, one line naming the key and the section, for an unknown key, a
        value of the wrong type or a value the chapter forbids.
        """
        if game not in GAMES:
            raise _unknown_game(game)
        ch = _chapter(game)
        if not isinstance(d, Mapping):
            raise RulesError(f"rules: expected a table of options, got {type(d).__name__}")
        for key in d:
            if key not in _KEYS:
                raise RulesError(
                    f"rules.{key}: unknown option; expected one of {', '.join(_KEYS)} "
                    "(Rules Submission, 521.2)"
                )
        vigorish = cast(Vigorish, text(d, "vigorish", "commission", f"{ch}.13(c)"))
        return cls(
            game=game,
            decks=whole(d, "decks", 8, f"{ch}.3(a)"),
            commission=whole(d, "commission", 0 if vigorish == "tie_25" else 5, f"{ch}.13(c)"),
            tie_odds=whole(d, "tie_odds", 8, f"{ch}.13(b)"),
            dealing=cast(Dealing, text(d, "dealing", "face_up", _dealing_section(game))),
            vigorish_collection=cast(
                VigorishCollection,
                text(d, "vigorish_collection", "at_payout", f"{ch}.13(e)"),
            ),
            vigorish=vigorish,
            vigorish_rounding=flag(d, "vigorish_rounding", False, f"{ch}.13(d)"),
        )

    @property
    def commission_rate(self) -> Decimal:
        return Decimal(self.commission) / 100


_KEYS = (
    "decks",
    "commission",
    "tie_odds",
    "dealing",
    "vigorish_collection",
    "vigorish",
    "vigorish_rounding",
)


# --------------------------------------------------------------------------- settlement

_CENT = Decimal("0.01")


@dataclass(frozen=True)
class Settlement:
    """One seat's round: the net of each bet and the vigorish it is charged.

    ``banker`` is the 1:1 result; the vigorish is apart because 545.12(b) marks or
    collects it apart from the payout. ``vigorish_deferred``: marked on the layout
    for later collection (545.13(e)) rather than collected now.
    """

    player: Decimal
    banker: Decimal
    tie: Decimal
    vigorish: Decimal
    vigorish_deferred: bool

    @property
    def net(self) -> Decimal:
        """The seat's result for the round, the vigorish charged (collected or marked) off."""
        return self.player + self.banker + self.tie - self.vigorish


def wager_amount(bet: str, amount: Decimal | int) -> Decimal:
    """A wager as money: a positive amount in whole cents; WagerError otherwise."""
    if bet not in BETS:
        raise WagerError(f"unknown bet {bet!r}; expected player, banker or tie (545.8(a))")
    if isinstance(amount, bool) or not isinstance(amount, int | Decimal):
        raise WagerError(f"{bet} wager: {amount!r} is not an int or Decimal amount")
    money = Decimal(amount)
    if not money.is_finite() or money <= 0 or money % _CENT != 0:
        raise WagerError(f"{bet} wager: {amount} is not a positive amount in whole cents")
    return money


def round_vigorish(amount: Decimal, rules: BaccaratRules) -> Decimal:
    """The vigorish after the rounding the rules elect, up to a multiple of the unit.

    Baccarat rounds a 5% vigorish up to 25 cents and a 4% one up to 20 cents
    (545.13(d)); Midibaccarat rounds any vigorish, the 25% one included, up to 5 cents
    (543.13(d)).
    """
    if not rules.vigorish_rounding or amount == 0:
        return amount
    if rules.game == "midibaccarat":
        unit = Decimal("0.05")
    else:
        unit = Decimal("0.25") if rules.commission == 5 else Decimal("0.20")
    return (amount / unit).to_integral_value(rounding=ROUND_CEILING) * unit


def settle(
    wagers: Mapping[str, Decimal | int], outcome: Outcome, rules: BaccaratRules
) -> Settlement:
    """Settle one seat's wagers (bet -> amount) for the round's outcome (545.8, 545.13)."""
    amounts = {bet: wager_amount(bet, amount) for bet, amount in wagers.items()}
    zero = Decimal(0)
    on_player = amounts.get("player", zero)
    on_banker = amounts.get("banker", zero)
    on_tie = amounts.get("tie", zero)
    if outcome == "tie":
        # 545.8(a)(1)(iii), (2)(iii): Player and Banker wagers are void and returned.
        player_net = banker_net = zero
        tie_net = on_tie * rules.tie_odds  # 545.13(b)
    else:
        sign = 1 if outcome == "player" else -1
        player_net = sign * on_player  # 545.8(a)(2), 545.13(a): 1 to 1
        banker_net = -sign * on_banker  # 545.8(a)(1), 545.13(c): 1 to 1
        tie_net = -on_tie  # 545.8(a)(3)(ii)
    vigorish = zero
    if outcome == "banker":
        vigorish = on_banker * rules.commission_rate  # 545.13(c): of the amount won
    elif outcome == "tie" and rules.vigorish == "tie_25":
        vigorish = on_banker / 4  # 543.8(a)(1)(iii)(B), 543.13(f)
    vigorish = round_vigorish(vigorish, rules)
    deferred = vigorish > 0 and rules.vigorish_collection == "deferred"
    return Settlement(player_net, banker_net, tie_net, vigorish, deferred)


@dataclass(frozen=True)
class VigorishLedger:
    """Deferred vigorish owed per seat, as the marker buttons on the layout (545.13(e)).

    All of it is collected before play begins with a new shoe, and a seat's share
    when that player leaves the table, whichever comes first.
    """

    owed: tuple[tuple[int, Decimal], ...] = ()

    def due(self, seat: int) -> Decimal:
        return dict(self.owed).get(seat, Decimal(0))

    def mark(self, seat: int, amount: Decimal) -> VigorishLedger:
        """The ledger with ``amount`` more owed by ``seat``."""
        if amount < 0:
            raise ValueError(f"seat {seat}: vigorish owed cannot fall by marking ({amount})")
        owed = dict(self.owed)
        owed[seat] = owed.get(seat, Decimal(0)) + amount
        return VigorishLedger(tuple(sorted((s, a) for s, a in owed.items() if a)))

    def collect(self, seat: int) -> tuple[Decimal, VigorishLedger]:
        """What ``seat`` owes when the player leaves, and the ledger without it."""
        return self.due(seat), VigorishLedger(tuple(e for e in self.owed if e[0] != seat))

    def collect_all(self) -> tuple[tuple[tuple[int, Decimal], ...], VigorishLedger]:
        """Everything owed, seat by seat, before a new shoe; and the empty ledger."""
        return self.owed, VigorishLedger()
