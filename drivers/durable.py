"""Files written whole or not at all: a key file is built under a temporary name beside
its place (mode set before the first byte, written, fsynced), then linked into place
and the directory fsynced. A crash at any point leaves either no file at its name or the
whole file, never a half-written key; what it leaves under the temporary name is a
leftover (``leftover``) that the next write clears. ``replace`` swaps a file for a
new one the same way (the journal's checkpoint).

``link`` rather than ``rename`` puts it in place: a file already there is never
replaced (``FileExistsError``), as ``O_EXCL`` never replaced one.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from drivers import failpoints


def leftover(path: str | os.PathLike[str]) -> Path:
    """Where a file for ``path`` is built before it is in place: ``.NAME.tmp`` beside it."""
    p = Path(path)
    return p.with_name(f".{p.name}.tmp")


def fsync_directory(path: str | os.PathLike[str]) -> None:
    """Make the names in directory ``path`` (a file created, renamed or removed) durable."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def stage(path: str | os.PathLike[str], data: bytes, mode: int, failpoint: str | None) -> Path:
    """Write ``data`` under ``path``'s temporary name, with ``mode`` from its creation,
    and fsync it; the temporary file (its name is made durable with the final one). A
    leftover of an earlier write is cleared first. ``failpoint`` is reached once part
    of ``data`` is written."""
    temporary = leftover(path)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(temporary)
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        os.fchmod(fd, mode)  # exactly ``mode``, whatever the umask
        half = len(data) // 2
        _write_all(fd, data[:half])
        if failpoint is not None and failpoints.ARMED:
            failpoints.reached(failpoint)
        _write_all(fd, data[half:])
        os.fsync(fd)  # the data before the name: the directory is fsynced once it has it
    finally:
        os.close(fd)
    return temporary


def put_in_place(staged: Path, path: str | os.PathLike[str]) -> None:
    """Give the ``staged`` file its name ``path`` (never replacing a file there), durably."""
    try:
        os.link(staged, path)
    finally:
        os.unlink(staged)
        fsync_directory(staged.parent)


def create(path: str | os.PathLike[str], data: bytes, mode: int, failpoint: str | None) -> None:
    """A new file at ``path`` holding ``data``, whole or not at all (see the module)."""
    if os.path.lexists(path):
        raise FileExistsError(f"{path} exists")
    put_in_place(stage(path, data, mode, failpoint), path)


def replace(path: str | os.PathLike[str], data: bytes, mode: int) -> None:
    """``path`` now holds ``data``: the old file or the new one whole after a crash,
    never a mix or an empty file."""
    os.replace(stage(path, data, mode, None), path)
    fsync_directory(Path(path).parent)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
