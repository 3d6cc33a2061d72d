"""Random play at a table of any game, for properties over whole tables: mostly what
the table needs next, done right, and now and then what a device or a console does out
of turn. Inputs are made one at a time from the table's state, so that another table
can be fed the very same ones."""

from __future__ import annotations

import functools
import itertools
import json
import random
import re
from collections.abc import Callable
from typing import Any

from controller.games import game
from controller.journal import encode
from controller.rules.cards import deck
from controller.rules.spanish21 import allowed_decisions, box_context, dealer_blackjack
from controller.table.baccarat import BaccaratTable
from controller.table.core import Table
from controller.table.events import (
    CardNotDealt,
    CardsSpread,
    Command,
    DealerOverdraw,
    DealersCard,
    Decision,
    DisclosedCard,
    ExposedCard,
    FloorClear,
    InspectReader,
    ManualShuffle,
    MissedCard,
    Need,
    NewDealer,
    NoMoreBets,
    OfferAnswer,
    PermitWagering,
    PlayerLeaves,
    Recut,
    RefuseCard,
    Relinquish,
    Reshuffle,
    Wager,
)
from controller.table.seal import Sealer
from controller.table.snapshot import SealedState, capture
from controller.table.spanish21 import Spanish21Table
from drivers import messages as m
from tests.support.tables import DAY, Devices

GAMES = ("spanish21", "baccarat", "midibaccarat")
KEY = bytes(range(32))
Input = m.Event | Command


class JsonJournal:
    """Keeps every entry as the SQLite journal would hold it."""

    def __init__(self) -> None:
        self.entries: list[dict[str, Any]] = []

    def record(self, entry: Any) -> None:
        self.entries.append(json.loads(encode(entry)))


class AnsweringDevices(Devices):
    """The devices of the table being played: the reader answers each self-test."""

    def __init__(self) -> None:
        super().__init__()
        self.answers: list[bool] = []

    def self_test(self) -> bool:
        self.answers.append(True)
        return True


def table_of(name: str, journal: Any, devices: Devices) -> Table:
    """A ``name`` table with the default rules, as the daemon builds one."""
    entry = game(name)
    return entry.table(
        entry.defaults(), journal, devices, gaming_day=lambda: DAY, sealer=Sealer(KEY)
    )


