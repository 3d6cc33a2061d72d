"""Each API socket file's group, given two ways (controller/api/listeners.py): bound in
its group's setgid directory and renamed into place, without ``chown`` (which the
systemd unit's system call filter denies: there ``os.chown`` fails with EPERM, as the
tests below make it fail); or, without that directory, by ``chown``. Under the real
unit this is proved in tests/system."""

from __future__ import annotations

import os
import socket
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
import structlog

from controller.api.access import Access
from controller.api.listeners import (
    Listener,
    close_listeners,
    group_dir,
    open_listeners,
    socket_path,
)

NAMES = ("dealer", "floor", "events")


def _group() -> int:
    """A group other than this process's own when root (who may give a directory any
    group), else its own."""
    return 65534 if os.geteuid() == 0 else os.getgid()


@pytest.fixture
def chown_denied(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """``os.chown`` failing with EPERM, as under ``SystemCallFilter=~@privileged``; the
    calls tried."""
    tried: list[tuple[str, int]] = []
    chown = os.chown

    def denied(path: str | Path, uid: int, gid: int) -> None:
        if not str(path).endswith(".sock"):  # the test's own set-up, not the daemon
            return chown(path, uid, gid)
        tried.append((str(path), gid))
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr("controller.api.listeners.os.chown", denied)
    return tried


@pytest.fixture
def logs() -> Iterator[list[dict[str, object]]]:
    with structlog.testing.capture_logs() as captured:
        yield captured


def _group_dirs(runtime: Path, mode: int = 0o2700, gid: int | None = None) -> None:
    for name in NAMES:
        path = group_dir(socket_path(runtime, name), name)
        path.mkdir()
        os.chown(path, -1, _group() if gid is None else gid)
        os.chmod(path, mode)


def _open(runtime: Path) -> list[Listener]:
    access = {name: Access(uids=(os.getuid(),), group=_group()) for name in NAMES}
    return open_listeners(runtime, access)


def test_a_socket_bound_in_its_group_directory_has_the_group_without_chown(
    tmp_path: Path, chown_denied: list[tuple[str, int]], logs: list[dict[str, object]]
) -> None:
    _group_dirs(tmp_path)
    listeners = _open(tmp_path)
    try:
        for name in NAMES:
            st = os.lstat(socket_path(tmp_path, name))
            assert stat.S_ISSOCK(st.st_mode)
            assert (stat.S_IMODE(st.st_mode), st.st_gid) == (0o660, _group())
            # Renamed into place: nothing left where it was bound.
            assert os.listdir(group_dir(socket_path(tmp_path, name), name)) == []
        assert chown_denied == []
        assert [e for e in logs if e["event"] == "api_socket_group_not_set"] == []
    finally:
        close_listeners(listeners)
    assert sorted(os.listdir(tmp_path)) == sorted(f".{name}-group" for name in NAMES)


def test_a_stale_socket_in_the_group_directory_is_cleared(
    tmp_path: Path, chown_denied: list[tuple[str, int]]
) -> None:
    """What a daemon killed between bind and rename left behind."""
    _group_dirs(tmp_path)
    stale = group_dir(socket_path(tmp_path, "dealer"), "dealer") / "dealer.sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as left:
        left.bind(str(stale))
    listeners = _open(tmp_path)
    try:
        assert os.lstat(socket_path(tmp_path, "dealer")).st_gid == _group()
        assert not stale.exists()
    finally:
        close_listeners(listeners)


@pytest.mark.parametrize(
    ("mode", "other_group"),
    [(0o0700, False), (0o2700, True)],
    ids=["not setgid", "another group"],
)
def test_a_directory_that_would_not_give_the_group_is_not_used(
    tmp_path: Path,
    chown_denied: list[tuple[str, int]],
    logs: list[dict[str, object]],
    mode: int,
    other_group: bool,
) -> None:
    """Only a setgid directory of the socket's own group is used; otherwise the daemon
    falls back to chown, which here is denied: logged, and the file keeps its group."""
    _group_dirs(tmp_path, mode, gid=os.getgid() + 1 if other_group else None)
    listeners = _open(tmp_path)
    try:
        assert [gid for _, gid in chown_denied] == [_group()] * 3
        assert [e["socket"] for e in logs if e["event"] == "api_socket_group_not_set"] == list(
            NAMES
        )
        for name in NAMES:
            assert os.listdir(group_dir(socket_path(tmp_path, name), name)) == []
    finally:
        close_listeners(listeners)


def test_without_group_directories_chown_gives_the_group(tmp_path: Path) -> None:
    listeners = _open(tmp_path)
    try:
        for name in NAMES:
            assert os.lstat(socket_path(tmp_path, name)).st_gid == _group()
    finally:
        close_listeners(listeners)
