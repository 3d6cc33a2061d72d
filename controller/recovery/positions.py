"""Where each device's event stream stood when the journal was last written."""

from __future__ import annotations

from collections.abc import Iterable

from controller.journal import Row


def driver_positions(rows: Iterable[Row]) -> dict[str, tuple[str, int]]:
    """Where each device's event stream stood when the journal was last written: the
    device's serial and the last event id journaled for it. A restarted driver given
    these (``resume=``) takes the events the device replays (it keeps every event
    until it is acknowledged) without repeating one the journal already holds."""
    serials: dict[str, str] = {}
    last: dict[str, int] = {}
    for row in rows:
        entry = row.entry
        if entry.get("type") != "device":
            continue
        device = str(entry["device"])
        if entry.get("event") == "device_connected":
            serial = str(entry["serial"])
            if serials.get(device) != serial:
                last.pop(device, None)  # another unit: its ids start afresh
            serials[device] = serial
        event_id = entry.get("event_id")
        if isinstance(event_id, int) and device in serials:
            last[device] = max(last.get(device, 0), event_id)
    return {device: (serials[device], last[device]) for device in last}
