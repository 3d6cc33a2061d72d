"""The pages, the WebSocket of updates and the command endpoint.

A command is a POST of ``{"name", "args"}`` with the session's CSRF token in
``X-CSRF-Token`` and this site's Origin; it goes to the socket of the login's role
only: a command of the other role is refused here, with a message, and never sent."""

from __future__ import annotations

import asyncio
import json
from typing import Any, Final

import structlog
from aiohttp import WSMsgType, web

from controller.api.commands import ROLES
from controller.web import csrf, pages
from controller.web.auth import PANEL_ON, session_of
from controller.web.bridge import DaemonError
from controller.web.hub import HUB
from controller.web.sessions import Session

log = structlog.get_logger("tablectl.web")

PAGE_ROLES: Final = {"dealer": ("dealer",), "floor": ("floor",), "pit": ("dealer", "floor")}


def _html(text: str, status: int = 200) -> web.Response:
    return web.Response(text=text, status=status, content_type="text/html")


def _allowed(session: Session | None, page: str) -> bool:
    return page == "scoreboard" or (session is not None and session.role in PAGE_ROLES[page])


async def show(request: web.Request) -> web.Response:
    page = request.match_info["page"]
    session = session_of(request)
    if page != "scoreboard" and session is None:
        raise web.HTTPSeeOther(f"/login?next=/{page}")
    if not _allowed(session, page):
        return _html(pages.denied_page(session, " or ".join(PAGE_ROLES[page])), 403)
    extra = pages.PANEL if page == "dealer" and request.app[PANEL_ON] else ""
    return _html(pages.page(page, session, pages.BODIES[page] + extra))


async def updates(request: web.Request) -> web.WebSocketResponse:
    page = request.match_info["page"]
    session = session_of(request)
    if not csrf.same_origin(request) or not _allowed(session, page):
        raise web.HTTPForbidden(text="not allowed")
    ws = web.WebSocketResponse(heartbeat=20)
    await ws.prepare(request)
    hub = request.app[HUB]
    queue = hub.join(page)
    sender = asyncio.create_task(_send_all(ws, queue))
    try:
        async for message in ws:  # the socket is one-way: commands are POSTs
            if message.type == WSMsgType.ERROR:
                break
    finally:
        sender.cancel()
        hub.leave(queue)
    return ws


async def _send_all(ws: web.WebSocketResponse, queue: asyncio.Queue[str | None]) -> None:
    while True:
        text = await queue.get()
        if text is None:  # fell behind: the page reconnects and gets the whole view
            await ws.close()
            return
        await ws.send_str(text)


def _refuse(status: int, message: str) -> web.Response:
    return web.json_response({"outcome": "refused_by_web", "message": message}, status=status)


async def _command_of(request: web.Request) -> tuple[str, dict[str, Any]] | str:
    try:
        body = await request.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        return "the request is not JSON"
    if not isinstance(body, dict) or not isinstance(body.get("name"), str):
        return "the request names no command"
    args = body.get("args", {})
    if not isinstance(args, dict):
        return "args must be an object"
    return body["name"], args


async def command(request: web.Request) -> web.Response:
    session = session_of(request)
    if session is None:
        return _refuse(401, "log in first")
    if not csrf.same_origin(request):
        return _refuse(403, "the command does not come from this site (Origin)")
    if not csrf.token_ok(session.csrf, request.headers.get("X-CSRF-Token")):
        return _refuse(403, "missing or wrong CSRF token")
    parsed = await _command_of(request)
    if isinstance(parsed, str):
        return _refuse(400, parsed)
    name, args = parsed
    role = ROLES.get(name)
    if role is None:
        return _refuse(400, f"no such command: {name[:40]!r}")
    if role.value != session.role:
        log.warning("web_command_wrong_role", login=session.login, command=name)
        return _refuse(
            403, f"{name} is a {role.value} command: a {session.role} login may not send it"
        )
    hub = request.app[HUB]
    log.info("web_command", login=session.login, command=name)  # never the args: 551.8(e)
    try:
        reply = await hub.bridge.command(session.role, name, args, session.login)
    except (DaemonError, OSError, ValueError) as exc:  # the daemon unreachable
        return _refuse(503, f"the daemon cannot be reached: {exc}")
    return web.json_response(_answer(reply))


def _answer(reply: dict[str, Any]) -> dict[str, Any]:
    """What the browser is told: the table's outcome, and for a refusal its section
    and reason; an API error's code and message (which never repeat a value)."""
    if reply.get("type") == "error":
        return {"outcome": "error", "code": reply.get("code"), "message": reply.get("message")}
    keep = ("command", "outcome", "section", "reason", "first_seq", "last_seq")
    return {key: reply.get(key) for key in keep}


async def commands(request: web.Request) -> web.Response:
    session = session_of(request)
    if session is None:
        return _refuse(401, "log in first")
    return web.json_response(await request.app[HUB].commands(session.role))


async def verify(request: web.Request) -> web.Response:
    session = session_of(request)
    if session is None or session.role != "floor":
        return _refuse(403, "journal verify is the floor's")
    if not csrf.same_origin(request) or not csrf.token_ok(
        session.csrf, request.headers.get("X-CSRF-Token")
    ):
        return _refuse(403, "missing or wrong CSRF token")
    return web.json_response(await request.app[HUB].verify())
