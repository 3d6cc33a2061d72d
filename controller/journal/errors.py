"""The journal's one error, and what an SQLite error says about the journal's file."""

from __future__ import annotations

from typing import Final


class JournalError(Exception):
    """The journal cannot be used; the message is one line naming the file.
    ``disk_full``: SQLite said the disk was full (SQLITE_FULL)."""

    disk_full = False


# SQLite's primary result codes (https://sqlite.org/rescode.html) that say the file
# could not be used, and nothing of its contents: a technician who read "damaged"
# for a full disk would restore a backup over a journal that was fine. Every other
# error (SQLITE_CORRUPT, SQLITE_NOTADB, a missing table) is "damaged".
_FULL: Final = 13  # SQLITE_FULL
_PLAIN: Final = {
    3: "permission denied",  # SQLITE_PERM
    5: "the journal is locked by another process",  # SQLITE_BUSY
    6: "the journal is locked by another process",  # SQLITE_LOCKED
    7: "out of memory",  # SQLITE_NOMEM
    8: "the file or its directory is read-only",  # SQLITE_READONLY
    10: "input/output error",  # SQLITE_IOERR
    _FULL: "the disk is full",
    14: "the file cannot be opened",  # SQLITE_CANTOPEN
}


def _primary(exc: BaseException) -> int | None:
    """SQLite's primary result code in ``exc``; None for an error not from SQLite."""
    code = getattr(exc, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else None


def unusable(exc: BaseException) -> str | None:
    """Why SQLite could not use the journal's file, when ``exc`` says it was the file's
    place (full disk, I/O error, read-only, locked) and not its contents; None for an
    error that is the journal's own (damaged bytes, a missing table, a body not JSON)."""
    code = _primary(exc)
    return None if code is None else _PLAIN.get(code)


def failure(path: object, exc: BaseException, doing: str = "read") -> JournalError:
    """The one line for ``exc`` met while the journal at ``path`` was being read,
    written or opened (``doing``): "cannot ... the journal" with the reason when the
    file could not be used (``unusable``), "the journal is damaged" otherwise."""
    reason = unusable(exc)
    if reason is None:
        return JournalError(f"{path}: the journal is damaged: {exc}")
    error = JournalError(f"{path}: cannot {doing} the journal: {reason} ({exc})")
    error.disk_full = _primary(exc) == _FULL
    return error
