"""The rules engine's side of benchmarks/bench_shoe.py, and what both sides must agree
on: a shoe the stack dealt (its event file: the cards, the wagers, the decisions)
replayed through the pure rules as the table calls them (Baccarat: ``burn_count``, the
round's ``Coup``, ``settle``; Spanish 21: ``controller.rules.spanish21``), and the same
rounds read back from the stack's ``round_end`` lines. rules_bench.py times
``replay_baccarat`` too."""

from __future__ import annotations

import sys
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any, cast

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from controller.rules.baccarat import (  # noqa: E402
    BaccaratRules,
    Coup,
    Settlement,
    burn_count,
    settle,
)
from controller.rules.cards import CUT  # noqa: E402
from controller.rules.spanish21 import (  # noqa: E402
    DEALER,
    DECISIONS,
    BoxRound,
    Decision,
    Spanish21Rules,
    apply_decision,
    deal_card,
    dealer_blackjack,
    dealer_needs_to_draw,
    initial_deal_order,
    insurance_net,
    match_the_dealer_net,
    next_hand,
    player_order,
    reader_allowed,
    settle_round,
)
from controller.rules.spanish21 import Hand as Spanish21Hand  # noqa: E402

BOX_BET = "spanish21"  # a Spanish 21 box's own wager, beside match_the_dealer and insurance

Event = dict[str, Any]
Wagers = dict[int, dict[int, dict[str, Decimal]]]  # round -> seat (box) -> bet -> amount
Decisions = dict[int, dict[int, list[tuple[int, Decision]]]]  # round -> box -> (hand, decision)


@dataclass(frozen=True)
class BaccaratRound:
    """What the engine and the stack must agree on for one round."""

    player: list[str]
    banker: list[str]
    result: str
    nets: dict[str, Decimal]  # seat -> net


@dataclass(frozen=True)
class Spanish21Box:
    """One box of a Spanish 21 round: each hand's (cards, outcome, net), and the side nets
    where wagered."""

    hands: list[tuple[list[str], str, Decimal]]
    match_the_dealer_net: Decimal | None
    insurance_net: Decimal | None


@dataclass(frozen=True)
class Spanish21Round:
    """What the engine and the stack must agree on for one Spanish 21 round."""

    dealer: list[str]
    boxes: dict[str, Spanish21Box]  # box -> its hands and side nets


@dataclass(frozen=True)
class Engine:
    """One game's rules-engine side of a row."""

    replay: Callable[[], Sequence[object]]  # the whole shoe through the rules: its rounds
    expected: Sequence[object]  # the same rounds, read from the stack's round_end lines


def _money(value: int | float) -> Decimal:
    return Decimal(str(value))  # the event file writes whole amounts as ints, others as floats


def round_ends(events: Sequence[Event]) -> list[Event]:
    return [e for e in events if e["type"] == "round_end"]


def baccarat_rounds(events: Sequence[Event]) -> list[BaccaratRound]:
    return [
        BaccaratRound(
            e["player"],
            e["banker"],
            e["result"],
            {seat: _money(s["net"]) for seat, s in e.get("seats", {}).items()},
        )
        for e in round_ends(events)
    ]


def baccarat_wagers(events: Sequence[Event], seat: str = "seat") -> Wagers:
    """The wagers standing when each round was dealt, as the stack's run placed them;
    ``seat``: the field naming the seat (Spanish 21: ``box``)."""
    wagers: Wagers = {}
    for e in events:
        if e["type"] == "wager":
            bets = wagers.setdefault(e["round"], {}).setdefault(e[seat], {})
            if e["amount"]:
                bets[e["bet"]] = _money(e["amount"])
            else:  # 0 withdraws the bet
                bets.pop(e["bet"], None)
    return wagers


