"""``tablectl bench SCENARIO.json --events OUT.jsonl``: play a scenario on simulated
devices through the real drivers and the table machine, and write the event stream.

The simulated shoe (and, for a seeded shoe, the shuffler) run as processes on
pseudo-terminals; the real drivers connect over the serial path. The bench is the
table's dealer and floorperson: it shuffles (or declares a manual shuffle for a
stacked shoe), places the scenario's wagers (then seeded random ones), announces
"no more bets", draws each card the table asks for, injects the scenario's faults
and clears the table once a faulted device is back. The output format is in
docs/bench.md.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import queue
import random
import secrets
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any, TextIO

from controller.rules.baccarat import (
    BETS,
    GAMES,
    BaccaratRules,
    RulesError,
    WagerError,
    wager_amount,
)
from controller.rules.cards import CUT, CardError, card, check_composition
from controller.table.baccarat import SEATS, BaccaratTable
from controller.table.events import FloorClear, ManualShuffle, Need, NoMoreBets, Wager
from drivers import messages as m
from drivers.device import DeviceDriver, ShoeDriver, ShufflerDriver
from drivers.errors import NotConnected, TablectlError
from firmware_sim.harness import SimError, SimProcess

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130

RATE_FAULTS = ("corrupt", "drop", "duplicate")
DEFAULT_CUT_AT = 16  # cover card 16 cards above the bottom, as the examples place it
MIN_CUT_AT = 14  # 545.5(d), 543.5(e): at least 14 cards above the bottom
MAX_UNPLUG_MS = 3_600_000
CONNECT_TIMEOUT = 10.0
STALL_TIMEOUT = 10.0  # no event for this long while waiting for one: the bench gives up
AUTOPLAY_SEATS = 7
AUTOPLAY_AMOUNTS = (10, 25, 50, 100)

_KEYS = {"game", "rules", "shoe", "decks", "seed", "cut_at", "rounds", "faults"}


class ScenarioError(ValueError):
    """A scenario the bench cannot play; the message is one line."""


class BenchError(Exception):
    """The scenario could not be played to its end (a device failed to come up, a stall)."""


@dataclass(frozen=True)
class Unplug:
    device: str
    at_card: int
    duration_ms: int


@dataclass(frozen=True)
class Scenario:
    game: str
    rules: BaccaratRules
    shoe: list[str] | None  # stacked, in the order the cards leave the shoe
    seed: int
    cut_at: int
    rounds: list[dict[int, dict[str, Decimal]]]
    rates: dict[str, float] = field(default_factory=dict)
    unplugs: list[Unplug] = field(default_factory=list)

    @property
    def uses_shuffler(self) -> bool:
        return self.shoe is None


# --------------------------------------------------------------------------- scenario


def load_scenario(path: str) -> Scenario:
    """The validated scenario in ``path``; ScenarioError naming what is wrong and where."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ScenarioError(f"cannot read the scenario: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ScenarioError("the scenario is not UTF-8 text") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ScenarioError(f"not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ScenarioError("a scenario is a JSON object")
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise ScenarioError(f"unknown key {unknown[0]!r}; expected {', '.join(sorted(_KEYS))}")
    game = data.get("game")
    if game not in GAMES:
        if game == "spanish21":
            raise ScenarioError("game 'spanish21': the bench plays baccarat and midibaccarat only")
        raise ScenarioError(f"unknown game {game!r}; expected baccarat or midibaccarat")
    rules_data = data.get("rules", {})
    if not isinstance(rules_data, dict):
        raise ScenarioError("rules must be an object of Rules Submission options")
    rules_data = dict(rules_data)
    if "decks" in data:
        if "shoe" in data:
            raise ScenarioError("give either a stacked shoe or decks and seed, not both")
        if rules_data.setdefault("decks", data["decks"]) != data["decks"]:
            raise ScenarioError("decks and rules.decks differ")
    try:
        rules = BaccaratRules.from_dict(game, rules_data)
    except RulesError as exc:
        raise ScenarioError(str(exc)) from None
    seed = _integer(data, "seed", 0)
    shoe = _shoe(data["shoe"], rules.decks) if "shoe" in data else None
    if shoe is not None and "cut_at" in data:
        raise ScenarioError("cut_at places the cover card in a seeded shoe; a stacked shoe has it")
    cut_at = _integer(data, "cut_at", DEFAULT_CUT_AT)
    if not MIN_CUT_AT <= cut_at <= rules.decks * 52:
        section = "545.5(d)" if game == "baccarat" else "543.5(e)"
        raise ScenarioError(
            f"cut_at: the cover card goes {MIN_CUT_AT}..{rules.decks * 52} cards above "
            f"the bottom ({section})"
        )
    rounds = _rounds(data.get("rounds", []), game)
    rates, unplugs = _faults(data.get("faults", []), shoe is None)
    return Scenario(game, rules, shoe, seed, cut_at, rounds, rates, unplugs)


def _integer(data: Mapping[str, Any], key: str, default: int) -> int:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ScenarioError(f"{key}: expected a whole number, got {value!r}")
    return value


def _shoe(raw: object, decks: int) -> list[str]:
    if not isinstance(raw, list) or not raw:
        raise ScenarioError("shoe: expected a non-empty list of card tokens")
    tokens: list[str] = []
    for i, token in enumerate(raw):
        if not isinstance(token, str):
            raise ScenarioError(f"shoe[{i}]: {token!r} is not a card token")
        if token.strip().upper() == CUT:
            if CUT in tokens:
                raise ScenarioError(f"shoe[{i}]: a second CUT; the shoe holds one cover card")
            tokens.append(CUT)
            continue
        try:
            tokens.append(card(token))
        except CardError as exc:
            raise ScenarioError(f"shoe[{i}]: {exc}") from None
    try:
        check_composition(tokens, decks)
    except CardError as exc:
        raise ScenarioError(f"shoe: {exc}") from None
    return tokens


def _rounds(raw: object, game: str) -> list[dict[int, dict[str, Decimal]]]:
    if not isinstance(raw, list):
        raise ScenarioError("rounds: expected a list of round scripts")
    seats = SEATS[game]
    section = "545.2(a)" if game == "baccarat" else "543.2(a)"
    out: list[dict[int, dict[str, Decimal]]] = []
    for i, script in enumerate(raw):
        where = f"rounds[{i}]"
        if not isinstance(script, dict):
            raise ScenarioError(f"{where}: expected an object such as {{'wagers': {{...}}}}")
        unknown = sorted(set(script) - {"wagers"})
        if unknown:
            raise ScenarioError(f"{where}: unknown key {unknown[0]!r}; a {game} round has wagers")
        wagers = script.get("wagers", {})
        if not isinstance(wagers, dict):
            raise ScenarioError(f"{where}.wagers: expected seats mapped to bets")
        round_wagers: dict[int, dict[str, Decimal]] = {}
        for seat_key, bets in wagers.items():
            at = f"{where}.wagers.{seat_key}"
            try:
                seat = int(seat_key)
            except ValueError:
                seat = 0
            if not 1 <= seat <= seats:
                raise ScenarioError(f"{at}: not a seat 1..{seats} ({section})")
            if not isinstance(bets, dict) or not bets:
                raise ScenarioError(f"{at}: expected bets such as {{'banker': 100}}")
            round_wagers[seat] = {}
            for bet, amount in bets.items():
                if bet not in BETS:
                    raise ScenarioError(f"{at}: {bet!r} is not player, banker or tie")
                if isinstance(amount, bool) or not isinstance(amount, int | float):
                    raise ScenarioError(f"{at}.{bet}: {amount!r} is not an amount")
                try:
                    round_wagers[seat][bet] = wager_amount(bet, Decimal(str(amount)))
                except WagerError as exc:
                    raise ScenarioError(f"{at}.{bet}: {exc}") from None
        out.append(round_wagers)
    return out


def _faults(raw: object, with_shuffler: bool) -> tuple[dict[str, float], list[Unplug]]:
    if not isinstance(raw, list):
        raise ScenarioError("faults: expected a list of faults")
    devices = ("shoe", "shuffler") if with_shuffler else ("shoe",)
    rates: dict[str, float] = {}
    unplugs: list[Unplug] = []
    for i, fault in enumerate(raw):
        where = f"faults[{i}]"
        if not isinstance(fault, dict):
            raise ScenarioError(f"{where}: expected an object with a kind")
        kind = fault.get("kind")
        if kind in RATE_FAULTS:
            extra = sorted(set(fault) - {"kind", "rate"})
            if extra:
                raise ScenarioError(f"{where}: unknown key {extra[0]!r} for a {kind} fault")
            rate = fault.get("rate")
            if isinstance(rate, bool) or not isinstance(rate, int | float) or not 0 <= rate <= 1:
                raise ScenarioError(f"{where}.rate: expected a probability 0..1")
            rates[kind] = float(rate)
        elif kind == "unplug":
            extra = sorted(set(fault) - {"kind", "device", "at_card", "duration_ms"})
            if extra:
                raise ScenarioError(f"{where}: unknown key {extra[0]!r} for an unplug")
            device = fault.get("device", "shoe")
            if device not in devices:
                raise ScenarioError(f"{where}.device: expected {' or '.join(devices)}")
            at_card = _integer(fault, "at_card", 0)
            if at_card < 1:
                raise ScenarioError(f"{where}.at_card: expected the number of a card, 1 or more")
            duration = _integer(fault, "duration_ms", 300)
            if not 0 <= duration <= MAX_UNPLUG_MS:
                raise ScenarioError(f"{where}.duration_ms: expected 0..{MAX_UNPLUG_MS}")
            unplugs.append(Unplug(device, at_card, duration))
        else:
            kinds = ", ".join((*RATE_FAULTS, "unplug"))
            raise ScenarioError(f"{where}.kind: {kind!r} is not one of {kinds}")
    unplugs.sort(key=lambda u: u.at_card)
    return rates, unplugs


# --------------------------------------------------------------------------- output


class JsonlJournal:
    """The bench's record: one JSON object per line, flushed before ``record`` returns,
    so a card is on file before it is acknowledged to the shoe."""

    def __init__(self, out: TextIO) -> None:
        self._out = out
        self.counts: Counter[str] = Counter()

    def record(self, entry: Mapping[str, object]) -> None:
        self._out.write(json.dumps(entry, default=_json_value) + "\n")
        self._out.flush()
        self.counts[str(entry.get("type"))] += 1


def _json_value(value: object) -> object:
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    raise TypeError(f"{type(value).__name__} is not JSON")


class _Devices:
    """The table's way back to the drivers."""

    def __init__(self, drivers: Mapping[str, DeviceDriver], shoe: ShoeDriver) -> None:
        self._drivers = drivers
        self._shoe = shoe

    def commit(self, device: str, event_id: int) -> None:
        self._drivers[device].commit(event_id)

    def display(self, text: str) -> bool:
        try:
            self._shoe.display(text)
        except NotConnected:
            return False
        return True


# --------------------------------------------------------------------------- the run


class _Bench:
    """The dealer and floorperson of one scenario run, on the thread that owns the table."""

    def __init__(
        self,
        scenario: Scenario,
        table: BaccaratTable,
        journal: JsonlJournal,
        events: queue.Queue[m.Event],
        sims: Mapping[str, SimProcess],
        drivers: Mapping[str, DeviceDriver],
    ) -> None:
        self.s = scenario
        self.table = table
        self.journal = journal
        self.events = events
        self.sims = sims
        self.drivers = drivers
        self.rng = random.Random(scenario.seed)
        self.pending: set[int] = set()  # shoe event ids of the last draw not yet handled
        self.cards = 0
        self.unplugs = list(scenario.unplugs)
        self.unplugged: str | None = None  # until the table has seen the device go
        self.replug_at = 0.0  # no event need come from an unplugged device before this
        self.shuffle_requested = False

    def connect(self) -> None:
        deadline = time.monotonic() + CONNECT_TIMEOUT
        while not all(d.connected.is_set() for d in self.drivers.values()):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                down = [n for n, d in self.drivers.items() if not d.connected.is_set()]
                raise BenchError(f"the simulated {' and '.join(down)} did not connect")
            try:
                event = self.events.get(timeout=min(remaining, 0.2))
            except queue.Empty:
                continue
            if isinstance(event, m.DeviceRefused):
                raise BenchError(f"the {event.device} was refused: {event.detail}")
            self.handle(event)

    def play(self) -> None:
        while not self.table.shoes_completed:
            while True:
                try:
                    self.handle(self.events.get_nowait())
                except queue.Empty:
                    break
            if self.table.shoes_completed or self.act():
                continue
            timeout = STALL_TIMEOUT + max(0.0, self.replug_at - time.monotonic())
            try:
                event = self.events.get(timeout=timeout)
            except queue.Empty:
                raise BenchError(
                    f"stalled: no device event for {STALL_TIMEOUT:.0f} s "
                    f"(table state {self.table.state}, {self.cards} cards dealt)"
                ) from None
            self.handle(event)

    def handle(self, event: m.Event) -> None:
        self.table.handle(event)
        if event.device == "shoe" and event.event_id is not None:
            self.pending.discard(event.event_id)
            if isinstance(event, m.CardDrawn):
                self.cards += 1

    def act(self) -> bool:
        """Do the next thing the table needs; False when that means waiting for an event."""
        need = self.table.need
        if self.unplugged is not None:
            if need is not Need.FLOOR:
                return False  # the device's loss is still on its way to the table
            self.unplugged = None
        if need is Need.SHUFFLE:
            return self.shuffle()
        if need is Need.WAGERS:
            self.wagers()
            return True
        if need is Need.FLOOR:
            if not self.table.can_clear:
                return False  # the device is not back yet
            self.table.handle(FloorClear())
            return True
        if self.pending:
            return False
        if self.unplugs and self.unplugs[0].at_card == self.cards + 1:
            self.unplug(self.unplugs.pop(0))
            return False
        reply = self.sims["shoe"].control("draw", count=1)
        self.pending.update(reply["event_ids"])
        return False

    def shuffle(self) -> bool:
        if not self.s.uses_shuffler:
            self.table.handle(ManualShuffle())  # the stacked shoe is the lab's shuffle
            return True
        if not self.shuffle_requested:
            shuffler = self.drivers["shuffler"]
            assert isinstance(shuffler, ShufflerDriver)  # SimProcess.driver picks it by kind
            shuffler.start_shuffle()
            self.shuffle_requested = True
        return False

    def wagers(self) -> None:
        index = self.table.round - 1
        script = self.s.rounds[index] if index < len(self.s.rounds) else self.autoplay()
        for seat, bets in sorted(script.items()):
            for bet, amount in bets.items():
                self.table.handle(Wager(seat, bet, amount))
        self.table.handle(NoMoreBets())

    def autoplay(self) -> dict[int, dict[str, Decimal]]:
        wagers: dict[int, dict[str, Decimal]] = {}
        for seat in range(1, AUTOPLAY_SEATS + 1):
            if self.rng.random() < 0.5:
                bet = self.rng.choices(BETS, weights=(45, 45, 10))[0]
                wagers[seat] = {bet: Decimal(self.rng.choice(AUTOPLAY_AMOUNTS))}
        return wagers

    def unplug(self, fault: Unplug) -> None:
        self.journal.record(
            {
                "type": "fault_injected",
                "kind": "unplug",
                "device": fault.device,
                "at_card": fault.at_card,
                "duration_ms": fault.duration_ms,
            }
        )
        self.sims[fault.device].control("unplug", duration_ms=fault.duration_ms)
        self.unplugged = fault.device
        self.replug_at = time.monotonic() + fault.duration_ms / 1000


def play(scenario: Scenario, scenario_path: str, out: TextIO, workdir: Path) -> tuple[int, float]:
    """Play ``scenario`` into ``out``; the number of rounds and the seconds they took."""
    journal = JsonlJournal(out)
    key = secrets.token_bytes(32)
    shoe_args = ["--pace", "manual"]
    if scenario.shoe is not None:
        stack = workdir / "stack.json"
        stack.write_text(json.dumps(scenario.shoe), encoding="utf-8")
        shoe_args += ["--stack-file", str(stack)]
    else:
        decks = scenario.rules.decks
        shoe_args += ["--decks", str(decks), "--seed", str(scenario.seed)]
        shoe_args += ["--cut-at", str(scenario.cut_at)]
    sims = {"shoe": SimProcess("shoe", workdir, key, shoe_args)}
    if scenario.uses_shuffler:
        sims["shuffler"] = SimProcess(
            "shuffler", workdir, key, ["--decks", str(scenario.rules.decks)]
        )
    events: queue.Queue[m.Event] = queue.Queue()
    drivers: dict[str, DeviceDriver] = {}
    journal.record(
        {
            "type": "bench_start",
            "scenario": scenario_path,
            "game": scenario.game,
            "shoe": "seeded" if scenario.shoe is None else "stacked",
            "seed": scenario.seed,
            "faults": {
                "rates": scenario.rates,
                "unplugs": [dataclasses.asdict(u) for u in scenario.unplugs],
            },
        }
    )
    try:
        for name, sim in sims.items():
            sim.start()
            if scenario.rates:
                sim.control("faults", seed=scenario.seed, rates=scenario.rates)
            drivers[name] = sim.driver(events)
        shoe = drivers["shoe"]
        assert isinstance(shoe, ShoeDriver)  # SimProcess.driver picks it by kind
        table = BaccaratTable(scenario.rules, journal, _Devices(drivers, shoe))
        for driver in drivers.values():
            driver.start()
        bench = _Bench(scenario, table, journal, events, sims, drivers)
        bench.connect()
        started = time.monotonic()
        bench.play()
        seconds = time.monotonic() - started
        rounds = journal.counts["round_end"]
        journal.record(
            {
                "type": "bench_end",
                "rounds": rounds,
                "cards": bench.cards,
                "seconds": round(seconds, 3),
                "rounds_per_second": round(rounds / seconds, 1) if seconds > 0 else None,
                "shoe_link": shoe.link_stats,
            }
        )
        return rounds, seconds
    finally:
        for driver in drivers.values():
            driver.stop()
        for sim in sims.values():
            sim.stop()


# --------------------------------------------------------------------------- CLI


def add_parser(subparsers: argparse._SubParsersAction[Any]) -> argparse.ArgumentParser:
    """Add ``bench`` to the ``tablectl`` subcommands (whatever parser class they use)."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "bench",
        help="play a scenario on simulated devices and write the event stream",
        description="Play SCENARIO.json on the simulated shoe (and shuffler) through the "
        "real drivers and the table state machine; write one JSON object per line.",
    )
    parser.add_argument("scenario", metavar="SCENARIO.json", help="the scenario to play")
    parser.add_argument(
        "--events", required=True, metavar="OUT.jsonl", help="where to write the event stream"
    )
    parser.add_argument(
        "--log-level",
        default="warning",
        choices=["debug", "info", "warning", "error"],
        help="log lines on stderr (the event stream records everything regardless)",
    )
    return parser


def run(args: argparse.Namespace) -> int:
    try:
        scenario = load_scenario(args.scenario)
    except ScenarioError as exc:
        return _error(f"{args.scenario}: {exc}", EXIT_USAGE)
    try:
        out = open(args.events, "w", encoding="utf-8")  # noqa: SIM115 - closed below
    except OSError as exc:
        return _error(f"cannot write {args.events}: {exc.strerror or exc}", EXIT_USAGE)
    try:
        with out, tempfile.TemporaryDirectory(prefix="tablectl-bench-") as tmp:
            rounds, seconds = play(scenario, args.scenario, out, Path(tmp))
    except (BenchError, SimError, TablectlError, OSError) as exc:
        return _error(str(exc), EXIT_FAILURE)
    except KeyboardInterrupt:
        return _error("interrupted", EXIT_INTERRUPTED)
    rate = f"{rounds / seconds:.1f}" if seconds > 0 else "-"
    print(f"tablectl bench: {rounds} rounds in {seconds:.2f} s ({rate} rounds/s)", file=sys.stderr)
    return EXIT_OK


def _error(message: str, status: int) -> int:
    print(f"tablectl: error: {' '.join(message.split())}", file=sys.stderr)
    return status
