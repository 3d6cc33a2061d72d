"""Whatever a journal row holds (a restart's first rows mid-round, an older writer's
fields, values of any type), the table model takes it without an error and its view
stays plain JSON that the live view's screen draws in 80x24."""

from __future__ import annotations

import io
import json

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from controller.daemon.screen import render
from controller.tableview import TableModel

TYPES = [
    "journal", "shuffled", "rack_shuffled", "burn", "wager", "no_more_bets", "dealt",
    "decision", "reveal", "round_end", "wagers_returned", "shoe_end", "device", "halt",
    "floor_clear", "refused", "irregularity", "shuffle_failed", "internal_error",
    "prompt", "peek", "reader_armed", "insurance_closed", "settlement", "snapshot",
]  # fmt: skip
KEYS = [
    "round", "box", "seat", "to", "hand", "card", "sealed", "bet", "amount", "decision",
    "text", "section", "event", "device", "cause", "state", "reason", "result", "seats",
    "boxes", "dealer", "dealer_total", "player", "banker", "void", "returned", "net",
    "reassigned", "game", "shoe", "blackjack", "natural", "hands", "others_bonus",
]  # fmt: skip
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-5, 30)
    | st.sampled_from(["1", "AS", "dealer", "player", "-5", "x"])
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from([*KEYS, "1", "2"]), inner, max_size=3)
    ),
    max_leaves=8,
)
ENTRY = st.builds(
    lambda kind, fields: {"type": kind, **fields},
    st.sampled_from(TYPES),
    st.dictionaries(st.sampled_from(KEYS), VALUES, max_size=6),
)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(["baccarat", "midibaccarat", "spanish21"]), st.lists(ENTRY, max_size=25))
def test_any_entries_give_a_plain_view_that_draws(
    game: str, entries: list[dict[str, object]]
) -> None:
    model = TableModel(game)
    for seq, entry in enumerate(entries, start=1):
        model.feed(seq, entry)
    view = model.view()
    assert json.loads(json.dumps(view)) == view
    console = Console(width=80, height=24, record=True, file=io.StringIO())
    console.print(render(view, "t", "", None))
    lines = console.export_text().splitlines()
    assert len(lines) <= 24 and max(map(len, lines)) <= 80
