"""Small filesystems of the test's own, to run out of space or turn read-only under an
open journal: a tmpfs, or an ext4 image on a loop device that the kernel can be made to
turn read-only as it does after a disk error. Mounted in tmp_path and unmounted at the
end; root only (the suite runs as root, as ``make test`` does here)."""

from __future__ import annotations

import contextlib
import errno
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

FILLER = "filler"  # the file that takes the space


@contextlib.contextmanager
def small_filesystem(path: Path, size: str = "32m") -> Iterator[Path]:
    """A tmpfs of ``size`` on ``path`` (created), unmounted when the block ends."""
    with _mounted(path, ["-t", "tmpfs", "-o", f"size={size},mode=0755", "tablectl-test"]):
        yield path


@contextlib.contextmanager
def failing_filesystem(path: Path, image: Path) -> Iterator[Path]:
    """A 16 MiB ext4 in ``image`` on ``path``, mounted ``errors=remount-ro``: after
    ``disk_error(path)`` the kernel refuses every write, files already open included."""
    with open(image, "wb") as out:
        out.truncate(16 * 1024 * 1024)
    subprocess.run(["mkfs.ext4", "-q", "-F", str(image)], check=True)
    with _mounted(path, ["-o", "loop,errors=remount-ro", str(image)]):
        yield path


def disk_error(path: Path) -> None:
    """An error on ``failing_filesystem``'s disk, as ext4 meets one (its sysfs knob)."""
    source = subprocess.run(
        ["findmnt", "-n", "-o", "SOURCE", str(path)], check=True, capture_output=True, text=True
    ).stdout.strip()
    Path(f"/sys/fs/ext4/{Path(source).name}/trigger_fs_error").write_text("1")


@contextlib.contextmanager
def _mounted(path: Path, how: list[str]) -> Iterator[None]:
    if os.geteuid() != 0:
        pytest.fail("mounting a small filesystem needs root: run the suite as root")
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(["mount", *how, str(path)], check=True)
    try:
        yield
    finally:
        subprocess.run(["umount", "--lazy", str(path)], check=True)


def remount(path: Path, *, read_only: bool) -> None:
    option = "ro" if read_only else "rw"
    subprocess.run(["mount", "-o", f"remount,{option}", str(path)], check=True)


def fill(path: Path, leave: int = 0) -> Path:
    """Take the filesystem's free space but about ``leave`` bytes, in one file (grown
    or shrunk to that); its path. A process writing meanwhile may take what is left."""
    filler = path / FILLER
    with open(filler, "ab") as out:
        size = out.seek(0, os.SEEK_END)
        extra = free_bytes(path) - leave
        if extra < 0:
            out.truncate(max(0, size + extra))
        while extra > 0:
            try:
                os.posix_fallocate(out.fileno(), size, extra)
            except OSError as exc:
                if exc.errno != errno.ENOSPC:
                    raise
                extra = free_bytes(path) - leave  # taken meanwhile: ask for less
                continue
            break
    return filler


def free_bytes(path: Path) -> int:
    fs = os.statvfs(path)
    return fs.f_bavail * fs.f_frsize
