"""Per-device link keys: a file of 64 hexadecimal digits (32 bytes), readable by tablectl only."""

from __future__ import annotations

import os
import re
import secrets
import stat

from drivers import durable
from drivers.errors import DriverError

_HEX64 = re.compile(r"[0-9a-fA-F]{64}")


class KeyFileError(DriverError):
    pass


def load_key(path: str) -> bytes:
    """The key in ``path``; KeyFileError with a one-line reason otherwise."""
    try:
        with open(path, encoding="ascii") as fh:
            text = fh.read().strip()
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise KeyFileError(f"key file {path} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise KeyFileError(f"key file {path} cannot be read: {exc}") from None
    if mode & (stat.S_IRWXG | stat.S_IRWXO) & ~stat.S_IRGRP:
        raise KeyFileError(f"key file {path} is open to other users (chmod 0400 or 0440)")
    if not _HEX64.fullmatch(text):
        raise KeyFileError(f"key file {path} must hold exactly 64 hexadecimal digits")
    return bytes.fromhex(text)


def write_key(path: str, key: bytes | None = None) -> bytes:
    """Create a new key file (mode 0400), whole or not at all (drivers/durable.py): a
    crash while it is written leaves no key file, never a half-written one. Refuses to
    overwrite an existing one (FileExistsError)."""
    key = key if key is not None else secrets.token_bytes(32)
    durable.create(path, (key.hex() + "\n").encode("ascii"), 0o400, "key.writing")
    return key
