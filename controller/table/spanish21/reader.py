"""The card reader: its inspection each gaming day (551.2(e)), the peek behind an A, K, Q
or J (551.8(e)), its use behind another up card (551.16(l)) and its malfunctions
(551.16(m))."""

from __future__ import annotations

from typing import TYPE_CHECKING

from controller.rules.spanish21 import (
    dealer_blackjack,
    peek_target,
    reader_allowed,
    reader_misuse,
)
from controller.table.core import Refusal
from controller.table.events import InspectReader, Need, NoMoreBets, ReaderDevices
from controller.table.halts import HALTED, Halt
from controller.table.spanish21.machine import IN_ROUND, PEEK_DUE, PEEKING
from controller.table.spanish21.part import Part
from controller.table.spanish21.round_end import Void
from drivers import messages as m

if TYPE_CHECKING:
    from controller.table.spanish21.table import Spanish21Table


class Reader(Part):
    """The card reader device ``name``: inspected, armed for one peek, misused, down."""

    def __init__(self, table: Spanish21Table, devices: ReaderDevices, name: str) -> None:
        super().__init__(table)
        self._devices = devices
        self.name = name
        self.inspected_day: str | None = None  # 551.2(e)
        self.inspecting = False
        self.armed = False
        self.misuse: str | None = None  # 551.16(l): what follows the floorperson's clear

    def need_to_deal(self) -> Need:
        """What the table waits for before it deals: the day's inspection (551.2(e))."""
        if self.inspected_today():
            return Need.WAGERS
        return Need.DEVICE if self.inspecting else Need.INSPECTION

    def need_to_peek(self) -> Need:
        if self.armed:
            return Need.PEEK
        if not self.inspected_today() and not self.inspecting:
            # A repaired reader is inspected before its next use; so is one whose gaming
            # day ended in the round (ruling R15).
            return Need.INSPECTION
        return Need.DEVICE

    def pending(self) -> bool:
        """The peek is due and the reader, inspected this gaming day, is not armed yet:
        arm it."""
        table = self._table
        if table.state == PEEK_DUE and not self.armed and self.inspected_today():
            self._arm()
            return True
        return False

    def inspected_today(self) -> bool:
        """551.2(e), ruling R15: the floorperson's inspection is for the gaming day in
        force now, the moment of arming included; a day that changed in the middle of
        the round wants a new one."""
        return self.inspected_day is not None and self.inspected_day == self._table._gaming_day()

    def reader_inspected_today(self, command: NoMoreBets) -> bool:
        return self.inspected_today()

    def reader_needed(self, event: m.CardDrawn) -> bool:
        return reader_allowed(self._table._round.dealer[0])

    # ------------------------------------------------------------------ the peek

    def _arm(self) -> None:
        """Arm the reader for this hole card: only behind an A, K, Q or J (551.8(e))."""
        table = self._table
        target = peek_target(table._round.dealer[0])
        if not self._devices.arm(m.PeekTarget[target.name]):
            detail = "the reader could not be armed"
            table._stop(Halt("reader_not_armed", self.name, detail, "551.8(e)"))
            return
        self.armed = True
        table._record(
            {
                "type": "reader_armed",
                "round": table.round,
                "target": target.name.lower(),
                "section": "551.8(e)",
            }
        )
        table._prompt("INSERT HOLE CARD IN READER", "551.8(e)")

    def disarm(self) -> None:
        if self.armed:
            self.armed = False
            self._devices.disarm()

    def reader_armed(self, event: m.CardInserted) -> bool:
        return self.armed

    def on_inserted(self, event: m.CardInserted) -> None:
        table = self._table
        hole_down = table.state in IN_ROUND and table.hole_dealt
        if hole_down and not reader_allowed(table._round.dealer[0]):
            self._misused()
        elif event.armed:
            table._fire("inserted", event)
        else:
            why = "the reader was not armed, so it read nothing: insert the hole card again"
            table._refuse(event, Refusal("551.8(e)", why))

    def hole_card_in_reader(self, event: m.CardInserted) -> None:
        table = self._table
        self.armed = False  # one peek per arm
        if table._wagers.insurance:
            table._record(
                {"type": "insurance_closed", "round": table.round, "section": "551.10(b)"}
            )

    def on_peek(self, event: m.PeekResult) -> None:
        if self._table.state == PEEKING and not self.reader_agrees(event):
            detail = "the reader's answer disagrees with the shoe's reading of the hole card"
            self.down("reader_malfunction", detail)
        else:
            self._table._fire("peek", event)

    def reader_agrees(self, event: m.PeekResult) -> bool:
        return event.blackjack == dealer_blackjack(self._table._round.dealer)

    def dealer_blackjack(self, event: m.PeekResult) -> bool:
        return event.blackjack

    def peeked_blackjack(self, event: m.PeekResult) -> None:
        table = self._table
        table._round.peeked = True
        table._record(
            {"type": "peek", "round": table.round, "blackjack": True, "section": "551.8(e)"}
        )
        table._prompt("DEALER BLACKJACK", "551.8(e)")
        table._round.reveal(event)

    def peeked_no_blackjack(self, event: m.PeekResult) -> None:
        table = self._table
        table._round.peeked = True
        table._record(
            {"type": "peek", "round": table.round, "blackjack": False, "section": "551.8(e)"}
        )
        table._wagers.settle_insurance()
        table._prompt("NO DEALER BLACKJACK", "551.8(e)")

    # ------------------------------------------------------------------ misuse and faults

    def _misused(self) -> None:
        """551.16(l): the hole card went into the reader behind another up card. The
        floorperson is called; the clear voids the round or lets play go on."""
        table = self._table
        up = table._round.dealer[0]
        self.misuse = reader_misuse(up, table.rules)
        follows = "all hands dead, wagers returned" if self.misuse == "void" else "play goes on"
        table._record(
            {
                "type": "irregularity",
                "card": None,
                "section": "551.16(l)",
                "reason": f"the hole card was put in the reader behind a {up}: {follows}",
            }
        )
        detail = f"reader used behind a {up} up card: {follows}"
        table._stop(Halt("reader_misuse", self.name, detail, "551.16(l)"))

    def cleared(self) -> None:
        """The floorperson cleared the table: what follows a misuse (551.16(l))."""
        misuse, self.misuse = self.misuse, None
        table = self._table
        if misuse == "void":  # 551.16(l)(1)
            table._round_end.void_due = Void(
                "the reader was used behind another up card and lets players learn the hole card",
                "551.16(l)(1)",
                reshuffle=False,
            )
        elif misuse == "continue":  # 551.16(l)(2)
            table._record(
                {"type": "play_continues", "round": table.round, "section": "551.16(l)(2)"}
            )

    def down(self, cause: str, detail: str) -> None:
        """551.16(m): no dealing until a floorperson records the repair or replacement;
        the reader is inspected again before its next use (551.2(e))."""
        table = self._table
        self.armed = False
        self.inspected_day = None
        self.inspecting = False
        if table.state == PEEKING:
            table.reader_failed(None)
        elif table.state == HALTED and table._resume == PEEKING:
            table._resume = PEEK_DUE  # the peek is done again after the repair
        table._stop(Halt(cause, self.name, detail, "551.16(m)", needs_repair=True))

    # ------------------------------------------------------------------ the inspection

    def inspect(self, command: InspectReader) -> None:
        table = self._table
        if self.inspecting:
            table._refuse(command, Refusal("551.2(e)", "the reader's self-test is running"))
        elif not self._devices.self_test():
            table._refuse(command, Refusal("551.2(e)", "the card reader is not connected"))
        else:
            self.inspecting = True
            table._record(
                {"type": "reader_inspection", "day": table._gaming_day(), "section": "551.2(e)"}
            )

    def restarted(self) -> None:
        """A self-test asked for before a restart may never have reached the reader
        (the process died between journaling the inspection and sending the request),
        and an answer it kept comes back as an input no inspection waits for: the
        floorperson inspects it again (551.2(e)). Left waiting, the table refused every
        new inspection as "running" and could not deal that gaming day."""
        self.inspecting = False

    def on_self_test(self, event: m.SelfTestResult) -> None:
        if not self.inspecting:
            return  # not asked for: recorded as an input, nothing follows
        self.inspecting = False
        if event.ok:
            self.inspected_day = self._table._gaming_day()
            self._table._record(
                {"type": "reader_inspected", "day": self.inspected_day, "section": "551.2(e)"}
            )
        else:
            detail = f"the reader failed its self-test (code {event.code})"
            self.down("reader_malfunction", detail)
