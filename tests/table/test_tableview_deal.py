"""The table model fed a Spanish 21 table's own journal through a dealer's errors the
bench never makes: a missed card's corrected deal (551.16(f)) moves the cards."""

from __future__ import annotations

import pytest

from controller.table.events import MissedCard
from controller.tableview import TableModel
from tests.support.spanish21 import Dealer


@pytest.mark.reg("551.16(f)")
def test_the_corrected_deal_moves_the_cards() -> None:
    d = Dealer()
    d.open()
    d.deal({1: 10, 2: 10}, ["9C", "8D", "7H", "6S"])  # the dealer skipped his first card
    d.do(MissedCard(None, 1))
    d.cards(["9H", "KD"])  # his first card, then his hole card
    model = TableModel("spanish21")
    for seq, entry in enumerate(d.io.journal.entries, start=1):
        model.feed(seq, entry)
    hands = {h["place"]: h["cards"] for h in model.view()["hands"]}
    assert hands == {"dealer": ["9H", None], "1": ["9C", "7H"], "2": ["8D", "6S"]}
    assert model.view()["faults"][-1]["section"] == "551.16(f)"
