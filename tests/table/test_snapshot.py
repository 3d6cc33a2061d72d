"""A table's whole state captured and put back into a fresh table
(controller/table/snapshot.py), the base of the journal's snapshots: a restored table
is the table it was taken from, whatever the game and whatever happened before."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.table.snapshot import SealedState, SnapshotError, capture, restore
from tests.support.play import (
    GAMES,
    JsonJournal,
    Played,
    card_tokens,
    same_seals,
    table_of,
    through_the_journal,
)
from tests.support.tables import Devices


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    game=st.sampled_from(GAMES),
    seed=st.integers(0, 2**32 - 1),
    at=st.integers(0, 500),
    more=st.integers(1, 400),
)
def test_a_restored_table_writes_the_journal_its_original_writes(
    game: str, seed: int, at: int, more: int
) -> None:
    played = Played(game, seed)
    state = played.captured_at_or_after(at)
    taken = len(played.journal.entries)
    journal = JsonJournal()
    restored = table_of(game, journal, Devices())
    restore(restored, state)
    assert through_the_journal(capture(restored)) == state
    for _ in range(more):
        restored.handle(played.step())
    assert same_seals(journal.entries) == same_seals(played.journal.entries[taken:])
    assert restored.state == played.table.state


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), at=st.integers(0, 800))
@pytest.mark.reg("551.8(e)")
def test_a_captured_state_holds_no_card_the_journal_has_not_shown(seed: int, at: int) -> None:
    played = Played("spanish21", seed)
    state = played.captured_at_or_after(at)
    shown = card_tokens(json.dumps(played.journal.entries))
    assert card_tokens(json.dumps(state)) <= shown


def test_a_table_holding_a_sealed_card_is_not_captured() -> None:
    played = Played("spanish21", 3)
    for _ in range(2000):
        played.step()
        if played.table.hole_dealt:  # type: ignore[attr-defined]
            break
    with pytest.raises(SealedState, match=r"551\.8\(e\)"):
        capture(played.table)


def test_state_of_a_type_no_table_keeps_is_an_error_not_a_loss() -> None:
    played = Played("baccarat", 1)
    played.step()
    played.table._round.kept = object()  # type: ignore[attr-defined]
    with pytest.raises(SnapshotError, match=r"^round\.kept: a object"):
        capture(played.table)


def _table_holding(value: object) -> Any:
    """A state whose table, decoded first, holds ``value`` (as a snapshot writes it)."""

    def edit(state: dict[str, Any]) -> dict[str, Any]:
        objects = [
            [name, [["_halts", value], *attributes[1:]] if name == "table" else attributes]
            for name, attributes in state["objects"]
        ]
        return {**state, "objects": objects}

    return edit


@pytest.mark.parametrize(
    ("edit", "says"),
    [
        (lambda s: {**s, "format": 99}, "format"),
        (lambda s: {**s, "objects": [["table", []]]}, "components"),
        (_table_holding({"$": "dataclass", "t": "os:stat_result", "v": [], "id": 0}), "keeps"),
        (_table_holding({"$": "pickle", "id": 0}), "kind"),
        (_table_holding({"$ref": 999}), "refers to 999 before it"),
    ],
    ids=["another format", "another table", "outside the allow-list", "unknown kind", "dangling"],
)
def test_a_state_that_is_not_a_tables_is_refused_in_one_line(edit: Any, says: str) -> None:
    played = Played("baccarat", 2)
    for _ in range(30):
        played.step()
    state = edit(through_the_journal(capture(played.table)))
    fresh = table_of("baccarat", JsonJournal(), Devices())
    with pytest.raises(SnapshotError, match=says) as caught:
        restore(fresh, state)
    assert "\n" not in str(caught.value)


def test_shared_values_stay_shared_and_dicts_keep_their_order() -> None:
    played = Played("spanish21", 5)
    table: Any = played.table
    shared = [Decimal("2.5")]
    table._wagers.players = {3: "c", 1: "a", 2: "b"}
    table._rack.cards = table._round.dealer = shared  # one list, two places
    fresh: Any = table_of("spanish21", JsonJournal(), Devices())
    restore(fresh, through_the_journal(capture(table)))
    assert list(fresh._wagers.players) == [3, 1, 2]
    assert fresh._rack.cards is fresh._round.dealer and fresh._rack.cards == shared
