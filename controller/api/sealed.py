"""The sealed-card filter: what never leaves the controller before the reveal (551.8(e)).

The table records a sealed card ``"card": null, "sealed": true``; an entry that
nevertheless carries a card value under ``sealed`` is withheld by everything that
shows entries to people (the console API, ``tablectl events``).
"""

from __future__ import annotations

from collections.abc import Mapping


def carries_sealed_card(value: object) -> bool:
    """Whether anywhere in ``value`` a mapping marked sealed still holds a card."""
    if isinstance(value, Mapping):
        if value.get("sealed") and value.get("card") is not None:
            return True
        return any(carries_sealed_card(v) for v in value.values())
    if isinstance(value, list | tuple):
        return any(carries_sealed_card(v) for v in value)
    return False
