"""The pit's shifts (``tablectl web --shifts HH:MM,...``): /pit counts a shift's rounds,
drop and win from the shift's start, in the table box's local time, so a web process
started again in the middle of a shift shows the whole shift (from the journal), not
only what followed its start."""

from __future__ import annotations

import datetime as dt
import re
from typing import Final

DEFAULT: Final = "06:00,14:00,22:00"  # three eight-hour shifts
_TIME: Final = re.compile(r"([01]\d|2[0-3]):([0-5]\d)")


class ShiftsError(ValueError):
    """Not a list of shift starts; the message is one line."""


def parse(text: str) -> tuple[int, ...]:
    """``HH:MM,...`` as minutes after midnight, sorted; ShiftsError otherwise."""
    minutes = []
    for part in text.split(","):
        found = _TIME.fullmatch(part.strip())
        if found is None:
            raise ShiftsError(f"--shifts {text!r}: not a list of HH:MM shift starts")
        minutes.append(int(found[1]) * 60 + int(found[2]))
    if len(set(minutes)) != len(minutes):
        raise ShiftsError(f"--shifts {text!r}: a shift start given twice")
    return tuple(sorted(minutes))


def _boundaries(now: float, starts: tuple[int, ...]) -> list[float]:
    """The shift starts of the day before ``now``'s, its own and the next, as times."""
    day = (
        dt.datetime.fromtimestamp(now)
        .astimezone()
        .replace(hour=0, minute=0, second=0, microsecond=0)
    )
    return [
        (day + dt.timedelta(days=offset, minutes=start)).timestamp()
        for offset in (-1, 0, 1)
        for start in starts
    ]


def current(now: float, starts: tuple[int, ...]) -> tuple[float, float]:
    """The start of the shift ``now`` is in, and of the next one."""
    times = _boundaries(now, starts)
    since = max(t for t in times if t <= now)
    return since, min(t for t in times if t > now)