def same_seals(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``entries`` with each seal, salt and nonce named by its order of appearance: two
    tables draw their own random salts, and nothing else may differ."""
    names: dict[str, str] = {}

    def rename(text: str) -> str:
        return names.setdefault(text, f"#{len(names)}")

    def walk(value: Any, key: str = "") -> Any:
        if isinstance(value, dict):
            return {k: walk(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v, key) for v in value]
        if key in ("seal", "salt", "nonce") and isinstance(value, str):
            return rename(value)
        return value

    return [walk(e) for e in entries]


CARD_TOKEN = re.compile(r'"([A2-9TJQK][SHDC])"')


def card_tokens(text: str) -> set[str]:
    return set(CARD_TOKEN.findall(text))


class RandomPlay:
    """The inputs of random play at ``table`` (its devices: ``devices``)."""

    def __init__(self, table: Table, devices: AnsweringDevices, rng: random.Random) -> None:
        self.table = table
        self.devices = devices
        self.rng = rng
        self.ids = itertools.count(1)
        self.queue: list[Input] = []
        self.shoe: list[str] = []
        self.shoe_number = -1
        self.lost: set[str] = set()
        spanish = isinstance(table, Spanish21Table)
        self.cards = deck(spanish) * (6 if spanish else 8)

    def next(self) -> Input:
        if self.devices.answers:
            self.devices.answers.pop()
            return m.SelfTestResult("reader", next(self.ids), True, 0)
        if self.table.shoe_number != self.shoe_number:
            self.shoe_number = self.table.shoe_number
            self.shoe = self.rng.sample(self.cards, len(self.cards))
            self.shoe.insert(len(self.shoe) - self.rng.randint(10, 60), "CUT")
        if not self.queue:
            self.queue = self._noise() if self.rng.random() < 0.12 else self._needed()
        return self.queue.pop(0)

    # ------------------------------------------------------------------ what is needed

    def _needed(self) -> list[Input]:
        need = self.table.need
        if need is Need.FLOOR:
            return self._floor()
        if need is Need.SHUFFLE:
            return [ManualShuffle()]
        if need is Need.CARD:
            return [self._card()]
        if isinstance(self.table, Spanish21Table):
            return self._spanish21(need, self.table)
        assert isinstance(self.table, BaccaratTable)
        return self._baccarat(self.table)

    def _floor(self) -> list[Input]:
        table = self.table
        if self.lost:
            device = self.lost.pop()
            return [m.DeviceConnected(device, None, device, "SIM", f"{device}-1", "1.0.0")]
        if table.can_clear:
            return [FloorClear(repair="repaired" if table.repair_needed else None)]
        token = self._card()
        card = token.rank + token.suit if isinstance(token, m.CardDrawn) else "2S"
        return [FloorClear(card=card, repair="repaired" if table.repair_needed else None)]

    def _card(self) -> m.Event:
        if not self.shoe:
            return m.ShoeEmpty("shoe", next(self.ids))
        token = self.shoe.pop(0)
        if token == "CUT":
            return m.CutCardSeen("shoe", next(self.ids))
        return m.CardDrawn("shoe", next(self.ids), token[0], token[1], False)

    def _spanish21(self, need: Need, table: Spanish21Table) -> list[Input]:
        choose: dict[Need, Callable[[], list[Input]]] = {
            Need.INSPECTION: lambda: [InspectReader()],
            Need.WAGERS: lambda: self._wagers(range(1, 8), ("spanish21", "match_the_dealer")),
            Need.PEEK: lambda: [m.CardInserted("reader", next(self.ids), True)],
            Need.DECISION: lambda: [self._decision(table)],
            Need.REVEAL: lambda: [DealersCard()],
            Need.DEVICE: lambda: [self._peek(table)],
        }
        return choose.get(need, self._noise)()

    def _peek(self, table: Spanish21Table) -> Input:
        dealer = table._round.dealer  # the reader reads the card itself
        truth = len(dealer) >= 2 and dealer_blackjack(dealer)
        answer = truth if self.rng.random() < 0.9 else not truth
        return m.PeekResult("reader", next(self.ids), answer)

    def _decision(self, table: Spanish21Table) -> Input:
        turn, up = table.turn, table.up_card
        assert turn is not None and up is not None
        hands = table.hands_of(turn[0])
        ctx = box_context(hands, turn[1], up_card=up, peeked=True)
        return Decision(turn[0], self.rng.choice(sorted(allowed_decisions(hands[turn[1]], ctx))))

    def _wagers(self, seats: range, bets: tuple[str, ...]) -> list[Input]:
        chosen = self.rng.sample(list(seats), self.rng.randint(1, 3))
        wagers: list[Input] = [
            Wager(seat, self.rng.choice(bets), self.rng.choice((5, 10, 25))) for seat in chosen
        ]
        return [*wagers, NoMoreBets()]

    def _baccarat(self, table: BaccaratTable) -> list[Input]:
        for what in ("cut", "shoe", "player", "banker"):
            seat = table.offered(what)
            if seat is not None:
                answers = ["accept", "decline"] + (["dealer"] if what == "shoe" else [])
                return [OfferAnswer(what, seat, self.rng.choice(answers))]
        seats = range(1, 15 if table.game == "baccarat" else 10)
        return self._wagers(seats, ("player", "banker", "tie"))

    # ------------------------------------------------------------------ out of turn

    def _noise(self) -> list[Input]:
        rng, ids = self.rng, self.ids
        device = rng.choice(
            ["shoe", "reader"] if isinstance(self.table, Spanish21Table) else ["shoe"]
        )
        common: list[Callable[[], Input]] = [
            lambda: m.CardDrawn("shoe", next(ids), *rng.choice(self.cards), rng.random() < 0.5),
            lambda: m.CutCardSeen("shoe", next(ids)),
            lambda: m.UnreadableCard("shoe", next(ids)),
            lambda: self._lose(device),
            lambda: Wager(rng.randint(0, 8), rng.choice(["spanish21", "player", "tie"]), 10),
            lambda: NoMoreBets(),
            lambda: FloorClear(),
            lambda: Recut(),
        ]
        more = (
            self._spanish21_noise()
            if isinstance(self.table, Spanish21Table)
            else [
                lambda: DisclosedCard(),
                lambda: PlayerLeaves(rng.randint(1, 14)),
                lambda: Relinquish(rng.choice(["shoe", "player", "banker"]), rng.random() < 0.5),
            ]
        )
        return [rng.choice([*common, *more])()]

    def _lose(self, device: str) -> Input:
        self.lost.add(device)
        return m.DeviceLost(device, None, "unplugged")

    def _spanish21_noise(self) -> list[Callable[[], Input]]:
        rng, ids = self.rng, self.ids
        return [
            lambda: m.CardDrawn("shoe", next(ids), "T", rng.choice("SHDC"), False),
            lambda: m.CardInserted("reader", next(ids), rng.random() < 0.5),
            lambda: m.ReaderMalfunction("reader", next(ids), 3),
            lambda: Decision(rng.randint(1, 7), rng.choice(["hit", "stand", "double", "rescue"])),
            lambda: NewDealer(),
            lambda: Reshuffle(),
            lambda: ExposedCard(),
            lambda: DealerOverdraw(),
            lambda: MissedCard(rng.choice([None, 1, 2]), rng.randint(1, 2), rng.random() < 0.5),
            lambda: CardNotDealt(rng.randint(1, 7), rng.random() < 0.5),
            lambda: RefuseCard(rng.randint(1, 7)),
            lambda: CardsSpread(),
            lambda: PermitWagering(str(rng.randint(1, 7))),
        ]


def through_the_journal(value: object) -> Any:
    """``value`` as a journal row holds it, read back."""
    return json.loads(encode(value))


class Played:
    """A table of ``game`` in random play from ``seed``, and every input it took."""

    def __init__(self, game: str, seed: int) -> None:
        self.game = game
        self.journal = JsonJournal()
        self.devices = AnsweringDevices()
        self.table = table_of(game, self.journal, self.devices)
        self.play = RandomPlay(self.table, self.devices, random.Random(seed))
        self.inputs: list[Input] = []

    def step(self) -> Input:
        item = self.play.next()
        self.inputs.append(item)
        self.table.handle(item)
        return item

    def captured_at_or_after(self, at: int, within: int = 400) -> Any:
        """Play ``at`` inputs, then on until the state can be captured (no sealed card)."""
        for _ in range(at):
            self.step()
        for _ in range(within):
            try:
                return through_the_journal(capture(self.table))
            except SealedState:
                self.step()
        raise AssertionError(f"a sealed card held for {within} inputs")


def factory(name: str) -> Callable[..., Table]:
    """How ``resume`` builds a fresh ``name`` table: the registry's, default rules."""
    entry = game(name)
    return functools.partial(entry.table, entry.defaults())
