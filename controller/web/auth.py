"""Logging in and out: argon2-checked passwords (users.py), server-side sessions in an
HttpOnly, SameSite=Strict, Secure cookie (sessions.py), failed logins limited per
login and per client address (ratelimit.py)."""

from __future__ import annotations

from typing import Final

import structlog
from aiohttp import web

from controller.web import csrf, pages
from controller.web.ratelimit import FailedLogins
from controller.web.sessions import COOKIE, Session, Sessions
from controller.web.users import User, check

log = structlog.get_logger("tablectl.web")

HOME: Final = {"dealer": "/dealer", "floor": "/floor"}
NEXT: Final = frozenset({"/dealer", "/floor", "/pit"})

SESSIONS: Final = web.AppKey("sessions", Sessions)
USERS: Final = web.AppKey("users", dict[str, User])
FAILED: Final = web.AppKey("failed", FailedLogins)
SECURE: Final = web.AppKey("secure", bool)
PANEL_ON: Final = web.AppKey("panel_on", bool)  # /dealer shows the simulated devices


def session_of(request: web.Request) -> Session | None:
    return request.app[SESSIONS].get(request.cookies.get(COOKIE))


def _html(text: str, status: int = 200) -> web.Response:
    return web.Response(text=text, status=status, content_type="text/html")


async def login_form(request: web.Request) -> web.Response:
    return _html(pages.login_page(next_page=request.query.get("next", "")))


def _too_many(wait: int) -> web.Response:
    response = _html(
        pages.login_page(f"Too many failed logins: try again in {wait} s."), status=429
    )
    response.headers["Retry-After"] = str(wait)
    return response


async def login(request: web.Request) -> web.Response:
    if not csrf.same_origin(request):
        return _html(pages.login_page("This form must be sent from this site."), 403)
    form = await request.post()
    name, password = str(form.get("login", "")), str(form.get("password", ""))
    address = request.remote or "unknown"
    keys = (f"login:{name}", f"address:{address}")
    failed = request.app[FAILED]
    wait = failed.retry_after(*keys)
    if wait:
        log.warning("web_login_limited", login=name, address=address, retry_after=wait)
        return _too_many(wait)
    user = check(request.app[USERS], name, password)
    if user is None:
        failed.failed(*keys)
        log.warning("web_login_failed", login=name, address=address)
        return _html(pages.login_page("Wrong login or password.", str(form.get("next", ""))), 401)
    session = request.app[SESSIONS].start(user.login, user.role)
    log.info("web_login", login=user.login, role=user.role, address=address)
    wanted = str(form.get("next", ""))
    response = web.HTTPSeeOther(wanted if wanted in NEXT else HOME[user.role])
    response.set_cookie(
        COOKIE,
        session.id,
        httponly=True,
        samesite="Strict",
        secure=request.app[SECURE],
        path="/",
    )
    return response


async def logout(request: web.Request) -> web.Response:
    session = session_of(request)
    form = await request.post()
    if session is None or not csrf.same_origin(request):
        raise web.HTTPSeeOther("/login")
    if not csrf.token_ok(session.csrf, form.get("csrf")):
        raise web.HTTPForbidden(text="missing or wrong CSRF token")
    request.app[SESSIONS].end(session.id)
    log.info("web_logout", login=session.login)
    response = web.HTTPSeeOther("/login")
    response.del_cookie(COOKIE, path="/")
    return response
