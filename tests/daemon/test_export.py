"""``tablectl journal export``: a round's hands rebuilt from the SQLite journal alone,
for a question or dispute (551.8(i), § 635a.7(q))."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from controller.export import main_export
from controller.journal import SqliteJournal
from controller.table.events import ManualShuffle, NoMoreBets, Wager
from tests.support.recovery import Run, baccarat_hand, play, script
from tests.support.tables import Devices


def export(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main_export(["export", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def played(tmp_path: Path, steps: int | None = None) -> Path:
    run = Run(tmp_path / "table.sqlite")
    run.open()
    play(run, script()[:steps])
    run.crash()
    return run.path


@pytest.mark.reg("551.8(i)", "635a.7(q)")
def test_the_json_export_rebuilds_split_hands_in_dealing_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = played(tmp_path)
    code, out, err = export(capsys, "--round", "1", "--json", str(path))
    assert code == 0 and err == ""
    report = json.loads(out)
    end = report["result"]
    # The hands rebuilt card by card agree with the settled round, split hands included.
    assert report["hands"]["box 1"] == [h["cards"] for h in end["boxes"]["1"]["hands"]]
    assert report["hands"]["box 1"] == [["8C", "3S"], ["8D", "KD"]]
    assert report["hands"]["box 2"] == [["9H", "4S", "7H"]]
    assert report["hands"]["dealer"] == [end["dealer"]] == [["AD", "5C", "5D"]]
    order = [(c["card"], c["to"]) for c in report["cards"]]
    assert order == [
        ("8C", "box 1"),
        ("9H", "box 2"),
        ("AD", "dealer"),
        ("8D", "box 1"),
        ("4S", "box 2"),
        ("5C", "dealer"),
        ("3S", "box 1"),
        ("KD", "box 1"),
        ("7H", "box 2"),
        ("5D", "dealer"),
    ]
    hole = report["cards"][5]
    assert hole["seal_checked"] is True and hole["revealed_at"] > hole["seq"]
    assert [d["decision"] for d in report["decisions"]] == ["split", "stand", "stand", "double"]
    assert report["journal"]["chain"] == "intact"


@pytest.mark.reg("551.8(e)", "551.8(i)")
def test_a_round_in_play_shows_the_hole_card_sealed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = played(tmp_path, 12)
    code, out, _ = export(capsys, "--round", "1", str(path))  # text is the default
    assert code == 0
    assert "5C" not in out
    assert "??  dealer  (hole card, sealed: never turned over)" in out
    assert "Result: none recorded" in out


@pytest.mark.reg("635a.7(q)")
def test_the_text_export_reads_as_the_hands_on_the_layout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = played(tmp_path)
    code, out, _ = export(capsys, "--round", "1", "--text", str(path))
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("Spanish 21: shoe 1, round 1")
    assert "    6. 5C  dealer  (hole card, sealed until row" in out
    assert "  box 1 hand 1: 8C 3S" in lines and "  box 1 hand 2: 8D KD" in lines
    assert "  box 1 hand 1: split" in lines
    assert "  box 2 hand 1: 20 lose -20" in lines


def test_a_baccarat_hand_is_exported_with_player_and_banker(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bac.sqlite"
    journal = SqliteJournal(path)
    table, card = baccarat_hand(journal, Devices(), "baccarat")
    table.handle(ManualShuffle())
    for token in ["5S", "2C", "3C", "4C", "6C", "7C"]:
        card(token)
    table.handle(Wager(1, "player", 10))
    table.handle(NoMoreBets())
    for token in ["9S", "2H", "3D", "4H", "5C", "6H"]:
        card(token)
    journal.close()
    code, out, _ = export(capsys, "--round", "1", "--json", str(path))
    report: dict[str, Any] = json.loads(out)
    assert code == 0 and report["game"] == "baccarat"
    hands = report["hands"]
    assert hands["player"][0] == report["result"]["player"]
    assert hands["banker"][0] == report["result"]["banker"]
    code, out, _ = export(capsys, "--round", "1", str(path))
    assert "  seat 1 player 10" in out and "  result: " in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--round", "7"], "no round 7 in the journal"),
        (["--round", "1", "--shoe", "4"], "no round 1 in shoe 4"),
    ],
)
def test_no_such_round_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    path = played(tmp_path)
    code, out, err = export(capsys, *argv, str(path))
    assert code == 2 and out == ""
    assert err == f"tablectl: error: {message}\n"


def test_an_unreadable_journal_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "none.sqlite"
    code, _, err = export(capsys, "--round", "1", str(missing))
    assert code == 2 and err == f"tablectl: error: {missing}: no such journal\n"
    assert not missing.exists()  # an export never creates a journal
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"not a database at all" * 100)
    code, _, err = export(capsys, "--round", "1", str(junk))
    assert code == 2 and err.count("\n") == 1 and str(junk) in err
    with pytest.raises(SystemExit) as exited:
        main_export(["export", str(junk)])  # no --round
    assert exited.value.code == 2
    assert capsys.readouterr().err.count("\n") == 1
