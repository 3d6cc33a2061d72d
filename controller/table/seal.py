"""Sealed cards: a card journaled without being readable, released by a later row.

A card that may become the hole card is recorded with a commitment instead of its
value (551.8(e)): ``seal = SHA-256(tag || nonce || card)``. The nonce is never written
while the card is face down; it is HMAC-SHA256 of a random public ``salt`` (recorded
with the seal) under the table's sealing key. The row that places the card face up,
or the ``reveal`` row for the hole card, gives the card and the nonce, so anyone
holding the journal can check the commitment; before it, the journal alone does not
tell which of the 48 cards it is.

The key lets the table check, after a restart, a card a floorperson reads off the
layout against the seal, without the journal giving the card away. A table built
without a key draws a random one that dies with the process: after a crash its sealed
cards cannot be checked, so an unread hole card's round is voided instead.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass

_TAG = b"tablectl seal v1\x00"
KEY_BYTES = 32


def commitment(nonce: str, card: str) -> str:
    """The seal over ``card`` with ``nonce`` (hex)."""
    return hashlib.sha256(_TAG + bytes.fromhex(nonce) + card.encode("utf-8")).hexdigest()


def opens(seal: str, nonce: str, card: str) -> bool:
    """Whether ``nonce`` and ``card`` are what ``seal`` commits to."""
    try:
        return hmac.compare_digest(commitment(nonce, card), seal)
    except ValueError:  # a nonce that is not hex
        return False


@dataclass(frozen=True, slots=True)
class Sealed:
    """One sealed card as the journal shows it. ``unknown``: rebuilt from the journal
    after a restart, its value is not known (a stand-in holds its place)."""

    seal: str
    salt: str
    unknown: bool = False

    def fields(self) -> dict[str, object]:
        return {"seal": self.seal, "salt": self.salt}


class Sealer:
    """Seals cards under one key, and opens or checks them again with it.
    ``takes_stand_ins``: a floorperson's entry may be a stand-in (only a replay's is)."""

    takes_stand_ins = False

    def __init__(self, key: bytes | None = None) -> None:
        if key is not None and len(key) < 16:
            raise ValueError("a sealing key has at least 16 bytes")
        self._key = key if key is not None else secrets.token_bytes(KEY_BYTES)

    def nonce(self, salt: str) -> str:
        return hmac.new(self._key, bytes.fromhex(salt), hashlib.sha256).hexdigest()

    def seal(self, card: str) -> Sealed:
        salt = secrets.token_hex(16)
        return Sealed(commitment(self.nonce(salt), card), salt)

    def matches(self, sealed: Sealed, card: str) -> bool:
        """Whether ``card`` is the card ``sealed`` commits to, under this key."""
        return opens(sealed.seal, self.nonce(sealed.salt), card)

    def opening(self, sealed: Sealed, card: str) -> dict[str, str]:
        """What releases the card: the card, the seal and its nonce. A card sealed before
        a restart and never released since is not known to the table's procedure, which
        never releases it (551.8(e))."""
        if sealed.unknown:
            raise RuntimeError("a card sealed before the restart cannot be placed face up unread")
        return {"card": card, "seal": sealed.seal, "nonce": self.nonce(sealed.salt)}
