"""The automated card shuffler's driver."""

from __future__ import annotations

from drivers import messages as m
from drivers.device.driver import DeviceDriver


class ShufflerDriver(DeviceDriver):
    KIND = m.DeviceKind.SHUFFLER

    def start_shuffle(self) -> None:
        self._command(m.MsgType.START_SHUFFLE)