def replay_baccarat(
    shoe: Sequence[str],
    wagers: Wagers,
    rules: BaccaratRules,
    coup_of: Callable[[], Coup] = Coup,
    settled: Callable[..., Settlement] = settle,
) -> list[BaccaratRound]:
    """The shoe through the rules as the table calls them: burn, each card to the round's
    ``Coup``, its outcome, settle, until the hand after the cover card's (545.10(e),
    ruling R1) or the last card. ``coup_of`` and ``settled`` stand in for ``Coup`` and
    ``settle`` (benchmarks/rules_bench.py: the replay with the answers given)."""
    rounds: list[BaccaratRound] = []
    cards = iter(shoe)
    cover: int | None = 1 if _burn(cards) else None  # the round the cover card came out in
    coup = coup_of()
    add = coup.add
    for token in cards:
        if token == CUT:
            if cover is None:
                cover = len(rounds) + 1  # before or during a hand: that hand's
            continue
        if add(token) is not None:
            continue
        outcome = coup.outcome
        nets: dict[str, Decimal] = {}
        for seat, bets in wagers.get(len(rounds) + 1, _NO_SEATS).items():
            nets[str(seat)] = settled(bets, outcome, rules).net
        rounds.append(BaccaratRound(coup.player, coup.banker, outcome, nets))
        if cover is not None and len(rounds) == cover + 1:
            break
        coup = coup_of()
        add = coup.add
    return rounds


_NO_SEATS: Mapping[int, Mapping[str, Decimal]] = {}


def _burn(cards: Iterator[str]) -> bool:
    """The first card and the cards burned after it (545.5(f)) taken from ``cards``;
    whether the cover card came out among them."""
    cut, left = False, -1  # -1 until the first card says how many are burned
    for token in cards:
        if token == CUT:
            cut = True
            continue
        left = burn_count(token) if left < 0 else left - 1
        if left == 0:
            break
    return cut


def baccarat_engine(scenario: Mapping[str, Any], events: Sequence[Event]) -> Engine:
    rules = BaccaratRules.from_dict(scenario["game"], scenario.get("rules", {}))
    shoe = [str(t).strip().upper() for t in scenario["shoe"]]
    wagers = baccarat_wagers(events)
    return Engine(lambda: replay_baccarat(shoe, wagers, rules), baccarat_rounds(events))


def spanish21_rounds(events: Sequence[Event]) -> list[Spanish21Round]:
    def side(box: Mapping[str, Any], key: str) -> Decimal | None:
        return _money(box[key]) if key in box else None

    return [
        Spanish21Round(
            e["dealer"],
            {
                n: Spanish21Box(
                    [(h["cards"], h["outcome"], _money(h["net"])) for h in box["hands"]],
                    side(box, "match_the_dealer_net"),
                    side(box, "insurance_net"),
                )
                for n, box in e["boxes"].items()
            },
        )
        for e in round_ends(events)
    ]


def spanish21_decisions(events: Sequence[Event]) -> Decisions:
    """Each box's decisions in the order the stack's table took them, scripted or not."""
    decisions: Decisions = {}
    for e in events:
        if e["type"] == "decision":
            if e["decision"] not in DECISIONS:
                raise SystemExit(f"round {e['round']}: unknown decision {e['decision']!r}")
            box = decisions.setdefault(e["round"], {}).setdefault(e["box"], [])
            box.append((e["hand"], cast(Decision, e["decision"])))
    return decisions


class _Shoe:
    """The shoe's cards in order; ``cut``: the cutting card has come out (551.8(j))."""

    def __init__(self, tokens: Sequence[str]) -> None:
        self.cards = iter(tokens)
        self.cut = False

    def draw(self) -> str:
        token = next(self.cards)
        while token == CUT:
            self.cut = True
            token = next(self.cards)
        return token


def _play_spanish21_box(
    hands: tuple[Spanish21Hand, ...],
    decisions: deque[tuple[int, Decision]],
    shoe: _Shoe,
    up: str,
) -> tuple[Spanish21Hand, ...]:
    """A box's hands played out with the decisions the stack's table took, in order:
    each to the hand the event names, a rescue right after its double down card."""
    while (index := next_hand(hands)) is not None:
        if hands[index].needs_card:
            hands = deal_card(hands, shoe.draw())
            if hands[index].doubled and decisions and decisions[0] == (index + 1, "rescue"):
                decisions.popleft()
                hands = apply_decision(hands, index, "rescue", up_card=up, peeked=True)
            continue
        if not decisions or decisions[0][0] != index + 1:
            raise SystemExit(
                f"no decision recorded for hand {index + 1} where the engine needs one"
            )
        _, decision = decisions.popleft()
        hands = apply_decision(hands, index, decision, up_card=up, peeked=True)
    if decisions:
        raise SystemExit(f"decisions recorded that the engine never came to: {list(decisions)}")
    return hands


