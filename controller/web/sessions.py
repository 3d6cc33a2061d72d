"""Server-side sessions: the cookie holds only a random id; the login, its role and
the session's CSRF token stay in the web process's memory (a restart logs every
browser out, which is the safe side)."""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass, field
from typing import Final

COOKIE: Final = "tablectl_session"
LIFETIME: Final = 12 * 3600.0  # seconds: a shift and then some


@dataclass
class Session:
    id: str
    login: str
    role: str
    csrf: str
    started: float = field(default_factory=time.monotonic)


class Sessions:
    def __init__(self, lifetime: float = LIFETIME) -> None:
        self.lifetime = lifetime
        self._by_id: dict[str, Session] = {}

    def start(self, login: str, role: str) -> Session:
        session = Session(secrets.token_urlsafe(32), login, role, secrets.token_urlsafe(32))
        self._by_id[session.id] = session
        return session

    def get(self, session_id: str | None) -> Session | None:
        if not session_id:
            return None
        session = self._by_id.get(session_id)
        if session is None:
            return None
        if time.monotonic() - session.started > self.lifetime:
            del self._by_id[session_id]
            return None
        return session

    def end(self, session_id: str | None) -> None:
        if session_id:
            self._by_id.pop(session_id, None)
