"""Host-side device drivers: the base driver with its reconnect loop (``driver``), the
event stream it delivers (``stream``), the handshake's admission check (``admission``),
one write per input (``cork``) and one driver per device kind (``shoe``, ``reader``,
``shuffler``)."""

from drivers import messages as m
from drivers.device.cork import corked
from drivers.device.driver import DeviceDriver, DriverConfig, EventSink
from drivers.device.reader import ReaderDriver
from drivers.device.shoe import ShoeDriver
from drivers.device.shuffler import ShufflerDriver

DRIVERS: dict[m.DeviceKind, type[DeviceDriver]] = {
    m.DeviceKind.SHOE: ShoeDriver,
    m.DeviceKind.READER: ReaderDriver,
    m.DeviceKind.SHUFFLER: ShufflerDriver,
}

__all__ = [
    "DRIVERS",
    "DeviceDriver",
    "DriverConfig",
    "EventSink",
    "ReaderDriver",
    "ShoeDriver",
    "ShufflerDriver",
    "corked",
]
