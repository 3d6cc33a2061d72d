"""The key that seals hole cards in the journal (controller/table/seal.py), as the
daemon keeps it beside the journal: ``journal.sealkey``, its hexadecimal digits on one
line, mode 0600. The journal's header (row 1) records the key's ``fingerprint``, never
the key: a start with no key, or another one, is refused rather than sealing new cards
under a key the old ones cannot be checked with."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Final

from controller.journal.errors import JournalError
from drivers.keys import KeyFileError, KeyFileMissing, read_key_file

KEY_BYTES: Final = 32  # as controller.table.seal.Sealer draws its own
_TAG: Final = b"tablectl sealing key fingerprint v1\0"


def fingerprint(key: bytes) -> str:
    """A short name for ``key`` that does not tell it: 16 hexadecimal digits."""
    return hashlib.sha256(_TAG + key).hexdigest()[:16]


def encode_key(key: bytes) -> bytes:
    return (key.hex() + "\n").encode("ascii")


def load_key(path: Path) -> bytes | None:
    """The key in ``path``; None when there is no such file; JournalError when the file
    is not a sealing key (drivers/keys.py reads it)."""
    try:
        data, _ = read_key_file(str(path), "sealing key")
    except KeyFileMissing:
        return None
    except KeyFileError as exc:  # a FIFO, a device, a huge file: refused unread
        raise JournalError(str(exc)) from None
    try:
        key = bytes.fromhex(data.decode("ascii").strip())
    except (ValueError, UnicodeDecodeError):
        key = b""
    if len(key) < KEY_BYTES:
        raise JournalError(f"{path}: not a sealing key")
    return key
