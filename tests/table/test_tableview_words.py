"""Every state of both machines, every Need and every halt cause has plain words."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from controller.table.baccarat import machine as baccarat
from controller.table.events import Need
from controller.table.halts import HALTED, INTERRUPTED
from controller.table.spanish21 import machine as spanish21
from controller.tableview.words import CAUSES, STATES, need_words, rounds_words, state_words

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("state", sorted({*baccarat.STATES, *spanish21.STATES, HALTED}))
def test_every_state_has_words(state: str) -> None:
    assert state in STATES
    words = state_words(state)
    assert words and "_" not in words and words != state


@pytest.mark.parametrize("need", list(Need))
def test_every_need_has_words(need: Need) -> None:
    words = need_words(need)
    assert words and "_" not in words
    assert need_words(need.value) == words


def test_every_halt_cause_has_words() -> None:
    """The causes the table's code stops with (``Halt("cause", ...)``)."""
    code = "".join(p.read_text() for p in (ROOT / "controller" / "table").rglob("*.py"))
    named = set(re.findall(r'Halt\(\s*"([a-z_]+)"', code)) | {INTERRUPTED}
    named |= {"device_lost", "device_refused", "event_gap", "malformed_event"}
    named |= {"reader_malfunction", "reader_tamper"}
    assert named <= set(CAUSES), named - set(CAUSES)


def test_rounds_are_counted_in_english() -> None:
    assert [rounds_words(n) for n in (0, 1, 2)] == [
        "0 rounds played",
        "1 round played",
        "2 rounds played",
    ]
