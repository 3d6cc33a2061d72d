"""The order of the cards and the drawing rules (545.9(c), 545.10, 545.11 and its
Table 1), and the winning hand of a complete round (545.8(a), 545.12(a))."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final, Literal

from controller.rules.baccarat.points import VALUES, point, value
from controller.rules.cards import card

Hand = Literal["player", "banker"]
Outcome = Literal["player", "banker", "tie"]


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
    try:
        stage = _BY_COUNTS[p][b]
    except IndexError:  # four cards or more to a hand
        stage = None
    if isinstance(stage, str):  # one of the first four cards: no value is needed
        return stage
    if stage is None:
        raise _counts_error(p, b)  # not a stage of the deal
    v = VALUES  # each card's value looked up once; the rules read from ``stage``
    try:
        nxt = stage[(v[player[0]] + v[player[1]]) % 10][(v[banker[0]] + v[banker[1]]) % 10][
            v[player[2]] if p == 3 else _STAYED
        ]
    except KeyError:  # a card in another spelling ("10d"), or no card: CardError
        return next_to_draw([card(c) for c in player], [card(c) for c in banker])
    if isinstance(nxt, _Irregular):
        raise ValueError(nxt)
    return nxt


def _counts_error(p: int, b: int) -> ValueError:
    """Why ``p`` Player and ``b`` Banker cards are no stage of the deal."""
    if p + b < 4:
        return ValueError(f"{p} Player and {b} Banker cards: not the order of 545.9(c)")
    if p > 3 or b > 3:
        return ValueError("no hand takes more than one additional card (545.10(d))")
    return ValueError(f"{p} Player and {b} Banker cards: not the order of 545.9(c)")


def _check_third_cards(p: int, b: int, wants_player: bool, wants_banker: bool) -> None:
    """ValueError unless each third card out was due, the Player's first (545.10(c), 545.11)."""
    if p == 3 and not wants_player:
        raise ValueError("the Player's Hand was not entitled to a third card (545.11)")
    if b == 3 and not wants_banker:
        raise ValueError("the Banker's Hand was not entitled to a third card (545.11)")
    if p == 2 and wants_player and b == 3:
        raise ValueError("the Player's third card is dealt first (545.10(c))")


def _stage(p: int, b: int, wants_player: bool, wants_banker: bool) -> Hand | None:
    """The hand due a third card once ``p`` Player and ``b`` Banker cards are out, four
    or more, given whether each hand draws (545.10(c), 545.11); ValueError as above."""
    _check_third_cards(p, b, wants_player, wants_banker)
    if p == 2 and wants_player:
        return "player"
    if b == 2 and wants_banker:
        return "banker"
    return None


class _Irregular(str):
    """A stage of ``_STAGES`` no deal reaches: the reason, for the ValueError."""


def _stages(p: int, b: int) -> tuple[tuple[Hand | _Irregular | None, ...], ...]:
    """``_stage`` of ``p`` and ``b`` cards for each (wants_player, wants_banker)."""
    rows: list[tuple[Hand | _Irregular | None, ...]] = []
    for wants_player in (False, True):
        row: list[Hand | _Irregular | None] = []
        for wants_banker in (False, True):
            try:
                row.append(_stage(p, b, wants_player, wants_banker))
            except ValueError as exc:
                row.append(_Irregular(exc))
        rows.append(tuple(row))
    return tuple(rows)


def _wants(pp: int, bp: int, third: int | None) -> tuple[bool, bool]:
    """Whether each hand draws, from the two-card Point Counts and the Player's third
    card value (``None``: no third card)."""
    wants_banker = pp < 8 and banker_draws_by_points(bp, third)  # 545.11(a): a Natural
    return player_draws_by_points(pp, bp), wants_banker


_OPENING: Final = initial_order()
_STAYED: Final = 10  # the index of ``_NEXT`` for a Player's Hand without a third card
# The rules above for every case: _STAGES[p - 2][b - 2][wants player][wants banker],
# _WANTS[pp][bp][the Player's third card value, 10 for none]; and the two combined,
# _NEXT[p - 2][b - 2][pp][bp][third card value].
_STAGES: Final = tuple(tuple(_stages(p, b) for b in (2, 3)) for p in (2, 3))
_WANTS: Final = tuple(
    tuple(tuple(_wants(pp, bp, None if t == _STAYED else t) for t in range(11)) for bp in range(10))
    for pp in range(10)
)
_Next = tuple[tuple[tuple[Hand | _Irregular | None, ...], ...], ...]  # [pp][bp][third]
_NEXT: Final[tuple[tuple[_Next, ...], ...]] = tuple(
    tuple(
        tuple(tuple(tuple(stage[wp][wb] for wp, wb in third) for third in row) for row in _WANTS)
        for stage in stages
    )
    for stages in _STAGES
)


def _by_counts(p: int, b: int) -> Hand | _Next | None:
    """What ``next_to_draw`` finds once ``p`` Player and ``b`` Banker cards are out: the
    hand due one of the first four cards (545.9(c)); the third-card rules of that stage
    of the deal, from ``_NEXT``; or None, no stage of the deal."""
    if p + b < 4 and b <= p <= b + 1:
        return _OPENING[p + b]
    if 1 < p < 4 and 1 < b < 4:
        return _NEXT[p - 2][b - 2]
    return None


_BY_COUNTS: Final = tuple(tuple(_by_counts(p, b) for b in range(4)) for p in range(4))


def result(player: Sequence[str], banker: Sequence[str]) -> Outcome:
    """The winning hand of a complete round, or "tie" (545.8(a), 545.12(a))."""
    if next_to_draw(player, banker) is not None:
        raise ValueError("the round is not complete (545.12(a))")
    v = VALUES
    try:
        p = (v[player[0]] + v[player[1]] + (v[player[2]] if len(player) == 3 else 0)) % 10
        b = (v[banker[0]] + v[banker[1]] + (v[banker[2]] if len(banker) == 3 else 0)) % 10
    except KeyError:  # a card in another spelling ("10d")
        p, b = point(player), point(banker)
    if p == b:
        return "tie"
    return "player" if p > b else "banker"
