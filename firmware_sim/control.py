"""The simulator's control channel: JSON lines over a Unix stream socket.

Request ``{"cmd": "...", ...fields}``; reply ``{"ok": true, ...}`` or
``{"ok": false, "error": "one line"}``. The server is non-blocking and driven by
the simulator's select loop; ``SimControl`` is a blocking client for tests and tools.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import stat
from collections.abc import Callable, Mapping
from types import TracebackType
from typing import Any

from firmware_sim.jsonenc import dict_encoder

Fields = Mapping[str, object]
Reply = dict[str, object]

MAX_LINE = 1 << 20  # a request longer than this is not a request: the client is dropped


class CommandError(Exception):
    """A control request the simulator refuses; the message is the one-line reply."""


class SimError(Exception):
    """Raised by clients when the simulator refuses a request or cannot be reached."""


# --------------------------------------------------------------------------- fields


def int_field(fields: Fields, name: str, lo: int, hi: int, default: int | None = None) -> int:
    value = fields.get(name, default)
    if value is None:
        raise CommandError(f'"{name}" is required')
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise CommandError(f'"{name}" must be an integer {lo}..{hi}')
    return value


def bool_field(fields: Fields, name: str) -> bool:
    value = fields.get(name)
    if not isinstance(value, bool):
        raise CommandError(f'"{name}" must be true or false')
    return value


def str_field(fields: Fields, name: str) -> str:
    value = fields.get(name)
    if not isinstance(value, str):
        raise CommandError(f'"{name}" must be a string')
    return value


def one_line(text: str) -> str:
    return " ".join(text.split())


# --------------------------------------------------------------------------- server


class _Client:
    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.inbuf = bytearray()
        self.outbuf = bytearray()


class ControlServer:
    """Accepts clients and answers each request line with ``handle(cmd, fields)``."""

    def __init__(self, path: str, handle: Callable[[str, Fields], Reply]) -> None:
        self.path = path
        self._handle = handle
        _claim_socket_path(path)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.bind(path)
            sock.listen(8)
        except OSError as exc:
            sock.close()
            raise ValueError(f"control socket {path}: {exc.strerror or exc}") from None
        sock.setblocking(False)
        self._listener = sock
        self._listen_fd = sock.fileno()
        self._clients: dict[int, _Client] = {}
        self._answered: list[int] = []  # clients with replies not yet sent (``flush``)

    def read_fds(self) -> list[int]:
        """A new list: the caller may add its own."""
        return [self._listen_fd, *self._clients]

    def write_fds(self) -> list[int]:
        return [fd for fd, c in self._clients.items() if c.outbuf]

    def on_readable(self, fd: int) -> None:
        if fd == self._listen_fd:
            self._accept()
            return
        client = self._clients.get(fd)
        if client is None:
            return
        try:
            data = client.sock.recv(65536)
        except BlockingIOError:
            return
        except OSError:
            self._drop(fd)
            return
        if not data:
            self._drop(fd)
            return
        client.inbuf += data
        while (nl := client.inbuf.find(b"\n")) >= 0:
            line = bytes(client.inbuf[:nl])
            del client.inbuf[: nl + 1]
            if line.strip():
                client.outbuf += _encode(self._answer(line))
        if len(client.inbuf) > MAX_LINE:
            client.outbuf += _encode(_error(f"request line longer than {MAX_LINE} bytes"))
            self._send(fd, client)
            self._drop(fd)
            return
        if client.outbuf:
            self._answered.append(fd)

    def flush(self) -> None:
        """Send the replies made since the last call (the owner's loop calls this once
        a turn, after its own output)."""
        answered, self._answered = self._answered, []
        for fd in answered:
            client = self._clients.get(fd)
            if client is not None:
                self._send(fd, client)

    def on_writable(self, fd: int) -> None:
        client = self._clients.get(fd)
        if client is not None:
            self._send(fd, client)

    def close(self) -> None:
        for fd, client in list(self._clients.items()):
            self._send(fd, client)  # best effort: e.g. the reply to "quit"
            self._drop(fd)
        self._listener.close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)

    def _accept(self) -> None:
        try:
            sock, _ = self._listener.accept()
        except OSError:
            return
        sock.setblocking(False)
        self._clients[sock.fileno()] = _Client(sock)

    def _answer(self, line: bytes) -> Reply:
        try:
            request = _loads(line)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            return _error(f"request is not JSON: {exc}")
        if not isinstance(request, dict):
            return _error("a request is a JSON object")
        cmd = request.pop("cmd", None)
        if not isinstance(cmd, str):
            return _error('a request needs a "cmd" string')
        try:
            return {"ok": True, **self._handle(cmd, request)}
        except CommandError as exc:
            return _error(str(exc))

    def _send(self, fd: int, client: _Client) -> None:
        if not client.outbuf:
            return
        try:
            sent = client.sock.send(client.outbuf)
        except BlockingIOError:
            return
        except OSError:
            self._drop(fd)
            return
        del client.outbuf[:sent]

    def _drop(self, fd: int) -> None:
        client = self._clients.pop(fd, None)
        if client is not None:
            client.sock.close()


def _claim_socket_path(path: str) -> None:
    """Remove a stale socket left by a simulator that died; refuse a live one or a file."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISSOCK(mode):
        raise ValueError(f"control socket path {path} exists and is not a socket")
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(path)
    except OSError:
        os.unlink(path)
        return
    finally:
        probe.close()
    raise ValueError(f"control socket {path} is in use by another simulator")


