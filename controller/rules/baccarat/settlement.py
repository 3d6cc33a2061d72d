"""Settling a Baccarat or Midibaccarat seat's wagers (545.8, 545.13), the vigorish and
its rounding when it is collected (545.13(c)-(f), ruling R11), the ledger of deferred
vigorish (545.13(e)) and the order the layout is settled (545.12(b)).

Money is ``Decimal`` in currency units (dollars, as the bench scenarios give wagers):
the rounding of 545.13(d) / 543.13(d) is stated in cents, and a 5% vigorish on an
amount in whole cents need not be whole cents, so integers of one unit cannot hold
the exact vigorish that 545.13(c) requires when no rounding is elected.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import ROUND_CEILING, Decimal
from typing import Final, Literal, get_args

from controller.rules.baccarat.drawing import Outcome
from controller.rules.baccarat.options import BaccaratRules

Bet = Literal["player", "banker", "tie"]

BETS: tuple[Bet, ...] = get_args(Bet)

_BETS: Final = frozenset(BETS)
_CENT: Final = Decimal("0.01")
_ZERO: Final = Decimal(0)
_MEMO_SIZE: Final = 1024  # settlements kept per rules (9 bets and outcomes, a hundred amounts each)


class WagerError(ValueError):
    """A wager that cannot be settled: unknown bet or an amount that is not money."""


@dataclass(frozen=True, slots=True)
class Settlement:
    """One seat's round: the net of each bet and the vigorish it is charged.

    ``banker`` is the 1:1 result; the vigorish is apart because 545.12(b) marks or
    collects it apart from the payout. ``vigorish_deferred``: marked on the layout
    for later collection (545.13(e)) rather than collected now. Ruling R11: a vigorish
    collected now is rounded as the rules elect (545.13(d)); one deferred is the exact
    amount owed, and the rounding waits for its collection (``vigorish_collected``).
    """

    player: Decimal
    banker: Decimal
    tie: Decimal
    vigorish: Decimal
    vigorish_deferred: bool
    # The seat's result for the round, the vigorish charged (collected or marked) off.
    net: Decimal = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        net = self.player + self.banker + self.tie - self.vigorish
        object.__setattr__(self, "net", net)


def wager_amount(bet: str, amount: Decimal | int) -> Decimal:
    """A wager as money: a positive amount in whole cents; WagerError otherwise."""
    if bet in _BETS and isinstance(amount, Decimal) and _whole_cents(amount):
        return amount  # the common case: a table's wager, checked as it was placed
    if bet not in BETS:
        raise WagerError(f"unknown bet {bet!r}; expected player, banker or tie (545.8(a))")
    if isinstance(amount, bool) or not isinstance(amount, int | Decimal):
        raise WagerError(f"{bet} wager: {amount!r} is not an int or Decimal amount")
    money = Decimal(amount)
    if not _whole_cents(money):
        raise WagerError(f"{bet} wager: {amount} is not a positive amount in whole cents")
    return money


def _whole_cents(money: Decimal) -> bool:
    return money.is_finite() and money > 0 and not money % _CENT


def round_vigorish(amount: Decimal, rules: BaccaratRules) -> Decimal:
    """The vigorish collected on ``amount`` owed, after the rounding the rules elect, up
    to a multiple of the unit: "when collecting the vigorish" (545.13(d); ruling R11).

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
    """Settle one seat's wagers (bet -> amount) for the round's outcome (545.8, 545.13).

    A seat's one wager, the common case, is settled once per outcome, bet and amount
    under ``rules`` and found in their memo (``_MEMOS``) after that: amounts are chips
    (ruling R16), so a table meets few of them. What is found is the ``Settlement`` the
    same arithmetic gave, for an amount of the same type, value and exponent ("10" and
    "10.0" are settled apart: their payouts are written differently), in the default
    decimal context, the only one the controller uses.
    """
    if len(wagers) == 1:
        last = _LAST  # read once: another thread may set it meanwhile
        memo = last[1] if last[0] is rules else _memo(rules)
        for bet, amount in wagers.items():
            key = (outcome, bet, amount)
            seen: Decimal
            settled: Settlement
            try:
                seen, settled = memo[key]
            except (KeyError, TypeError):  # not yet, or not an amount at all
                return _settle_remembered(memo, key, wagers, outcome, rules)
            if type(amount) is Decimal and amount.same_quantum(seen):
                return settled
    return _settle(wagers, outcome, rules)


