"""Rules-engine benchmark: 8-deck Baccarat rounds through ``controller.rules.baccarat``
against a plain-Python punto banco loop, interleaved in one process; Spanish 21 hands.

Run: .venv/bin/python benchmarks/rules_bench.py [--runs N] [--shoes N] [--json]

* **engine**: each seeded, shuffled 8-deck shoe (the cover card 16 cards from the
  bottom) through the rules as the table calls them, by ``shoe_replays.replay_baccarat``:
  ``burn_count`` on the first card and the burn, each card dealt to the round's
  ``Coup`` (``add``: the hand due next), its ``outcome``, ``settle`` for each seat that
  wagered, until the hand after the cover card's (545.10(e), ruling R1).
* **plain loop**: the same shoe as a list, ``list.pop`` from its end, the cards' values
  from a dict, the standard tableau inline, the same nets in ``Decimal``: no function
  per card, no check of any kind.
* **the replay, its answers given**: ``replay_baccarat`` again, ``Coup`` and ``settle``
  replaced by stand-ins that hand back the engine's own rounds and nets (``given``): a
  method call a card and a call a seat, no rule in them. What the replay costs around
  the engine, so its ratio to the plain loop is the most any engine called once a card
  from the same replay could reach.
* Wagers as ``tablectl bench`` plays them unscripted: each of 7 seats wagers with
  probability 1/2, on player / banker / tie (45/45/10) for 10, 25, 50 or 100.
* Two rows: the cards and the result alone (no wagers), and with the settlement.
  Before timing, the engine's rounds (cards, result, each seat's net) must equal the
  plain loop's, shoe by shoe.
* Each run times the engine then the plain loop on the same shoes, alternately, the
  cyclic garbage collector off inside each timing (collected before it), as ``timeit``;
  min / median / max over ``--runs`` runs, and the ratio of the medians (engine rounds/s
  over plain rounds/s: 1.0x is as fast as the plain loop).
* **analyze**: ``tablectl analyze baccarat --decks 8`` as its own process against
  ``python -c pass``, alternately, wall time of each in ms (``--analyze-runs``); and the
  exact count of an 8-deck shoe (``count_outcomes``) in this process, ms.
* **Spanish 21**: seeded 6-deck Spanish shoes (48 cards a deck), three boxes of 10,
  each hand hit to 17 then stood, through ``controller.rules.spanish21`` as the table
  calls it (``initial_deal_order``, the peek, ``next_hand``, ``apply_decision``,
  ``deal_card``, ``dealer_needs_to_draw``, ``settle_round``); hands/s, no reference.
"""

from __future__ import annotations

import argparse
import functools
import gc
import json
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from shoe_replays import BaccaratRound, Wagers, replay_baccarat  # noqa: E402

from controller.rules import spanish21 as s21  # noqa: E402
from controller.rules.baccarat import BETS, BaccaratRules  # noqa: E402
from controller.rules.baccarat_analysis import count_outcomes, deck_classes  # noqa: E402
from controller.rules.cards import CUT, RANKS, SUITS, deck  # noqa: E402

SEATS = 7
AMOUNTS = (10, 25, 50, 100)
COVER_FROM_BOTTOM = 16
Seats = dict[int, dict[str, Decimal]]  # seat -> bet -> amount


def baccarat_shoe(rng: random.Random, decks: int = 8) -> list[str]:
    cards = deck() * decks
    rng.shuffle(cards)
    cards.insert(len(cards) - COVER_FROM_BOTTOM, CUT)
    return cards


def round_wagers(rng: random.Random, rounds: int) -> Wagers:
    """Round (from 1) -> seat -> bet -> amount, as shoe_replays.replay_baccarat takes them."""
    out: Wagers = {}
    for n in range(1, rounds + 1):
        seats: Seats = {}
        for seat in range(1, SEATS + 1):
            if rng.random() < 0.5:
                bet = rng.choices(BETS, weights=(45, 45, 10))[0]
                seats[seat] = {bet: Decimal(rng.choice(AMOUNTS))}
        out[n] = seats
    return out


