"""A live terminal view of the devices and the cards read, redrawn in place on a TTY
and written as one line per event otherwise."""

from __future__ import annotations

from collections import deque
from typing import TextIO

from drivers import messages as m

_SUIT = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


class LiveView:
    def __init__(self, out: TextIO, devices: list[str]) -> None:
        self._out = out
        self._tty = out.isatty()
        self._health: dict[str, str] = {name: "connecting" for name in devices}
        self._cards: deque[str] = deque(maxlen=26)
        self._count = 0
        self._notes: deque[str] = deque(maxlen=6)
        self._drawn_lines = 0

    def apply(self, event: m.Event) -> None:
        name = event.device
        line: str | None = None
        if isinstance(event, m.DeviceConnected):
            ident = f"{event.model} {event.serial} fw {event.firmware_version}"
            self._health[name] = f"connected  {ident}"
            line = f"{name}: connected ({event.model}, serial {event.serial})"
        elif isinstance(event, m.DeviceLost):
            self._health[name] = f"LOST: {event.reason}"
            line = f"{name}: lost ({event.reason})"
        elif isinstance(event, m.DeviceUnavailable):
            self._health[name] = f"unavailable: {event.reason}"
            line = f"{name}: unavailable ({event.reason})"
        elif isinstance(event, m.DeviceRefused):
            self._health[name] = f"REFUSED: {event.detail}"
            line = f"{name}: refused ({event.detail})"
        elif isinstance(event, m.CardDrawn):
            self._count += 1
            shown = event.rank + _SUIT[event.suit] + ("*" if event.face_up else "")
            self._cards.append(shown)
            line = f"card {self._count}: {event.rank}{event.suit}"
        elif isinstance(event, m.CutCardSeen):
            self._cards.append("CUT")
            line = "cut card"
        elif isinstance(event, m.ShoeEmpty):
            line = "shoe empty"
        elif isinstance(event, m.SelfTestResult):
            line = f"{name}: self-test {'passed' if event.ok else f'FAILED code {event.code}'}"
        elif isinstance(event, m.ShuffleCompleted):
            line = f"{name}: shuffle completed, {event.card_count} cards"
        elif isinstance(event, m.BatchReady):
            line = f"{name}: batch ready, {event.card_count} cards"
        elif isinstance(event, m.CardsLoaded):
            line = f"{name}: {event.count} cards loaded"
        else:
            line = f"{name}: {type(event).__name__}"
        if self._tty:
            self._notes.append(line)
        else:
            print(line, file=self._out, flush=True)

    def draw(self) -> None:
        if not self._tty:
            return
        lines = ["tablectl — simulated table (Ctrl-C to stop)", ""]
        lines += [f"  {name:<9} {state}" for name, state in self._health.items()]
        lines += ["", f"  cards read: {self._count}", "  " + " ".join(self._cards), ""]
        lines += [f"  {note}" for note in self._notes]
        if self._drawn_lines:
            self._out.write(f"\x1b[{self._drawn_lines}F")
        self._out.write("".join(f"\x1b[2K{line}\n" for line in lines))
        self._out.flush()
        self._drawn_lines = len(lines)

    def finish(self) -> None:
        if self._tty:
            self.draw()
        print(f"stopped after {self._count} cards", file=self._out, flush=True)
