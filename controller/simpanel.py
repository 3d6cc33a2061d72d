"""The simulated devices of a table played by hand (``tablectl run --simulate --manual
--workdir DIR``), as the dealer's panel works them: a synchronous client of the
firmware simulators' control sockets in ``DIR`` (``NAME.control``, JSON lines:
firmware_sim/control.py), for the web process (docs/manual.md).

Every method returns a JSON-able dict or raises ``PanelError`` with a one-line
message. No method takes or returns a card's value: the next cards are the shoe's, and
the hole card goes into the reader through the daemon's manual console, which saw it
leave the shoe (551.8(e)): ``insert_hole_card`` only asks for it.
"""

from __future__ import annotations

import json
import os
import socket
import time
from pathlib import Path
from typing import Any, Final

# The panel's request for the hole card, and the daemon's manual console's answer
# (controller/bench/manual.py), files in the work directory; neither holds a card.
REQUEST: Final = "insert-hole-card.request"
ANSWER: Final = "insert-hole-card.answer"  # {"ok": true} or {"ok": false, "error": ...}
MAX_REPLY: Final = 1 << 20  # bytes in one control reply at most
DEVICES: Final = ("shoe", "shuffler", "reader")
MAX_UNPLUG_MS: Final = 600_000
ANSWER_TIMEOUT: Final = 5.0  # the daemon's console looks for a request every 50 ms
# What ``status`` shows of each device: its link and what a person at the table sees.
# Never a card (the simulator's status holds none; this keeps it so).
_SHOWN: Final = {
    "shoe": ("cards_left", "display", "lid_open", "faulted"),
    "shuffler": ("shuffling", "attached", "door_open", "card_count", "faulted"),
    "reader": ("armed", "faulted"),
}
_LINK: Final = ("plugged", "connected", "silent")


class PanelError(Exception):
    """A request the simulated devices refused, or could not be reached for; one line."""