# ----------------------------------------------------------------- the plain loop

_FACE = {r + s: 10 if r in "TJQK" else 1 if r == "A" else int(r) for r in RANKS for s in SUITS}
_VALUE = {token: face % 10 for token, face in _FACE.items()}
# Banker's two-card point (3-6) -> the player's third card values on which he draws.
_TABLEAU = {3: {0, 1, 2, 3, 4, 5, 6, 7, 9}, 4: {2, 3, 4, 5, 6, 7}, 5: {4, 5, 6, 7}, 6: {6, 7}}
_ZERO = Decimal(0)


def plain_shoe(
    shoe: Sequence[str], wagers: Wagers, rate: Decimal, odds: int
) -> list[BaccaratRound]:
    """The same shoe in one plain loop: list.pop, dict values, the tableau inline."""
    cut_at = shoe.index(CUT)
    cards = [c for c in reversed(shoe) if c != CUT]
    pop, v, total = cards.pop, _VALUE, len(cards)
    for _ in range(_FACE[pop()]):
        pop()
    rounds: list[BaccaratRound] = []
    cover = 0
    while not cover or len(rounds) <= cover:
        p1, b1, p2, b2 = pop(), pop(), pop(), pop()
        player, banker = [p1, p2], [b1, b2]
        pp, bp = (v[p1] + v[p2]) % 10, (v[b1] + v[b2]) % 10
        if pp < 8 and bp < 8:
            if pp < 6:
                p3 = pop()
                player.append(p3)
                third = v[p3]
                pp = (pp + third) % 10
                if bp < 3 or (bp < 7 and third in _TABLEAU.get(bp, ())):
                    banker.append(b3 := pop())
                    bp = (bp + v[b3]) % 10
            elif bp < 6:
                banker.append(b3 := pop())
                bp = (bp + v[b3]) % 10
        outcome = "tie" if pp == bp else "player" if pp > bp else "banker"
        nets = {}
        for seat, bets in wagers.get(len(rounds) + 1, {}).items():
            net = _ZERO
            for bet, amount in bets.items():
                if outcome == "tie":
                    net += amount * odds if bet == "tie" else _ZERO
                elif bet == outcome:
                    net += amount - amount * rate if bet == "banker" else amount
                else:
                    net -= amount
            nets[str(seat)] = net
        rounds.append(BaccaratRound(player, banker, outcome, nets))
        if not cover and len(cards) < total - cut_at:
            cover = len(rounds)
    return rounds


# ----------------------------------------------------------------- answers given


class _Given:
    """A round's coup that knows its answers already (the round as the engine dealt
    it): ``add`` counts the cards down and says None at the last, as a coup does."""

    __slots__ = ("_left", "banker", "outcome", "player")

    def __init__(self, played: BaccaratRound) -> None:
        self.player, self.banker, self.outcome = played.player, played.banker, played.result
        self._left = len(played.player) + len(played.banker)

    def add(self, token: str) -> str | None:
        self._left -= 1
        return "player" if self._left else None


class _Net:
    __slots__ = ("net",)

    def __init__(self, net: Decimal) -> None:
        self.net = net


def _replay_given(
    pairs: Sequence[tuple[Sequence[str], Wagers]],
    stand_ins: Sequence[tuple[Callable[[], Any], Callable[..., Any]]],
    rules: BaccaratRules,
) -> None:
    for (shoe, wagers), (coup_of, settled) in zip(pairs, stand_ins, strict=True):
        replay_baccarat(shoe, wagers, rules, coup_of, settled)


def given(played: Sequence[BaccaratRound]) -> tuple[Callable[[], Any], Callable[..., Any]]:
    """Stand-ins for ``Coup`` and ``settle`` that give back ``played``'s rounds and nets:
    ``replay_baccarat`` with them is the replay's own cost, every rule's answer free, the
    floor of any engine the replay calls once per card and once per seat."""
    coups = iter([_Given(r) for r in played] + [_Given(BaccaratRound([], [], "tie", {}))])
    nets = iter([_Net(net) for r in played for net in r.nets.values()])
    return coups.__next__, lambda bets, outcome, rules: next(nets)


