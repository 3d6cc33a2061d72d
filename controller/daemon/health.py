"""The watchdog's check of the journal: whether the table's next commits can be made,
and kept. ``os.access`` on ``journal.db`` answered none of that: it is always true for
root, and a file already open stays writable through its descriptor whatever its mode
says. What does stop a commit, or lose it:

- the journal's filesystem read-only: mounted so, or turned so by the kernel after an
  error (ext4's ``errors=remount-ro``, which ``statvfs`` may not show): each check
  also writes, syncs and removes one page in ``PROBE`` beside the journal,
  the same directory and filesystem the write-ahead log is on;
- too little free space: SQLite appends each commit to ``journal.db-wal`` and copies
  the pages into ``journal.db`` at each automatic checkpoint (every 1,000 pages), so
  ``MIN_FREE`` leaves room for a whole write-ahead log of 4 KiB pages and as much
  again for ``journal.db`` to grow by at its checkpoint;
- the last write failed (``JournalError``), until a write succeeds again;
- ``journal.db`` or ``journal.db-wal`` deleted or replaced while the daemon has it
  open: what it commits then goes to a file nobody will find at the next start.

``unwritable`` is also what the daemon asks when it fails (at start or later): a full
or read-only filesystem under the journal is then named as the cause, ahead of what it
broke (a simulator that could not write its log, SQLite's "disk I/O error").
"""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Final

MIB: Final = 1024 * 1024
PAGE: Final = 4096  # SQLite's default page size
PROBE: Final = ".tablectl-probe"  # the page each check writes beside the journal
MIN_FREE: Final = 8 * MIB  # bytes free on the journal's filesystem (see above)
_DELETED: Final = " (deleted)"  # how /proc/self/fd names a file no longer on disk


def journal_problem(path: Path, last_failure: str | None = None) -> str | None:
    """Why the journal at ``path`` cannot take the next commits (one line); None: it
    can. ``last_failure``: the error of the last write, when it failed."""
    if last_failure is not None:
        return f"the last journal write failed: {last_failure}"
    folder = path.parent
    try:
        fs = os.statvfs(folder)
    except OSError as exc:
        return f"{folder}: {exc.strerror or exc}"
    free = fs.f_bavail * fs.f_frsize
    if fs.f_flag & os.ST_RDONLY or free < PAGE:
        return unwritable(folder) or no_space(folder)
    if free < MIN_FREE:
        return (
            f"{free / MIB:.1f} MiB free on {folder}'s filesystem, under the "
            f"{MIN_FREE // MIB} MiB the journal's next commits need"
        )
    failed = unwritable(folder)
    if failed is not None:
        return failed
    gone = _deleted_while_open(path)
    if gone is not None:
        return f"{gone} was deleted or replaced while open: its commits would be lost"
    return None


def no_space(folder: Path) -> str:
    return f"no space left on {folder}'s filesystem"


def unwritable(folder: Path) -> str | None:
    """Why nothing can be written in ``folder`` (one line: its filesystem read-only or
    full, or another error); None: one page was written, synced and removed there."""
    probe = folder / PROBE
    try:
        fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
        try:
            os.write(fd, bytes(PAGE))
            os.fsync(fd)
        finally:
            os.close(fd)
            os.unlink(probe)
    except OSError as exc:
        if exc.errno == errno.EROFS:
            return f"{folder} is on a read-only filesystem"
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            return no_space(folder)
        return f"{folder}: a test write failed: {exc.strerror or exc}"
    return None


def _deleted_while_open(path: Path) -> str | None:
    """The journal's file this process holds open that is no longer on disk, if any."""
    names = {os.path.realpath(path) + suffix for suffix in ("", "-wal")}
    try:
        fds = os.listdir("/proc/self/fd")
    except OSError:
        return None  # no /proc: nothing to tell
    for fd in fds:
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue  # closed since the listing (the listing's own descriptor)
        if target.endswith(_DELETED) and target.removesuffix(_DELETED) in names:
            return Path(target.removesuffix(_DELETED)).name
    return None
