"""``tablectl web``'s options, checked before anything listens: each mistake is one
line (``OptionsError``) and exit 2."""

from __future__ import annotations

import argparse
import ssl
from dataclasses import dataclass
from pathlib import Path

from controller.errors import TablectlError
from controller.journal import JournalError, open_read_only
from controller.web import shifts, users
from controller.web.users import User

DEFAULT_LISTEN = "127.0.0.1:8080"


class OptionsError(TablectlError):
    """A bad option or file; the message is one line."""


@dataclass(frozen=True)
class WebOptions:
    runtime_dir: Path
    journal: Path | None
    host: str
    port: int
    users: dict[str, User]
    tls_cert: str | None
    tls_key: str | None
    simulated_devices: Path | None = None
    shifts: tuple[int, ...] = shifts.parse(shifts.DEFAULT)  # minutes after midnight

    @property
    def secure_cookie(self) -> bool:
        # Chromium keeps a Secure cookie from http://127.0.0.1 and http://localhost
        # (a trustworthy origin) too: tests/web/test_browser.py logs in over plain http.
        return True


def _listen(text: str) -> tuple[str, int]:
    host, colon, port = text.rpartition(":")
    if not colon or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise OptionsError(f"--listen {text!r}: not HOST:PORT with a port from 1 to 65535")
    return host.strip("[]"), int(port)


def _tls(cert: str | None, key: str | None) -> None:
    if (cert is None) != (key is None):
        raise OptionsError("--tls-cert and --tls-key go together")
    if cert is None or key is None:
        return
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    try:
        context.load_cert_chain(cert, key)
    except FileNotFoundError as exc:
        raise OptionsError(f"{exc.filename}: no such file") from None
    except (ssl.SSLError, OSError) as exc:
        raise OptionsError(
            f"--tls-cert {cert} / --tls-key {key}: not a usable pair ({exc.__class__.__name__})"
        ) from None


def _journal(given: str | None) -> Path | None:
    journal = Path(given) if given else None
    if journal is not None:
        try:
            open_read_only(journal).close()
        except JournalError as exc:
            raise OptionsError(f"--journal: {exc}") from None
    return journal


def _users(given: str | None) -> dict[str, User]:
    if given is None:
        raise OptionsError("--users FILE is needed: nobody could log in")
    try:
        known = users.load(Path(given))
    except users.UsersError as exc:
        raise OptionsError(str(exc)) from None
    if not known:
        raise OptionsError(f"{given}: no users: add one with tablectl web passwd")
    return known


def options(args: argparse.Namespace) -> WebOptions:
    runtime = Path(args.runtime_dir)
    if not runtime.is_dir():
        raise OptionsError(f"--runtime-dir {runtime}: no such directory")
    journal = _journal(args.journal)
    host, port = _listen(args.listen)
    known = _users(args.users)
    _tls(args.tls_cert, args.tls_key)
    panel = Path(args.simulated_devices) if args.simulated_devices else None
    if panel is not None and not panel.is_dir():
        raise OptionsError(f"--simulated-devices {panel}: no such directory")
    try:
        starts = shifts.parse(args.shifts)
    except shifts.ShiftsError as exc:
        raise OptionsError(str(exc)) from None
    return WebOptions(
        runtime, journal, host, port, known, args.tls_cert, args.tls_key, panel, starts
    )
