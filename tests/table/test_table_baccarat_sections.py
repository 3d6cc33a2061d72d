"""Where each chapter writes the rules a Baccarat / Midibaccarat table enforces
(``controller.table.baccarat.machine.SECTIONS``): every key for every game, and a
procedure the chapter does not have stated as such, so a command that would need it is
refused with the section that says why instead of stopping the table."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pytest

from controller.table.baccarat.machine import SECTIONS, Curatorship, Sections
from controller.table.events import Command, ManualShuffle, OfferAnswer, Relinquish
from tests.support import paths
from tests.support.baccarat import CH, Dealer
from tools.compliance import subsections

REGULATIONS = paths.REGULATIONS / "pa-58-ch543-545-551-baccarat-midibaccarat-spanish21.txt"
# Who deals: the curator's procedures, or the dealer for every hand; a chapter has one.
WHO_DEALS = {"dealer_deals", *(f.name for f in dataclasses.fields(Curatorship))}


def keys(sections: Sections) -> dict[str, str | None]:
    """Every key of a chapter's map, a curator's procedures among them."""
    out = {f.name: getattr(sections, f.name) for f in dataclasses.fields(Sections)}
    curatorship = out.pop("curatorship")
    for f in dataclasses.fields(Curatorship):
        out[f.name] = None if curatorship is None else getattr(curatorship, f.name)
    return out


def subsection(section: str) -> str:
    """``545.7(d)(1)`` is in subsection ``545.7(d)``; ``543.7`` has none."""
    return section.split(")")[0] + ")" if "(" in section else section


def test_every_game_has_every_key() -> None:
    assert set(SECTIONS) == set(CH)
    assert {g: set(keys(s)) for g, s in SECTIONS.items()} == {
        g: set(keys(SECTIONS["baccarat"])) for g in SECTIONS
    }


@pytest.mark.parametrize("game", sorted(CH))
def test_every_key_names_a_subsection_of_the_games_chapter_or_none(game: str) -> None:
    idents = {s.ident for s in subsections(REGULATIONS.read_text(encoding="utf-8"))}
    for key, section in keys(SECTIONS[game]).items():
        if section is None:
            assert key in WHO_DEALS, key  # only who deals differs between the chapters
        else:
            assert section.startswith(CH[game] + "."), (key, section)
            assert subsection(section) in idents, (key, section)


def test_a_chapter_says_who_deals_and_no_key_may_be_left_out() -> None:
    baccarat, midi = SECTIONS["baccarat"], SECTIONS["midibaccarat"]
    assert baccarat.curatorship is not None and baccarat.dealer_deals is None
    assert midi.curatorship is None and midi.dealer_deals == "543.9(c)"
    with pytest.raises(ValueError, match="dealer deals"):
        dataclasses.replace(midi, dealer_deals=None)
    with pytest.raises(ValueError, match="dealer deals"):
        dataclasses.replace(baccarat, dealer_deals="545.7(a)")
    given = {f.name: getattr(midi, f.name) for f in dataclasses.fields(Sections)}
    del given["cut"]
    with pytest.raises(TypeError, match="cut"):
        Sections(**given)


def _wagering(d: Dealer) -> None:
    d.open()


def _dealing(d: Dealer) -> None:
    d.open()
    d.play(["9H"], {1: {"banker": 10}})


MOMENTS: dict[str, Callable[[Dealer], None]] = {
    "before_the_shuffle": lambda d: None,
    "burn_due": lambda d: d.table.handle(ManualShuffle()),
    "wagering": _wagering,
    "dealing": _dealing,
}
SHOE_COMMANDS = [
    Relinquish("shoe"),
    Relinquish("shoe", compulsory=True),
    OfferAnswer("shoe", 1, "accept"),
    OfferAnswer("shoe", 1, "decline"),
    OfferAnswer("shoe", 1, "dealer"),
]


@pytest.mark.reg("543.7", "543.9(c)")
@pytest.mark.parametrize("moment", MOMENTS)
@pytest.mark.parametrize("command", SHOE_COMMANDS, ids=lambda c: f"{c.name}-{c.fields()}")
def test_midibaccarat_refuses_each_command_for_a_curator_the_dealer_deals(
    moment: str, command: Command
) -> None:
    d = Dealer("midibaccarat")
    MOMENTS[moment](d)
    state, need, refused = d.table.state, d.need(), len(d.refusals())
    d.table.handle(command)
    assert d.refusals()[refused:] == [
        {
            "type": "refused",
            "command": command.name,
            **command.fields(),
            "state": state,
            "section": "543.9(c)",
            "reason": "the dealer deals Midibaccarat: no curator",
        }
    ]
    assert not d.io.of_type("internal_error") and not d.io.of_type("halt")
    assert (d.table.state, d.need()) == (state, need)
    assert d.table.curator is None and d.table.offered("shoe") is None
