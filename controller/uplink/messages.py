"""What a table publishes to the floor's broker, and how the floor reads it back.

Topics (``journal_topic``, ``status_topic``) are under ``tablectl/<table-id>/``; the
broker's ACL (examples/mosquitto/tablectl.acl) lets a table publish only under its own
id, which is its user name there.

A journal message (QoS 1, one per row) is a JSON object: ``table``, the row's ``seq``,
its time ``ts`` and its ``hash``, and under ``event`` the line the events socket streams
for that row (controller/api/fanout.py ``event_line``, the same function: an ``event``
with the entry, or a ``withheld`` notice for an entry in which a card marked sealed
carries a value, 551.8(e)). A receiver deduplicates by ``seq``.

The status message (retained) is a JSON object: ``table``, ``online``, and, while
online, ``game``, ``state``, ``shoe``, ``round``, ``halted``, ``devices`` (device -> health, as
the pit shows it), ``shuffle_alert`` (null, or the shuffle-quality alerts no floorperson
has acknowledged yet: ``{"shoes": [N, ...], "latest": {"shoe", "failed", "p_value",
"confidence"}}``, controller/boards/shufflealerts.py ``ShuffleAlerts.view``), ``seq`` (the
last row published) and ``at`` (when, ISO 8601). The uplink's last will is
``offline(table)``: the broker sets it when the uplink is gone.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from controller.api.fanout import event_line

PREFIX: Final = "tablectl"
TABLE_ID: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
JOURNAL_FILTER: Final = f"{PREFIX}/+/journal"  # the floor's subscriptions
STATUS_FILTER: Final = f"{PREFIX}/+/status"


def check_table_id(table_id: str) -> str:
    """The id itself, or ValueError (one line): it names the table's topics."""
    if not TABLE_ID.fullmatch(table_id):
        raise ValueError(
            f"table id {table_id!r}: 1 to 64 letters, digits, '_', '.' or '-', "
            "starting with a letter or digit"
        )
    return table_id


def journal_topic(table_id: str) -> str:
    return f"{PREFIX}/{table_id}/journal"


def status_topic(table_id: str) -> str:
    return f"{PREFIX}/{table_id}/status"


def table_of(topic: str) -> str | None:
    """The table id of a ``tablectl/<id>/journal`` or ``.../status`` topic, or None."""
    parts = topic.split("/")
    if len(parts) == 3 and parts[0] == PREFIX and TABLE_ID.fullmatch(parts[1]):
        return parts[1]
    return None


def journal_message(table_id: str, seq: int, ts: str, body: str, digest: str) -> bytes:
    """The message for journal row ``seq`` (its time, body and hash as stored)."""
    entry = json.loads(body)
    line = event_line(seq, entry if isinstance(entry, dict) else {}, body)
    head = json.dumps({"table": table_id, "seq": seq, "ts": ts, "hash": digest})
    return head[:-1].encode() + b', "event": ' + line.rstrip(b"\n") + b"}"


@dataclass(frozen=True, slots=True)
class JournalMessage:
    table: str
    seq: int
    ts: str
    hash: str
    event: dict[str, Any]  # the events socket's line: "event" or "withheld"

    @property
    def entry(self) -> dict[str, Any] | None:
        """The journal entry, or None when the table withheld it."""
        entry = self.event.get("entry") if self.event.get("type") == "event" else None
        return entry if isinstance(entry, dict) else None


def parse_journal(payload: bytes) -> JournalMessage:
    """A journal message read back; ValueError (one line) for anything else."""
    data = _object(payload)
    table, seq, ts, digest, event = (data.get(k) for k in ("table", "seq", "ts", "hash", "event"))
    _check_table(table)
    if type(seq) is not int or seq < 1:
        raise ValueError("no valid seq")
    if not isinstance(ts, str) or not isinstance(digest, str) or not isinstance(event, dict):
        raise ValueError("no ts, hash or event")
    if event.get("seq") != seq or event.get("type") not in ("event", "withheld"):
        raise ValueError("its event is not the events socket's line for its seq")
    return JournalMessage(str(table), seq, ts, digest, event)


def _object(payload: bytes) -> dict[str, Any]:
    try:
        data = json.loads(payload)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    return data


def _check_table(table: object) -> None:
    if not isinstance(table, str) or not TABLE_ID.fullmatch(table):
        raise ValueError("no valid table id")


def status_message(table_id: str, status: Mapping[str, object]) -> bytes:
    """The retained status of an online table (``status``: game, state, shoe, round,
    halted, devices, shuffle_alert, seq, at)."""
    return json.dumps({"table": table_id, "online": True, **status}, sort_keys=True).encode()


def offline(table_id: str) -> bytes:
    """The last will: the table's uplink is gone."""
    return json.dumps({"table": table_id, "online": False}).encode()


def parse_status(payload: bytes) -> dict[str, Any]:
    """A status message read back; ValueError (one line) for anything else."""
    data = _object(payload)
    if not isinstance(data.get("online"), bool):
        raise ValueError("not a status object")
    _check_table(data.get("table"))
    return data