# ----------------------------------------------------------------- Spanish 21


def spanish21_shoe(rng: random.Random, decks: int = 6) -> list[str]:
    cards = deck(spanish=True) * decks
    rng.shuffle(cards)
    return cards


def spanish21_round(draw: Callable[[], str], boxes: Sequence[int]) -> int:
    """One round, three boxes hit to 17; the hands played."""
    dealt: dict[int | str, list[str]] = {}
    for step in s21.initial_deal_order(boxes):
        dealt.setdefault(step.to, []).append(draw())
    dealer = dealt.pop(s21.DEALER)
    up = dealer[0]
    hands = {b: (s21.Hand(tuple(dealt[b]), Decimal(10)),) for b in boxes}
    peeked = s21.reader_allowed(up)
    if not (peeked and s21.dealer_blackjack(dealer)):
        for b, box in hands.items():
            while (i := s21.next_hand(box)) is not None:
                if box[i].needs_card:
                    box = s21.deal_card(box, draw())
                    continue
                decision = "hit" if box[i].total < 17 else "stand"
                box = s21.apply_decision(box, i, decision, up_card=up, peeked=peeked)
            hands[b] = box
        while s21.dealer_needs_to_draw(dealer, [h for hs in hands.values() for h in hs]):
            dealer.append(draw())
    s21.settle_round({b: s21.BoxRound(str(b), hs) for b, hs in hands.items()}, dealer)
    return sum(len(hs) for hs in hands.values())


def spanish21_play(shoe: Sequence[str]) -> int:
    draw = iter(shoe[1:]).__next__  # 551.8(c): the first card is burned
    played = 0
    while True:
        try:
            played += spanish21_round(draw, (1, 2, 3))
        except StopIteration:  # the shoe ran out inside a round: not counted
            return played


# ----------------------------------------------------------------- timing


def timed(work: Callable[[], object]) -> float:
    """Seconds of ``work``, the cyclic collector off as ``timeit`` has it: a full
    collection (some 5 ms over the shoes held here) otherwise lands in whichever side
    is running, a plain-loop run of 6 ms among them, and that run's ratio reads 1.5x."""
    gc.collect()
    gc.disable()
    try:
        started = time.perf_counter()
        work()
        return time.perf_counter() - started
    finally:
        gc.enable()


def spread(values: Sequence[float]) -> dict[str, float]:
    return {
        "min": round(min(values), 1),
        "median": round(statistics.median(values), 1),
        "max": round(max(values), 1),
    }


def baccarat_row(
    shoes: Sequence[Sequence[str]], wagers: Sequence[Wagers], runs: int
) -> dict[str, Any]:
    rules = BaccaratRules()
    rate, odds = rules.commission_rate, rules.tie_odds
    for shoe, w in zip(shoes, wagers, strict=True):
        if replay_baccarat(shoe, w, rules) != plain_shoe(shoe, w, rate, odds):
            raise SystemExit("the engine and the plain loop played a shoe differently")
    rounds = sum(len(plain_shoe(s, w, rate, odds)) for s, w in zip(shoes, wagers, strict=True))
    pairs = list(zip(shoes, wagers, strict=True))
    played = [replay_baccarat(s, w, rules) for s, w in pairs]
    engine, plain, floor = [], [], []
    for _ in range(runs):
        engine.append(rounds / timed(lambda: [replay_baccarat(s, w, rules) for s, w in pairs]))
        plain.append(rounds / timed(lambda: [plain_shoe(s, w, rate, odds) for s, w in pairs]))
        stand_ins = [given(p) for p in played]  # made outside the timing
        floor.append(rounds / timed(functools.partial(_replay_given, pairs, stand_ins, rules)))
    return {
        "rounds": rounds,
        "engine_rounds_per_s": spread(engine),
        "plain_rounds_per_s": spread(plain),
        "answers_given_rounds_per_s": spread(floor),
        "ratio_of_medians": round(statistics.median(engine) / statistics.median(plain), 3),
        "ratio_per_run": [round(e / p, 3) for e, p in zip(engine, plain, strict=True)],
        "answers_given_ratio_of_medians": round(
            statistics.median(floor) / statistics.median(plain), 3
        ),
    }


