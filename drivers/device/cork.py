"""One write for each device per input: the table's thread corks every driver around
an input and its commit (``DeviceDriver.cork``)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from drivers.device.driver import DeviceDriver


@contextlib.contextmanager
def corked(drivers: Iterable[DeviceDriver]) -> Iterator[None]:
    """What this thread sends through ``drivers`` inside goes out at the end, in one
    write for each driver, in the order it was sent."""
    held = tuple(drivers)
    for driver in held:
        driver.cork()
    try:
        yield
    finally:
        for driver in held:
            driver.uncork()
