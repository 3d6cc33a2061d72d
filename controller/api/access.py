"""Who may use which socket: each peer's credentials as the kernel gives them
(``SO_PEERCRED``, and ``SO_PEERGROUPS`` for supplementary groups), checked against the
socket's ``Access``."""

from __future__ import annotations

import errno
import grp
import pwd
import socket
import struct
from collections.abc import Callable
from dataclasses import dataclass

from controller.api.errors import ApiError

# Linux's SO_PEERGROUPS (asm-generic; Python does not name it): the peer's
# supplementary groups, which SO_PEERCRED leaves out.
_SO_PEERGROUPS = getattr(socket, "SO_PEERGROUPS", 59)
_GROUPS_BUFFER = 1024  # the most Python's getsockopt takes: 256 groups


@dataclass(frozen=True, slots=True)
class Peer:
    """A connected client's credentials, as the kernel gives them."""

    pid: int
    uid: int
    gid: int
    groups: tuple[int, ...]  # supplementary groups

    def describe(self) -> dict[str, object]:
        return {"pid": self.pid, "uid": self.uid, "gid": self.gid, "groups": list(self.groups)}


def peer_of(sock: socket.socket) -> Peer:
    creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    pid, uid, gid = struct.unpack("3i", creds)
    try:
        raw = sock.getsockopt(socket.SOL_SOCKET, _SO_PEERGROUPS, _GROUPS_BUFFER)
    except OSError as exc:
        if exc.errno != errno.ERANGE:
            raise
        raw = b""  # more groups than the buffer holds: uid and primary group only
    groups = struct.unpack(f"{len(raw) // 4}I", raw)
    return Peer(pid, uid, gid, tuple(sorted(groups)))


@dataclass(frozen=True, slots=True)
class Access:
    """Who may connect to one socket (a user in ``uids``, or a member of a group in
    ``gids``, primary or supplementary; nobody when both are empty), and the group the
    socket file is given (mode 0660). Users and groups by number or by name."""

    uids: tuple[int | str, ...] = ()
    gids: tuple[int | str, ...] = ()
    group: int | str | None = None


@dataclass(frozen=True, slots=True)
class Policy:
    """An ``Access`` with its users and groups resolved to numbers, once, at start."""

    uids: frozenset[int]
    gids: frozenset[int]
    group: int | None

    @classmethod
    def of(cls, socket_name: str, access: Access) -> Policy:
        return cls(
            frozenset(_uid(socket_name, u) for u in access.uids),
            frozenset(_gid(socket_name, g) for g in access.gids),
            None if access.group is None else _gid(socket_name, access.group),
        )

    def allows(self, peer: Peer) -> bool:
        return peer.uid in self.uids or not self.gids.isdisjoint({peer.gid, *peer.groups})


def _uid(socket_name: str, user: int | str) -> int:
    return _number(socket_name, "user", user, lambda name: pwd.getpwnam(name).pw_uid)


def _gid(socket_name: str, group: int | str) -> int:
    return _number(socket_name, "group", group, lambda name: grp.getgrnam(name).gr_gid)


def _number(socket_name: str, kind: str, given: int | str, lookup: Callable[[str], int]) -> int:
    """A user's or group's number: ``given`` itself, or its name looked up."""
    if isinstance(given, int):
        return given
    try:
        return lookup(given)
    except KeyError:
        raise ApiError(f"{socket_name} socket: no such {kind} {given!r}") from None
