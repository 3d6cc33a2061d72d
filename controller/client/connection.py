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


def api_error(path: Path, reply: Mapping[str, Any], status: int) -> ClientError:
    """The error an API ``error`` reply ends the command with: ``status``, unless the
    daemon cannot serve us now."""
    code = reply.get("code")
    if code in _DAEMON_SIDE:
        status = EXIT_FAILURE
    return ClientError(f"{path}: {reply.get('message')} ({code})", status)


class Connection:
    """One connection to a daemon socket, reading JSON lines."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock.settimeout(REPLY_TIMEOUT)
        self._buffer = b""
        try:
            self._sock.connect(str(path))
        except FileNotFoundError:
            self._fail("no such socket: is the daemon running?")
        except ConnectionRefusedError:
            self._fail("nobody listens: is the daemon running?")
        except PermissionError:
            self._fail("permission denied")
        except (TimeoutError, BlockingIOError):
            self._fail("the daemon does not accept connections")
        except OSError as exc:
            self._fail(f"cannot connect: {exc.strerror or exc}")

    def _fail(self, reason: str) -> None:
        self._sock.close()
        raise ClientError(f"{self.path}: {reason}", EXIT_FAILURE)

    def __enter__(self) -> Connection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._sock.close()

    def send(self, line: str) -> None:
        try:
            self._sock.sendall(line.encode("utf-8") + b"\n")
        except OSError as exc:
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
