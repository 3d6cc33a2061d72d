"""The users file: each login's role and argon2 password hash, never a password.

``[users.NAME]`` tables in TOML, ``role = "dealer" | "floor"`` and ``hash`` (argon2id,
argon2-cffi's encoded form). ``tablectl web passwd`` writes it; ``tablectl web`` reads
it at start."""

from __future__ import annotations

import functools
import os
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from controller.errors import TablectlError

ROLES: Final = ("dealer", "floor")
LOGIN: Final = re.compile(r"[a-z][a-z0-9_.-]{0,31}")
_HASHER: Final = PasswordHasher()


@functools.cache
def _dummy() -> str:
    """A hash to verify against when the login is unknown, so that an unknown login
    costs as long as a wrong password and the time does not tell which logins exist."""
    return _HASHER.hash("not a password of anyone's")


class UsersError(TablectlError):
    """The users file or a login is unusable; the message is one line."""


@dataclass(frozen=True)
class User:
    login: str
    role: str
    hash: str


def _user(path: Path, login: str, fields: object) -> User:
    if not LOGIN.fullmatch(login):
        raise UsersError(f"{path}: login {login!r} is not lower-case letters, digits, _ . -")
    if not isinstance(fields, dict):
        raise UsersError(f"{path}: users.{login} is not a table")
    role, hashed = fields.get("role"), fields.get("hash")
    if role not in ROLES:
        raise UsersError(f"{path}: users.{login}.role must be dealer or floor")
    if not isinstance(hashed, str) or not hashed.startswith("$argon2"):
        raise UsersError(f"{path}: users.{login}.hash is not an argon2 hash")
    unknown = set(fields) - {"role", "hash"}
    if unknown:
        raise UsersError(f"{path}: users.{login}: unknown key {sorted(unknown)[0]!r}")
    return User(login, role, hashed)


def load(path: Path, *, missing_ok: bool = False) -> dict[str, User]:
    """Every login of the file; UsersError (one line) when it cannot be used."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        if missing_ok:
            return {}
        raise UsersError(f"{path}: no such users file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsersError(f"{path}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UsersError(f"{path}: not TOML: {exc}") from None
    if set(data) - {"users"}:
        raise UsersError(f"{path}: unknown key {sorted(set(data) - {'users'})[0]!r}")
    table = data.get("users", {})
    if not isinstance(table, dict):
        raise UsersError(f"{path}: users is not a table")
    return {login: _user(path, login, fields) for login, fields in table.items()}


def check(users: dict[str, User], login: str, password: str) -> User | None:
    """The user when the password is theirs, else None (in about the same time)."""
    user = users.get(login)
    try:
        _HASHER.verify(user.hash if user else _dummy(), password)
    except (VerificationError, InvalidHashError):
        return None
    return user


def set_password(path: Path, login: str, role: str, password: str) -> None:
    """Write ``login``'s role and the hash of ``password`` into the file (created
    0600 when missing), replacing the file whole so a reader never sees half of it. A
    file that exists keeps its group and its group's read permission: the packaged
    one is root:tablectl-web 0640 (systemd/tablectl.tmpfiles.conf), which the web's
    unit reads as user tablectl-web."""
    if not LOGIN.fullmatch(login):
        raise UsersError(f"login {login!r} is not lower-case letters, digits, _ . -")
    if not password:
        raise UsersError("no password on standard input")
    users = load(path, missing_ok=True)
    users[login] = User(login, role, _HASHER.hash(password))
    text = "".join(
        f'[users.{u.login}]\nrole = "{u.role}"\nhash = "{u.hash}"\n\n'
        for u in sorted(users.values(), key=lambda u: u.login)
    )
    temporary = path.with_name(f".{path.name}.new")
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        _keep_group(fd, path)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except OSError as exc:
        raise UsersError(f"{path}: cannot write: {exc.strerror or exc}") from None


def _keep_group(fd: int, path: Path) -> None:
    """The new file ``fd`` given ``path``'s group, and its group read bit, if any."""
    try:
        before = os.stat(path)
    except FileNotFoundError:
        return
    os.fchown(fd, -1, before.st_gid)  # a group of the owner's, or root's: allowed
    os.fchmod(fd, 0o600 | (before.st_mode & 0o040))
