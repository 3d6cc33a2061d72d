"""Which dealer's prompt is still current: the journal writes each prompt once, and a
later entry makes it stale ("PLACE YOUR BETS" once a card is dealt, any prompt once
the table stops, "STOP: CALL THE FLOOR" once the floorperson clears)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Final

STOP: Final = "STOP: CALL THE FLOOR"
_BETS: Final = re.compile(r"(^|: )PLACE YOUR BETS$")
_BURN_MORE: Final = re.compile(r"^BURN (\d+) MORE CARDS?$")
_DEALING: Final = ("NO MORE BETS", "CARDS")
_SHUFFLING: Final = ("SHUFFLE", "NEW DECKS", "CARDS TO THE SHUFFLER")
_READER: Final = ("INSURANCE", "INSERT HOLE CARD IN READER")


class Prompt:
    """The current prompt (``text``, ``section``), or none."""

    def __init__(self) -> None:
        self.text: str | None = None
        self.section: str | None = None
        self._burns = 0  # burn cards the prompt still asks for

    def shown(self, entry: Mapping[str, object]) -> None:
        self.text = str(entry.get("text"))
        section = entry.get("section")
        self.section = section if isinstance(section, str) else None
        more = _BURN_MORE.match(self.text)
        self._burns = int(more.group(1)) if more else 1

    def clear(self) -> None:
        self.text = self.section = None

    def follow(self, entry: Mapping[str, object]) -> None:
        """Clear the prompt if ``entry`` (any but a prompt) makes it stale."""
        text = self.text
        if text is None:
            return
        if self._stale(text, entry):
            self.clear()

    def _stale(self, text: str, entry: Mapping[str, object]) -> bool:
        kind = str(entry.get("type"))
        if kind == "burn" and "BURN" in text:
            self._burns -= 1
            return self._burns <= 0
        stale = _STALE.get(kind)
        return stale is not None and stale(text, entry)


def _bets(text: str, _entry: Mapping[str, object]) -> bool:
    return bool(_BETS.search(text))


# What makes a prompt stale, by the type of the entry that follows it.
_STALE: Final[Mapping[str, Callable[[str, Mapping[str, object]], bool]]] = {
    "halt": lambda _t, _e: True,
    "floor_clear": lambda t, _e: t == STOP,
    "no_more_bets": _bets,
    "dealt": lambda t, e: _bets(t, e) or t in _DEALING,
    "shuffled": lambda t, _e: any(word in t for word in _SHUFFLING),
    "rack_shuffled": lambda t, _e: any(word in t for word in _SHUFFLING),
    "insurance_closed": lambda t, _e: t in _READER,
    "peek": lambda t, _e: t in _READER,
    "decision": lambda t, e: t.startswith(f"BOX {e.get('box')}"),
    "reveal": lambda t, _e: t == "DEALER'S CARD",
    "shoe_end": _bets,
}
