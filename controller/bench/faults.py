"""A scenario's faults: wire faults at a rate, unplugged devices, and the game
irregularities the simulated devices or the bench's dealer commit, each checked where
the scenario gives it."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from controller.bench.scenario import (
    BACCARAT_ROUND_FAULTS,
    CARD_IRREGULARITIES,
    DRAWN_IN_ERROR,
    RATE_FAULTS,
    READER_IRREGULARITIES,
    READER_MISUSE,
    SHUFFLER_FAULTS,
    Irregularity,
    ScenarioError,
    Unplug,
)
from controller.bench.values import is_number, shown, whole

MAX_COUNT = 0xFFFF  # the shuffler's card count is a 16-bit field
MAX_UNPLUG_MS = 3_600_000

Fault = Mapping[str, Any]


def read_faults(
    raw: object, with_shuffler: bool, spanish: bool, cards: int
) -> tuple[dict[str, float], list[Unplug], list[Irregularity]]:
    """The wire faults' rates, the unplugs in card order and the irregularities, of a
    scenario with a shuffler or not, for Spanish 21 or not, of ``cards`` cards."""
    if not isinstance(raw, list):
        raise ScenarioError("faults: expected a list of faults")
    faults = _Faults(with_shuffler, spanish, cards)
    for i, fault in enumerate(raw):
        faults.read(fault, i)
    _check_shuffles(faults.shuffles)
    faults.unplugs.sort(key=lambda u: u.at_card)
    faults.irregularities.sort(key=lambda f: (f.at_card, f.at_round, f.at_shuffle))
    return faults.rates, faults.unplugs, faults.irregularities


class _Faults:
    """The faults read so far, in the scenario's order."""

    def __init__(self, with_shuffler: bool, spanish: bool, cards: int) -> None:
        self.with_shuffler = with_shuffler
        self.spanish = spanish
        self.cards = cards
        self.devices = (
            "shoe",
            *(("reader",) if spanish else ()),
            *(("shuffler",) if with_shuffler else ()),
        )
        self.rates: dict[str, float] = {}
        self.unplugs: list[Unplug] = []
        self.irregularities: list[Irregularity] = []
        self.shuffles: list[tuple[int, int]] = []  # (at_shuffle, index in faults)

    def read(self, fault: object, i: int) -> None:
        where = f"faults[{i}]"
        if not isinstance(fault, dict):
            raise ScenarioError(f"{where}: expected an object with a kind")
        kind = fault.get("kind")
        reader = self._reader(kind)
        if reader is None:
            kinds = ", ".join(fault_kinds(self.spanish, self.with_shuffler))
            raise ScenarioError(f"{where}.kind: {shown(kind)} is not one of {kinds}")
        reader(fault, str(kind), where, i)

    def _reader(self, kind: object) -> Callable[[Fault, str, str, int], None] | None:
        """What reads a fault of ``kind``; None for a kind this scenario cannot have."""
        if not isinstance(kind, str):
            return None  # a list or an object: no kind (nor a key of the kinds' tables)
        if kind in RATE_FAULTS:
            return self._rate
        if kind == "unplug":
            return self._unplug
        if kind in CARD_IRREGULARITIES or (self.spanish and kind in READER_IRREGULARITIES):
            return self._irregularity
        if kind in SHUFFLER_FAULTS:
            return self._shuffler
        if kind == READER_MISUSE:
            return self._misuse
        if kind in BACCARAT_ROUND_FAULTS:
            return self._baccarat_round
        return None

    def _rate(self, fault: Fault, kind: str, where: str, i: int) -> None:
        _only(fault, {"kind", "rate"}, where, f"a {kind} fault")
        rate: Any = fault.get("rate")
        if not is_number(rate) or not 0 <= rate <= 1:
            raise ScenarioError(f"{where}.rate: expected a probability 0..1")
        self.rates[kind] = float(rate)

    def _unplug(self, fault: Fault, kind: str, where: str, i: int) -> None:
        _only(fault, {"kind", "device", "at_card", "duration_ms"}, where, "an unplug")
        device = fault.get("device", "shoe")
        if device not in self.devices:
            raise ScenarioError(f"{where}.device: expected {' or '.join(self.devices)}")
        at_card = _number_of(fault, "at_card", where)
        duration = whole(fault, "duration_ms", 300, where)
        if not 0 <= duration <= MAX_UNPLUG_MS:
            raise ScenarioError(f"{where}.duration_ms: expected 0..{MAX_UNPLUG_MS}")
        self.unplugs.append(Unplug(device, at_card, duration))

    def _irregularity(self, fault: Fault, kind: str, where: str, i: int) -> None:
        if kind == "ten" and not self.spanish:
            # 551.16(b): a ten is an irregularity only in a Spanish deck.
            raise ScenarioError(f"{where}.kind: a ten fault is for a spanish21 shoe")
        if kind in CARD_IRREGULARITIES:
            _only(fault, {"kind", "at_card"}, where, f"a {kind} fault")
            self.irregularities.append(
                Irregularity(kind, at_card=_number_of(fault, "at_card", where))
            )
        else:
            self.irregularities.append(_reader_fault(fault, kind, where))

    def _shuffler(self, fault: Fault, kind: str, where: str, i: int) -> None:
        if not self.with_shuffler:
            raise ScenarioError(
                f"{where}.kind: a {kind} fault needs a seeded shoe (decks and seed) "
                'or "shuffler": true: a stacked shoe is otherwise shuffled by hand'
            )
        self.irregularities.append(_shuffler_fault(fault, kind, where, self.cards))
        self.shuffles.append((self.irregularities[-1].at_shuffle, i))

    def _misuse(self, fault: Fault, kind: str, where: str, i: int) -> None:
        if not self.spanish:
            raise ScenarioError(
                f"{where}.kind: a {kind} fault is for a spanish21 table (551.16(l))"
            )
        self.irregularities.append(_round_fault(fault, kind, where))

    def _baccarat_round(self, fault: Fault, kind: str, where: str, i: int) -> None:
        if self.spanish:
            raise ScenarioError(
                f"{where}.kind: a {kind} fault is for a baccarat or midibaccarat table"
            )
        self.irregularities.append(_round_fault(fault, kind, where))


