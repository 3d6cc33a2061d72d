"""tools/bad_inputs.py counts the suite's bad-input cases by kind from node ids."""

from __future__ import annotations

import pytest

from tools.bad_inputs import counted, main


def test_each_case_counts_once_for_the_first_kind_its_name_matches() -> None:
    ids = [
        "tests/table/test_table_amounts.py::test_a_baccarat_wager_that_is_not_chips_is_refused[1.5]",
        "tests/table/test_table_amounts.py::test_a_baccarat_wager_that_is_not_chips_is_refused[0]",
        "tests/table/test_table_amounts.py::test_a_wager_in_chips_is_taken",
        "tests/daemon/test_restart.py::test_a_journal_that_cannot_be_replayed_is_one_line",
        "tests/daemon/test_config.py::test_bad_input_is_one_line_naming_the_key[x]",
    ]
    counts = counted(ids)
    assert counts["amounts not chips (ruling R16): table"] == 2
    assert counts["replays that cannot proceed"] == 1
    assert counts["configuration files"] == 1
    assert sum(counts.values()) == 4


def test_a_selection_that_collects_nothing_is_one_line_and_exit_1(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["tests/tools/test_bad_inputs.py", "-k", "no_test_has_this_name"]) == 1
    assert capsys.readouterr().err.count("\n") == 1
