"""Playing a scenario: the simulated devices as processes on pseudo-terminals, the real
drivers connected to them over the serial path (the reader's over pyusb), the table,
and the bench's dealer taking each event from the drivers' queue until the scenario's
shoes are played."""

from __future__ import annotations

import dataclasses
import queue
import secrets
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TextIO

from controller.bench.dealer import STALL_TIMEOUT, DealerConsole
from controller.bench.devices import simulators
from controller.bench.output import JsonlJournal
from controller.bench.scenario import SPANISH21, BenchError, Scenario
from controller.games import of_rules
from controller.journal.observed import ObservedJournal
from controller.table.core import Table
from controller.table.devices import TableDevices
from drivers import messages as m
from drivers.device import DeviceDriver, ReaderDriver, ShoeDriver
from firmware_sim.harness import SimProcess

CONNECT_TIMEOUT = 10.0


def dealer_console(
    scenario: Scenario,
    table: Table,
    journal: ObservedJournal,
    sims: Mapping[str, SimProcess],
    drivers: Mapping[str, DeviceDriver],
) -> DealerConsole:
    """The dealer, players and floorperson who play ``scenario`` at ``table`` on the
    simulated devices ``sims`` through ``drivers``. Each game's dealer and table are
    imported for its own table alone."""
    if scenario.game == SPANISH21:
        from controller.bench.spanish21 import Spanish21Console
        from controller.table.spanish21 import Spanish21Table

        assert isinstance(table, Spanish21Table)
        return Spanish21Console(scenario, table, journal, sims, drivers)
    from controller.bench.baccarat import BaccaratConsole
    from controller.table.baccarat import BaccaratTable

    assert isinstance(table, BaccaratTable)  # Baccarat's table deals the other games
    return BaccaratConsole(scenario, table, journal, sims, drivers)


def play(scenario: Scenario, scenario_path: str, out: TextIO, workdir: Path) -> tuple[int, float]:
    """Play ``scenario`` into ``out``; the number of rounds and the seconds they took."""
    journal = JsonlJournal(out)
    sims = simulators(scenario, workdir, secrets.token_bytes(32))
    events: queue.Queue[m.Event] = queue.Queue()
    drivers: dict[str, DeviceDriver] = {}
    journal.record(_bench_start(scenario, scenario_path))
    try:
        for name, sim in sims.items():
            sim.start()
            if scenario.rates:
                sim.control("faults", seed=scenario.seed, rates=scenario.rates)
            drivers[name] = sim.driver(events)
        table = _table(scenario, journal, drivers)
        console = dealer_console(scenario, table, journal, sims, drivers)
        for driver in drivers.values():
            driver.start()
        connect(console, events)
        started = time.monotonic()
        console.start()
        deal(console, events)
        console.finish()
        seconds = time.monotonic() - started
        rounds = journal.counts["round_end"]
        journal.record(_bench_end(rounds, console.cards, seconds, drivers))
        return rounds, seconds
    finally:
        for driver in drivers.values():
            driver.stop()
        for sim in sims.values():
            sim.stop()


def _bench_start(scenario: Scenario, scenario_path: str) -> dict[str, object]:
    """The record's first line: the scenario, its shoe and its faults."""
    return {
        "type": "bench_start",
        "scenario": scenario_path,
        "game": scenario.game,
        "shoe": "seeded" if scenario.shoe is None else "stacked",
        "seed": scenario.seed,
        "faults": {
            "rates": scenario.rates,
            "unplugs": [dataclasses.asdict(u) for u in scenario.unplugs],
            "irregularities": [
                {
                    k: v
                    for k, v in dataclasses.asdict(f).items()
                    if v is not None and (k == "code" or v)
                }
                for f in scenario.irregularities
            ],
        },
    }


def _bench_end(
    rounds: int, cards: int, seconds: float, drivers: Mapping[str, DeviceDriver]
) -> dict[str, object]:
    """The record's last line: what was played, how fast, and the links' counts."""
    return {
        "type": "bench_end",
        "rounds": rounds,
        "cards": cards,
        "seconds": round(seconds, 3),
        "rounds_per_second": round(rounds / seconds, 1) if seconds > 0 else None,
        "shoe_link": drivers["shoe"].link_stats,
        **({"reader_link": drivers["reader"].link_stats} if "reader" in drivers else {}),
    }


def _table(
    scenario: Scenario, journal: ObservedJournal, drivers: Mapping[str, DeviceDriver]
) -> Table:
    shoe = drivers["shoe"]
    assert isinstance(shoe, ShoeDriver)  # SimProcess.driver picks it by kind
    game = of_rules(scenario.rules)
    reader = drivers["reader"] if game.reader else None
    assert reader is None or isinstance(reader, ReaderDriver)
    return game.table(scenario.rules, journal, TableDevices(drivers, shoe, reader))


def connect(console: DealerConsole, events: queue.Queue[m.Event]) -> None:
    """Hand the table the drivers' events until every device is connected."""
    drivers = console.drivers
    deadline = time.monotonic() + CONNECT_TIMEOUT
    while not all(d.connected.is_set() for d in drivers.values()):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            down = [n for n, d in drivers.items() if not d.connected.is_set()]
            raise BenchError(f"the simulated {' and '.join(down)} did not connect")
        try:
            event = events.get(timeout=min(remaining, 0.2))
        except queue.Empty:
            continue
        if isinstance(event, m.DeviceRefused):
            raise BenchError(f"the {event.device} was refused: {event.detail}")
        console.handle(event)


def deal(console: DealerConsole, events: queue.Queue[m.Event]) -> None:
    """Play the scenario's shoes: every event waiting handed to the table, then the
    dealer's next step, or a wait for the next event (a look at a device's light)."""
    table, shoes = console.table, console.s.shoes
    while table.shoes_completed < shoes:
        while True:
            try:
                console.handle(events.get_nowait())
            except queue.Empty:
                break
        if table.shoes_completed >= shoes or console.step():
            continue
        if console.polling:
            timeout = console.poll_interval
        else:
            timeout = STALL_TIMEOUT + max(0.0, console.replug_at - time.monotonic())
        try:
            event = events.get(timeout=timeout)
        except queue.Empty:
            if console.polling:
                continue
            raise BenchError(
                f"stalled: no device event for {STALL_TIMEOUT:.0f} s "
                f"(table state {table.state}, {console.cards} cards dealt)"
            ) from None
        console.handle(event)
