"""The daemon's live view of the table, built from the table's journal entries only:
what the table wrote is all it shows, so the hole card is a card back until the
table's ``reveal`` entry (551.8(e)).

On a terminal (rich): the table model's view (controller/tableview) drawn by
controller/daemon/screen.py in 80 columns and 24 lines, redrawn at most every
``REFRESH`` seconds; a round's result stays on screen at least ``HOLD`` seconds, or
until the next round starts, whichever is later. While it draws, the daemon's log
goes to a file (controller/daemon/logaside.py), whose path the screen shows. Asked for
(``plain``, ``tablectl run --plain``): one plain line per journal entry,
``TYPE key=value ...``, which is what tests and pipes read. Anywhere else nothing at
all (nobody looks: the journal and events.sock have every row; under systemd stdout
is journald's, where the daemon's log is JSON lines: docs/operations.md, "Logs").
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TextIO

from controller.daemon.screen import render
from controller.tableview import TableModel
from controller.tableview.words import rounds_words

# rich is imported by the terminal's view alone, when it starts: a daemon whose stdout
# is not a terminal (a service's) never loads it.
if TYPE_CHECKING:
    from rich.console import Group
    from rich.live import Live

REFRESH = 0.1  # seconds between two redraws on a terminal
HOLD = 3.0  # seconds a round's result stays on screen at least

# Fields left out of a plain line: a snapshot's state is for the restart, not a reader.
_UNSHOWN = {"snapshot": ("table", "recovery")}


def plain_line(entry: Mapping[str, object]) -> str:
    """One journal entry as one line: its type, then its fields as compact JSON values."""
    unshown = ("type", *_UNSHOWN.get(str(entry.get("type")), ()))
    fields = " ".join(
        f"{key}={json.dumps(value, separators=(',', ':'), default=str)}"
        for key, value in entry.items()
        if key not in unshown
    )
    return f"{entry.get('type')} {fields}".rstrip()


class LiveView:
    """Follows the table's journal (``observe`` is a journal watcher) and the devices'
    health (``health``, kept by the daemon); ``refresh`` from the table's thread."""

    def __init__(
        self,
        out: TextIO,
        title: str,
        health: Mapping[str, str],
        *,
        game: str = "baccarat",
        tty: bool | None = None,
        plain: bool = False,
    ) -> None:
        self._out = out
        self._plain = plain
        self._tty = not plain and (out.isatty() if tty is None else tty)
        self._title = title
        self._health = health
        self.model = TableModel(game)
        self.log_path: str | None = None  # where the log goes while the view draws
        self._seq = 0
        self._status = ""
        self._held: tuple[dict[str, Any], float] | None = None  # a result, and when
        self._live: Live | None = None
        self._drawn_at = 0.0
        self._started = self._finished = False

    @property
    def tty(self) -> bool:
        """Whether the view is to be drawn on a terminal (it owns the terminal)."""
        return self._tty

    @property
    def rounds(self) -> int:
        return self.model.rounds_played

    # ------------------------------------------------------------------ input

    def observe(self, entry: Mapping[str, object]) -> None:
        self._seq += 1
        if self._plain:
            print(plain_line(entry), file=self._out, flush=True)
        self.model.feed(self._seq, entry)
        if self._tty and entry.get("type") in ("round_end", "wagers_returned"):
            self._held = (self.model.view(), time.monotonic())

    def state(self, text: str) -> None:
        """The daemon's status line (STATUS=): shown only until the journal says more."""
        self._status = text

    def shown(self, now: float | None = None) -> dict[str, Any]:
        """The view drawn now: the model's, except that a finished round's table and
        result stay ``HOLD`` seconds after its end even if the next round has begun."""
        view = self.model.view()
        for name, health in self._health.items():
            view["devices"].setdefault(name, {"health": health, "words": health})
        if view["result"] is None and self._held is not None:
            held, since = self._held
            if (time.monotonic() if now is None else now) - since < HOLD:
                for key in ("round", "wagers", "hands", "result"):
                    view[key] = held[key]
            else:
                self._held = None
        return view

    # ------------------------------------------------------------------ output

    def start(self) -> None:
        self._started = True
        if self._tty:
            from rich.console import Console
            from rich.live import Live

            console = Console(file=self._out, force_terminal=True)
            # The log is never drawn over the view: it goes to a file (logaside.py).
            self._live = Live(
                self._render(), console=console, auto_refresh=False, redirect_stderr=False
            )
            self._live.start()

    @property
    def drawing(self) -> bool:
        """Whether the view is drawn on a terminal (``refresh`` needs a pass of the loop
        after each change)."""
        return self._live is not None

    def refresh(self) -> None:
        now = time.monotonic()
        if self._live is None or now - self._drawn_at < REFRESH:
            return
        self._drawn_at = now
        self._live.update(self._render(), refresh=True)

    def finish(self) -> None:
        """Once, after ``start``: the last frame, then the last line."""
        if self._finished or not self._started:
            return
        self._finished = True
        if self._live is not None:
            self._live.update(self._render(), refresh=True)
            self._live.stop()
            self._live = None
        if self._tty or self._plain:  # elsewhere (journald's) stdout is for no one
            stopped = rounds_words(self.rounds).replace(" played", "")
            log = f"; log: {self.log_path}" if self.log_path else ""
            print(f"stopped after {stopped}{log}", file=self._out, flush=True)

    def _render(self) -> Group:
        height = self._live.console.height if self._live is not None else 24
        return render(self.shown(), self._title, self._status, self.log_path, min(height, 24))
