"""The simulated dealer's console on its own: the autoplay's seeded wagers, and a draw
whose reply is read at the dealer's next step (controller/bench/dealer.py)."""

from __future__ import annotations

import random
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest

from controller.bench.baccarat import AUTOPLAY_AMOUNTS, AUTOPLAY_SEATS, BaccaratConsole
from controller.bench.dealer import POSTED, DealerConsole
from controller.bench.simulated import autoplay_scenario
from controller.rules.baccarat import BETS, BaccaratRules
from controller.table.events import Need
from drivers import messages as m
from firmware_sim.harness import SimError, SimProcess
from tests.support.devices import KEY


def main_autoplay(rng: random.Random) -> list[tuple[int, str, Decimal]]:
    """The autoplay's wagers as main drew them: the reference the console keeps."""
    wagers: dict[int, dict[str, Decimal]] = {}
    for seat in range(1, AUTOPLAY_SEATS + 1):
        if rng.random() < 0.5:
            bet = rng.choices(BETS, weights=(45, 45, 10))[0]
            wagers[seat] = {bet: Decimal(rng.choice(AUTOPLAY_AMOUNTS))}
    return [(s, b, a) for s, bets in sorted(wagers.items()) for b, a in bets.items()]


def test_autoplay_draws_the_same_wagers_from_the_same_generator() -> None:
    for seed in range(300):
        reference, rng = random.Random(seed), random.Random(seed)
        console = cast(BaccaratConsole, SimpleNamespace(rng=rng))
        for _ in range(20):  # rounds: the generator's state carries on the same
            wagers = BaccaratConsole.autoplay(console)
            assert [(w.seat, w.bet, w.amount) for w in wagers] == main_autoplay(reference)
        assert rng.getstate() == reference.getstate()


class Drawing(DealerConsole):
    """A dealer who only draws, one card at a time, from a real simulated shoe."""

    def act(self) -> bool:
        return self.draw()


def drawing(sim: SimProcess) -> Drawing:
    scenario = autoplay_scenario(BaccaratRules(), 1)
    table = SimpleNamespace(shoes_completed=0, need=Need.CARD)
    return Drawing(scenario, cast(Any, table), cast(Any, None), {"shoe": sim}, {})


def card(event_id: int) -> m.CardDrawn:
    return m.CardDrawn("shoe", event_id, "A", "S", False)


def test_a_posted_draw_is_read_at_the_next_step_and_a_refusal_raised(tmp_path: Path) -> None:
    sim = SimProcess("shoe", tmp_path, KEY, ["--cards", "AS KS"]).start()
    try:
        console = drawing(sim)
        assert console.step() is False  # the draw is posted, its reply not read
        assert console.pending == {POSTED} and console.polling  # a refusal brings no event
        assert console.step() is False  # reads the reply: its card is awaited
        (first,) = console.pending
        assert not console.polling
        console.saw(card(first))
        assert console.step() is False and console.pending == {POSTED}
        console.saw(card(first + 1))  # the card is at the table before the reply is read
        assert not console.polling and console.cards == 2
        assert console.step() is False  # the reply: the shoe's last card, then its empty
        assert console.pending == {first + 2}
        console.saw(m.ShoeEmpty("shoe", first + 2))
        assert console.step() is False and console.pending == {POSTED}  # draws again
        with pytest.raises(SimError, match="the shoe is empty"):
            console.step()  # the refusal, from the step that reads it, as from the draw
    finally:
        assert sim.stop() == 0