def fault_kinds(spanish: bool, with_shuffler: bool) -> tuple[str, ...]:
    card_kinds = CARD_IRREGULARITIES if spanish else ("face_up",)
    round_kinds = (*READER_IRREGULARITIES, READER_MISUSE) if spanish else BACCARAT_ROUND_FAULTS
    shuffler_kinds = tuple(SHUFFLER_FAULTS) if with_shuffler else ()
    return (*RATE_FAULTS, "unplug", *card_kinds, *round_kinds, *shuffler_kinds)


def _only(fault: Fault, allowed: set[str], where: str, what: str) -> None:
    """No key but the ``allowed`` ones in a fault (``what`` it is, for the message)."""
    extra = sorted(set(fault) - allowed)
    if extra:
        raise ScenarioError(f"{where}: unknown key {shown(extra[0])} for {what}")


def _number_of(fault: Fault, key: str, where: str, default: int = 0) -> int:
    """``at_card``, ``at_round`` or ``at_shuffle``: the number of one, counted from 1."""
    number = whole(fault, key, default, where)
    if number < 1:
        noun = key.removeprefix("at_")
        raise ScenarioError(f"{where}.{key}: expected the number of a {noun}, 1 or more")
    return number


def _reader_fault(fault: Fault, kind: str, where: str) -> Irregularity:
    """The reader's irregularity at a round's peek; a malfunction has its ``code``."""
    malfunction = kind == "reader_malfunction"
    _only(
        fault, {"kind", "at_round", *(("code",) if malfunction else ())}, where, f"a {kind} fault"
    )
    at_round = _number_of(fault, "at_round", where)
    code = None
    if malfunction:
        code = whole(fault, "code", 1, where)
        if not 0 <= code <= 255:
            raise ScenarioError(f"{where}.code: expected a malfunction code 0..255")
    return Irregularity(kind, at_round=at_round, code=code)


def _round_fault(fault: Fault, kind: str, where: str) -> Irregularity:
    """The dealer's irregularity in a round: ``reader_misuse``, ``drawn_in_error``
    (which may be ``disclosed``) or ``player_third_card``."""
    allowed = {"kind", "at_round", *(("disclosed",) if kind == DRAWN_IN_ERROR else ())}
    _only(fault, allowed, where, f"a {kind} fault")
    at_round = _number_of(fault, "at_round", where)
    disclosed = fault.get("disclosed", False)
    if not isinstance(disclosed, bool):
        raise ScenarioError(f"{where}.disclosed: expected true or false, got {shown(disclosed)}")
    return Irregularity(kind, at_round=at_round, disclosed=disclosed)


def _shuffler_fault(fault: Fault, kind: str, where: str, cards: int) -> Irregularity:
    wrong_count = kind == "shuffler_wrong_count"
    allowed = {"kind", "at_shuffle", *(("delta",) if wrong_count else ())}
    _only(fault, allowed, where, f"a {kind} fault")
    at_shuffle = _number_of(fault, "at_shuffle", where, default=1)
    delta = None
    if wrong_count:
        if "delta" not in fault:
            raise ScenarioError(f"{where}.delta: the count's difference is required, such as -1")
        delta = whole(fault, "delta", 0, where)
        if delta == 0 or not -cards <= delta <= MAX_COUNT - cards:
            raise ScenarioError(
                f"{where}.delta: expected a difference from the {cards} cards other than 0, "
                f"{-cards}..{MAX_COUNT - cards}"
            )
    return Irregularity(kind, at_shuffle=at_shuffle, delta=delta)


def _check_shuffles(shuffles: list[tuple[int, int]]) -> None:
    """The shuffler's faults fail shuffles 1, 2, ... in turn: the bench asks again after
    each failure and plays the shoe after the first good shuffle."""
    previous: tuple[int, int] | None = None
    for at, i in sorted(shuffles):
        if previous is not None and at == previous[0]:
            raise ScenarioError(
                f"faults[{i}].at_shuffle: shuffle {at} already fails (faults[{previous[1]}])"
            )
        expected = 1 if previous is None else previous[0] + 1
        if at != expected:
            raise ScenarioError(
                f"faults[{i}].at_shuffle: shuffle {at} never happens: shuffle {expected} "
                "completes and the shoe is played"
            )
        previous = (at, i)
