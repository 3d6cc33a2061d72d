"""``tablectl floor``'s pages: ``/pit`` for every table on the floor, behind the web's
login (controller/web/auth.py: the same users file, argon2 hashes, server-side sessions,
the failed-login limit, the security headers), for a floor login only.

``/pit`` is a skeleton that static/floor.js fills from ``/api/pit`` (fetched each
second): one card per table, what needs a floorperson first (floorpit.py, ``NEEDS``).
"""

from __future__ import annotations

import asyncio
import json
import signal
import ssl
import time
from importlib import resources
from typing import Any, Final

import structlog
from aiohttp import web

from controller.floor.floorpit import FloorPit
from controller.floor.follower import Follower
from controller.floor.settings import WebSettings
from controller.web import app as webapp
from controller.web import auth, pages
from controller.web.ratelimit import FailedLogins
from controller.web.sessions import Session, Sessions

log = structlog.get_logger("tablectl.floor")

FLOOR: Final = web.AppKey("floor", FloorPit)
FOLLOWER: Final = web.AppKey("follower", Follower)
ROLE: Final = "floor"
SCRIPT: Final = "/floor-static/floor.js"
BODY: Final = """
<section id="summary" class="wide"><h2>Floor</h2><div id="broker"></div></section>
<div id="tables" class="wide tables"></div>"""


def build(settings: WebSettings, floor: FloorPit, follower: Follower) -> web.Application:
    app = web.Application(middlewares=[webapp.security_headers], client_max_size=64 * 1024)
    app[auth.SESSIONS] = Sessions()
    app[auth.USERS] = settings.users
    app[auth.FAILED] = FailedLogins()
    app[auth.SECURE] = True  # as tablectl web: Chromium keeps it from http://127.0.0.1 too
    app[auth.PANEL_ON] = False
    app[webapp.TLS] = settings.certfile is not None
    app[FLOOR] = floor
    app[FOLLOWER] = follower
    web_static = resources.files("controller.web") / "static"
    own_static = resources.files("controller.floor") / "static"
    app.add_routes(
        [
            web.get("/", _to_pit),
            web.get("/{page:dealer|floor|scoreboard}", _to_pit),  # the web's links
            web.get("/favicon.ico", _no_icon),
            web.get("/login", auth.login_form),
            web.post("/login", auth.login),
            web.post("/logout", auth.logout),
            web.get("/pit", pit_page),
            web.get("/api/pit", pit_json),
            web.static("/static", str(web_static)),
            web.static("/floor-static", str(own_static)),
        ]
    )
    return app


async def _to_pit(request: web.Request) -> web.Response:
    raise web.HTTPSeeOther("/pit")


async def _no_icon(request: web.Request) -> web.Response:
    return web.Response(status=204)


def _floor_session(request: web.Request) -> Session | None:
    session = auth.session_of(request)
    return session if session is not None and session.role == ROLE else None


async def pit_page(request: web.Request) -> web.Response:
    session = auth.session_of(request)
    if session is None:
        raise web.HTTPSeeOther("/login?next=/pit")
    if session.role != ROLE:
        text = pages.denied_page(session, ROLE)
        return web.Response(text=text, status=403, content_type="text/html")
    text = pages.page("pit", session, BODY, script=SCRIPT)
    return web.Response(text=text, content_type="text/html")


def floor_view(floor: FloorPit, follower: Follower) -> dict[str, Any]:
    """What /api/pit answers: the broker link, the follower's counters, every table."""
    return {
        "at": time.time(),
        "connected": follower.connected.is_set(),
        "counters": follower.counts(),
        "tables": floor.views(follower.tracks()),
    }


async def pit_json(request: web.Request) -> web.Response:
    if auth.session_of(request) is None:
        return web.json_response({"error": "log in first"}, status=401)
    if _floor_session(request) is None:
        return web.json_response({"error": "the floor's pit needs a floor login"}, status=403)
    view = floor_view(request.app[FLOOR], request.app[FOLLOWER])
    return web.json_response(view, dumps=_dumps)


def _dumps(data: Any) -> str:
    return json.dumps(data, default=str)


def serve(settings: WebSettings, floor: FloorPit, follower: Follower) -> None:
    """Listen, then follow the broker, until SIGTERM or SIGINT; OSError when the
    address cannot be bound (the follower not started then)."""
    context = None
    if settings.certfile is not None and settings.keyfile is not None:
        context = webapp.server_context(str(settings.certfile), str(settings.keyfile))
    asyncio.run(_serve(settings, floor, follower, context))


async def _serve(
    settings: WebSettings, floor: FloorPit, follower: Follower, context: ssl.SSLContext | None
) -> None:
    app = build(settings, floor, follower)
    runner = web.AppRunner(app, access_log=None, handle_signals=False, shutdown_timeout=2.0)
    await runner.setup()
    try:
        await web.TCPSite(runner, settings.host, settings.port, ssl_context=context).start()
        url = f"{'https' if context else 'http'}://{settings.host}:{settings.port}/"
        log.info("floor_listening", url=url)
        print(f"tablectl floor: {url}", flush=True)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, stop.set)
        follower.start()
        try:
            await stop.wait()
        finally:
            await asyncio.to_thread(follower.stop)
    finally:
        await runner.cleanup()
