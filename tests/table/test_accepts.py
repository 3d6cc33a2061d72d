"""``controller.table.accepts``: the commands a table's state takes (the API's
``status``, docs/api.md), checked per game against what the table itself refuses:
every command not listed is refused, whatever it is; a command listed is not refused
for the state (the refusal a machine gives a trigger its state has no transition for),
and the round's own command at each point is taken."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from controller.table.accepts import accepts
from controller.table.events import (
    CallFloor,
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
from drivers import messages as m
from tests.support import baccarat, spanish21
from tests.support.tables import Dealer


def _every(bet: str) -> list[Command]:
    """One command of every kind, with fields a table at the point may take."""
    return [
        CallFloor("dispute"),
        CardNotDealt(1, late=True),
        CardsSpread(),
        DealerOverdraw(),
        DealersCard(),
        Decision(1, "stand"),
        DisclosedCard(),
        ExposedCard(),
        FloorClear(repair="repaired"),
        InspectReader(),
        ManualShuffle(),
        MissedCard(1, 1),
        NewDealer(),
        NoMoreBets(),
        OfferAnswer("cut", 1, "decline"),
        PermitWagering("1"),
        PlayerLeaves(2),
        Recut(),
        RefuseCard(1),
        Relinquish("shoe"),
        Reshuffle(),
        Wager(1, bet, 10),
    ]


def _baccarat_points() -> list[tuple[str, Callable[[], Dealer], str | None]]:
    """Ways to a point of a Baccarat round, and the command the round takes there."""

    def fresh() -> Dealer:
        return baccarat.Dealer()

    def shuffled() -> Dealer:
        d = baccarat.Dealer()
        d.do(ManualShuffle())
        return d

    def wagering() -> Dealer:
        d = baccarat.Dealer()
        d.open()
        return d

    def dealing() -> Dealer:
        d = wagering()
        d.do(Wager(1, "banker", 10))
        d.do(NoMoreBets())
        return d

    def halted() -> Dealer:
        d = wagering()
        d.event(m.DeviceLost("shoe", None, "unplugged"))
        return d

    return [
        ("shuffle_due", fresh, "manual_shuffle"),
        ("burn_due", shuffled, None),
        ("wagering", wagering, "wager"),
        ("dealing", dealing, None),
        ("halted", halted, "call_floor"),
    ]


def _spanish21_points() -> list[tuple[str, Callable[[], Dealer], str | None]]:
    def fresh() -> Dealer:
        return spanish21.Dealer()

    def wagering() -> Dealer:
        d = spanish21.Dealer()
        d.open()
        return d

    def dealing() -> Dealer:
        d = wagering()
        d.do(Wager(1, "spanish21", 10))
        d.do(NoMoreBets())
        return d

    def playing() -> Dealer:
        d = dealing()
        d.cards(["9S", "6H", "7S", "5D"])  # box 9, up 6; box 7: 16 against a 6
        return d

    def reveal_due() -> Dealer:
        d = playing()
        d.do(Decision(1, "stand"))
        return d

    def halted() -> Dealer:
        d = playing()
        d.event(m.DeviceLost("shoe", None, "unplugged"))
        return d

    return [
        ("shuffle_due", fresh, "inspect_reader"),
        ("wagering", wagering, "wager"),
        ("dealing", dealing, None),
        ("playing", playing, "decision"),
        ("reveal_due", reveal_due, "dealers_card"),
        ("halted", halted, "call_floor"),
    ]


POINTS = [("baccarat", "banker", *p) for p in _baccarat_points()] + [
    ("spanish21", "spanish21", *p) for p in _spanish21_points()
]


def _refused(d: Dealer, command: Command) -> dict[str, object] | None:
    before = len(d.refusals())
    d.do(command)
    refusals = d.refusals()
    return refusals[-1] if len(refusals) > before else None


@pytest.mark.parametrize(
    ("game", "bet", "point", "build", "taken"),
    POINTS,
    ids=[f"{p[0]}-{p[2]}" for p in POINTS],
)
def test_a_command_not_listed_is_refused_and_the_rounds_own_is_listed_and_taken(
    game: str, bet: str, point: str, build: Callable[[], Dealer], taken: str | None
) -> None:
    d = build()
    listed = accepts(d.table)
    assert "call_floor" in listed
    state = d.table.state
    for command in _every(bet):
        if command.name in listed:
            continue
        refusal = _refused(d, command)
        assert refusal is not None, f"{game} {point}: {command.name} not listed yet taken"
        assert d.table.state == state  # a refused command changes nothing
    if taken is not None:
        assert taken in listed
        fresh = build()
        assert _refused(fresh, next(c for c in _every(bet) if c.name == taken)) is None


@pytest.mark.parametrize(
    ("game", "bet", "point", "build", "taken"),
    POINTS,
    ids=[f"{p[0]}-{p[2]}" for p in POINTS],
)
def test_a_command_listed_is_not_refused_for_the_state(
    game: str, bet: str, point: str, build: Callable[[], Dealer], taken: str | None
) -> None:
    table = build().table
    listed = set(accepts(table))
    triggers = dict(type(table).COMMANDS.items())
    for command in _every(bet):
        if command.name not in listed:
            continue
        d = build()  # each command on a table of its own at the point
        refusal = _refused(d, command)
        if refusal is None:
            continue
        assert refusal["state"] == d.table.state
        assert not str(refusal["reason"]).startswith("play is stopped")
        assert "is not a" not in str(refusal["reason"])  # not the game's command
        trigger = triggers.get(type(command))
        if trigger is not None and trigger in d.table.machine.events:
            # The machine's own refusal for a trigger its state has no transition for.
            stateless = d.table._refusal(trigger, command)
            no_transition = not d.table.machine.get_transitions(trigger, d.table.state)
            assert not no_transition, f"{command.name}: {stateless.reason}"


def test_a_stopped_table_takes_only_the_clear_and_the_call() -> None:
    d = baccarat.Dealer()
    d.event(m.DeviceLost("shoe", None, "unplugged"))
    assert accepts(d.table) == ["call_floor", "floor_clear"]


def test_call_floor_is_journaled_and_changes_nothing_in_every_state() -> None:
    for _game, _bet, _point, build, _taken in POINTS:
        d = build()
        state, need = d.table.state, d.table.need
        d.do(CallFloor("a dispute at seat 3"))
        d.do(CallFloor())
        assert d.io.of_type("command")[-2:] == [
            {"type": "command", "command": "call_floor", "reason": "a dispute at seat 3"},
            {"type": "command", "command": "call_floor"},
        ]
        assert (d.table.state, d.table.need) == (state, need)
        assert d.refusals() == [] or d.refusals()[-1]["command"] != "call_floor"


def test_the_decisions_of_the_hand_in_turn() -> None:
    d = spanish21.Dealer()
    d.open()
    d.do(Wager(1, "spanish21", 10))
    d.do(NoMoreBets())
    d.cards(["8S", "6H", "8D", "5D"])  # a pair of eights against a 6
    assert d.table.decisions() == {
        "box": 1,
        "hand": 1,
        "allowed": ["double", "hit", "split", "stand", "surrender"],
    }
    d.do(Decision(1, "stand"))
    assert d.table.decisions() is None
