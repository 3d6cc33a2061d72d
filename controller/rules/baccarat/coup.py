"""A round's cards as they are dealt, with the rules' answers kept up to date card by
card: the hand due the next card (545.9(c), 545.10(c), (d), 545.11), each hand's Point
Count (545.6(b)) and, once the round is complete, the winning hand (545.8(a),
545.12(a)).

``next_to_draw``, ``point`` and ``result`` read both hands whole on every call. A
``Coup`` is fed each card as it is dealt: the card's value is looked up once, and the
coup steps to the stage of the deal that value leads to, where each answer is waiting.
The stages are made once, on the first card a process deals, by asking
``next_to_draw``, ``point`` and ``result`` about a hand of each stage, so a coup gives
their answers
(tests/rules/test_baccarat_coup.py compares the two on every deal). A stage stands for
every hand that leaves the same to read for the rest of the deal (``_key``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Final

from controller.rules.baccarat.drawing import Hand, Outcome, next_to_draw, result
from controller.rules.baccarat.points import VALUES, point, value

COMPLETE: Final = "the round is complete: no hand takes another card (545.10(d), 545.12(a))"
NOT_COMPLETE: Final = "the round is not complete (545.12(a))"  # as ``result`` says


class _Stage:
    """A stage of the deal: the hand due the next card (None: complete), the stage each
    value of that card leads to (none once complete), the Point Counts so far and, once
    complete, the winning hand."""

    __slots__ = ("after", "banker_total", "due", "outcome", "player_total")

    def __init__(self, due: Hand | None, player: list[str], banker: list[str]) -> None:
        self.due = due
        self.after: tuple[_Stage, ...] = ()  # by the value of the next card
        self.player_total = point(player)
        self.banker_total = point(banker)
        self.outcome: Outcome | None = None if due else result(player, banker)


# A card of each value (545.6(a)): "KS" for 0, "AS" for 1, then "2S".."9S".
_OF_VALUE: Final = tuple(("KA"[v] if v < 2 else str(v)) + "S" for v in range(10))
_Key = tuple[object, ...]


def _key(player: Sequence[int], banker: Sequence[int], due: Hand | None) -> _Key:
    """What the rest of the deal reads of these card values: the hand due, the cards
    out on each side and each hand's Point Count so far. Until the Player's Hand draws
    or stays (545.11(b)) those are the two-card counts the third-card rules read; after
    the Player's third card only the Banker's draw is left, and ``due`` says whether it
    comes. Once the round is complete, the Point Counts alone."""
    counts = (sum(player) % 10, sum(banker) % 10)
    return (None, *counts) if due is None else (due, len(player), len(banker), *counts)


def _stages() -> _Stage:
    """Every stage a deal reaches, each made once from a hand of cards of its values and
    the stateless rules' answers about that hand; the first stage."""
    made: dict[_Key, _Stage] = {}
    todo: list[tuple[_Stage, list[int], list[int]]] = []

    def stage(player: list[int], banker: list[int]) -> _Stage:
        tokens = [_OF_VALUE[v] for v in player], [_OF_VALUE[v] for v in banker]
        due = next_to_draw(*tokens)
        key = _key(player, banker, due)
        if key not in made:
            made[key] = _Stage(due, *tokens)
            todo.append((made[key], player, banker))
        return made[key]

    first = stage([], [])
    while todo:
        at, player, banker = todo.pop()
        if at.due == "player":
            at.after = tuple(stage([*player, v], banker) for v in range(10))
        elif at.due == "banker":
            at.after = tuple(stage(player, [*banker, v]) for v in range(10))
    return first


# The first stage, and every other once made: on the first card dealt, so that a table
# built (a round made with its coup) and never dealt to makes none.
_UNMADE: Final = _Stage("player", [], [])
_FIRST: _Stage = _UNMADE


def _made(at: _Stage) -> _Stage:
    """``at``, or the first stage made with every other if ``at`` is the one not made."""
    global _FIRST
    if at is not _UNMADE:
        return at
    if _FIRST is _UNMADE:
        _FIRST = _stages()
    return _FIRST


class Coup:
    """A round's cards, ``player`` and ``banker``, dealt one at a time with ``add``.

    ``due`` is ``next_to_draw(player, banker)``, ``player_total`` and ``banker_total``
    are ``point`` of each hand and ``outcome`` is ``result(player, banker)``, each read
    from the stage of the deal the cards have reached. A coup parses each card as it is
    dealt: a token that is no card is refused then (``CardError``), where
    ``next_to_draw`` reads no value of the first three cards.

    A table's snapshot does not keep a coup (``snapshot``): it keeps the hands, and the
    table makes a coup over them again (``Coup.of``).
    """

    __slots__ = ("_at", "banker", "player")
    snapshot: ClassVar[bool] = False  # derived from the hands: controller/table/snapshot.py

    def __init__(self) -> None:
        self.player: list[str] = []
        self.banker: list[str] = []
        self._at = _FIRST

    @classmethod
    def of(cls, player: list[str], banker: list[str]) -> Coup:
        """A coup over hands already dealt, dealt into from here on; ValueError where
        ``next_to_draw`` has one for them (an irregularity, 545.15)."""
        next_to_draw(player, banker)  # no stage of the deal: its ValueError
        coup = cls()
        held = {"player": iter(player), "banker": iter(banker)}
        at = _made(coup._at)
        while at.due is not None and (token := next(held[at.due], None)) is not None:
            at = at.after[value(token)]
        coup.player, coup.banker, coup._at = player, banker, at
        return coup

    @property
    def due(self) -> Hand | None:
        """The hand that takes the next card, or None once the round's cards are out."""
        return self._at.due

    def add(self, token: str) -> Hand | None:
        """``token`` to the hand due it; the hand due the next card, None once the round
        is complete. ValueError when no hand is due one (545.10(d)); CardError (a
        ValueError) for a token that is no card, and nothing is dealt."""
        at = self._at
        try:
            after = at.after[VALUES[token]]
        except (KeyError, IndexError):  # "10d", or no card; no stage made after this one
            after = self._stages_after()[value(token)]
        self._at = after
        (self.player if at.due == "player" else self.banker).append(token)
        return after.due

    def would_complete(self, token: str) -> bool:
        """Whether ``token``, dealt next, completes the round; nothing is dealt. The
        errors of ``add``."""
        after = self._stages_after()
        v = VALUES.get(token)
        return after[value(token) if v is None else v].due is None

    def _stages_after(self) -> tuple[_Stage, ...]:
        """The stages the next card leads to, made now if they are not yet; ValueError
        once the round is complete."""
        self._at = at = _made(self._at)
        if not at.after:
            raise ValueError(COMPLETE)
        return at.after

    @property
    def player_total(self) -> int:
        """The Player's Point Count (545.6(b))."""
        return self._at.player_total

    @property
    def banker_total(self) -> int:
        """The Banker's Point Count (545.6(b))."""
        return self._at.banker_total

    @property
    def outcome(self) -> Outcome:
        """The winning hand, or "tie" (545.8(a), 545.12(a)); ValueError until complete."""
        outcome = self._at.outcome
        if outcome is None:
            raise ValueError(NOT_COMPLETE)
        return outcome
