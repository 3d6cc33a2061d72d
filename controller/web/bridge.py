"""The web process's one link to the daemon: Unix sockets only (docs/api.md).

One subscription to ``events.sock`` feeds every browser; after each batch of entries
the table's ``status`` is asked for again (on a second connection, so replies and
the stream never interleave). Each command opens the socket of the sender's role,
sends one ``command`` line with the login and waits for its ``result``. An entry in
which a sealed card carries a value is dropped here too (551.8(e)): the API withholds
it already, and the web never relays one whatever the daemon sends."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Final

import structlog

from controller.api.sealed import carries_sealed_card

log = structlog.get_logger("tablectl.web")

REPLY_TIMEOUT: Final = 10.0  # seconds for a command's result
RECONNECT_PAUSE: Final = 1.0
MAX_LINE: Final = 1 << 20
STATUS_TRIES: Final = 50
STATUS_PAUSE: Final = 0.02

Entry = dict[str, Any]
OnEntry = Callable[[int, Entry, float | None], None]
History = Callable[[int, int | None], list[tuple[int, Entry, float]]]
OnStatus = Callable[[dict[str, Any] | None], Awaitable[None]]


class DaemonError(Exception):
    """The daemon could not be asked (no socket, closed, no answer): one line."""


async def _open(path: Path) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    try:
        return await asyncio.open_unix_connection(str(path), limit=MAX_LINE)
    except FileNotFoundError:
        raise DaemonError(f"{path.name}: no such socket: is the daemon running?") from None
    except OSError as exc:
        raise DaemonError(f"{path.name}: cannot connect: {exc.strerror or exc}") from None


async def _line(reader: asyncio.StreamReader, timeout: float | None) -> dict[str, Any]:
    raw = await asyncio.wait_for(reader.readline(), timeout)
    if not raw:
        raise DaemonError("the daemon closed the connection")
    message = json.loads(raw)
    if not isinstance(message, dict):
        raise DaemonError("the daemon sent something that is not an object")
    return message


def _send(writer: asyncio.StreamWriter, message: dict[str, Any]) -> None:
    writer.write(json.dumps({"v": 1, **message}, separators=(",", ":")).encode() + b"\n")


async def ask(path: Path, message: dict[str, Any], answer: str) -> dict[str, Any]:
    """One request on a new connection and its reply of type ``answer``."""
    reader, writer = await _open(path)
    try:
        _send(writer, message)
        while True:
            reply = await _line(reader, REPLY_TIMEOUT)
            if reply.get("type") in (answer, "error"):
                return reply
    except TimeoutError:
        raise DaemonError(f"{path.name}: no answer within {REPLY_TIMEOUT:g} s") from None
    finally:
        writer.close()


class Bridge:
    """The stream from ``events.sock`` to ``on_entry`` and ``on_status``, kept up
    while the web runs (reconnecting when the daemon restarts); commands to the
    role's socket."""

    def __init__(
        self,
        runtime_dir: Path,
        on_entry: OnEntry,
        on_status: OnStatus,
        history: History,
        on_reset: Callable[[], None],
    ) -> None:
        self.runtime_dir = runtime_dir
        self._on_entry = on_entry
        self._on_status = on_status
        self._history = history
        self._on_reset = on_reset
        self.last_seq = 0
        self._status_wanted = asyncio.Event()
        self.connected = False

    def socket(self, name: str) -> Path:
        return self.runtime_dir / f"{name}.sock"

    async def run(self) -> None:
        """Stream until cancelled."""
        # What the journal holds already, so the pages show the table (its last shoe,
        # its shift) even while the daemon is away; the stream goes on after it.
        for seq, entry, at in await asyncio.to_thread(self._history, 0, None):
            self._feed(seq, entry, at)
        status = asyncio.create_task(self._statuses())
        self._status_wanted.set()
        said = ""
        try:
            while True:
                try:
                    await self._stream()
                except (DaemonError, OSError, ValueError) as exc:
                    if str(exc) != said:  # once, not at every try while it lasts
                        log.warning("web_daemon_unreachable", reason=str(exc))
                    said = str(exc)
                if self.connected:
                    said = ""
                self.connected = False
                self._status_wanted.set()
                await asyncio.sleep(RECONNECT_PAUSE)
        finally:
            status.cancel()

    def _feed(self, seq: int, entry: Entry, at: float | None = None) -> None:
        if seq <= self.last_seq:
            return
        self.last_seq = seq
        if carries_sealed_card(entry):  # 551.8(e): never relayed
            log.error("web_entry_withheld", seq=seq, entry_type=entry.get("type"))
            return
        self._on_entry(seq, entry, at)

    async def _stream(self) -> None:
        reader, writer = await _open(self.socket("events"))
        try:
            _send(writer, {"op": "subscribe"})
            reply = await _line(reader, REPLY_TIMEOUT)
            if reply.get("type") != "subscribed":
                raise DaemonError(f"events.sock: {reply.get('message', 'no subscription')}")
            # What the journal holds up to the subscription, then the stream after it.
            upto = reply.get("last_seq")
            if (upto or 0) < self.last_seq:  # another journal (a new simulated table)
                log.warning("web_journal_changed", last_seq=self.last_seq, now=upto)
                self.last_seq = 0
                self._on_reset()
            if upto is not None:
                for seq, entry, at in await asyncio.to_thread(self._history, self.last_seq, upto):
                    self._feed(seq, entry, at)
            self.connected = True
            self._status_wanted.set()
            while True:
                message = await _line(reader, None)
                if message.get("type") == "event":
                    self._feed(int(message["seq"]), message["entry"])
                    self._status_wanted.set()
                elif message.get("type") == "overflow":
                    raise DaemonError("events.sock: the web fell behind the stream")
        finally:
            writer.close()

    async def _statuses(self) -> None:
        while True:
            await self._status_wanted.wait()
            self._status_wanted.clear()
            await self._on_status(await self._status() if self.connected else None)

    async def _status(self) -> dict[str, Any] | None:
        """The table's snapshot, asked again (for a while) until it is as of the last
        entry streamed: the daemon sets it after each input, the entries go out as
        they commit, so a status asked on an entry may be a moment behind it."""
        table: dict[str, Any] | None = None
        for _ in range(STATUS_TRIES):
            try:
                reply = await ask(self.socket("events"), {"op": "status"}, "status")
            except (DaemonError, OSError, ValueError) as exc:
                log.warning("web_status_failed", reason=str(exc))
                return table
            table = reply.get("table")
            if table is None or table.get("seq", self.last_seq) >= self.last_seq:
                return table
            await asyncio.sleep(STATUS_PAUSE)
        return table

    async def hello(self, role: str) -> dict[str, Any]:
        return await ask(self.socket(role), {"op": "hello"}, "hello")

    async def command(
        self, role: str, name: str, args: dict[str, Any], login: str
    ) -> dict[str, Any]:
        """The ``result`` (or ``error``) of one command sent on the role's socket,
        with the login that sent it (journaled by the daemon)."""
        request = {"op": "command", "name": name, "args": args, "id": 1, "login": login}
        return await ask(self.socket(role), request, "result")
