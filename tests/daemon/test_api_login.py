"""A command's ``login`` (docs/api.md): validated, journaled in the command's entry,
logged, and replayed past by a restart; over a real daemon's sockets
(``tablectl run --simulate --manual``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.daemon import logged
from tests.support.manual import ManualTable

BAD_LOGINS = ["", "x" * 65, "dealer\n7", "tab\there", 7, None, ["dealer"], True]


@pytest.fixture
def table(tmp_path: Path) -> ManualTable:
    return ManualTable(tmp_path, "baccarat", 7, "--log-level", "info")


def test_a_bad_login_is_a_bad_request_and_reaches_no_table(table: ManualTable) -> None:
    try:
        rows = len(table.journal())
        for login in BAD_LOGINS:
            reply = table.request("dealer", {"op": "command", "name": "call_floor", "login": login})
            assert reply["type"] == "error", login
            assert (reply["code"], reply["field"]) == ("bad_request", "login")
            assert reply["message"] == "login must be a string of 1 to 64 printable characters"
        assert len(table.journal()) == rows
    finally:
        code, err = table.stop()
    assert code == 0, err


def test_a_login_is_journaled_logged_and_replayed_past(table: ManualTable) -> None:
    name = "Ana Pérez #3 " + "x" * 51  # 64 printable characters
    try:
        reply = table.request(
            "dealer", {"op": "command", "name": "call_floor", "login": name, "args": {}}
        )
        assert reply["outcome"] == "done"
        assert table.command("dealer", "call_floor", reason="a dispute")["outcome"] == "done"
        anonymous = table.request("dealer", {"op": "command", "name": "call_floor"})
        assert anonymous["outcome"] == "done"
    finally:
        code, err = table.stop()
    assert code == 0, err
    calls = [e for e in table.journal() if e.get("command") == "call_floor"]
    assert calls == [
        {"type": "command", "command": "call_floor", "login": name},
        {"type": "command", "command": "call_floor", "reason": "a dispute", "login": "tester"},
        {"type": "command", "command": "call_floor"},
    ]
    assert [r.get("login") for r in logged(err, "api_command_accepted")] == [name, "tester", None]
    assert [r.get("login") for r in logged(err, "command")] == [name, "tester", None]
    # A restart replays the journal past the logins, and plays on.
    again = ManualTable(table.workdir, "baccarat", 7)
    try:
        assert again.command("dealer", "call_floor")["outcome"] == "done"
        status = again.status()
        assert status is not None and status["need"] == "shuffle"
    finally:
        code, err = again.stop()
    assert code == 0, err
    resumed = [e for e in again.journal() if e.get("type") == "resumed"]
    assert resumed, json.dumps(again.journal()[-5:])
