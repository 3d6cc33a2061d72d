"""The web consoles beside a simulated table (``tablectl run --simulate --web
HOST:PORT``, what ``make run`` starts): ``tablectl web`` as a child process on the
table's work directory, with a login for each role made for this run alone.

The logins are printed once, before the live view takes the terminal, and kept in
``WORKDIR/web-logins.txt`` (mode 0600) for the run; the users file holds only their
hashes (docs/web.md). A new run makes new passwords: one written down from an earlier
run no longer opens anything. The child's output goes to ``WORKDIR/web.log``; it is
stopped with the table.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Final

ROLES: Final = ("dealer", "floor")
USERS: Final = "web-users.toml"
LOGINS: Final = "web-logins.txt"
LOG: Final = "web.log"
STOP_WAIT: Final = 5.0  # seconds the child has to stop on SIGTERM before it is killed


class WebConsoleError(Exception):
    """The web consoles cannot be started; the message is one line."""


class WebConsoles:
    """``tablectl web`` for the simulated table in ``workdir``, listening on
    ``listen``; with ``manual``, its /dealer page drives the simulated devices."""

    def __init__(self, listen: str, manual: bool) -> None:
        self.listen = listen
        self.manual = manual
        self._workdir: Path | None = None
        self._child: subprocess.Popen[bytes] | None = None

    def prepare(self, workdir: Path, out: IO[str]) -> None:
        """This run's logins into ``workdir`` and, with the URLs, onto ``out``."""
        from controller.web.users import set_password  # the web's own hashing

        self._workdir = workdir
        passwords = {role: secrets.token_urlsafe(9) for role in ROLES}
        for role, password in passwords.items():  # the login is the role's name
            set_password(workdir / USERS, role, role, password)
        text = self.announcement(passwords)
        logins = workdir / LOGINS
        with contextlib.suppress(FileNotFoundError):
            logins.unlink()
        fd = os.open(logins, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            file.write(text)
        out.write(text)
        out.flush()

    def announcement(self, passwords: dict[str, str]) -> str:
        base = f"http://{self.listen}"
        assert self._workdir is not None
        lines = [
            f"table's files (journal, sockets, logs): {self._workdir}",
            f"scoreboard: {base}/scoreboard",
            f"dealer:     {base}/dealer   login dealer / {passwords['dealer']}",
            f"floor:      {base}/floor    login floor / {passwords['floor']}",
            f"pit:        {base}/pit      login floor / {passwords['floor']}",
            f"(these logins are this run's only: also in {self._workdir / LOGINS})",
        ]
        return "\n".join(lines) + "\n"

    def command(self) -> list[str]:
        workdir = self._workdir
        assert workdir is not None  # prepared first
        args = [sys.executable, "-m", "controller.cli", "web", "--runtime-dir", str(workdir)]
        args += ["--journal", str(workdir / "journal.db"), "--users", str(workdir / USERS)]
        args += ["--listen", self.listen]
        if self.manual:
            args += ["--simulated-devices", str(workdir)]
        return args

    def start(self, cleanup: contextlib.ExitStack) -> None:
        """Spawn the web process; it is stopped (and waited for) by ``cleanup``."""
        assert self._workdir is not None  # prepared first
        log = open(self._workdir / LOG, "ab")  # noqa: SIM115 - the child's, closed at stop
        cleanup.callback(log.close)
        try:
            self._child = subprocess.Popen(
                self.command(), stdin=subprocess.DEVNULL, stdout=log, stderr=log
            )
        except OSError as exc:
            raise WebConsoleError(f"cannot start the web consoles: {exc.strerror}") from None
        cleanup.callback(self.stop)

    def stop(self) -> None:
        child = self._child
        if child is None or child.poll() is not None:
            return
        child.terminate()
        deadline = time.monotonic() + STOP_WAIT
        while child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        if child.poll() is None:
            child.kill()
            child.wait()
