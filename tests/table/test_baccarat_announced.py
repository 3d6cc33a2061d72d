"""The table's announcements, asked of the rules once for each stage of a deal
(``Round._announced``), are the rules' own on every hand: on every deal of card values
the stateless ``announcements`` of two hands at the same stage (the cards out on each
side, the hand due, the Point Counts, as the round's coup keeps them) are the same, and
a table shows each card's lines as the rules give them."""

from __future__ import annotations

from controller.rules.baccarat import Coup, announcements

RANKS_OF_VALUE = ("TJQK", "A", "2", "3", "4", "5", "6", "7", "8", "9")


def _token(v: int, n: int) -> str:
    ranks = RANKS_OF_VALUE[v]
    return ranks[n % len(ranks)] + "SHDC"[n % 4]


def _stages(coup: Coup, dealt: int, seen: dict[tuple[object, ...], tuple[str, ...]]) -> int:
    """Every deal on from ``coup``: each hand's announcements against the first seen at
    its stage; how many hands were compared."""
    player, banker = coup.player, coup.banker
    key = (len(player), len(banker), coup.due, coup.player_total, coup.banker_total)
    lines = announcements(player, banker)
    assert seen.setdefault(key, lines) == lines, (player, banker)
    if coup.due is None:
        return 1
    compared = 1
    for v in range(10):
        after = Coup.of(list(player), list(banker))
        after.add(_token(v, dealt))
        compared += _stages(after, dealt + 1, seen)
    return compared


def test_every_hand_at_a_stage_has_that_stages_announcements() -> None:
    seen: dict[tuple[object, ...], tuple[str, ...]] = {}
    assert _stages(Coup(), 0, seen) > 10_000
    assert len(seen) < 1_000  # what a table keeps at most
