"""The daemon's live view of the table, built from the table's journal entries only:
what the table wrote is all it shows, so the hole card is a card back until the
table's ``reveal`` entry (551.8(e)).

On a terminal (rich): the layout (seats or boxes with their wagers), the cards as
dealt, the dealer's prompts, each device's health, the last faults and refusals with
their section, the round count, redrawn at most every ``REFRESH`` seconds. Asked for
(``plain``, ``tablectl run --plain``): one plain line per journal entry,
``TYPE key=value ...``, which is what tests and pipes read. Anywhere else nothing at
all (nobody looks: the journal and events.sock have every row; under systemd stdout
is journald's, where the daemon's log is JSON lines: docs/operations.md, "Logs").
"""

from __future__ import annotations

import json
import time
from collections import deque
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, TextIO

# rich is imported by the terminal's view alone, when it starts: a daemon whose stdout
# is not a terminal (a service's) never loads it.
if TYPE_CHECKING:
    from rich.console import Group
    from rich.live import Live
    from rich.text import Text

CARD_BACK = "▒▒"  # a card dealt face down and not revealed
REFRESH = 0.1  # seconds between two redraws on a terminal
NOTES = 6  # the last faults and refusals shown
_SUITS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
_NOTED = ("halt", "refused", "irregularity", "internal_error", "floor_clear", "shuffle_failed")


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


def _card(value: object) -> Text:
    from rich.text import Text

    if not isinstance(value, str) or len(value) != 2:
        return Text(CARD_BACK, style="blue")
    red = value[1] in "HD"
    return Text(value[0] + _SUITS.get(value[1], value[1]), style="bold red" if red else "bold")


