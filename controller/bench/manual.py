"""The console of a simulated table played by hand (``tablectl run --simulate
--manual``, docs/manual.md): no dealer, players or floorperson of the bench's. Every
decision comes through the API's sockets; the simulated devices act when the dealer's
panel (controller/simpanel.py) asks them to. What this console still does is what no
person at the table decides:

* the next shoe's cards into the simulated shoe once the table has ended a shoe (at a
  real table the cards come from the shuffler or the decks; the seeded order stays in
  the daemon, so the web process never knows a card before it is drawn);
* the hole card into the simulated reader, when the panel asks (``REQUEST``): the
  console saw the hole card leave the shoe (the table's ``CardDrawn``) and the web
  process never does (551.8(e)). The panel's request and this console's answer carry
  no card.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Final

import structlog

from controller.bench.scenario import Scenario, next_shoe
from controller.rules.cards import CUT
from controller.simpanel import ANSWER, REQUEST
from controller.table.core import Table
from controller.table.events import Need
from drivers import messages as m
from firmware_sim.harness import SimError, SimProcess

POLL: Final = 0.05  # how often the console looks for the panel's request

log = structlog.get_logger("controller.bench")


class ManualConsole:
    """The daemon's ``Console`` for a table played by hand: see the module."""

    polling: Final = True  # the panel's request is a file, not an event
    poll_interval: Final = POLL

    def __init__(
        self, scenario: Scenario, table: Table, sims: Mapping[str, SimProcess], workdir: Path
    ) -> None:
        self._scenario = scenario
        self._table = table
        self._sims = sims
        self._request = workdir / REQUEST
        self._answer = workdir / ANSWER
        self._hole: str | None = None  # the hole card, from its CardDrawn, until turned
        self._dealt = bool(getattr(table, "hole_dealt", False))  # as of the last event
        # The shoes the simulated shoe has had: the simulator's first, and one a shoe
        # the journal shows played (a table rebuilt from its journal).
        self._loaded = 1 + getattr(table, "shoes_completed", 0)

    def pace(self, ms: int) -> None:
        pass  # nobody here has a pace: the people at the table take their time

    def saw(self, event: m.Event) -> None:
        dealt = bool(getattr(self._table, "hole_dealt", False))
        if not dealt:
            self._hole = None
        elif isinstance(event, m.CardDrawn) and not self._dealt:
            # The card that made the hole card dealt. One the table held while play was
            # stopped and ran at the clear is not seen so: the hole card stays unknown
            # and the panel's request is refused, never answered with another card.
            self._hole = event.token
        self._dealt = dealt

    def start(self) -> None:
        pass  # the floorperson's start of day is the floorperson's (floor.sock)

    def step(self) -> bool:
        if self._request.exists():
            self._insert()
        return self._load_next_shoe()

    def finish(self) -> None:
        self._request.unlink(missing_ok=True)

    def _load_next_shoe(self) -> bool:
        completed = int(getattr(self._table, "shoes_completed", 0))
        if self._scenario.continuous or completed < self._loaded:
            return False
        cards = next_shoe(self._scenario, self._loaded)
        self._loaded += 1
        self._sims["shoe"].control("load", cards=cards)
        log.info("manual_shoe_loaded", shoe=self._loaded, cards=len([c for c in cards if c != CUT]))
        return True

    def _insert(self) -> None:
        """The panel's request: the hole card into the reader, or why not (no card)."""
        self._request.unlink(missing_ok=True)
        reply: dict[str, object] = {"ok": True}
        if self._table.need is not Need.PEEK:
            reply = {"ok": False, "error": f"the reader is not waiting ({self._table.need.value})"}
        elif self._hole is None:
            reply = {"ok": False, "error": "the console did not see the hole card leave the shoe"}
        else:
            reader = self._sims["reader"]
            try:
                if not reader.control("status").get("armed"):
                    reply = {"ok": False, "error": "the reader is not armed yet: ask again"}
                else:
                    reader.control("insert", card=self._hole)
            except SimError as exc:
                reply = {"ok": False, "error": str(exc)}
        temporary = self._answer.with_suffix(".tmp")
        temporary.write_text(json.dumps(reply))
        os.replace(temporary, self._answer)
