"""The floor's TOML configuration (docs/floor.md), checked before anything connects or
listens: each mistake is one line (``SettingsError``).

    client_id = "floor-1"
    state_dir = "/var/lib/tablectl-floor"
    [broker]
    host = "mqtt.pit.example"   port = 8883   cafile = "/etc/tablectl/floor/ca.crt"
    username = "floor"   password_file = "/etc/tablectl/floor/password"
    # or instead of username/password: certfile = "...", keyfile = "..."
    [web]
    listen = "127.0.0.1:8090"
    users = "/etc/tablectl/web-users.toml"
    certfile = ""   keyfile = ""      # optional HTTPS, as tablectl web

Unknown keys are an error. ``[web]`` is optional for a follower used alone (the floor
benchmark's); ``tablectl floor`` needs it.
"""

from __future__ import annotations

import re
import ssl
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from controller.errors import TablectlError
from controller.web import users
from controller.web.users import User

DEFAULT: Final = "/etc/tablectl/floor.toml"
CLIENT_ID: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
TOP: Final = frozenset({"client_id", "state_dir", "broker", "web"})
BROKER: Final = frozenset(
    {"host", "port", "cafile", "username", "password_file", "certfile", "keyfile"}
)
WEB: Final = frozenset({"listen", "users", "certfile", "keyfile"})


class SettingsError(TablectlError):
    """The configuration is unusable; the message is one line."""


@dataclass(frozen=True)
class BrokerSettings:
    host: str
    port: int
    cafile: Path
    username: str | None = None
    password: str | None = None  # password_file's first line, at start
    certfile: Path | None = None
    keyfile: Path | None = None
    password_file: Path | None = None  # read again at each connection


@dataclass(frozen=True)
class WebSettings:
    host: str
    port: int
    users: dict[str, User]
    certfile: Path | None = None
    keyfile: Path | None = None


@dataclass(frozen=True)
class FloorSettings:
    client_id: str
    state_dir: Path
    broker: BrokerSettings
    web: WebSettings | None = None


def _table(data: dict[str, Any], name: str, allowed: frozenset[str], where: Path) -> None:
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise SettingsError(f"{where}: {name}unknown key {unknown[0]!r}")


def _text(data: dict[str, Any], key: str, where: str, required: bool = True) -> str | None:
    value = data.get(key)
    if value is None or value == "":
        if required:
            raise SettingsError(f"{where}: {key} is missing")
        return None
    if not isinstance(value, str):
        raise SettingsError(f"{where}: {key} must be a string")
    return value


def _file(data: dict[str, Any], key: str, where: str, required: bool = True) -> Path | None:
    text = _text(data, key, where, required)
    if text is None:
        return None
    path = Path(text)
    if not path.is_file():
        raise SettingsError(f"{where}: {key} {path}: no such file")
    return path


def _port(value: object, where: str) -> int:
    if type(value) is not int or not 0 < value < 65536:
        raise SettingsError(f"{where}: port must be a whole number from 1 to 65535")
    return value


def read_password(path: Path) -> str:
    """The password file's first line; OSError or UnicodeDecodeError if unreadable."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return lines[0] if lines else ""


def _password(path: Path, where: str) -> str:
    try:
        text = read_password(path)
    except (OSError, UnicodeDecodeError) as exc:
        raise SettingsError(f"{where}: password_file {path}: cannot be read ({exc})") from None
    if not text:
        raise SettingsError(f"{where}: password_file {path} is empty")
    return text


def _broker(data: object, path: Path) -> BrokerSettings:
    where = f"{path}: [broker]"
    if not isinstance(data, dict):
        raise SettingsError(f"{path}: [broker] is missing")
    _table(data, "[broker] ", BROKER, path)
    host = _text(data, "host", where)
    cafile = _file(data, "cafile", where)
    assert host is not None and cafile is not None
    port = _port(data.get("port", 8883), where)
    username = _text(data, "username", where, required=False)
    secret = _file(data, "password_file", where, required=False)
    cert = _file(data, "certfile", where, required=False)
    key = _file(data, "keyfile", where, required=False)
    if (cert is None) != (key is None):
        raise SettingsError(f"{where}: certfile and keyfile go together")
    if cert is not None:
        if username is not None or secret is not None:
            raise SettingsError(f"{where}: a client certificate or username/password, not both")
        return BrokerSettings(host, port, cafile, certfile=cert, keyfile=key)
    if username is None or secret is None:
        raise SettingsError(f"{where}: username and password_file (or certfile and keyfile)")
    password = _password(secret, where)
    return BrokerSettings(host, port, cafile, username, password, password_file=secret)


def listen_address(text: str, where: str) -> tuple[str, int]:
    host, colon, port = text.rpartition(":")
    if not colon or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise SettingsError(f"{where}: listen {text!r}: not HOST:PORT with a port 1 to 65535")
    return host.strip("[]"), int(port)


def _check_pair(cert: Path, key: Path, where: str) -> None:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    try:
        context.load_cert_chain(cert, key)
    except (ssl.SSLError, OSError) as exc:
        raise SettingsError(
            f"{where}: certfile {cert} / keyfile {key}: not a usable pair "
            f"({exc.__class__.__name__})"
        ) from None


def _web(data: object, path: Path) -> WebSettings | None:
    if data is None:
        return None
    where = f"{path}: [web]"
    if not isinstance(data, dict):
        raise SettingsError(f"{where} is not a table")
    _table(data, "[web] ", WEB, path)
    host, port = listen_address(_text(data, "listen", where) or "", where)
    given = _file(data, "users", where)
    assert given is not None
    try:
        known = users.load(given)
    except users.UsersError as exc:
        raise SettingsError(str(exc)) from None
    if not any(user.role == "floor" for user in known.values()):
        raise SettingsError(f"{where}: users {given}: no floor login: nobody could see /pit")
    cert = _file(data, "certfile", where, required=False)
    key = _file(data, "keyfile", where, required=False)
    if (cert is None) != (key is None):
        raise SettingsError(f"{where}: certfile and keyfile go together")
    if cert is not None and key is not None:
        _check_pair(cert, key, where)
    return WebSettings(host, port, known, cert, key)


def _state_dir(data: dict[str, Any], path: Path) -> Path:
    state = Path(_text(data, "state_dir", str(path)) or "")
    try:
        state.mkdir(parents=True, exist_ok=True)
        probe = state / ".writable"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise SettingsError(
            f"{path}: state_dir {state}: not a writable directory ({exc.strerror})"
        ) from None
    return state


def parse(data: dict[str, Any], path: Path) -> FloorSettings:
    _table(data, "", TOP, path)
    client_id = _text(data, "client_id", str(path)) or ""
    if not CLIENT_ID.fullmatch(client_id):
        raise SettingsError(
            f"{path}: client_id {client_id!r}: 1 to 64 letters, digits, '_', '.' or '-'"
        )
    broker = _broker(data.get("broker"), path)
    web = _web(data.get("web"), path)
    return FloorSettings(client_id, _state_dir(data, path), broker, web)


def load(path: str | Path) -> FloorSettings:
    """The settings in ``path``; SettingsError (one line) for anything wrong."""
    p = Path(path)
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SettingsError(f"{p}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SettingsError(f"{p}: cannot be read ({exc})") from None
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"{p}: not TOML: {exc}") from None
    return parse(data, p)