_Memo = dict[tuple[Outcome, str, Decimal | int], tuple[Decimal, Settlement]]
# The memo of each BaccaratRules by its id, the rules held beside it so that the id
# stays theirs. Apart from the rules: they are a value that snapshots and
# ``dataclasses.asdict`` read field by field.
_MEMOS: dict[int, tuple[BaccaratRules, _Memo]] = {}
_MEMO_RULES: Final = 16  # rules with a memo at once: a table has one
# The rules last settled under, with their memo: found without hashing their id.
_LAST: tuple[BaccaratRules | None, _Memo] = (None, {})


def _memo(rules: BaccaratRules) -> _Memo:
    """The settlements met so far under ``rules``, which become the last rules."""
    global _LAST
    found = _MEMOS.get(id(rules))
    if found is not None and found[0] is rules:
        _LAST = found
        return found[1]
    if len(_MEMOS) >= _MEMO_RULES:
        _MEMOS.clear()
    memo: _Memo = {}
    _MEMOS[id(rules)] = _LAST = (rules, memo)
    return memo


def _settle_remembered(
    memo: _Memo,
    key: tuple[Outcome, str, Decimal | int],
    wagers: Mapping[str, Decimal | int],
    outcome: Outcome,
    rules: BaccaratRules,
) -> Settlement:
    """``_settle``, and the settlement kept in ``memo`` for a Decimal amount."""
    settled = _settle(wagers, outcome, rules)
    amount = key[2]
    if type(amount) is Decimal and len(memo) < _MEMO_SIZE:
        memo[key] = (amount, settled)
    return settled


def _settle(
    wagers: Mapping[str, Decimal | int], outcome: Outcome, rules: BaccaratRules
) -> Settlement:
    """``settle`` worked out."""
    on_player, on_banker, on_tie = _stakes(wagers)
    zero = _ZERO
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
    deferred = vigorish > 0 and rules.vigorish_collection == "deferred"
    if not deferred:  # collected with the payout: rounded now (ruling R11)
        vigorish = round_vigorish(vigorish, rules)
    return Settlement(player_net, banker_net, tie_net, vigorish, deferred)


def _stakes(wagers: Mapping[str, Decimal | int]) -> tuple[Decimal, Decimal, Decimal]:
    """The Player, Banker and Tie wagers, each checked (``wager_amount``); 0 for none."""
    on: dict[str, Decimal] = dict.fromkeys(BETS, _ZERO)
    for bet, amount in wagers.items():
        on[bet] = wager_amount(bet, amount)
    return on["player"], on["banker"], on["tie"]


def payment_order(seats: Iterable[int]) -> tuple[int, ...]:
    """Seats with a winning wager in the order they are paid: highest first (545.12(b))."""
    return tuple(sorted(set(seats), reverse=True))


def collection_order(settled: Mapping[int, Settlement]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """545.12(b), 543.12(b): the seats whose losing wagers are collected first, then the
    seats with a winning wager in the order each one's vigorish is marked or collected
    and its winning wager paid, the highest seat number first. A wager returned on a tie
    is neither."""
    losing = sorted(s for s, x in settled.items() if min(x.player, x.banker, x.tie) < 0)
    winning = (s for s, x in settled.items() if max(x.player, x.banker, x.tie) > 0)
    return tuple(losing), payment_order(winning)


@dataclass(frozen=True)
class VigorishLedger:
    """Deferred vigorish owed per seat, as the marker buttons on the layout (545.13(e)):
    the exact amount owed (ruling R11), rounded only as it is collected.

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


def vigorish_collected(owed: Decimal, rules: BaccaratRules) -> Decimal:
    """What is collected on a seat's deferred vigorish ``owed``: the whole amount owed,
    rounded once as the rules elect (545.13(d), (e); 543.13(d), (e); ruling R11)."""
    return round_vigorish(owed, rules)
