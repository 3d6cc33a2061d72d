"""Between the bridge and the browsers: the digest of the stream (digest.py), and one
bounded queue per open page, each sent its page's view after every batch of entries."""

from __future__ import annotations

import asyncio
import itertools
import json
from pathlib import Path
from typing import Any, Final

from aiohttp import web

from controller.boards.history import history
from controller.journal import JournalError
from controller.web.bridge import Bridge, DaemonError, Entry
from controller.web.models import Models

QUEUE: Final = 64  # updates a page may fall behind before it is disconnected
VIEWS: Final = {
    "scoreboard": Models.scoreboard_view,
    "dealer": Models.table_view,
    "floor": Models.table_view,
    "pit": Models.pit_view,
}


def _reader(journal: Path | None) -> Any:
    """What the journal holds after one seq up to another (``None``: to its end); none
    without a journal."""

    def read(after: int, upto: int | None) -> list[tuple[int, Entry, float]]:
        if journal is None:
            return []
        try:
            rows = history(journal, after)
            if upto is None:  # the daemon away: all the journal holds
                return list(rows)
            return list(itertools.takewhile(lambda row: row[0] <= upto, rows))
        except JournalError:
            return []

    return read


class Hub:
    def __init__(
        self, runtime_dir: Path, journal: Path | None, shift_starts: tuple[int, ...]
    ) -> None:
        self.shift_starts = shift_starts
        self.models = Models(shift_starts)
        self.journal = journal
        self.status: dict[str, Any] | None = None
        self.bridge = Bridge(runtime_dir, self._feed, self._updated, _reader(journal), self._reset)
        self._pages: dict[asyncio.Queue[str | None], str] = {}
        self._commands: dict[str, Any] = {}

    def _feed(self, seq: int, entry: Entry, at: float | None) -> None:
        self.models.feed(seq, entry, at)

    def _reset(self) -> None:
        self.models = Models(self.shift_starts)

    def message(self, page: str) -> str:
        view = VIEWS[page](self.models)
        status = self.status if page != "scoreboard" else _public(self.status)
        return json.dumps(
            {
                "type": "update",
                "page": page,
                "connected": self.bridge.connected,
                "status": status,
                "view": view,
            },
            default=str,
        )

    def join(self, page: str) -> asyncio.Queue[str | None]:
        queue: asyncio.Queue[str | None] = asyncio.Queue(QUEUE)
        self._pages[queue] = page
        queue.put_nowait(self.message(page))
        return queue

    def leave(self, queue: asyncio.Queue[str | None]) -> None:
        self._pages.pop(queue, None)

    async def _updated(self, table: dict[str, Any] | None) -> None:
        self.status = table
        if table is not None:
            self.models.know(table.get("game"))
        texts = {page: self.message(page) for page in set(self._pages.values())}
        for queue, page in list(self._pages.items()):
            try:
                queue.put_nowait(texts[page])
            except asyncio.QueueFull:
                self.leave(queue)
                while not queue.empty():
                    queue.get_nowait()
                queue.put_nowait(None)

    async def commands(self, role: str) -> dict[str, Any]:
        """The role's commands as the running daemon lists them (``hello``)."""
        if role not in self._commands:
            try:
                reply = await self.bridge.hello(role)
            except (DaemonError, OSError, ValueError) as exc:
                return {"error": str(exc)}
            self._commands[role] = reply.get("commands", {})
        return {"commands": self._commands[role]}

    async def verify(self) -> dict[str, Any]:
        if self.journal is None:
            return {"ok": False, "text": "the web was started without --journal"}
        from controller.journal import JournalError, verify

        try:
            verdict = await asyncio.to_thread(verify, self.journal)
        except JournalError as exc:
            return {"ok": False, "text": str(exc)}
        lines = [f"{self.journal}: {p}" for p in verdict.problems]
        return {
            "ok": not verdict.problems,
            "text": "\n".join(lines) or f"{self.journal}: {verdict.rows} rows, chain intact",
        }


def _public(table: dict[str, Any] | None) -> dict[str, Any] | None:
    """What the players' screen shows of the status: the table's state and shoe."""
    if table is None:
        return None
    return {key: table.get(key) for key in ("id", "game", "state", "shoe", "round")}


HUB: Final = web.AppKey("hub", Hub)
