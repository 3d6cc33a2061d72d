"""The recent faults, halts and refusals a view shows, each in plain words with its
section, and what clearing a halt needs."""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from typing import Final

from controller.tableview.words import cause_words, clearing_words

KEPT: Final = 5  # the last faults, and the last refusals, a view keeps


def _section(entry: Mapping[str, object]) -> str | None:
    section = entry.get("section")
    return section if isinstance(section, str) else None


class Notes:
    """Follows ``halt``, ``floor_clear``, ``irregularity``, ``shuffle_failed``,
    ``internal_error`` and ``refused`` entries."""

    def __init__(self) -> None:
        self.faults: deque[dict[str, object]] = deque(maxlen=KEPT)
        self.refusals: deque[dict[str, object]] = deque(maxlen=KEPT)
        self.open: list[dict[str, object]] = []  # the halts not yet cleared

    def halt(self, seq: int, entry: Mapping[str, object]) -> None:
        cause = str(entry.get("cause"))
        note: dict[str, object] = {
            "seq": seq,
            "kind": "halt",
            "cause": cause,
            "words": cause_words(cause),
            "device": entry.get("device"),
            "section": _section(entry),
            "clearing": clearing_words(cause),
            "ends_shoe": bool(entry.get("ends_shoe")),
            "cleared": False,
        }
        self.faults.append(note)
        self.open.append(note)

    def cleared(self) -> None:
        for note in self.open:
            note["cleared"] = True
        self.open = []

    def fault(self, seq: int, entry: Mapping[str, object]) -> None:
        kind = str(entry.get("type"))
        what = entry.get("reason") or entry.get("event") or entry.get("detail") or ""
        words = {
            "irregularity": f"irregularity: {what}",
            "shuffle_failed": f"shuffle failed ({str(what).replace('_', ' ')})",
            "internal_error": "controller error",
        }[kind]
        self.faults.append({"seq": seq, "kind": kind, "words": words, "section": _section(entry)})

    def refused(self, seq: int, entry: Mapping[str, object]) -> None:
        what = entry.get("command") or entry.get("event") or "input"
        self.refusals.append(
            {
                "seq": seq,
                "what": str(what).replace("_", " "),
                "reason": str(entry.get("reason") or ""),
                "section": _section(entry),
            }
        )
