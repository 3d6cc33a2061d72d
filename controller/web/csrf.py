"""CSRF: every command carries the session's token, and its Origin (when the browser
sends one, as browsers do on POST and WebSocket) must be this server's own."""

from __future__ import annotations

import hmac

from aiohttp import web


def same_origin(request: web.Request) -> bool:
    """The request's Origin is this server (scheme and host the browser used)."""
    origin = request.headers.get("Origin")
    if origin is None:
        return request.method == "GET"  # a command always carries its Origin
    return origin == f"{request.scheme}://{request.host}"


def token_ok(expected: str, given: object) -> bool:
    return isinstance(given, str) and hmac.compare_digest(expected.encode(), given.encode())