def spanish21_row(shoes: Sequence[Sequence[str]], runs: int) -> dict[str, Any]:
    hands = sum(spanish21_play(s) for s in shoes)
    rates = [hands / timed(lambda: [spanish21_play(s) for s in shoes]) for _ in range(runs)]
    return {"hands": hands, "engine_hands_per_s": spread(rates)}


def analyze_row(runs: int) -> dict[str, Any]:
    tablectl = str(Path(sys.executable).with_name("tablectl"))
    argv = [tablectl, "analyze", "baccarat", "--decks", "8"]
    command, bare, counting = [], [], []
    for _ in range(runs):
        command.append(timed(lambda: subprocess.run(argv, check=True, capture_output=True)))
        bare.append(timed(lambda: subprocess.run([sys.executable, "-c", "pass"], check=True)))
        counting.append(timed(lambda: count_outcomes(deck_classes(8))))
    return {
        "analyze_ms": spread([c * 1000 for c in command]),
        "python_pass_ms": spread([b * 1000 for b in bare]),
        "count_outcomes_ms": spread([c * 1000 for c in counting]),
    }


def measure(runs: int, count: int) -> dict[str, Any]:
    rng = random.Random(10)
    shoes = [baccarat_shoe(rng) for _ in range(count)]
    wagers = [round_wagers(rng, 100) for _ in shoes]
    no_wagers: list[Wagers] = [{} for _ in shoes]
    return {
        "cards_and_result": baccarat_row(shoes, no_wagers, runs),
        "with_settlement": baccarat_row(shoes, wagers, runs),
        "spanish21": spanish21_row([spanish21_shoe(rng) for _ in range(count // 4 or 1)], runs),
    }


def _line(name: str, row: Mapping[str, Any], key: str) -> str:
    s = row[key]
    return f"| {name} | {s['min']:,.0f} | {s['median']:,.0f} | {s['max']:,.0f} |"


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--runs", type=int, default=5, help="interleaved runs (min/median/max)")
    ap.add_argument("--shoes", type=int, default=40, help="8-deck shoes per run")
    ap.add_argument("--analyze-runs", type=int, default=5, help="0: leave analyze out")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args()
    rows = measure(args.runs, args.shoes)
    if args.analyze_runs:
        rows["analyze"] = analyze_row(args.analyze_runs)
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print(f"{args.runs} interleaved runs, {args.shoes} shoes each")
    print("| rounds/s | min | median | max |\n|---|---|---|---|")
    for label in ("cards_and_result", "with_settlement"):
        row = rows[label]
        print(_line(f"engine, {label}", row, "engine_rounds_per_s"))
        print(_line(f"plain loop, {label}", row, "plain_rounds_per_s"))
        print(_line(f"the replay, its answers given, {label}", row, "answers_given_rounds_per_s"))
    for label in ("cards_and_result", "with_settlement"):
        row = rows[label]
        ratio, each = row["ratio_of_medians"], row["ratio_per_run"]
        print(f"{label}: engine / plain {ratio}x (per run {each})")
        floor = row["answers_given_ratio_of_medians"]
        print(f"{label}: the replay with its answers given / plain {floor}x")
    s = rows["spanish21"]["engine_hands_per_s"]
    print(f"Spanish 21 hands/s: {s['min']:,.0f} / {s['median']:,.0f} / {s['max']:,.0f}")
    if "analyze" in rows:
        for key, figures in rows["analyze"].items():
            print(f"{key}: {figures['min']} / {figures['median']} / {figures['max']}")


if __name__ == "__main__":
    main()
