"""The Rules Submission options of a Spanish 21 table and their validation.

Defaults are the chapter's minimums (ruling R8); a value the chapter forbids is
refused with a ``RulesError`` naming the key and the section.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, ClassVar, Final, Literal, cast, get_args

from controller.rules.amounts import DEFAULT_CHIP_UNIT, DEFAULT_MAX_WAGER
from controller.rules.options import (
    RulesError,
    check_keys,
    check_money,
    check_table_limits,
    flag,
    money,
    text,
    whole,
)
from controller.rules.spanish21.hands import BOXES

SettlementOrder = Literal["collect_then_pay", "right_to_left"]

# (different suit, same suit) minimum odds by deck count (551.7(e)(1), (2)).
_MATCH_MINIMUM: Final[Mapping[int, tuple[int, int]]] = {6: (4, 9), 8: (3, 12)}
_DECK_WORDS: Final[Mapping[int, str]] = {6: "six", 8: "eight"}


@dataclass(frozen=True)
class Spanish21Rules:
    """The Rules Submission options of one Spanish 21 table.

    Build it with ``from_dict``, which also takes the Match-the-Dealer odds to the
    minimums for the deck count; the constructor checks the values. Defaults are
    the chapter's minimums (ruling R8).
    """

    game: ClassVar[str] = "spanish21"
    decks: int = 6  # 551.3(a)
    match_the_dealer: bool = True  # offered at all (551.2(c)(5))
    match_the_dealer_different_suit: int = 4  # to 1, each matching card (551.7(e))
    match_the_dealer_same_suit: int = 9  # to 1, each matching card (551.7(e))
    match_the_dealer_max: Decimal | None = None  # None: the box's wager caps it (551.7(b))
    boxes_per_player: int = 1  # adjacent boxes (551.14)
    continuous_shuffler: bool = False  # 551.15
    no_mid_shoe_entry: bool = False  # 551.6(k)
    # 551.16(l): whether the reader in use lets a player learn the hole card. True
    # unless the certificate holder says otherwise: a void round wrongs nobody.
    reader_reveals_hole_card: bool = True
    chip_unit: Decimal = DEFAULT_CHIP_UNIT  # smallest chip a player can wager (551.10(b))
    max_wager: Decimal = DEFAULT_MAX_WAGER  # the table's largest wager (ruling R16)
    settlement_order: SettlementOrder = "collect_then_pay"  # § 635a.7(p)(1) or (2)

    def __post_init__(self) -> None:
        self._check_match_the_dealer()
        if self.boxes_per_player not in BOXES:
            raise RulesError(
                f"rules.boxes_per_player: {self.boxes_per_player} is not from 1 to 7 "
                "(551.14, 551.2(b)(2))"
            )
        check_table_limits(
            self.chip_unit, self.max_wager, _SECTIONS["chip_unit"], _SECTIONS["max_wager"]
        )
        if self.settlement_order not in get_args(SettlementOrder):
            raise RulesError(
                f"rules.settlement_order: {self.settlement_order!r} is not one of "
                f"{', '.join(get_args(SettlementOrder))} (635a.7(p))"
            )

    def _check_match_the_dealer(self) -> None:
        """The deck count and the Match-the-Dealer odds and limit (551.3(a), 551.7)."""
        if self.decks not in _MATCH_MINIMUM:
            raise RulesError(
                f"rules.decks: {self.decks} is not allowed; Spanish 21 is played with "
                "six or eight decks (551.3(a))"
            )
        different, same = _MATCH_MINIMUM[self.decks]
        words = _DECK_WORDS[self.decks]
        for key, odds, least in (
            ("match_the_dealer_different_suit", self.match_the_dealer_different_suit, different),
            ("match_the_dealer_same_suit", self.match_the_dealer_same_suit, same),
        ):
            if odds < least:
                raise RulesError(
                    f"rules.{key}: {odds} to 1 is under the {least} to 1 minimum with "
                    f"{words} decks (551.7(e))"
                )
        if self.match_the_dealer_max is None:
            return
        check_money("match_the_dealer_max", self.match_the_dealer_max, "551.7(b)(2)")
        if self.match_the_dealer_max < 1:
            raise RulesError(
                f"rules.match_the_dealer_max: {self.match_the_dealer_max} is under the $1 "
                "least wager (551.7(b))"
            )

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Spanish21Rules:
        """Validated rules from a Rules Submission table (TOML or JSON), defaults filled.

        RulesError, one line naming the key and the section, for an unknown key, a
        value of the wrong type or a value the chapter forbids.
        """
        check_keys(d, _SECTIONS.keys())
        decks = _whole(d, "decks", 6)
        different, same = _MATCH_MINIMUM.get(decks, (0, 0))
        return cls(
            decks=decks,
            match_the_dealer=_flag(d, "match_the_dealer", True),
            match_the_dealer_different_suit=_whole(d, "match_the_dealer_different_suit", different),
            match_the_dealer_same_suit=_whole(d, "match_the_dealer_same_suit", same),
            match_the_dealer_max=money(d, "match_the_dealer_max", None, "551.7(b)(2)"),
            boxes_per_player=_whole(d, "boxes_per_player", 1),
            continuous_shuffler=_flag(d, "continuous_shuffler", False),
            no_mid_shoe_entry=_flag(d, "no_mid_shoe_entry", False),
            reader_reveals_hole_card=_flag(d, "reader_reveals_hole_card", True),
            chip_unit=_money(d, "chip_unit", DEFAULT_CHIP_UNIT),
            max_wager=_money(d, "max_wager", DEFAULT_MAX_WAGER),
            settlement_order=cast(
                SettlementOrder,
                text(d, "settlement_order", "collect_then_pay", _SECTIONS["settlement_order"]),
            ),
        )


_SECTIONS: Final[Mapping[str, str]] = {
    "decks": "551.3(a)",
    "match_the_dealer": "551.2(c)(5)",
    "match_the_dealer_different_suit": "551.7(e)",
    "match_the_dealer_same_suit": "551.7(e)",
    "match_the_dealer_max": "551.7(b)(2)",
    "boxes_per_player": "551.14",
    "continuous_shuffler": "551.15",
    "no_mid_shoe_entry": "551.6(k)",
    "reader_reveals_hole_card": "551.16(l)",
    "chip_unit": "551.10(b)",
    "max_wager": "551.6(e)",
    "settlement_order": "635a.7(p)",
}


def _whole(d: Mapping[str, Any], key: str, default: int) -> int:
    return whole(d, key, default, _SECTIONS[key])


def _flag(d: Mapping[str, Any], key: str, default: bool) -> bool:
    return flag(d, key, default, _SECTIONS[key])


def _money(d: Mapping[str, Any], key: str, default: Decimal) -> Decimal:
    return money(d, key, default, _SECTIONS[key])
