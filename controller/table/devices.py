"""The table's way back to its devices (``controller.table.events.ReaderDevices``) over
the real drivers, shared by the daemon and the bench."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from drivers import messages as m
from drivers.device import DeviceDriver, ReaderDriver, ShoeDriver
from drivers.errors import NotConnected


class TableDevices:
    """Commits, the shoe's display and the reader's commands; a command to a device that
    is not connected (or a reader the table does not have) answers False, so the table
    decides what that means for play."""

    def __init__(
        self,
        drivers: Mapping[str, DeviceDriver],
        shoe: ShoeDriver,
        reader: ReaderDriver | None = None,
    ) -> None:
        self._drivers = drivers
        self._shoe = shoe
        self._reader = reader

    def commit(self, device: str, event_id: int) -> None:
        self._drivers[device].commit(event_id)

    def display(self, text: str) -> bool:
        try:
            self._shoe.display(text)
        except NotConnected:
            return False
        return True

    def arm(self, target: m.PeekTarget) -> bool:
        return self._to_reader(lambda r: r.arm(target))

    def disarm(self) -> bool:
        return self._to_reader(ReaderDriver.disarm)

    def self_test(self) -> bool:
        return self._to_reader(ReaderDriver.self_test)

    def _to_reader(self, command: Callable[[ReaderDriver], None]) -> bool:
        if self._reader is None:
            return False
        try:
            command(self._reader)
        except NotConnected:
            return False
        return True