class LiveView:
    """Follows the table's journal (``observe`` is a journal watcher) and the devices'
    health (``health``, kept by the daemon); ``refresh`` from the table's thread."""

    def __init__(
        self,
        out: TextIO,
        title: str,
        health: Mapping[str, str],
        *,
        tty: bool | None = None,
        plain: bool = False,
    ) -> None:
        self._out = out
        self._plain = plain
        self._tty = not plain and (out.isatty() if tty is None else tty)
        self._title = title
        self._health = health
        self.rounds = 0
        self._round: object = None
        self._wagers: dict[str, list[str]] = {}  # seat or box -> "bet amount"
        self._hands: dict[str, list[object]] = {}  # "player", "banker", "dealer", "box 1.1"
        self._result = ""
        self._prompt = ""
        self._notes: deque[str] = deque(maxlen=NOTES)
        self._state = ""
        self._live: Live | None = None
        self._drawn_at = 0.0
        # What each type of entry changes in the view; any other changes nothing.
        self._follow: dict[str, Callable[[Mapping[str, object]], None]] = {
            "wager": self._wager,
            "dealt": self._dealt,
            "reveal": self._reveal,
            "round_end": self._round_end,
            "prompt": self._prompted,
            **dict.fromkeys(_NOTED, self._noted),
        }

    # ------------------------------------------------------------------ input

    def observe(self, entry: Mapping[str, object]) -> None:
        kind = entry.get("type")
        if self._plain:
            print(plain_line(entry), file=self._out, flush=True)
        elif not self._tty:  # nobody looks: only the rounds, for the last line
            if kind == "round_end":
                self.rounds += 1
            return
        follow = self._follow.get(str(kind))
        if follow is not None:
            follow(entry)

    def _wager(self, entry: Mapping[str, object]) -> None:
        self._new_round(entry.get("round"))
        where = entry.get("box", entry.get("seat"))
        self._wagers.setdefault(str(where), []).append(f"{entry.get('bet')} {entry.get('amount')}")

    def _dealt(self, entry: Mapping[str, object]) -> None:
        self._new_round(entry.get("round"))
        self._hands.setdefault(self._hand_name(entry), []).append(entry.get("card"))

    def _reveal(self, entry: Mapping[str, object]) -> None:
        dealer = self._hands.get("dealer", [])
        hidden = [i for i, c in enumerate(dealer) if c is None]
        if hidden:
            dealer[hidden[0]] = entry.get("card")

    def _round_end(self, entry: Mapping[str, object]) -> None:
        self.rounds += 1
        self._result = self._outcome(entry)

    def _prompted(self, entry: Mapping[str, object]) -> None:
        self._prompt = str(entry.get("text"))

    def _noted(self, entry: Mapping[str, object]) -> None:
        self._notes.append(self._note(entry))

    def state(self, text: str) -> None:
        """The table's state line (the daemon's STATUS text)."""
        self._state = text

    def _new_round(self, number: object) -> None:
        if number != self._round:
            self._round = number
            self._wagers, self._hands, self._result = {}, {}, ""

    @staticmethod
    def _hand_name(entry: Mapping[str, object]) -> str:
        to = entry.get("to")
        if to is None:  # Baccarat: the Player's or the Banker's Hand
            return str(entry.get("hand"))
        if to == "dealer":
            return "dealer"
        return f"box {to}.{entry.get('hand', 1)}"

    @staticmethod
    def _outcome(entry: Mapping[str, object]) -> str:
        if entry.get("void"):
            return f"round {entry.get('round')} void"
        if "result" in entry:
            return f"round {entry.get('round')}: {entry.get('result')} wins"
        return f"round {entry.get('round')}: dealer {entry.get('dealer_total')}"

    @staticmethod
    def _note(entry: Mapping[str, object]) -> str:
        kind = entry.get("type")
        section = entry.get("section")
        what = entry.get("reason") or entry.get("detail") or entry.get("cause") or ""
        if kind == "refused":
            what = f"{entry.get('command') or entry.get('event')}: {what}"
        elif kind == "floor_clear":
            causes = entry.get("causes")
            what = ", ".join(str(c) for c in causes) if isinstance(causes, list) else ""
        return f"{kind} {what}" + (f" ({section})" if section else "")

    # ------------------------------------------------------------------ output

    def start(self) -> None:
        if self._tty:
            from rich.console import Console
            from rich.live import Live

            console = Console(file=self._out, force_terminal=True)
            self._live = Live(self._render(), console=console, auto_refresh=False)
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
        if self._live is not None:
            self._live.update(self._render(), refresh=True)
            self._live.stop()
            self._live = None
        if self._tty or self._plain:  # elsewhere (journald's) stdout is for no one
            print(f"stopped after {self.rounds} rounds", file=self._out, flush=True)

    def _render(self) -> Group:
        from rich.console import Group
        from rich.panel import Panel
        from rich.table import Table
        from rich.text import Text

        header = Text(f"{self._title} · rounds played {self.rounds}", style="bold")
        layout = Table(box=None, show_header=True, header_style="dim")
        layout.add_column("place")
        layout.add_column("wagers")
        for where in sorted(self._wagers, key=lambda w: int(w) if w.isdigit() else 0):
            layout.add_row(where, ", ".join(self._wagers[where]))
        cards = Table(box=None, show_header=False)
        cards.add_column("hand")
        cards.add_column("cards")
        for hand, dealt in self._hands.items():
            cards.add_row(hand, Text(" ").join(_card(c) for c in dealt))
        devices = Table(box=None, show_header=False)
        for name, health in self._health.items():
            style = "green" if health == "connected" else "bold red"
            devices.add_row(name, Text(health, style=style))
        return Group(
            header,
            Text(self._state, style="dim"),
            Panel(Group(layout, cards, Text(self._result)), title="table"),
            Panel(Text(self._prompt or "-", style="bold yellow"), title="dealer's prompt"),
            Panel(devices, title="devices"),
            Panel(Text("\n".join(self._notes) or "-"), title="faults and refusals"),
            Text("Ctrl-C stops", style="dim"),
        )
