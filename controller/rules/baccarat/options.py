"""The Rules Submission options of a Baccarat or Midibaccarat table and their
validation. Defaults are the chapters' minimums (ruling R8); a value the chapter
forbids is refused with a ``RulesError`` naming the key and the section."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Literal, cast, get_args

from controller.rules.amounts import DEFAULT_CHIP_UNIT, DEFAULT_MAX_WAGER
from controller.rules.options import (
    RulesError,
    check_keys,
    check_table_limits,
    flag,
    money,
    text,
    whole,
)

Game = Literal["baccarat", "midibaccarat"]
Dealing = Literal["face_up", "banker_under_shoe", "players_reveal"]
VigorishCollection = Literal["at_payout", "deferred"]
Vigorish = Literal["commission", "tie_25"]

GAMES: tuple[Game, ...] = get_args(Game)
_RATES: Mapping[int, Decimal] = {c: Decimal(c) / 100 for c in (0, 4, 5)}  # 545.13(c), 543.13(f)


def _chapter(game: Game) -> str:
    return "545" if game == "baccarat" else "543"


def _unknown_game(game: str) -> RulesError:
    return RulesError(f"rules: unknown game {game!r}; expected baccarat or midibaccarat")


def _dealing_section(game: Game) -> str:
    return "545.9(c)-(d)" if game == "baccarat" else "543.9(c)"


_VIGORISH: Mapping[Game, tuple[Vigorish, ...]] = {
    "baccarat": ("commission",),  # 545.13(c); a tie returns the wager, 545.8(a)(1)(iii)
    "midibaccarat": ("commission", "tie_25"),  # 543.13(c), (f)
}
_DEALING: Mapping[Game, tuple[Dealing, ...]] = {
    "baccarat": ("face_up", "players_reveal"),  # 545.9(c), 545.9(d)
    "midibaccarat": ("face_up", "banker_under_shoe", "players_reveal"),  # 543.9(c)(1)-(3)
}


@dataclass(frozen=True)
class BaccaratRules:
    """The Rules Submission options of one Baccarat or Midibaccarat table.

    Build it with ``from_dict``; the constructor checks the values as well. Defaults
    are the chapters' minimums (ruling R8).
    """

    game: Game = "baccarat"
    decks: int = 8  # 545.3(a)
    commission: int = 5  # percent of the amount won (545.13(c)); 0 under "tie_25"
    tie_odds: int = 8  # pays tie_odds to 1 (545.13(b))
    dealing: Dealing = "face_up"  # 545.9(c)-(d), 543.9(c)(1)-(3)
    vigorish_collection: VigorishCollection = "at_payout"  # 545.13(e)
    vigorish: Vigorish = "commission"  # "tie_25": 543.13(f)
    vigorish_rounding: bool = False  # 545.13(d), 543.13(d)
    # Wagers are chips (545.8(b)); the chapter names no denomination, so the smallest
    # chip and the table's limit are the certificate holder's (ruling R16).
    chip_unit: Decimal = DEFAULT_CHIP_UNIT
    max_wager: Decimal = DEFAULT_MAX_WAGER

    def __post_init__(self) -> None:
        if self.game not in GAMES:
            raise _unknown_game(self.game)
        ch = _chapter(self.game)
        check_table_limits(self.chip_unit, self.max_wager, f"{ch}.8(b)", f"{ch}.8(b)")
        if not 6 <= self.decks <= 8:
            raise RulesError(f"rules.decks: {self.decks} is outside six to eight decks ({ch}.3(a))")
        self._check_vigorish(ch)
        self._check_commission(ch)
        if self.tie_odds < 8:
            raise RulesError(
                f"rules.tie_odds: {self.tie_odds} is under the 8 to 1 minimum ({ch}.13(b))"
            )
        allowed = _DEALING[self.game]
        if self.dealing not in allowed:
            raise RulesError(
                f"rules.dealing: {self.dealing!r} is not a {self.game} procedure; expected "
                f"{' or '.join(repr(a) for a in allowed)} ({_dealing_section(self.game)})"
            )
        if self.vigorish_collection not in get_args(VigorishCollection):
            raise RulesError(
                f"rules.vigorish_collection: {self.vigorish_collection!r} is not "
                f"'at_payout' or 'deferred' ({ch}.13(e))"
            )

    def _check_vigorish(self, ch: str) -> None:
        """The kind of vigorish is one the game's chapter provides (545.13(c), 543.13(f))."""
        if self.vigorish in _VIGORISH[self.game]:
            return
        if self.vigorish == "tie_25":
            raise RulesError(
                "rules.vigorish: 'tie_25' is a Midibaccarat option (543.13(f)); a "
                "Baccarat Banker wager on a tie is returned (545.8(a)(1)(iii))"
            )
        expected = " or ".join(repr(v) for v in _VIGORISH[self.game])
        raise RulesError(
            f"rules.vigorish: {self.vigorish!r} is not {expected} ({ch}.13(c), 543.13(f))"
        )

    def _check_commission(self, ch: str) -> None:
        """4 or 5 percent of a winning Banker wager, or under 543.13(f) none at all and
        the 25% tie vigorish collected at the end of the round."""
        if self.vigorish == "tie_25":
            if self.commission != 0:
                raise RulesError(
                    "rules.commission: no commission on winning Banker wagers when "
                    "vigorish is 'tie_25' (543.13(f))"
                )
            if self.vigorish_collection != "at_payout":
                raise RulesError(
                    "rules.vigorish_collection: the 25% tie vigorish is collected at the "
                    "end of the round, never deferred (543.13(f))"
                )
        elif self.commission not in (4, 5):
            raise RulesError(
                f"rules.commission: {self.commission} is not allowed; the percentage is "
                f"4 or 5 ({ch}.13(c))"
            )

    @classmethod
    def from_dict(cls, game: str, d: Mapping[str, Any]) -> BaccaratRules:
        """Validated rules from a Rules Submission table (TOML or JSON), defaults filled.

        RulesError, one line naming the key and the section, for an unknown key, a
        value of the wrong type or a value the chapter forbids.
        """
        if game not in GAMES:
            raise _unknown_game(game)
        ch = _chapter(game)
        check_keys(d, _KEYS)
        vigorish = cast(Vigorish, text(d, "vigorish", "commission", f"{ch}.13(c)"))
        return cls(
            game=game,
            decks=whole(d, "decks", 8, f"{ch}.3(a)"),
            commission=whole(d, "commission", 0 if vigorish == "tie_25" else 5, f"{ch}.13(c)"),
            tie_odds=whole(d, "tie_odds", 8, f"{ch}.13(b)"),
            dealing=cast(Dealing, text(d, "dealing", "face_up", _dealing_section(game))),
            vigorish_collection=cast(
                VigorishCollection,
                text(d, "vigorish_collection", "at_payout", f"{ch}.13(e)"),
            ),
            vigorish=vigorish,
            vigorish_rounding=flag(d, "vigorish_rounding", False, f"{ch}.13(d)"),
            chip_unit=money(d, "chip_unit", DEFAULT_CHIP_UNIT, f"{ch}.8(b)"),
            max_wager=money(d, "max_wager", DEFAULT_MAX_WAGER, f"{ch}.8(b)"),
        )

    @property
    def commission_rate(self) -> Decimal:
        rate = _RATES.get(self.commission)
        return Decimal(self.commission) / 100 if rate is None else rate


_KEYS = (
    "decks",
    "commission",
    "tie_odds",
    "dealing",
    "vigorish_collection",
    "vigorish",
    "vigorish_rounding",
    "chip_unit",
    "max_wager",
)
