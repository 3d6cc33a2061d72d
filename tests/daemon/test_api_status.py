"""``status``'s ``need``, ``accepts``, ``decision`` and ``seq`` over a real daemon's
sockets (docs/api.md): the table's snapshot is made before a command's ``result`` goes
out, so a console asking on the result sees what its command did."""

from __future__ import annotations

from pathlib import Path

from tests.support.manual import ManualTable


def test_status_after_a_result_shows_what_the_command_did(tmp_path: Path) -> None:
    t = ManualTable(tmp_path, "spanish21")
    try:
        first = t.status()
        assert first is not None
        assert (first["need"], first["decision"]) == ("shuffle", None)
        assert first["accepts"] == [
            "call_floor",
            "inspect_reader",
            "manual_shuffle",
            "permit_wagering",
        ]
        done = t.command("floor", "inspect_reader")
        assert done["outcome"] == "done"
        at_once = t._status()["table"]  # no wait: made before the result was sent
        assert at_once["seq"] >= done["last_seq"]
        refused = t.command("dealer", "no_more_bets")  # not in accepts: refused
        assert refused["outcome"] == "refused" and "no_more_bets" not in first["accepts"]
        after = t._status()
        assert after["table"]["seq"] == refused["last_seq"] == after["last_seq"]
        assert after["table"]["need"] in ("shuffle", "device")
    finally:
        code, err = t.stop()
    assert code == 0, err
