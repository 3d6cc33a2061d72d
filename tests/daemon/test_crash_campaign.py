"""The crash campaign in the suite (issue 9): each game's table killed with SIGKILL
at least 20 times, at random times and at aimed rows (tests/support/campaign.py),
started again after each, and checked: the chain verifies, no row lost or changed,
every round begun resolved once in the journal, play goes on after the floorperson's
clear, no card counted twice in a shoe, no stand-in journaled, no failed restart and
no traceback. benchmarks/crash_soak.py runs the same campaign longer.

``TABLECTL_CAMPAIGN_SEED`` replaces the campaign's seed (named in every failure)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.support.aims import AIMED_STEPS, creation
from tests.support.campaign import Campaign
from tests.support.crashcheck import (
    Reading,
    entries_of,
    events_twice,
    lost_or_changed,
    rows_of,
    stand_ins,
)
from tests.support.workdir import Table

KILLS = 22  # per game: at least 20, whatever the schedule's last step holds
SEEDS = {"baccarat": 9101, "spanish21": 9102, "midibaccarat": 9103}


def _seed(game: str) -> int:
    return int(os.environ.get("TABLECTL_CAMPAIGN_SEED", SEEDS[game]))


@pytest.mark.timeout(600)
@pytest.mark.parametrize("game", ["baccarat", "spanish21", "midibaccarat"])
def test_a_table_killed_again_and_again_loses_nothing_and_plays_on(
    tmp_path: Path, game: str
) -> None:
    seed = _seed(game)
    tally = Campaign(game, seed, tmp_path, KILLS).run()
    told = f"{game} campaign --seed {seed}: {tally.problems[:5]}"
    assert tally.problems == [], told
    assert set(tally.faults().values()) == {0}, told
    # The campaign did what it says: its kills, each a real SIGKILL, the aimed ones on
    # the row they were aimed at, and a check start after each step.
    kinds = {kind for step in AIMED_STEPS[game] for kind in step}
    kinds |= {f"create:{point}" for point in creation(game)} | {"random:start", "random:ready"}
    assert set(tally.kills) == kinds, told
    assert tally.kills_done >= 20 and tally.killed == tally.kills_done, told
    assert tally.aimed >= 10 and sum(tally.landed.values()) == tally.aimed, (tally.landed, told)
    assert tally.kills_done - tally.aimed >= 2, told  # random kills
    assert tally.restarts >= tally.kills_done // 3 and tally.rounds_played >= tally.restarts
    if game == "spanish21":
        # The hole cards killed while sealed came after a 2 of their shoe (the
        # stand-in's rank): a stand-in that was a real card would be one too many.
        assert tally.hole_card_twos and min(tally.hole_card_twos) >= 1, tally.hole_card_twos


# --------------------------------------------------------------------------- the checks
# Each check of the campaign finds what it looks for: on journals made to be wrong.


def _stored(entries: list[dict[str, Any]]) -> list[tuple[int, str, str, str, str]]:
    return [(n, f"ts{n}", json.dumps(e), f"p{n}", f"h{n}") for n, e in enumerate(entries, 1)]


SHOE = [{"type": "journal"}, {"type": "shuffled", "shoe": 1, "cards": 104}]


def _drawn(card: str | None, event_id: int, **more: Any) -> dict[str, Any]:
    return {"type": "device", "device": "shoe", "event": "card_drawn", "card": card,
            "event_id": event_id, **more}  # fmt: skip


def test_the_checks_find_a_row_lost_or_changed_and_a_stand_in() -> None:
    rows = _stored([*SHOE, {"type": "dealt", "card": "2S"}])
    assert lost_or_changed(rows, rows) == []
    assert lost_or_changed(rows, rows[:2]) == ["row 3 lost (the journal now ends at row 2)"]
    changed = [*rows[:2], (3, "ts3", '{"type": "dealt", "card": "3S"}', "p3", "h3")]
    assert lost_or_changed(rows, changed)[0].startswith("row 3 changed")
    assert stand_ins(_stored([{"type": "dealt", "card": "2?"}])) == ["row 1: a stand-in journaled"]
    assert stand_ins(rows) == []


def test_the_checks_find_a_round_unresolved_or_resolved_twice() -> None:
    begun = [*SHOE, {"type": "wager", "round": 1}, {"type": "no_more_bets", "round": 1}]
    end = {"type": "round_end", "round": 1, "shoe": 1, "void": False}
    assert Reading("baccarat").read([*begun, end]).unresolved() == []
    assert Reading("baccarat").read(begun).unresolved() == [
        "shoe 1 round 1 (from row 3) never resolved"
    ]
    twice = Reading("baccarat").read([*begun, end, end]).unresolved()
    assert twice == ["row 6: round_end of shoe 1 round 1, not open"]
    returned = {"type": "wagers_returned", "round": 1}
    assert (
        "wagers returned after the cards were dealt"
        in Reading("baccarat").read([*begun, returned]).unresolved()[0]
    )
    assert Reading("baccarat").read([*begun, end]).played_since(3) == 1
    assert Reading("baccarat").read([*begun, end]).played_since(4) == 0


def test_the_checks_find_a_card_counted_twice_and_an_event_journaled_twice() -> None:
    def dealt(card: str | None, event_id: int, **more: Any) -> list[dict[str, Any]]:
        return [_drawn(card, event_id, **more), {"type": "dealt", "card": card, **more}]

    two_decks = [*SHOE, *dealt("AS", 1), *dealt("AS", 2)]
    assert Reading("baccarat").read(two_decks).cards_twice() == []
    # A third, sealed when it was dealt: counted by its opening.
    opened = {"type": "reveal", "opened": [{"card": "AS", "seal": "s1"}]}
    three = [*two_decks, *dealt(None, 3, seal="s1"), opened]
    assert Reading("baccarat").read(three).cards_twice() == [
        "shoe 1: AS counted 3 times, of 2 decks"
    ]
    # Delivered and refused (held while play was stopped, then the shoe ended): not
    # counted, whatever the device's new decks hold.
    assert Reading("baccarat").read([*two_decks, _drawn("AS", 3)]).cards_twice() == []
    counted = [*two_decks, {"type": "burn", "card": "KS"}]
    assert Reading("baccarat").read(counted).cards_twice() == ["shoe 1: 3 cards counted, 2 drawn"]
    assert events_twice(two_decks, 1) == []
    again = [*two_decks, _drawn("KS", 2)]
    assert events_twice(again, 1) == ["row 7: shoe event 2 journaled again (row 5)"]


# --------------------------------------------------------------------------- found by it


def test_a_simulated_table_started_again_loads_one_shoe_whatever_it_has_played(
    tmp_path: Path,
) -> None:
    # The soak's journals grew by one `cards_loaded` more at each restart: the
    # simulated console counted its shoes from 1 on a table that had played N, and
    # loaded N shoes one after another into the simulated shoe (controller/bench/dealer.py).
    table = Table("baccarat", tmp_path / "table", tmp_path / "logs")
    loads = []
    for _ in range(4):  # each start ends the shoe in play: the simulators' are new
        before = len(rows_of(table.journal))
        run = table.run(3, "--rounds", "1")
        assert run.code == 0, run.err
        added = entries_of(rows_of(table.journal))[before:]
        loads.append(sum(e.get("event") == "cards_loaded" for e in added if e["type"] == "device"))
    # The simulator's own shoe; after the first start, the next one too, as its own
    # shoe, loaded during play, ends the table's.
    assert loads == [1, 2, 2, 2]