class SimulatedDevices:
    """The simulated devices in ``workdir``, reached through their control sockets."""

    def __init__(self, workdir: str | os.PathLike[str], timeout: float = 5.0) -> None:
        self.workdir = Path(workdir)
        self._timeout = timeout

    # ------------------------------------------------------------------ the dealer

    def draw(self) -> dict[str, Any]:
        """The shoe gives its next card, as the dealer draws it: ``{"event_ids": [..]}``
        (the card itself reaches the table, and the web through the event stream)."""
        return self._request("shoe", "draw", count=1)

    def shuffle(self) -> dict[str, Any]:
        """The shuffler starts a shuffle, as its button does: ``{"event_ids": [..]}``;
        the table hears it start and, after its shuffle time, complete."""
        return self._request("shuffler", "shuffle")

    def insert_hole_card(self) -> dict[str, Any]:
        """Spanish 21: the hole card into the reader (551.8(e)), by the daemon's manual
        console, which knows it; ``{"inserted": true}``. Refused (``PanelError``) when
        the reader does not wait for it. The reader's arm travels over its link: a
        request made just before it arrives is asked again until ``ANSWER_TIMEOUT``."""
        self._reader_present()
        deadline = time.monotonic() + ANSWER_TIMEOUT
        while True:
            answer = self._ask_console(deadline)
            if answer.get("ok") is True:
                return {"inserted": True}
            error = str(answer.get("error", "refused"))
            if "not armed yet" not in error or time.monotonic() >= deadline:
                raise PanelError(f"insert_hole_card: {error}")
            time.sleep(0.05)

    # ------------------------------------------------------------------ faults

    def unplug(self, device: str, ms: int) -> dict[str, Any]:
        """``device``'s cable out for ``ms`` milliseconds (0: until plugged back)."""
        if device not in DEVICES:
            raise PanelError(f"unplug: no device {device!r}; expected {', '.join(DEVICES)}")
        if isinstance(ms, bool) or not isinstance(ms, int) or not 0 <= ms <= MAX_UNPLUG_MS:
            raise PanelError(f"unplug: ms must be a whole number 0..{MAX_UNPLUG_MS}")
        return self._request(device, "unplug", duration_ms=ms)

    def jam(self) -> dict[str, Any]:
        """The shuffler's next shuffle jams (551.16(j))."""
        return self._request("shuffler", "jam")

    def face_up(self) -> dict[str, Any]:
        """The shoe's next card comes out face up (545.15(d), 551.16(a))."""
        return self._request("shoe", "face_up")

    def reader_malfunction(self, code: int) -> dict[str, Any]:
        """The reader reports malfunction ``code`` (0..255) and stops (551.16(m))."""
        if isinstance(code, bool) or not isinstance(code, int) or not 0 <= code <= 255:
            raise PanelError("reader_malfunction: code must be a whole number 0..255")
        return self._request("reader", "malfunction", code=code)

    # ------------------------------------------------------------------ looking

    def status(self) -> dict[str, Any]:
        """What each device of the table shows: ``{NAME: {"plugged", "connected",
        "silent", ...}}``; a table without a reader has no ``reader``."""
        out: dict[str, Any] = {}
        for device in self.devices():
            full = self._request(device, "status")
            out[device] = {k: full[k] for k in (*_LINK, *_SHOWN[device]) if k in full}
        return out

    def devices(self) -> list[str]:
        """The table's simulated devices: those whose control socket is in the workdir."""
        return [d for d in DEVICES if (self.workdir / f"{d}.control").exists()]

    def close(self) -> None:
        pass  # one connection a request: nothing is held between them

    def __enter__(self) -> SimulatedDevices:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ helpers

    def _request(self, device: str, cmd: str, **fields: object) -> dict[str, Any]:
        """One request to ``device``'s control socket (a JSON line each way), on a
        connection of its own; its reply without ``ok``, or ``PanelError``."""
        path = self.workdir / f"{device}.control"
        if not path.exists():
            raise PanelError(f"{device} {cmd}: no {device} at this table ({path} is missing)")
        try:
            reply = self._exchange(path, {"cmd": cmd, **fields})
        except OSError as exc:
            raise PanelError(f"{device} {cmd}: {exc.strerror or exc}") from None
        if not isinstance(reply, dict):
            raise PanelError(f"{device} {cmd}: the simulator's reply is not a JSON object")
        if reply.pop("ok", None) is not True:
            error = " ".join(str(reply.get("error", "refused")).split())
            raise PanelError(f"{device} {cmd}: {error}")
        return reply

    def _exchange(self, path: Path, request: dict[str, object]) -> object:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(self._timeout)
            sock.connect(str(path))
            sock.sendall(json.dumps(request).encode() + b"\n")
            data = b""
            while not data.endswith(b"\n"):
                chunk = sock.recv(65536)
                if not chunk:
                    raise ConnectionResetError("the simulator closed the connection")
                data += chunk
                if len(data) > MAX_REPLY:
                    raise ConnectionResetError("the simulator's reply is too long")
        try:
            return json.loads(data)
        except ValueError:
            return None

    def _reader_present(self) -> None:
        if not (self.workdir / "reader.control").exists():
            raise PanelError("insert_hole_card: no reader at this table")

    def _ask_console(self, deadline: float) -> dict[str, Any]:
        """One request to the daemon's manual console, and its answer (no card in
        either)."""
        answer = self.workdir / ANSWER
        answer.unlink(missing_ok=True)
        try:
            (self.workdir / REQUEST).write_text("")
        except OSError as exc:
            raise PanelError(f"insert_hole_card: {exc.strerror}: {exc.filename}") from None
        while not answer.exists():
            if time.monotonic() >= deadline:
                (self.workdir / REQUEST).unlink(missing_ok=True)
                raise PanelError(
                    "insert_hole_card: the daemon did not answer: is it running with --manual?"
                )
            time.sleep(0.02)
        try:
            data = json.loads(answer.read_text())
        finally:
            answer.unlink(missing_ok=True)
        return data if isinstance(data, dict) else {"ok": False, "error": "bad answer"}
