"""Rulings R10 and R11 at the Baccarat and Midibaccarat table: a void returns only what
is still in action, and deferred vigorish is rounded when it is collected."""

from __future__ import annotations

from decimal import Decimal

import pytest

from controller.table.events import PlayerLeaves
from drivers import messages as m
from tests.support.baccarat import CH, GAMES, Dealer

D = Decimal
BANKER_WINS = ["2H", "9S", "3C", "KD"]  # Player 5, Banker 9


@GAMES
@pytest.mark.reg("545.13(d)", "545.13(e)", "543.13(d)", "543.13(e)")
def test_deferred_vigorish_is_owed_exactly_and_rounded_once_when_collected(game: str) -> None:
    # Ruling R11: $1, $1 and $2 Banker wins at 5% owe 0.20, exactly, on the marker; the
    # player leaves and pays it rounded once: a quarter at Baccarat (545.13(d)), 0.20 at
    # Midibaccarat's 5 cents (543.13(d)). Rounded win by win it was 0.75 (0.15).
    d = Dealer(game, vigorish_collection="deferred", vigorish_rounding=True)
    d.open()
    for amount in (1, 1, 2):
        d.play(BANKER_WINS, wagers={4: {"banker": amount}})
    marked = [r["seats"]["4"] for r in d.rounds()]  # type: ignore[index]
    assert [(s["vigorish"], s["vigorish_deferred"]) for s in marked] == [
        (D("0.05"), True),
        (D("0.05"), True),
        (D("0.10"), True),
    ]
    d.table.handle(PlayerLeaves(4))
    (collected,) = d.io.of_type("vigorish_collected")
    assert collected["owed"] == {"4": D("0.20")}
    rounded = D("0.25") if game == "baccarat" else D("0.20")
    assert collected["collected"] == {"4": rounded}
    assert collected["section"] == f"{CH[game]}.13(e)"


@GAMES
@pytest.mark.reg("545.13(d)", "545.13(e)", "543.13(d)", "543.13(e)")
def test_vigorish_collected_at_the_payout_is_rounded_at_each_win(game: str) -> None:
    # Ruling R11: collected with each payout, each is rounded as it is collected.
    d = Dealer(game, vigorish_rounding=True)
    d.open()
    for amount in (1, 1, 2):
        d.play(BANKER_WINS, wagers={4: {"banker": amount}})
    rounded = {"baccarat": ["0.25", "0.25", "0.25"], "midibaccarat": ["0.05", "0.05", "0.10"]}
    marked = [r["seats"]["4"] for r in d.rounds()]  # type: ignore[index]
    assert [s["vigorish"] for s in marked] == [D(v) for v in rounded[game]]
    assert not d.io.of_type("vigorish_collected")


@GAMES
@pytest.mark.reg("545.15(e)", "543.14(e)", "545.13(e)", "543.13(e)")
def test_a_void_returns_the_rounds_wagers_and_leaves_the_vigorish_owed(game: str) -> None:
    # Ruling R10: nothing of a Baccarat round is settled before its result (545.12), so
    # its void returns every wager on the layout, and only those: the vigorish marked on
    # an earlier win is still owed, collected before the next shoe.
    d = Dealer(game, vigorish_collection="deferred")
    d.open()
    d.play(BANKER_WINS, wagers={4: {"banker": 20}})
    d.play(["3S", "2D", "2C"], wagers={4: {"player": 10}, 6: {"tie": 5}})
    d.event(m.ShoeEmpty("shoe", d.id()))
    void = d.rounds()[-1]
    assert void["void"] is True
    assert void["returned"] == {"4": {"player": D(10)}, "6": {"tie": D(5)}}
    (collected,) = d.io.of_type("vigorish_collected")
    assert collected["owed"] == collected["collected"] == {"4": D(1)}
