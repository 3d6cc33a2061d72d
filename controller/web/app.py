"""The aiohttp application: its routes, the security headers every answer carries,
and the run (TLS when a certificate is given)."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import ssl
from collections.abc import Awaitable, Callable
from importlib import resources
from typing import Final

import structlog
from aiohttp import web

from controller.web import auth, routes
from controller.web.hub import HUB, Hub
from controller.web.options import WebOptions
from controller.web.ratelimit import FailedLogins
from controller.web.sessions import Sessions

log = structlog.get_logger("tablectl.web")

HEADERS: Final = {
    "Content-Security-Policy": "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; "
    "form-action 'self'",
    "X-Content-Type-Options": "nosniff",
    # Not no-referrer: with it Chromium sends "Origin: null" on a form POST, which the
    # CSRF check (csrf.py) must refuse.
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
}

TLS: Final = web.AppKey("tls", bool)
SHUTDOWN: Final = 2.0

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@web.middleware
async def security_headers(request: web.Request, handler: Handler) -> web.StreamResponse:
    try:
        response = await handler(request)
    except web.HTTPException as exc:
        response = exc
    response.headers.update(HEADERS)
    if request.app[TLS]:
        response.headers["Strict-Transport-Security"] = "max-age=31536000"
    return response


def build(options: WebOptions) -> web.Application:
    app = web.Application(middlewares=[security_headers], client_max_size=64 * 1024)
    app[auth.SESSIONS] = Sessions()
    app[auth.USERS] = options.users
    app[auth.FAILED] = FailedLogins()
    app[auth.SECURE] = options.secure_cookie
    app[TLS] = options.tls_cert is not None
    app[HUB] = Hub(options.runtime_dir, options.journal, options.shifts)
    static = resources.files("controller.web") / "static"
    if options.simulated_devices is not None:
        from controller.web import panel

        panel.install(app, options.simulated_devices)
    app[auth.PANEL_ON] = options.simulated_devices is not None
    app.add_routes(
        [
            web.get("/", _home),
            web.get("/favicon.ico", _no_icon),
            web.get("/login", auth.login_form),
            web.post("/login", auth.login),
            web.post("/logout", auth.logout),
            web.get("/ws/{page:scoreboard|dealer|floor|pit}", routes.updates),
            web.get("/{page:scoreboard|dealer|floor|pit}", routes.show),
            web.post("/api/command", routes.command),
            web.get("/api/commands", routes.commands),
            web.post("/api/verify", routes.verify),
            web.static("/static", str(static)),
        ]
    )
    return app


async def _home(request: web.Request) -> web.Response:
    raise web.HTTPSeeOther("/scoreboard")


async def _no_icon(request: web.Request) -> web.Response:
    return web.Response(status=204)


def tls(options: WebOptions) -> ssl.SSLContext | None:
    if options.tls_cert is None or options.tls_key is None:
        return None
    return server_context(options.tls_cert, options.tls_key)


def server_context(cert: str, key: str) -> ssl.SSLContext:
    """HTTPS with this certificate and key, TLS 1.2 at least (tablectl floor's too)."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(cert, key)
    return context


def serve(options: WebOptions, context: ssl.SSLContext | None) -> None:
    """Serve until SIGTERM or SIGINT; OSError when the address cannot be bound."""
    asyncio.run(_serve(options, context))


async def _serve(options: WebOptions, context: ssl.SSLContext | None) -> None:
    app = build(options)
    # Open WebSockets are not waited for at the end beyond SHUTDOWN seconds.
    runner = web.AppRunner(app, access_log=None, handle_signals=False, shutdown_timeout=SHUTDOWN)
    await runner.setup()
    try:
        # Bound before the daemon is asked anything: a taken port is one line, at once.
        await web.TCPSite(runner, options.host, options.port, ssl_context=context).start()
        url = f"{'https' if context else 'http'}://{options.host}:{options.port}/"
        log.info("web_listening", url=url)
        print(f"tablectl web: {url}", flush=True)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, stop.set)
        bridge = asyncio.create_task(app[HUB].bridge.run())
        await stop.wait()
        bridge.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await bridge
    finally:
        await runner.cleanup()
