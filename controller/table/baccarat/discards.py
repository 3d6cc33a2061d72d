"""The cards out of the shoe that go to no hand: found face up (545.15(d)), and drawn
before "no more bets" (545.15(a)), held for the next hand or, once seen, discarded with
one more (545.15(c))."""

from __future__ import annotations

from collections import deque

from controller.rules.baccarat import face_up_discard_count
from controller.table.baccarat.machine import WAGERING, Context
from controller.table.events import DisclosedCard
from drivers import messages as m


class Discards:
    """The cards gone to the discard in the shoe in play, those still to go, and the
    cards drawn in error that wait for the next hand."""

    def __init__(self, ctx: Context) -> None:
        self._ctx = ctx
        self._discarded: list[str] = []
        self._early: deque[m.CardDrawn] = deque()  # 545.15(a): the next hand's first cards
        self._left = 0  # cards still to go to the discard
        self._section = ctx.sec.face_up  # the irregularity they go to the discard for
        self._resume = WAGERING  # the state the discard returns to
        self._prompt: str | None = None  # the prompt shown again after it

    # ------------------------------------------------------------------ face up (545.15(d))

    def found_face_up(self, event: m.CardDrawn) -> bool:
        return event.face_up

    def face_up_takes_more(self, event: m.CardDrawn) -> bool:
        return face_up_discard_count(event.token) > 0

    def face_up(self, event: m.CardDrawn) -> None:
        more = face_up_discard_count(event.token)
        self._discarded.append(event.token)
        self._ctx.record(
            {
                "type": "irregularity",
                "card": event.token,
                "section": self._ctx.sec.face_up,
                "reason": f"card found face up in the shoe: not used; {more} more to the discard",
            }
        )
        self._start(more, self._ctx.sec.face_up, self._ctx.state())
        text = f"FACE UP: DISCARD {more} MORE" if more else "FACE UP CARD TO THE DISCARD"
        self._ctx.prompt(text, self._ctx.sec.face_up)

    def discard_done(self, event: m.CardDrawn) -> bool:
        more = face_up_discard_count(event.token) if event.face_up else 0
        return self._left - 1 + more == 0

    def discard_returns_to(self, state: str, event: m.CardDrawn) -> bool:
        return self._resume == state

    def discard(self, event: m.CardDrawn) -> None:
        self._left -= 1
        if event.face_up:  # found face up as well: it takes its own count with it
            self._left += face_up_discard_count(event.token)
        self._discarded.append(event.token)
        self._ctx.record(
            {
                "type": "discard",
                "card": event.token,
                "face_up": event.face_up,
                "section": self._section,
            }
        )

    def discard_ended(self, event: m.CardDrawn) -> None:
        if self._prompt is not None:
            self._ctx.prompt(self._prompt)

    def _start(self, count: int, section: str, resume: str) -> None:
        self._left, self._section, self._resume = count, section, resume
        self._prompt = self._ctx.last_prompt()

    # ------------------------------------------------------------------ drawn in error

    def drawn_in_error(self, event: m.CardDrawn) -> None:
        self._early.append(event)
        self._ctx.record(
            {
                "type": "irregularity",
                "card": event.token,
                "section": self._ctx.sec.drawn_in_error,
                "reason": (
                    f"card drawn before 'no more bets': card {len(self._early)} of the next hand"
                ),
            }
        )

    def drawn_in_error_waiting(self, command: DisclosedCard) -> bool:
        return bool(self._early)

    def disclosed(self, command: DisclosedCard) -> None:
        token = self._early.pop().token  # the last card drawn in error is the one seen
        self._discarded.append(token)
        self._ctx.record(
            {
                "type": "irregularity",
                "card": token,
                "section": self._ctx.sec.disclosed,
                "reason": "card drawn in error was disclosed: it and one more card, face down, "
                "to the discard",
            }
        )
        self._start(1, self._ctx.sec.disclosed, WAGERING)
        self._ctx.prompt("DISCARD 1 MORE FACE DOWN", self._ctx.sec.disclosed)

    def next_early_card(self) -> m.CardDrawn | None:
        """The next card drawn in error, now that it opens the hand dealt."""
        return self._early.popleft() if self._early else None

    # ------------------------------------------------------------------ the end

    def shoe_ended(self) -> list[str]:
        """The shoe ends: every card that went to no hand, those drawn in error last."""
        discarded = self._discarded + [e.token for e in self._early]
        self._early.clear()
        self._discarded = []
        return discarded
