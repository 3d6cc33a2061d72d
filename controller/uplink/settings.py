"""The uplink's configuration: one TOML file (docs/uplink.md), validated whole at start.

Every problem is one line naming the file and the key (``SettingsError``); a key the
uplink does not know is one, so a misspelt option is never silently ignored.
"""

from __future__ import annotations

import os
import stat
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from controller.errors import TablectlError
from controller.uplink.messages import check_table_id
from drivers.keys import KeyFileError, read_key_file

DEFAULT_PATH: Final = "/etc/tablectl/uplink.toml"
LIMIT: Final = 1 << 20  # bytes: a configuration is small; a device or a FIFO is refused
SECRET_LIMIT: Final = 4096  # bytes of a password file
_TOP: Final = frozenset({"table_id", "journal", "state_dir", "broker", "uplink"})
_BROKER: Final = frozenset(
    {"host", "port", "cafile", "username", "password_file", "certfile", "keyfile"}
)
_UPLINK: Final = frozenset({"window", "poll_ms", "retry_min_ms", "retry_max_ms"})
# (default, least, most) of each [uplink] number. window: QoS 1 messages in flight;
# MQTT 5's Receive Maximum is at most 65535.
_NUMBERS: Final[Mapping[str, tuple[int, int, int]]] = {
    "window": (64, 1, 65535),
    "poll_ms": (50, 5, 60_000),
    "retry_min_ms": (500, 10, 600_000),
    "retry_max_ms": (30_000, 10, 3_600_000),
}


class SettingsError(TablectlError):
    """The configuration cannot be used; the message is one line."""


@dataclass(frozen=True, slots=True)
class Broker:
    host: str
    port: int
    cafile: Path
    username: str | None
    password_file: Path | None
    certfile: Path | None
    keyfile: Path | None

    def password(self) -> str | None:
        """The password, the file's first line, read now (so a changed file is used at
        the next connection); SettingsError when it cannot be read or is open to other
        users. Read as a key file is (drivers/keys.py): never a FIFO or a device."""
        if self.password_file is None:
            return None
        what = "broker.password_file"
        try:
            data, mode = read_key_file(str(self.password_file), what, limit=SECRET_LIMIT)
            _private(what, self.password_file, mode)
            text = data.decode("utf-8")
        except KeyFileError as exc:
            raise SettingsError(str(exc)) from None
        except UnicodeDecodeError:
            raise SettingsError(f"{what} {self.password_file}: not UTF-8 text") from None
        return text.splitlines()[0] if text else ""


def _private(what: str, path: Path, mode: int) -> None:
    """A secret's file may be read by its group at most (as a device key's)."""
    if mode & (stat.S_IRWXG | stat.S_IRWXO) & ~stat.S_IRGRP:
        raise KeyFileError(f"{what} {path} is open to other users (chmod 0400 or 0440)")


@dataclass(frozen=True, slots=True)
class Settings:
    table_id: str
    journal: Path
    state_dir: Path
    broker: Broker
    window: int
    poll_ms: int
    retry_min_ms: int
    retry_max_ms: int


def _why(exc: BaseException) -> str:
    return exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)


def _read(path: Path) -> dict[str, Any]:
    try:
        if not path.is_file():
            raise SettingsError(f"{path}: no such configuration file")
        if path.stat().st_size > LIMIT:
            raise SettingsError(f"{path}: larger than {LIMIT} bytes: not a configuration")
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise SettingsError(f"{path}: cannot read: {_why(exc)}") from None
    except UnicodeDecodeError:
        raise SettingsError(f"{path}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"{path}: not TOML: {exc}") from None


def _known(table: Mapping[str, Any], keys: frozenset[str], where: str) -> None:
    unknown = sorted(set(table) - keys)
    if unknown:
        raise SettingsError(f"{where}{unknown[0]}: unknown key (known: {', '.join(sorted(keys))})")


def _text(table: Mapping[str, Any], key: str, where: str, *, required: bool = True) -> str | None:
    value = table.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value:
        raise SettingsError(
            f"{where}{key}: {'missing' if value is None else 'must be a non-empty string'}"
        )
    return value


def _file(table: Mapping[str, Any], key: str, where: str, *, required: bool = True) -> Path | None:
    """A file that exists and can be read now."""
    name = _text(table, key, where, required=required)
    if name is None:
        return None
    path = Path(name)
    try:
        with path.open("rb"):
            pass
    except OSError as exc:
        raise SettingsError(f"{where}{key}: {path}: {_why(exc)}") from None
    if not path.is_file():
        raise SettingsError(f"{where}{key}: {path}: not a file")
    return path


def _broker(table: object) -> Broker:
    if not isinstance(table, dict):
        raise SettingsError("broker: missing (a [broker] table: host, port, cafile, ...)")
    _known(table, _BROKER, "broker.")
    port = table.get("port", 8883)
    if type(port) is not int or not 1 <= port <= 65535:
        raise SettingsError(f"broker.port: must be a port number (1 to 65535), not {port!r}")
    by_password = "username" in table or "password_file" in table
    by_cert = "certfile" in table or "keyfile" in table
    if by_password == by_cert:
        raise SettingsError(
            "broker: give either username and password_file, or certfile and keyfile"
        )
    broker = Broker(
        host=str(_text(table, "host", "broker.")),
        port=port,
        cafile=_path(_file(table, "cafile", "broker.")),
        username=_text(table, "username", "broker.", required=by_password),
        password_file=_file(table, "password_file", "broker.", required=by_password),
        certfile=_file(table, "certfile", "broker.", required=by_cert),
        keyfile=_file(table, "keyfile", "broker.", required=by_cert),
    )
    if broker.keyfile is not None:
        try:
            _private("broker.keyfile", broker.keyfile, broker.keyfile.stat().st_mode)
        except (KeyFileError, OSError) as exc:
            raise SettingsError(str(exc)) from None
    broker.password()
    return broker


def _path(path: Path | None) -> Path:
    assert path is not None  # required=True never returns None
    return path


def _numbers(table: object) -> dict[str, int]:
    if table is None:
        table = {}
    if not isinstance(table, dict):
        raise SettingsError("uplink: must be a table ([uplink])")
    _known(table, _UPLINK, "uplink.")
    numbers = {}
    for key, (default, least, most) in _NUMBERS.items():
        value = table.get(key, default)
        if type(value) is not int or not least <= value <= most:
            raise SettingsError(
                f"uplink.{key}: must be a whole number from {least} to {most}, not {value!r}"
            )
        numbers[key] = value
    if numbers["retry_min_ms"] > numbers["retry_max_ms"]:
        raise SettingsError("uplink.retry_min_ms: larger than uplink.retry_max_ms")
    return numbers


def load(path: str | os.PathLike[str]) -> Settings:
    """The settings of the file at ``path``; SettingsError (one line, naming the file
    and the key) for anything that cannot be used."""
    p = Path(path)
    data = _read(p)
    try:
        _known(data, _TOP, "")
        table_id = str(_text(data, "table_id", ""))
        try:
            check_table_id(table_id)
        except ValueError as exc:
            raise SettingsError(f"table_id: {exc}") from None
        return Settings(
            table_id=table_id,
            journal=Path(str(_text(data, "journal", ""))),
            state_dir=Path(str(_text(data, "state_dir", ""))),
            broker=_broker(data.get("broker")),
            **_numbers(data.get("uplink")),
        )
    except SettingsError as exc:
        raise SettingsError(f"{p}: {exc}") from None
