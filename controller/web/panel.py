"""The "simulated devices" panel of /dealer, when the web is started with
``--simulated-devices DIR`` (a table played by hand: ``tablectl run --simulate
--manual --workdir DIR``): each action is one call of ``SimulatedDevices``
(controller/simpanel.py), whose answers never hold a card (551.8(e))."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Final

from aiohttp import web

from controller.simpanel import PanelError, SimulatedDevices
from controller.web import csrf
from controller.web.auth import session_of

PANEL: Final = web.AppKey("panel", SimulatedDevices)


def _action(devices: SimulatedDevices, name: str, args: dict[str, Any]) -> dict[str, Any]:
    actions = {
        "draw": devices.draw,
        "shuffle": devices.shuffle,
        "insert_hole_card": devices.insert_hole_card,
        "jam": devices.jam,
        "face_up": devices.face_up,
        "unplug": lambda: devices.unplug(str(args.get("device")), int(args.get("ms", 2000))),
        "reader_malfunction": lambda: devices.reader_malfunction(int(args.get("code", 1))),
        "status": devices.status,
    }
    if name not in actions:
        raise PanelError(f"no such panel action: {name[:40]!r}")
    return actions[name]()


async def act(request: web.Request) -> web.Response:
    session = session_of(request)
    if session is None or session.role != "dealer":
        return web.json_response({"ok": False, "message": "the panel is the dealer's"}, status=403)
    if not csrf.same_origin(request) or not csrf.token_ok(
        session.csrf, request.headers.get("X-CSRF-Token")
    ):
        return web.json_response(
            {"ok": False, "message": "missing or wrong CSRF token"}, status=403
        )
    body = await request.json()
    args = body.get("args", {}) if isinstance(body, dict) else {}
    try:
        answer = await asyncio.to_thread(
            _action, request.app[PANEL], request.match_info["action"], args
        )
    except (PanelError, ValueError, TypeError) as exc:
        return web.json_response({"ok": False, "message": str(exc)})
    return web.json_response({"ok": True, "answer": answer})


def install(app: web.Application, workdir: Path) -> None:
    app[PANEL] = SimulatedDevices(workdir)
    app.add_routes([web.post("/api/panel/{action}", act)])
