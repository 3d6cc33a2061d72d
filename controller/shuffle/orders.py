"""The observed orders of each shoe, read from a table's journal entries (issue 14).

``shoe_orders`` walks the entries, in sequence order, and gives one ``ShoeOrder`` a
shoe: ``dealt``, every card out of the shoe in the order the shoe read it (burns,
cards found face up and discards included), ``"CUT"`` (``controller.rules.cards.CUT``)
where the cover / cutting card came out; a sealed hole card (551.8(e)) is journalled
null until the row that opens its seal, and is put back at the position it was dealt
from; a card whose seal no row opens stays ``"??"`` (``UNKNOWN``). ``rack``: the order
the shoe's cards went into the discard rack as the procedure collects them: the burn
cards and the cards discarded when their row is written, and each round's cards as its
``round_end`` records them (Spanish 21, 551.8(i): the boxes from the dealer's far
right, the highest box, counterclockwise to box 1, each box's hands in order, each
hand's cards in order, the dealer's cards last, "against the bottom"; Baccarat and
Midibaccarat, 545.12(c) / 543.12(c): the round's cards together, the Player's then the
Banker's Hand, in an order within the round that no rule prescribes: ``rack_rounds``
says where each round's block starts). ``pairings`` then gives, for each shoe after
the first, the order its shuffler was given as far as it is known (docs/shuffle-monitor.md,
"The observed orders").
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from controller.rules.cards import CUT, deck

UNKNOWN = "??"  # a sealed card whose seal no row opens: its place is known, not its value
CONTINUOUS = "551.15"  # a continuous shuffler's "shuffled" entry carries this section

# The rows ``shoe_orders`` reads (and, of the devices' rows, the events): any other row
# leaves every order as it is, but for the ``opened`` list a row may carry (a sealed
# card's value, 551.8(e)). A reader that selects rows may select these and those alone.
READS_TYPES = (
    "shuffled", "burn", "discard", "irregularity", "round_end", "rack_shuffled", "shoe_end",
)  # fmt: skip
READS_DEVICE_EVENTS = ("card_drawn", "cut_card_seen")

# The rows that put a card out of a round into the discard rack when they are written.
_RACK_IRREGULARITIES = ("551.16(a)", "545.15(d)", "543.14(d)", "545.15(c)", "543.14(c)")


@dataclass
class ShoeOrder:
    """One shoe's orders. ``complete``: every card out of the shoe is known, in its
    place, the shoe ended in the journal and its rack holds what the shoe's end says
    went to it; ``notes`` says what is missing otherwise."""

    shoe: int
    dealt: list[str]
    rack: list[str] | None
    complete: bool
    notes: str
    cards: int | None = None  # the cards the "shuffled" entry says the shuffler counted
    continuous: bool = False  # 551.15: the rack is the cards returned after the round
    rack_rounds: list[int] = field(default_factory=list)  # where each round's block starts
    rack_ordered_within_rounds: bool = True  # False for Baccarat's 545.12(c)
    from_rack: list[str] = field(default_factory=list)  # 551.16(g): dealt from the rack
    end: str | None = None  # the shoe_end's reason
    game: str | None = None  # as its round_end rows name it


@dataclass
class Pairing:
    """Shoe ``shoe``'s shuffler input and output. ``input``: the part of the input whose
    order is known (the previous shoe's rack, in collection order), or None when it is
    not known at all; ``unseen``: the cards the shuffler got whose order is not known
    (the previous shoe's cards never read out of it), sorted; ``output``: the shoe's
    dealt order without the cover card. Cards repeat (6 or 8 decks): a card string names
    up to as many cards as decks, so a pairing is of card strings, never a bijection of
    positions."""

    shoe: int
    input: list[str] | None
    unseen: list[str]
    output: list[str]
    notes: str


class _Shoe:
    """The shoe being read: its orders so far, and its sealed cards by seal."""

    def __init__(self, number: int, entry: Mapping[str, Any]) -> None:
        self.order = ShoeOrder(number, [], [], False, "", cards=_int(entry.get("cards")))
        self.order.continuous = entry.get("section") == CONTINUOUS
        self.sealed: dict[str, tuple[list[str], int]] = {}  # seal -> (dealt or from_rack, at)
        self.notes: list[str] = []  # what keeps the shoe from being complete
        self.info: list[str] = []  # what is worth knowing but leaves it complete
        self.discards: Counter[str] = Counter()  # burned or discarded, by rows so far
        self.in_rack = self.order.dealt  # where drawn cards go: the shoe, or the rack's

    def drawn(self, entry: Mapping[str, Any]) -> None:
        card = entry.get("card")
        if card is None and entry.get("sealed") and entry.get("seal"):
            self.sealed[str(entry["seal"])] = (self.in_rack, len(self.in_rack))
            card = UNKNOWN
        self.in_rack.append(str(card) if card is not None else UNKNOWN)

    def opened(self, entry: Mapping[str, Any]) -> None:
        for opening in entry.get("opened") or ():
            place = self.sealed.pop(str(opening.get("seal")), None)
            if place is not None and opening.get("card"):
                cards, at = place
                cards[at] = str(opening["card"])

    def to_rack(self, cards: Iterable[object], round_start: bool = False) -> None:
        rack = self.order.rack
        assert rack is not None
        if round_start:
            self.order.rack_rounds.append(len(rack))
        rack.extend(str(c) if c is not None else UNKNOWN for c in cards)

    def round_end(self, entry: Mapping[str, Any]) -> None:
        if entry.get("game"):
            self.order.game = str(entry["game"])
        if "player" in entry or "banker" in entry:
            self.order.rack_ordered_within_rounds = False  # 545.12(c), 543.12(c)
            cards = [*(entry.get("player") or ()), *(entry.get("banker") or ())]
        else:
            cards = _collected_551_8_i(entry)
        if entry.get("void"):
            self.info.append(f"round {entry.get('round')} void: its cards collected")
        self.to_rack(cards, round_start=True)

    def rack_shuffled(self, entry: Mapping[str, Any]) -> None:
        """551.16(g): the rack so far is shuffled into the shoe; what is drawn from here
        on comes from it (``from_rack``), the rack starts again."""
        self.notes.append(
            f"551.16(g): the rack's {entry.get('cards')} cards reshuffled after "
            f"{len(self.order.dealt)} cards out of the shoe; cards dealt from them are "
            "in from_rack"
        )
        self.order.rack = []
        self.order.rack_rounds = []
        self.in_rack = self.order.from_rack

    def loose(self, card: object) -> None:
        """A burn card or a card discarded outside a round, into the rack now."""
        self.to_rack([card])
        self.discards[str(card)] += 1

    def ended(self, entry: Mapping[str, Any]) -> ShoeOrder:
        """The shoe's end: the cards it names as burned or discarded that no row put in
        the rack before (drawn in error and never used, out while play was stopped) go
        in last, in the order it names them."""
        self.order.end = str(entry.get("reason"))
        named = [str(c) for c in [*entry.get("burned", ()), *entry.get("discarded", ())]]
        for card in named:
            if self.discards[card] > 0:
                self.discards[card] -= 1
            else:
                self.to_rack([card])
        extra = +self.discards
        if extra:
            self.notes.append(
                f"rack cards the shoe's end does not name: {sorted(extra.elements())}"
            )
        return self.finish(ended=True)

    def finish(self, ended: bool, why: str = "the journal ends before the shoe does") -> ShoeOrder:
        order = self.order
        if not ended:
            self.notes.append(f"{why}: no rack handed on")
            order.rack = None
        unknown = order.dealt.count(UNKNOWN) + (order.rack or []).count(UNKNOWN)
        if unknown:
            self.notes.append(f"{unknown} card(s) sealed and never opened: {UNKNOWN}")
        order.complete = ended and not self.notes
        order.notes = "; ".join([*self.notes, *self.info])
        return order


def _collected_551_8_i(entry: Mapping[str, Any]) -> list[object]:
    """551.8(i): the boxes from the dealer's far right (the highest box) counterclockwise,
    each box's hands as the round settled them, then the dealer's cards."""
    boxes = entry.get("boxes") or {}
    cards: list[object] = []
    for box in sorted(boxes, key=_box_number, reverse=True):
        for hand in boxes[box].get("hands") or ():
            cards.extend(hand.get("cards") or ())
    cards.extend(entry.get("dealer") or ())
    return cards


def _box_number(box: object) -> int:
    number = _int(box)
    if number is None:
        raise ValueError(f"round_end names a box that is not a number: {box!r}")
    return number


def _int(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.isdigit():
        return int(value)
    return None


Rows = Iterable[tuple[int, Mapping[str, Any]]]


def shoe_orders(rows: Rows) -> list[ShoeOrder]:
    """Each shoe's orders from the journal's ``(seq, entry)`` rows, in sequence order.
    ValueError (one line) for rows out of order or shoe numbers that do not rise."""
    orders: list[ShoeOrder] = []
    shoe: _Shoe | None = None
    last_seq, last_shoe = 0, 0
    for seq, entry in rows:
        if not isinstance(seq, int) or seq <= last_seq:
            raise ValueError(f"journal rows out of order: row {seq} after row {last_seq}")
        last_seq = seq
        if entry.get("type") == "shuffled":
            if shoe is not None:
                orders.append(shoe.finish(False, f"shuffled again at row {seq} before its end"))
            shoe = _Shoe(_next_shoe(seq, entry, last_shoe), entry)
            last_shoe = shoe.order.shoe
        elif shoe is not None:
            _read(shoe, entry)
            if entry.get("type") == "shoe_end":
                orders.append(shoe.ended(entry))
                shoe = None
    if shoe is not None:
        orders.append(shoe.finish(ended=False))
    return orders


def _next_shoe(seq: int, entry: Mapping[str, Any], last: int) -> int:
    number = _int(entry.get("shoe"))
    if number is None or number <= last:
        raise ValueError(f"row {seq}: shoe {entry.get('shoe')!r} after shoe {last}")
    return number


def _read(shoe: _Shoe, entry: Mapping[str, Any]) -> None:
    kind, event = entry.get("type"), entry.get("event")
    if kind == "device" and event == "card_drawn":
        shoe.drawn(entry)
    elif kind == "device" and event == "cut_card_seen":
        shoe.in_rack.append(CUT)
    elif kind in ("burn", "discard") or _to_rack(entry):
        shoe.loose(entry.get("card"))
    elif kind == "round_end":
        shoe.round_end(entry)
    elif kind == "rack_shuffled":
        shoe.rack_shuffled(entry)
    shoe.opened(entry)


def _to_rack(entry: Mapping[str, Any]) -> bool:
    """An irregularity that sends its card to the discard rack as it is written."""
    if entry.get("type") != "irregularity" or entry.get("card") in (None, CUT):
        return False
    return entry.get("to") == "discard_rack" or entry.get("section") in _RACK_IRREGULARITIES


def shoe_order(orders: Sequence[ShoeOrder], number: int) -> ShoeOrder:
    """Shoe ``number``'s orders; ValueError when the journal has no such shoe."""
    for order in orders:
        if order.shoe == number:
            return order
    known = f"{orders[0].shoe}-{orders[-1].shoe}" if orders else "none"
    raise ValueError(f"no shoe {number} in the journal (shoes: {known})")


def pairings(orders: Sequence[ShoeOrder]) -> list[Pairing]:
    """For each shoe after the first: the order its shuffler was given, as far as the
    journal knows it (docs/shuffle-monitor.md, "The observed orders")."""
    return [_pairing(before, after) for before, after in itertools.pairwise(orders)]


def _pairing(before: ShoeOrder, after: ShoeOrder) -> Pairing:
    output = [c for c in after.dealt if c != CUT]
    why = _no_input(before, after)
    if why:
        return Pairing(after.shoe, None, [], output, why)
    assert before.rack is not None
    # The cards of the shoe never read out of it (below the cover card, or the device's
    # for a continuous shuffler) go to the shuffler too, in an order nobody saw.
    left = unseen(before)
    notes = [f"{len(left)} card(s) of shoe {before.shoe} never read: order unknown"]
    if before.continuous:
        notes.append("551.15: input = the cards returned after the round, the rest in the device")
    if not before.rack_ordered_within_rounds:
        notes.append("545.12(c)/543.12(c): order known by round blocks only")
    return Pairing(after.shoe, list(before.rack), left, output, "; ".join(notes))


def composition(order: ShoeOrder) -> Counter[str]:
    """The shoe's cards as its "shuffled" entry counts them: whole decks, Spanish (48
    cards, 551.3(a)) for a Spanish 21 shoe, 52 otherwise; empty when not counted."""
    per_deck = 48 if order.game == "spanish21" else 52
    if not order.cards or order.cards % per_deck:
        return Counter()
    return Counter({c: order.cards // per_deck for c in deck(order.game == "spanish21")})


def unseen(order: ShoeOrder) -> list[str]:
    """The shoe's cards never read out of it (sorted): those still in the shoe at its
    end, or in a continuous shuffler's device. ValueError when the shoe read a card its
    decks do not hold."""
    read = Counter(c for c in [*order.dealt, *order.from_rack] if c not in (CUT, UNKNOWN))
    full = composition(order)
    if not full:
        return []
    extra = read - full
    if extra:
        raise ValueError(f"shoe {order.shoe} read cards its decks do not hold: {sorted(extra)}")
    return sorted((full - read).elements())


def _no_input(before: ShoeOrder, after: ShoeOrder) -> str:
    """Why shoe ``after``'s input order is not known at all ("" when it is known)."""
    if after.shoe != before.shoe + 1:
        return f"shoes {before.shoe + 1}-{after.shoe - 1} are not in the journal"
    if before.rack is None:
        return f"shoe {before.shoe} has no end in the journal"
    if before.end == "decks_removed":
        return "551.16(b): new decks, not the rack's cards"
    if before.from_rack:
        return f"551.16(g): shoe {before.shoe}'s rack was reshuffled mid-shoe"
    if UNKNOWN in before.rack:
        return f"shoe {before.shoe}'s rack holds a card never opened"
    if before.cards is None or before.cards != after.cards:
        return f"the shuffler counted {after.cards} cards, shoe {before.shoe} had {before.cards}"
    return ""
