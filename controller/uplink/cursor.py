"""The uplink's durable cursor: the last journal row the broker acknowledged, with that
row's hash, in ``<state_dir>/cursor.json``.

Written atomically (a temporary file, fsync, rename over the old one, fsync of the
directory): after a crash or a power cut the file holds the old cursor or the new
one, never a torn one, so the uplink resumes at the first row not acknowledged. The
hash ties the cursor to its journal: a cursor left from another journal (a replaced
box, a restored backup) is refused rather than silently skipping that journal's rows.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Final

from controller.errors import TablectlError

NAME: Final = "cursor.json"


class CursorError(TablectlError):
    """The cursor cannot be read, written or trusted; the message is one line."""


class Cursor:
    """``seq`` (0: nothing acknowledged yet) and its row's ``hash``, kept in ``folder``."""

    def __init__(self, folder: Path, table_id: str) -> None:
        self.folder = folder
        self.path = folder / NAME
        self.table_id = table_id
        self.seq = 0
        self.hash: str | None = None
        try:
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as exc:
            raise CursorError(f"state_dir {folder}: {exc.strerror or exc}") from None
        self._load()

    def _load(self) -> None:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return
        except (OSError, UnicodeDecodeError) as exc:
            raise CursorError(f"{self.path}: cannot read: {exc}") from None
        try:
            data = json.loads(text)
            seq, digest, table = data["seq"], data["hash"], data["table"]
        except (json.JSONDecodeError, TypeError, KeyError):
            raise CursorError(f"{self.path}: not an uplink cursor") from None
        if type(seq) is not int or seq < 0 or not isinstance(digest, (str, type(None))):
            raise CursorError(f"{self.path}: not an uplink cursor")
        if table != self.table_id:
            raise CursorError(
                f"{self.path}: the cursor of table {table!r}, not {self.table_id!r}: "
                "another table's state_dir"
            )
        self.seq, self.hash = seq, digest

    def save(self, seq: int, digest: str) -> None:
        """Make ``seq`` (row hash ``digest``) the durable cursor."""
        data = json.dumps({"table": self.table_id, "seq": seq, "hash": digest}) + "\n"
        temporary = self.path.with_name(f".{NAME}.tmp")
        try:
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            try:
                os.write(fd, data.encode())
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(temporary, self.path)
            folder = os.open(self.folder, os.O_RDONLY | os.O_DIRECTORY)
            try:
                os.fsync(folder)
            finally:
                os.close(folder)
        except OSError as exc:
            raise CursorError(f"{self.path}: cannot write: {exc.strerror or exc}") from None
        self.seq, self.hash = seq, digest
