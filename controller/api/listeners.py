"""The three listening sockets in the runtime directory, and their files.

Each socket file is made mode 0660 and given its group before ``listen()``, so that
nobody connects before the file is as it should be; closing unlinks only a file still
ours, not a successor daemon's.

The group comes one of two ways. Under the systemd unit, whose system call filter
denies ``chown`` (``~@privileged``), the socket is bound in its group's directory
beside it (``.dealer-group``: setgid, of that group, made by tmpfiles.d), where the
kernel gives a new file the directory's group, and renamed into place: the same file,
its group kept. Without that directory (the bench, the tests) the daemon sets the
group with ``chown``, which the kernel allows a member of the group.
"""

from __future__ import annotations

import contextlib
import os
import socket
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import structlog

from controller.api.access import Access, Policy, peer_of
from controller.api.commands import SOCKETS, Role
from controller.api.errors import ApiError

log = structlog.get_logger("controller.api")

SOCKET_MODE = 0o660
# Connections the kernel queues before the API's thread accepts them. With 16, 839 of
# 1,000 simultaneous connects failed with EAGAIN (a Unix socket refuses at once, it
# never makes the client wait). Linux caps it at net.core.somaxconn (4096 since 5.4).
BACKLOG = 1024


@dataclass(slots=True)
class Listener:
    name: str
    role: Role | None
    policy: Policy
    path: Path
    sock: socket.socket
    inode: int


def socket_path(runtime_dir: Path, name: str) -> Path:
    return runtime_dir / f"{name}.sock"


def open_listeners(runtime_dir: Path, access: Mapping[str, Access]) -> list[Listener]:
    """Listen on every socket of ``SOCKETS``; ``ApiError`` (one line) when the directory
    is missing, a name does not resolve, a path is taken by something that is not a
    socket, or a live process serves it already. None is left open then."""
    if not runtime_dir.is_dir():
        raise ApiError(f"{runtime_dir}: no such directory")
    policies = {name: Policy.of(name, access[name]) for name in SOCKETS}
    listeners: list[Listener] = []
    try:
        for name, role in SOCKETS.items():
            listeners.append(_listen(socket_path(runtime_dir, name), name, role, policies[name]))
    except ApiError:
        close_listeners(listeners)
        raise
    return listeners


def group_dir(path: Path, name: str) -> Path:
    """Where the socket ``name`` is bound to get its group without ``chown``."""
    return path.parent / f".{name}-group"


def _listen(path: Path, name: str, role: Role | None, policy: Policy) -> Listener:
    _clear_stale(path)
    staging = _staging_path(path, name, policy.group)
    if staging is not None:
        _clear_stale(staging)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        _bind(sock, path, staging, name, policy.group)
        sock.listen(BACKLOG)
        sock.setblocking(False)
        inode = os.stat(path).st_ino
    except OSError as exc:
        sock.close()
        for left in (path, staging):
            with contextlib.suppress(FileNotFoundError):
                if left is not None and stat.S_ISSOCK(os.lstat(left).st_mode):
                    os.unlink(left)
        raise ApiError(f"{path}: cannot listen: {exc.strerror or exc}") from None
    return Listener(name, role, policy, path, sock, inode)


def _bind(
    sock: socket.socket, path: Path, staging: Path | None, name: str, group: int | None
) -> None:
    """The socket's file at ``path``, mode 0660 and of ``group``, before ``listen()``:
    until then nobody can connect."""
    if staging is None:
        sock.bind(str(path))
        os.chmod(path, SOCKET_MODE)
        if group is not None:
            _chown(path, name, group)
        return
    sock.bind(str(staging))  # the directory's group, from the kernel
    os.chmod(staging, SOCKET_MODE)
    os.rename(staging, path)


def _staging_path(path: Path, name: str, group: int | None) -> Path | None:
    """The socket's path in its group's directory, when that directory is one: ours,
    setgid and of the socket's group (so the file bound there has that group)."""
    if group is None:
        return None
    try:
        st = os.lstat(group_dir(path, name))
    except FileNotFoundError:
        return None
    ours = st.st_uid == os.geteuid() and st.st_gid == group
    if stat.S_ISDIR(st.st_mode) and st.st_mode & stat.S_ISGID and ours:
        return group_dir(path, name) / path.name
    return None


def _chown(path: Path, name: str, group: int) -> None:
    try:
        os.chown(path, -1, group)
    except PermissionError:
        log.warning("api_socket_group_not_set", socket=name, gid=group)


def close_listeners(listeners: list[Listener]) -> None:
    """Close every listener and unlink its file; the list is left empty."""
    for lst in listeners:
        lst.sock.close()
        with contextlib.suppress(FileNotFoundError):
            if os.lstat(lst.path).st_ino == lst.inode:  # still ours, not a successor's
                os.unlink(lst.path)
    listeners.clear()


def _clear_stale(path: Path) -> None:
    """Remove a socket file a crashed daemon left; refuse one a live process serves, and
    anything that is not a socket."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISSOCK(mode):
        raise ApiError(f"{path}: exists and is not a socket")
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(1.0)
    try:
        probe.connect(str(path))
    except ConnectionRefusedError:
        os.unlink(path)  # nobody listens: a crashed daemon's
        log.info("api_stale_socket_removed", path=str(path))
        return
    except (BlockingIOError, TimeoutError):
        raise ApiError(f"{path}: already served by a live process (not accepting)") from None
    except OSError as exc:
        raise ApiError(f"{path}: cannot check the socket: {exc.strerror or exc}") from None
    else:
        pid = peer_of(probe).pid
        raise ApiError(f"{path}: already served by a live process (pid {pid})")
    finally:
        probe.close()
