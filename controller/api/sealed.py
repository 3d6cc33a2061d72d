"""The sealed-card filter: what never leaves the controller before the reveal (551.8(e)).

The table records a sealed card ``"card": null, "sealed": true``; an entry that
nevertheless carries a card value under ``sealed`` is withheld by everything that
shows entries to people (the console API, ``tablectl events``).

Decided at the entry's top level, by its own ``sealed`` flag, for the entries the card
path writes (``device``, ``dealt``, ``prompt``, ``wager``, ...): every value a plain
scalar, so no mapping below could be marked sealed. Only an entry that nests mappings
or lists (``held``'s events, ``round_end``'s hands, ``resumed``, ``snapshot``: a few a
round) is walked whole.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from decimal import Decimal
from typing import Final

# The values of a flat entry; exact types (a subclass may be anything).
_SCALARS: Final = frozenset({str, int, bool, float, Decimal, type(None)})


def carries_sealed_card(value: object) -> bool:
    """Whether anywhere in ``value`` a mapping marked sealed still holds a card."""
    if type(value) is dict:
        if value.get("sealed") and value.get("card") is not None:
            return True
        if _SCALARS.issuperset(map(type, value.values())):
            return False  # flat: nothing below it could be marked sealed
    return _walk(value)


def _walk(value: object) -> bool:
    kind = type(value)
    values: Iterable[object]
    if kind is list or kind is tuple:  # exact types first: a hand's cards, no ABC check
        values = value  # type: ignore[assignment]
    elif kind in _SCALARS:
        return False
    elif isinstance(value, Mapping):
        if value.get("sealed") and value.get("card") is not None:
            return True
        values = value.values()
    elif isinstance(value, list | tuple):
        values = value
    else:
        return False
    # The scalars below (most of them) are passed over here, without a call each.
    return any(_walk(v) for v in values if type(v) not in _SCALARS)