def _error(text: str) -> Reply:
    return {"ok": False, "error": one_line(text)}


_REPLY_JSON = dict_encoder(separators=(",", ":"))
_DECODE = json.JSONDecoder().decode


def _loads(line: bytes) -> object:
    """``json.loads(line)``: an object's line with no NUL in its first four bytes is
    the UTF-8 that json's encoding detection would pick (decoded here without it)."""
    if line[:1] == b"{" and b"\0" not in line[:4]:
        return _DECODE(line.decode("utf-8", "surrogatepass"))
    return json.loads(line)


def _encode(reply: Reply) -> bytes:
    return _REPLY_JSON(reply).encode() + b"\n"


# --------------------------------------------------------------------------- client


class SimControl:
    """Blocking client of one simulator's control socket (connects on first use)."""

    def __init__(self, path: str | os.PathLike[str], timeout: float = 5.0) -> None:
        self.path = os.fspath(path)
        self.timeout = timeout
        self._sock: socket.socket | None = None
        self._buf = bytearray()

    def request(self, cmd: str, **fields: object) -> dict[str, Any]:
        """Send one request; its reply, or SimError when refused or unreachable."""
        line = json.dumps({"cmd": cmd, **fields}).encode() + b"\n"
        reply = self._exchange(line)
        if reply.get("ok") is not True:
            raise SimError(one_line(str(reply.get("error", f"{cmd}: malformed reply"))))
        return reply

    def _exchange(self, line: bytes) -> dict[str, Any]:
        try:
            sock = self._connect()
            sock.sendall(line)
            while (nl := self._buf.find(b"\n")) < 0:
                data = sock.recv(65536)
                if not data:
                    raise SimError(f"control socket {self.path}: simulator closed the connection")
                self._buf += data
        except OSError as exc:
            self.close()
            raise SimError(f"control socket {self.path}: {exc.strerror or exc}") from None
        except SimError:
            self.close()
            raise
        raw = bytes(self._buf[:nl])
        del self._buf[: nl + 1]
        try:
            reply = json.loads(raw)
        except ValueError:
            reply = None
        if not isinstance(reply, dict):
            raise SimError(f"control socket {self.path}: reply is not a JSON object")
        return reply

    def _connect(self) -> socket.socket:
        if self._sock is None:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.settimeout(self.timeout)
            try:
                sock.connect(self.path)
            except OSError:
                sock.close()
                raise
            self._sock = sock
            self._buf.clear()
        return self._sock

    def close(self) -> None:
        sock, self._sock = self._sock, None
        if sock is not None:
            sock.close()

    def __enter__(self) -> SimControl:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
