"""The dealing shoe's driver: its cards arrive as events; the host drives its display."""

from __future__ import annotations

from drivers import messages as m
from drivers.device.driver import DeviceDriver


class ShoeDriver(DeviceDriver):
    KIND = m.DeviceKind.SHOE

    def display(self, text: str) -> None:
        """Show a prompt on the shoe's display (e.g. "BANKER DRAWS")."""
        raw = text.encode("utf-8")
        if not text.isprintable() or len(raw) > m.DISPLAY_MAX:
            raise ValueError(f"display text must be printable and at most {m.DISPLAY_MAX} bytes")
        self._command(m.MsgType.DISPLAY, raw)
