"""The Spanish 21 hole-card reader's driver: armed for one peek at a time."""

from __future__ import annotations

from drivers import messages as m
from drivers.device.driver import DeviceDriver


class ReaderDriver(DeviceDriver):
    KIND = m.DeviceKind.READER

    def arm(self, target: m.PeekTarget) -> None:
        """Allow one peek for ``target`` (the controller arms only when the up card permits it)."""
        self._command(m.MsgType.ARM, bytes((target,)))

    def disarm(self) -> None:
        self._command(m.MsgType.DISARM)

    def self_test(self) -> None:
        self._command(m.MsgType.SELF_TEST)
