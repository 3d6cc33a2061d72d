"""/floor's completion of a round interrupted by a restart (docs/recovery.md, "A round
still in play"): a Spanish 21 round killed with its hole card dealt and sealed, the
daemon started again on its journal, and the floorperson entering the hole card from
the web, checked against its seal (551.8(e)): a wrong card refused with the table's
section, the right one letting play go on."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

from controller.bench.simulated import autoplay_scenario
from controller.games import GAMES
from tests.support.manual import ManualTable
from tests.support.web import Client, users_file, web_process


def _seed() -> tuple[int, str, str]:
    """A shoe whose first up card is a 2-9 (no peek) and its hole card: the seeded
    order as the simulated shoe deals it (burn, box 1, up card, box 1, hole card),
    and a card of another rank for the wrong entry."""
    rules = GAMES["spanish21"].defaults()
    for seed in range(1000):
        order = autoplay_scenario(rules, seed).order
        up, hole = order[2], order[4]
        if up[0] in "23456789" and hole[0] in "23456789":
            wrong = ("9" if hole[0] != "9" else "8") + hole[1:]
            return seed, hole, wrong
    raise AssertionError("no seed deals a 2-9 up card")


def _deal_to_the_decision(t: ManualTable) -> None:
    """The floor's inspection, the shuffle, one wager and the deal, until box 1's
    decision is due: the hole card is dealt and sealed."""
    wagered = False
    for _ in range(200):
        table = t.status()
        assert table is not None
        need = table["need"]
        if need == "decision":
            return
        if need == "inspection":
            assert t.command("floor", "inspect_reader")["outcome"] == "done"
        elif need == "shuffle":
            t.panel.shuffle()
            t.wait(lambda s: s["need"] != "shuffle", "the shuffle")
        elif need == "wagers":
            name, args = ("no_more_bets", {}) if wagered else ("wager", _WAGER)
            assert t.command("dealer", name, **args)["outcome"] == "done"
            wagered = True
        elif need == "card":
            t.draw()
        else:
            time.sleep(0.05)
    raise AssertionError(f"no decision came: {t.status()}")


_WAGER: dict[str, object] = {"seat": 1, "bet": "spanish21", "amount": 10}


def _kill(t: ManualTable) -> None:
    """The daemon killed (a power cut's effect on it), and the simulators it leaves."""
    t.panel.close()
    t.proc.kill()
    t.proc.wait(10)
    found = subprocess.run(
        ["pgrep", "-f", str(t.workdir)], capture_output=True, text=True, check=False
    ).stdout.split()
    for pid in found:
        if int(pid) != os.getpid():
            os.kill(int(pid), signal.SIGKILL)


def test_the_floor_enters_the_hole_card_of_an_interrupted_round(tmp_path: Path) -> None:
    seed, hole, wrong = _seed()
    workdir = tmp_path / "table"
    first = ManualTable(workdir, "spanish21", seed)
    try:
        _deal_to_the_decision(first)
    finally:
        _kill(first)
    again = ManualTable(workdir, "spanish21", seed)
    try:
        halted = again.wait(lambda s: s["state"] == "halted", "the interrupted round's halt")
        assert "floor_clear" in halted["accepts"]
        with web_process(workdir, users_file(tmp_path / "users.toml")) as web:
            floor = Client(web.base)
            assert floor.login("fred")[0] == 303
            _, _, page = floor.request("GET", "/floor")
            assert hole not in page  # sealed: nowhere before it is entered
            # What the page tells the floorperson to do, from the table model's view.
            view = _floor_view(web.base, floor)
            assert any("entered as read from the layout" in c for c in view["clearing"]), view
            csrf = floor.csrf("/floor")
            status, answer = floor.command("floor_clear", {"card": wrong}, csrf)
            refusal = _refusal(answer)
            assert status == 200 and refusal["outcome"] == "refused", answer
            assert "551.8(e)" in str(refusal["section"]), answer
            status, answer = floor.command("floor_clear", {"card": hole}, csrf)
            assert status == 200 and _refusal(answer)["outcome"] == "done", answer
        journal = again.journal()
        # The halt cleared, and the round goes on at box 1's decision. (The simulated
        # shoe, started afresh with the daemon, then reports a new load during play:
        # another halt, 551.8(j), which is the simulation's restart, not the round's.)
        cleared = [n for n, e in enumerate(journal) if e.get("type") == "floor_clear"]
        assert journal[cleared[-1]]["causes"] == ["interrupted_round"]
        assert journal[cleared[-1] + 1] == {
            "shown": True,
            "text": "BOX 1: " + _total(journal),
            "type": "prompt",
        }
        clears = [
            e for e in journal if e.get("type") == "command" and e["command"] == "floor_clear"
        ]
        assert [e.get("login") for e in clears] == ["fred", "fred"]
        assert all(e.get("card") is None for e in clears)  # sealed in the journal too
    finally:
        code, err = again.stop()
    assert code == 0, err


def _refusal(answer: dict[str, Any]) -> dict[str, Any]:
    """The table's result as the web relays it."""
    result = answer.get("result", answer)
    assert isinstance(result, dict), answer
    return result


def _total(journal: list[dict[str, Any]]) -> str:
    """Box 1's total as its decision prompt showed it before the restart."""
    prompts = [e["text"] for e in journal if e.get("type") == "prompt"]
    shown = [text for text in prompts if text.startswith("BOX 1: ")]
    assert shown, prompts
    return str(shown[0].removeprefix("BOX 1: "))


def _floor_view(base: str, client: Client) -> dict[str, Any]:
    """The first view /floor's WebSocket sends, with the login's session cookie."""
    import asyncio

    import aiohttp

    async def first() -> dict[str, Any]:
        headers = {"Cookie": client.cookie, "Origin": base}
        url = base.replace("http", "ws", 1) + "/ws/floor"
        async with (
            aiohttp.ClientSession() as session,
            session.ws_connect(url, headers=headers) as ws,
        ):
            message = await ws.receive_json(timeout=10)
            view: dict[str, Any] = message["view"]
            return view

    return asyncio.run(first())
