"""The simulator's control channel: JSON lines over a Unix stream socket.

Request ``{"cmd": "...", ...fields}``; reply ``{"ok": true, ...}`` or
``{"ok": false, "error": "one line"}``. The server is non-blocking and driven by
the simulator's select loop; ``SimControl`` is a blocking client for tests and tools
(and the simulated dealer's console, which posts its draws and reads their replies
later: ``post``, ``answer``).
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import socket
import stat
from collections import deque
from collections.abc import Callable, Mapping
from types import TracebackType
from typing import Any, NoReturn

from drivers.jsontext import encoder

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


_REPLY_JSON = encoder()
_DECODER = json.JSONDecoder()
_DECODE = _DECODER.decode
# What ``decode`` calls once past the leading white space (set in its __init__, not
# in typeshed's stub): (value, end) from an index.
_SCAN: Callable[[str, int], tuple[object, int]] = getattr(_DECODER, "scan_once")  # noqa: B009


def _loads(line: bytes) -> object:
    """``json.loads(line)``: an object's line with no NUL in its first four bytes is
    the UTF-8 that json's encoding detection would pick (decoded here without it), and
    one that is all the object is scanned without ``decode``'s look for white space
    around it (a line with more after the object: ``decode``'s value or error)."""
    if line[:1] == b"{" and b"\0" not in line[:4]:
        text = line.decode("utf-8", "surrogatepass")
        value, end = _SCAN(text, 0)  # an object or JSONDecodeError: never StopIteration
        return value if end == len(text) else _DECODE(text)
    return json.loads(line)


def _encode(reply: Reply) -> bytes:
    return _REPLY_JSON(reply).encode() + b"\n"


_REQUEST_JSON = encoder(separators=(", ", ": "))  # json.dumps's text


def _request_line(cmd: str, fields: Mapping[str, object]) -> bytes:
    return _REQUEST_JSON({"cmd": cmd, **fields}).encode() + b"\n"


def _checked(cmd: str, reply: dict[str, Any]) -> dict[str, Any]:
    """``reply``, or SimError with the simulator's one-line reason when it refused."""
    if reply.get("ok") is not True:
        raise SimError(one_line(str(reply.get("error", f"{cmd}: malformed reply"))))
    return reply


# --------------------------------------------------------------------------- client


class SimControl:
    """Blocking client of one simulator's control socket (connects on first use).

    ``request`` sends one request and returns its reply. ``post`` sends one without
    waiting; ``answer`` returns its reply later (replies come in the order the requests
    were sent: those ``request`` reads on its way to its own are kept for ``answer``).
    The socket is non-blocking (a socket with a timeout polls before each call): a
    request costs one ``send``, a reply already there (an answer, mostly) one ``recv``,
    one still to come a ``poll`` then a ``recv``; ``timeout`` bounds each wait.
    """

    def __init__(self, path: str | os.PathLike[str], timeout: float = 5.0) -> None:
        self.path = os.fspath(path)
        self.timeout = timeout
        self._sock: socket.socket | None = None
        self._readable: select.poll | None = None  # the socket's, once connected
        self._buf = bytearray()
        self._posted: deque[str] = deque()  # the requests posted, their replies unread
        self._answers: deque[dict[str, Any]] = deque()  # replies read, not yet answered

    def request(self, cmd: str, **fields: object) -> dict[str, Any]:
        """Send one request; its reply, or SimError when refused or unreachable."""
        self._send(_request_line(cmd, fields))
        while len(self._answers) < len(self._posted):
            self._answers.append(self._read(come=False))
        return _checked(cmd, self._read(come=False))

    def post(self, cmd: str, **fields: object) -> None:
        """Send one request without waiting for its reply (``answer``); SimError when
        the simulator cannot be reached."""
        self._send(_request_line(cmd, fields))
        self._posted.append(cmd)

    def answer(self) -> dict[str, Any] | None:
        """The reply to the oldest request posted and not yet answered (waiting for it),
        or SimError when refused; None when no request waits for its reply."""
        if not self._posted:
            return None
        reply = self._answers.popleft() if self._answers else self._read(come=True)
        return _checked(self._posted.popleft(), reply)

    def _send(self, line: bytes) -> None:
        sock = self._connect()
        view = memoryview(line)
        try:
            while view:
                try:
                    view = view[sock.send(view) :]
                except BlockingIOError:
                    self._wait(sock, select.POLLOUT)
        except OSError as exc:
            self._lost(exc)

    def _receive(self, come: bool) -> None:
        """One read from the socket into the buffer, waiting for it first unless it is
        likely to have ``come``."""
        sock, readable = self._sock, self._readable
        assert sock is not None and readable is not None  # connected by the request sent
        try:
            if not come and not readable.poll(self.timeout * 1000):
                raise TimeoutError("timed out")  # what a socket's own timeout says
            while True:
                try:
                    data = sock.recv(65536)
                    break
                except BlockingIOError:
                    self._wait(sock, select.POLLIN)
        except OSError as exc:
            self._lost(exc)
        if not data:
            self.close()
            raise SimError(f"control socket {self.path}: simulator closed the connection")
        self._buf += data

    def _wait(self, sock: socket.socket, events: int) -> None:
        poller = select.poll()
        poller.register(sock, events)
        if not poller.poll(self.timeout * 1000):
            raise TimeoutError("timed out")  # what a socket's own timeout says

    def _read(self, come: bool) -> dict[str, Any]:
        """The next reply line (waiting for it), decoded."""
        while (nl := self._buf.find(b"\n")) < 0:
            self._receive(come)
            come = False  # the rest of a line read in part is on its way
        raw = bytes(self._buf[:nl])
        del self._buf[: nl + 1]
        try:
            reply = _loads(raw)
        except ValueError:
            reply = None
        if not isinstance(reply, dict):
            raise SimError(f"control socket {self.path}: reply is not a JSON object")
        return reply

    def _lost(self, exc: OSError) -> NoReturn:
        self.close()
        raise SimError(f"control socket {self.path}: {exc.strerror or exc}") from None

    def _connect(self) -> socket.socket:
        if self._sock is None:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.settimeout(self.timeout)
            try:
                sock.connect(self.path)
            except OSError as exc:
                sock.close()
                self._lost(exc)
            sock.setblocking(False)
            self._sock = sock
            self._readable = select.poll()
            self._readable.register(sock, select.POLLIN)
            self._buf.clear()
            self._posted.clear()
            self._answers.clear()
        return self._sock

    def close(self) -> None:
        sock, self._sock, self._readable = self._sock, None, None
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
