"""Per-device link keys: a file of 64 hexadecimal digits (32 bytes), readable by tablectl only.

Every key file (a device's link key, the journal's sealing key) is read by
``read_key_file``: a small regular file, or a refusal in one line before a byte is
read. A key path mistyped as a FIFO would block the daemon's start for ever; as a
character device (``/dev/zero``, a tty) it would be read until memory ran out.
"""

from __future__ import annotations

import os
import re
import secrets
import stat
from typing import Final

from drivers import durable
from drivers.errors import DriverError

_HEX64 = re.compile(r"[0-9a-fA-F]{64}")
MAX_KEY_FILE: Final = 4096  # bytes: a key is 65; anything larger is not a key file
# What a path is when it is not a regular file, by stat's test.
_KINDS: Final = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISSOCK, "a socket"),
)


class KeyFileError(DriverError):
    """A key file refused; ``reason`` says why without naming the file."""

    def __init__(self, message: str, reason: str = "") -> None:
        super().__init__(message)
        self.reason = reason or message


class KeyFileMissing(KeyFileError):
    pass


def _refusal(st: os.stat_result, limit: int) -> str | None:
    """Why a file as ``st`` describes it is not read as a key file, or None."""
    if not stat.S_ISREG(st.st_mode):
        kind = next((name for test, name in _KINDS if test(st.st_mode)), "not a regular file")
        return f"is {kind}, not a regular file"
    if st.st_size > limit:
        return f"is {st.st_size} bytes, over the {limit} it may hold"
    return None


def read_key_file(
    path: str, what: str = "key file", limit: int = MAX_KEY_FILE
) -> tuple[bytes, int]:
    """The bytes of the key file ``path`` and its mode; KeyFileError (KeyFileMissing when
    there is none) with a one-line reason naming it ``what``. Checked by ``stat`` before
    it is opened, opened without blocking (a FIFO swapped in meanwhile does not hang the
    open), checked again on the open file, and read no further than ``limit`` bytes."""

    def refuse(reason: str) -> KeyFileError:
        return KeyFileError(f"{what} {path} {reason}: refused unread", reason)

    try:
        before = os.stat(path)
        refused = _refusal(before, limit)
        if refused is not None:
            raise refuse(refused)
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
        try:
            after = os.fstat(fd)
            refused = _refusal(after, limit)
            if (after.st_dev, after.st_ino) != (before.st_dev, before.st_ino):
                refused = "was replaced while it was opened"
            if refused is not None:
                raise refuse(refused)
            data = _read_upto(fd, limit + 1)
        finally:
            os.close(fd)
    except FileNotFoundError as exc:
        raise KeyFileMissing(f"{what} {path} does not exist", str(exc.strerror)) from None
    except OSError as exc:
        raise KeyFileError(f"{what} {path} cannot be read: {exc}", str(exc.strerror)) from None
    if len(data) > limit:  # grew since it was checked
        raise refuse(f"is over the {limit} bytes it may hold")
    return data, after.st_mode


def _read_upto(fd: int, most: int) -> bytes:
    """Up to ``most`` bytes of ``fd``, to its end."""
    chunks: list[bytes] = []
    size = 0
    while size < most:
        chunk = os.read(fd, most - size)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def load_key(path: str) -> bytes:
    """The key in ``path``; KeyFileError with a one-line reason otherwise."""
    data, mode = read_key_file(path)
    try:
        text = data.decode("ascii").strip()
    except UnicodeDecodeError as exc:
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
