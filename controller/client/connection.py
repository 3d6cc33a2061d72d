"""The client's connection to one daemon socket, reading the API's JSON lines, and
how a command ends: a ``ClientError``, its one line and its exit code."""

from __future__ import annotations

import argparse
import json
import os
import socket
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from controller.api.wire import VERSION
from controller.errors import EXIT_FAILURE, TablectlError

EXIT_REFUSED: Final = 3  # the table refused the command (its section and reason shown)

DEFAULT_RUNTIME_DIR: Final = "/run/tablectl"
RUNTIME_DIR_ENV: Final = "TABLECTL_RUNTIME_DIR"
REPLY_TIMEOUT: Final = 5.0  # seconds for the daemon to answer a request
CONNECT_PATIENCE: Final = 2.0  # seconds a refused or crowded connect is tried again
RETRY_PAUSE: Final = 0.02  # the first pause between tries, doubled each time
MAX_RETRY_PAUSE: Final = 0.25
CROWDED: Final = "too_many_clients"  # the daemon serves as many clients as it may
_QUEUE_FULL: Final = "the daemon does not accept connections: its queue of them is full"

# The API's error codes that say the daemon cannot serve us now, not that we asked wrong.
_DAEMON_SIDE: Final = frozenset({"busy", "not_allowed", "journal_broken"})


class ClientError(TablectlError):
    """The command ends here: ``message`` is its one line, ``status`` its exit code."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


class NoAnswer(ClientError):
    """The daemon said nothing for the time given."""


def runtime_dir(args: argparse.Namespace) -> Path:
    given = args.runtime_dir or os.environ.get(RUNTIME_DIR_ENV) or DEFAULT_RUNTIME_DIR
    return Path(given)


def _connect_failure(exc: OSError) -> str:
    if isinstance(exc, FileNotFoundError):
        return "no such socket: is the daemon running?"
    if isinstance(exc, PermissionError):
        return "permission denied"
    if isinstance(exc, TimeoutError):
        return "the daemon does not accept connections"
    return f"cannot connect: {exc.strerror or exc}"


def api_error(path: Path, reply: Mapping[str, Any], status: int) -> ClientError:
    """The error an API ``error`` reply ends the command with: ``status``, unless the
    daemon cannot serve us now."""
    code = reply.get("code")
    if code in _DAEMON_SIDE:
        status = EXIT_FAILURE
    return ClientError(f"{path}: {reply.get('message')} ({code})", status)


class Connection:
    """One connection to a daemon socket, reading JSON lines.

    A connect the daemon refuses for now (its queue of connections full, or nobody
    listening yet: a daemon restarting) is tried again for ``CONNECT_PATIENCE``
    seconds, and so is one the daemon answers ``too_many_clients`` before any other
    reply: then the lines sent so far, which the daemon never read, are sent again on
    a new connection. After that, one line says why."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._buffer = b""
        self._deadline = time.monotonic() + CONNECT_PATIENCE
        self._pause = RETRY_PAUSE
        self._unanswered: list[bytes] | None = []  # sent before the first reply
        self._sock = self._connect()

    def _connect(self) -> socket.socket:
        while True:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.settimeout(REPLY_TIMEOUT)
            try:
                sock.connect(str(self.path))
            except (BlockingIOError, ConnectionRefusedError) as exc:
                sock.close()
                busy = isinstance(exc, BlockingIOError)
                self._wait(_QUEUE_FULL if busy else "nobody listens: is the daemon running?")
                continue
            except OSError as exc:
                sock.close()
                raise ClientError(f"{self.path}: {_connect_failure(exc)}", EXIT_FAILURE) from None
            return sock

    def _wait(self, reason: str, code: str | None = None) -> None:
        """Pause before the next try, or end the command: ``reason`` did not pass."""
        if time.monotonic() + self._pause > self._deadline:
            tried = f"tried for {CONNECT_PATIENCE:g} s"
            suffix = f"({code}; {tried})" if code else f"({tried})"
            raise ClientError(f"{self.path}: {reason} {suffix}", EXIT_FAILURE)
        time.sleep(self._pause)
        self._pause = min(self._pause * 2, MAX_RETRY_PAUSE)

    def _again(self, crowded: Mapping[str, Any]) -> None:
        """The daemon served too many clients: a new connection, what was sent resent."""
        self._wait(str(crowded.get("message")), CROWDED)
        self._sock.close()
        self._sock = self._connect()
        self._buffer = b""
        for data in self._unanswered or ():
            self._sendall(data)

    def __enter__(self) -> Connection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._sock.close()

    def send(self, line: str) -> None:
        data = line.encode("utf-8") + b"\n"
        if self._unanswered is not None:
            self._unanswered.append(data)
        self._sendall(data)

    def _sendall(self, data: bytes) -> None:
        try:
            self._sock.sendall(data)
        except OSError as exc:
            if self._unanswered is not None:
                return  # maybe a line waits that says why (too_many_clients): receive reads it
            raise ClientError(
                f"{self.path}: the daemon closed the connection ({exc.strerror or exc})",
                EXIT_FAILURE,
            ) from None

    def request(self, message: Mapping[str, object]) -> dict[str, Any]:
        self.send(json.dumps({"v": VERSION, **message}))
        return self.receive(REPLY_TIMEOUT)

    def expect(self, message: Mapping[str, object], answer: str) -> dict[str, Any]:
        """The reply to ``message``, of type ``answer``; else the API's error, ended
        with ``EXIT_FAILURE``."""
        reply = self.request(message)
        if reply.get("type") != answer:
            raise api_error(self.path, reply, EXIT_FAILURE)
        return reply

    def receive(self, timeout: float | None) -> dict[str, Any]:
        """The next message; ``timeout`` None waits for ever. ClientError when the daemon
        closes the connection or stays silent for ``timeout`` seconds."""
        while True:
            message = self._message(timeout)
            if self._unanswered is None:
                return message
            if message.get("type") == "error" and message.get("code") == CROWDED:
                self._again(message)
                continue
            self._unanswered = None  # served: what follows is the daemon's answer
            return message

    def _message(self, timeout: float | None) -> dict[str, Any]:
        deadline = None if timeout is None else time.monotonic() + timeout
        while b"\n" not in self._buffer:
            self._buffer += self._recv(deadline, timeout)
        line, _, self._buffer = self._buffer.partition(b"\n")
        try:
            message = json.loads(line)
        except ValueError:
            raise ClientError(
                f"{self.path}: the daemon sent a line that is not JSON", EXIT_FAILURE
            ) from None
        if not isinstance(message, dict):
            raise ClientError(
                f"{self.path}: the daemon sent a line that is not an object", EXIT_FAILURE
            )
        return message

    def _recv(self, deadline: float | None, timeout: float | None) -> bytes:
        if deadline is None:
            self._sock.settimeout(None)
        else:
            self._sock.settimeout(max(0.001, deadline - time.monotonic()))
        try:
            data = self._sock.recv(65536)
        except TimeoutError:
            raise NoAnswer(f"{self.path}: no answer within {timeout:g} s", EXIT_FAILURE) from None
        except OSError:
            data = b""  # reset: closed as well
        if not data:
            raise ClientError(f"{self.path}: the daemon closed the connection", EXIT_FAILURE)
        return data
