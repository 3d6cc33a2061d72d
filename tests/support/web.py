"""``tablectl web`` as the tests start it: a real simulated daemon (``tablectl run
--simulate``), a users file written by ``tablectl web passwd``, and the web process on
a free loopback port; HTTP helpers over urllib that keep cookies; Chromium driven by
Playwright (Debian's /usr/bin/chromium: a missing browser fails the test)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.journal import open_read_only

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
PASSWORDS = {"dana": ("dealer", "dealer-pass-1"), "fred": ("floor", "floor-pass-1")}


def tablectl(*args: str, stdin: str = "", timeout: float = 30) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "controller.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def users_file(path: Path) -> Path:
    for login, (role, password) in PASSWORDS.items():
        done = tablectl("web", "passwd", str(path), login, "--role", role, stdin=password + "\n")
        assert done.returncode == 0, done.stderr
    return path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _stop(proc: subprocess.Popen[str]) -> str:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return proc.stderr.read() if proc.stderr else ""


@contextmanager
def simulated_daemon(workdir: Path, *args: str) -> Iterator[subprocess.Popen[str]]:
    """``tablectl run --simulate --workdir DIR --plain ARGS`` until its sockets are up."""
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "controller.cli",
            "run",
            "--simulate",
            "--plain",
            "--workdir",
            str(workdir),
            *args,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        deadline = time.monotonic() + 30
        while not all((workdir / f"{s}.sock").exists() for s in ("dealer", "floor", "events")):
            assert proc.poll() is None, f"the daemon ended: {_stop(proc)}"
            assert time.monotonic() < deadline, "the daemon's sockets did not appear"
            time.sleep(0.05)
        yield proc
    finally:
        _stop(proc)


@dataclass
class Web:
    proc: subprocess.Popen[str]
    base: str
    workdir: Path

    @property
    def journal(self) -> Path:
        return self.workdir / "journal.db"

    def log(self) -> str:
        return _stop(self.proc)


@contextmanager
def web_process(
    workdir: Path, users: Path, *extra: str, scheme: str = "http", journal: bool = True
) -> Iterator[Web]:
    """``tablectl web`` on the daemon's sockets in ``workdir`` (and its journal), until
    it prints its URL."""
    port = free_port()
    history = ["--journal", str(workdir / "journal.db")] if journal else []
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "controller.cli",
            "web",
            "--runtime-dir",
            str(workdir),
            *history,
            "--users",
            str(users),
            "--listen",
            f"127.0.0.1:{port}",
            *extra,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()  # "tablectl web: URL" once it listens
        assert line.startswith("tablectl web: "), f"no URL: {line!r} {_stop(proc)}"
        yield Web(proc, f"{scheme}://127.0.0.1:{port}", workdir)
    finally:
        _stop(proc)


class Client:
    """A browser-like HTTP client: the session cookie kept (Secure as it is, sent over
    http://127.0.0.1 as Chromium sends it: urllib's cookie jar would not), redirects not
    followed, Origin set."""

    def __init__(self, base: str, context: Any = None) -> None:
        self.base = base
        self.cookie = ""
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPSHandler(context=context),
            _NoRedirect(),
        )

    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, dict[str, str], str]:
        request = urllib.request.Request(self.base + path, data=body, method=method)
        for key, value in {"Origin": self.base, "Cookie": self.cookie, **(headers or {})}.items():
            if value:
                request.add_header(key, value)
        try:
            with self.opener.open(request, timeout=15) as reply:
                answer = reply.status, dict(reply.headers), reply.read().decode()
        except urllib.error.HTTPError as exc:
            answer = exc.code, dict(exc.headers), exc.read().decode()
        set_cookie = answer[1].get("Set-Cookie")
        if set_cookie:
            self.cookie = set_cookie.split(";", 1)[0]
        return answer

    def login(self, login: str, password: str | None = None) -> tuple[int, dict[str, str], str]:
        form = {"login": login, "password": password or PASSWORDS[login][1]}
        return self.request(
            "POST",
            "/login",
            urllib.parse.urlencode(form).encode(),
            {"Content-Type": "application/x-www-form-urlencoded"},
        )

    def csrf(self, page: str) -> str:
        _, _, html = self.request("GET", page)
        marker = '<meta name="csrf" content="'
        return html.split(marker, 1)[1].split('"', 1)[0]

    def command(
        self, name: str, args: dict[str, Any], csrf: str | None, **headers: str
    ) -> tuple[int, dict[str, Any]]:
        status, _, text = self.request(
            "POST",
            "/api/command",
            json.dumps({"name": name, "args": args}).encode(),
            {"Content-Type": "application/json", "X-CSRF-Token": csrf or "", **headers},
        )
        return status, json.loads(text)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def journal_entries(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """The journal's entries, read-only (the daemon may be writing it)."""
    db = open_read_only(path)
    try:
        rows = db.execute("SELECT seq, body FROM rows ORDER BY seq").fetchall()
    finally:
        db.close()
    return [(int(seq), json.loads(body)) for seq, body in rows]


def commands_in(path: Path, name: str) -> list[dict[str, Any]]:
    return [
        e
        for _, e in journal_entries(path)
        if e.get("type") == "command" and e.get("command") == name
    ]