def replay_spanish21(
    shoe_tokens: Sequence[str], wagers: Wagers, decisions: Decisions, rules: Spanish21Rules
) -> list[Spanish21Round]:
    """The shoe through the pure rules: the burn (551.8(c)), each round's initial deal,
    Match-the-Dealer and Insurance, the peek, each box's hands, the dealer's draws and
    the settlement, until the round the cutting card came out in (551.8(j)) or the
    stack's last wagered round."""
    rounds: list[Spanish21Round] = []
    shoe = _Shoe(shoe_tokens)
    shoe.draw()  # 551.8(c): the first card of a batch is burned
    while not shoe.cut and (bets := wagers.get(len(rounds) + 1)):
        n = len(rounds) + 1
        main = {box: on[BOX_BET] for box, on in bets.items() if BOX_BET in on}
        dealt: dict[int | str, list[str]] = {}
        for step in initial_deal_order(main):
            dealt.setdefault(step.to, []).append(shoe.draw())
        dealer = dealt.pop(DEALER)
        up = dealer[0]
        sides: dict[int, tuple[Decimal | None, Decimal | None]] = {}
        for box, on in bets.items():
            mtd, insurance = on.get("match_the_dealer"), on.get("insurance")
            sides[box] = (
                None if mtd is None else match_the_dealer_net(dealt[box], up, mtd, rules),
                None if insurance is None else insurance_net(insurance, dealer),
            )
        boxes: dict[int, tuple[Spanish21Hand, ...]] = {
            b: (Spanish21Hand(tuple(dealt[b]), main[b]),) for b in player_order(main)
        }
        if not (reader_allowed(up) and dealer_blackjack(dealer)):
            played = decisions.get(n, {})
            for b, hands in boxes.items():
                boxes[b] = _play_spanish21_box(hands, deque(played.get(b, [])), shoe, up)
            while dealer_needs_to_draw(dealer, [h for hs in boxes.values() for h in hs]):
                dealer.append(shoe.draw())
        rounds.append(_settled(dealer, boxes, sides))
    return rounds


def _settled(
    dealer: list[str],
    boxes: Mapping[int, tuple[Spanish21Hand, ...]],
    sides: Mapping[int, tuple[Decimal | None, Decimal | None]],
) -> Spanish21Round:
    """A round's settlement (``settle_round``) as the stack's ``round_end`` shows it."""
    result = settle_round({b: BoxRound(str(b), hs) for b, hs in boxes.items()}, dealer)
    return Spanish21Round(
        dealer,
        {
            str(b): Spanish21Box(
                [
                    (list(h.cards), r.outcome, r.net)
                    for h, r in zip(hands, result.boxes[b], strict=True)
                ],
                *sides[b],
            )
            for b, hands in boxes.items()
        },
    )


def spanish21_engine(scenario: Mapping[str, Any], events: Sequence[Event]) -> Engine:
    rules = Spanish21Rules.from_dict(scenario.get("rules", {}))
    shoe = [str(t).strip().upper() for t in scenario["shoe"]]
    wagers = baccarat_wagers(events, seat="box")
    decisions = spanish21_decisions(events)
    return Engine(
        lambda: replay_spanish21(shoe, wagers, decisions, rules), spanish21_rounds(events)
    )


# game -> its engine for a scenario, given a stack run's events (the wagers it placed)
ENGINES: dict[str, Callable[[Mapping[str, Any], Sequence[Event]], Engine]] = {
    "baccarat": baccarat_engine,
    "midibaccarat": baccarat_engine,
    "spanish21": spanish21_engine,
}
