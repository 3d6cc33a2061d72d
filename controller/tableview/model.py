"""``TableModel``: what a table looks like now, built from its journal's entries alone
(fed in order with ``feed``), game-aware and pure: no I/O, no clock. ``view()`` is a
plain JSON-serialisable dict any view draws (the terminal's, a page's).

``view()``'s keys: ``game``; ``seq`` (the last entry fed); ``state`` (plain words,
words.py) and ``halted``; ``prompt`` and its ``section`` (the dealer's prompt while it
is current, else None: prompts.py); ``round``, ``shoe``, ``rounds_played`` and
``rounds_words`` ("1 round played"); ``wagers`` (``{"3": [{"bet", "amount"}]}`` by
seat or box, amounts as text); ``hands`` (``[{"place", "hand", "cards", "total"}]``,
the dealer's, the Player's and the Banker's first, then the boxes; Spanish 21 adds
``soft``, ``bust`` and ``doubled``; a face-down card is None); ``result`` (the last
round's, result.py, None from the next round's first wager or card); ``devices``
(``{"shoe": {"health", "words"}}``); ``faults`` (the last halts, irregularities and
failed shuffles, notes.py), ``clearing`` (what each halt not yet cleared needs),
``refusals`` (``what``, ``reason``, ``section``) and ``shuffle_alert`` (the shuffle
monitor's alerts not yet acknowledged, controller/boards/shufflealerts.py; None when
none waits).

The journal records the hole card sealed (``"card": null, "sealed": true``) until its
``reveal`` entry (551.8(e), (h)); so does the model, which shows it face down (None)
until then and never reads a seal.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from controller.boards.shufflealerts import ShuffleAlerts
from controller.tableview.hands import amount, baccarat_hand, spanish21_hand
from controller.tableview.notes import Notes
from controller.tableview.phase import Phase
from controller.tableview.prompts import Prompt
from controller.tableview.result import baccarat_result, returned_result, spanish21_result
from controller.tableview.words import health_words, rounds_words, state_words

Cards = list[str | None]


def _place(entry: Mapping[str, object]) -> str:
    return str(entry.get("box", entry.get("seat")))


def _order(place: str) -> tuple[int, str]:
    return (int(place), "") if place.isdigit() else (-1, place)


def _shown(place: str, number: int) -> tuple[int, tuple[int, str], int]:
    """Hands in the order a layout shows them: the dealer's, the Player's and the
    Banker's, then the boxes from box 1, each box's hands in turn."""
    first = ("dealer", "player", "banker")
    return (first.index(place) if place in first else 9, _order(place), number)


class TableModel:
    """One table's view, fed its journal's entries in order."""

    def __init__(self, game: str) -> None:
        self.game = game
        self._spanish = game == "spanish21"
        self._phase = Phase(self._spanish)
        self._prompt = Prompt()
        self._notes = Notes()
        self._shuffles = ShuffleAlerts()  # the shuffle monitor's, until acknowledged
        self._round: object = None
        self._shoe: object = None
        self._rounds = 0
        self._ended = True  # the last round is over: the next wager or card starts one
        self._wagers: dict[str, dict[str, str]] = {}  # place -> bet -> amount
        self._hands: dict[tuple[str, int], Cards] = {}  # (place, hand) -> cards
        self._doubled: dict[tuple[str, int], str] = {}
        self._result: dict[str, object] | None = None
        self._devices: dict[str, str] = {}
        self._seq = 0
        self._follow: dict[str, Callable[[int, Mapping[str, object]], None]] = {
            "journal": self._header,
            "shuffled": self._shuffled,
            "wager": self._wager,
            "dealt": self._dealt,
            "decision": self._decision,
            "reveal": self._reveal,
            "round_end": self._round_end,
            "wagers_returned": self._returned,
            "shoe_end": self._shoe_end,
            "device": self._device,
            "halt": self._notes.halt,
            "floor_clear": lambda _s, _e: self._notes.cleared(),
            "refused": self._notes.refused,
            "irregularity": self._irregularity,
            "shuffle_failed": self._notes.fault,
            "internal_error": self._notes.fault,
        }

    # ------------------------------------------------------------------ input

    def feed(self, seq: int, entry: Mapping[str, object]) -> None:
        """Take the journal's entry number ``seq``."""
        self._seq = seq
        kind = str(entry.get("type"))
        if kind == "prompt":
            self._prompt.shown(entry)
        else:
            self._prompt.follow(entry)
        self._phase.follow(entry)
        self._shuffles.feed(entry)
        if self._in_round(kind, entry):
            self._round = entry["round"]
        follow = self._follow.get(kind)
        if follow is not None:
            follow(seq, entry)

    def _in_round(self, kind: str, entry: Mapping[str, object]) -> bool:
        """Whether ``entry`` names the round in play (a wager or card starts one)."""
        if not isinstance(entry.get("round"), int) or kind in ("round_end", "shoe_end"):
            return False
        return kind in ("wager", "dealt") or not self._ended

    def _header(self, _seq: int, entry: Mapping[str, object]) -> None:
        game = entry.get("game")
        if isinstance(game, str):
            self.game = game
            self._spanish = game == "spanish21"

    def _shuffled(self, _seq: int, entry: Mapping[str, object]) -> None:
        self._shoe = entry.get("shoe", self._shoe)

    def _start_round(self) -> None:
        if self._ended:
            self._ended = False
            self._wagers, self._hands, self._doubled, self._result = {}, {}, {}, None

    def _wager(self, _seq: int, entry: Mapping[str, object]) -> None:
        self._start_round()
        bets = self._wagers.setdefault(_place(entry), {})
        shown = amount(entry.get("amount")) or "0"
        bet = str(entry.get("bet"))
        if shown == "0":
            bets.pop(bet, None)
        else:
            bets[bet] = shown

    def _dealt(self, _seq: int, entry: Mapping[str, object]) -> None:
        self._start_round()
        to = entry.get("to")
        if to is None:  # Baccarat: the Player's or the Banker's Hand
            key = (str(entry.get("hand")), 1)
        elif to == "dealer":
            key = ("dealer", 1)
        else:
            hand = entry.get("hand")
            key = (str(to), hand if isinstance(hand, int) else 1)
        card = entry.get("card")
        self._hands.setdefault(key, []).append(card if isinstance(card, str) else None)

    def _decision(self, _seq: int, entry: Mapping[str, object]) -> None:
        hand = entry.get("hand")
        key = (_place(entry), hand if isinstance(hand, int) else 1)
        cards = self._hands.get(key, [])
        if entry.get("decision") == "split" and len(cards) == 2:
            # 551.12: the second card is the first of the split hand.
            self._hands[(key[0], key[1] + 1)] = [cards.pop()]
        elif entry.get("decision") == "double":
            self._doubled[key] = amount(entry.get("amount")) or ""

    def _reveal(self, _seq: int, entry: Mapping[str, object]) -> None:
        dealer = self._hands.get(("dealer", 1), [])
        card = entry.get("card")
        if None in dealer and isinstance(card, str):
            dealer[dealer.index(None)] = card

    def _irregularity(self, seq: int, entry: Mapping[str, object]) -> None:
        """Noted; a missed card's corrected deal (551.16(f), (h)) moves the cards out of
        the shoe to the places it gives them."""
        self._notes.fault(seq, entry)
        moved = entry.get("reassigned")
        for move in moved if isinstance(moved, list) else ():
            if not isinstance(move, Mapping):
                continue
            source = self._hands.get((str(move.get("from")), 1), [])
            if move.get("card") in source:
                source.remove(move["card"])
                self._hands.setdefault((str(move.get("to")), 1), []).append(move["card"])

    def _round_end(self, _seq: int, entry: Mapping[str, object]) -> None:
        self._rounds += 1
        self._round = entry.get("round", self._round)
        self._shoe = entry.get("shoe", self._shoe)
        self._ended = True
        self._result = spanish21_result(entry) if self._spanish else baccarat_result(entry)

    def _returned(self, _seq: int, entry: Mapping[str, object]) -> None:
        self._ended = True
        self._result = returned_result(entry)

    def _shoe_end(self, _seq: int, entry: Mapping[str, object]) -> None:
        self._ended = True

    def _device(self, _seq: int, entry: Mapping[str, object]) -> None:
        health = {
            "device_connected": "connected",
            "device_lost": "lost",
            "device_unavailable": "unavailable",
            "device_refused": "refused",
            "device_fault": "fault",
        }.get(str(entry.get("event")))
        if health is not None:
            self._devices[str(entry.get("device"))] = health

    def health(self, device: str, health: str) -> None:
        """A device's health the daemon knows before any entry says it (connecting)."""
        self._devices.setdefault(device, health)

    # ----------------------------------------------------------------- output

    @property
    def rounds_played(self) -> int:
        return self._rounds

    def view(self) -> dict[str, Any]:
        """The table now: plain values only (str, int, float, bool, None, list, dict)."""
        state = self._phase.state
        return {
            "game": self.game,
            "seq": self._seq,
            "state": state_words(state),
            "halted": state == "halted",
            "prompt": self._prompt.text,
            "section": self._prompt.section,
            "round": self._round,
            "shoe": self._shoe,
            "rounds_played": self._rounds,
            "rounds_words": rounds_words(self._rounds),
            "wagers": {
                place: [{"bet": b, "amount": a} for b, a in bets.items()]
                for place, bets in sorted(self._wagers.items(), key=lambda p: _order(p[0]))
                if bets
            },
            "hands": self._hands_view(),
            "result": self._result,
            "devices": {
                name: {"health": health, "words": health_words(health)}
                for name, health in self._devices.items()
            },
            "faults": [dict(n) for n in self._notes.faults],
            "clearing": [str(n["clearing"]) for n in self._notes.open],
            "refusals": [dict(n) for n in self._notes.refusals],
            "shuffle_alert": self._shuffles.view(),
        }

    def _hands_view(self) -> list[dict[str, object]]:
        shape = spanish21_hand if self._spanish else baccarat_hand
        hands = []
        first = ("dealer", "player", "banker")
        for (place, number), cards in sorted(
            self._hands.items(),
            key=lambda h: (
                first.index(h[0][0]) if h[0][0] in first else 9,
                _order(h[0][0]),
                h[0][1],
            ),
        ):
            hand: dict[str, object] = {"place": place, "hand": number, **shape(cards)}
            if (place, number) in self._doubled:
                hand["doubled"] = self._doubled[(place, number)]
            hands.append(hand)
        return hands
