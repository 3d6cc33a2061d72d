"""What the dealer announces, for the shoe's display (545.9(b), 545.10(a)-(b), (e),
545.12(a))."""

from __future__ import annotations

from collections.abc import Sequence

from controller.rules.baccarat.drawing import next_to_draw, result
from controller.rules.baccarat.points import is_natural, point

NO_MORE_BETS = "NO MORE BETS"  # 545.9(b), 543.9(b)
CARDS = "CARDS"  # 545.9(b): the dealer calling the game instructs the curator
LAST_HAND = "LAST HAND"  # 545.10(e), ruling R1


def announcements(player: Sequence[str], banker: Sequence[str]) -> tuple[str, ...]:
    """What the dealer announces once these cards are out, in order, for the display.

    Each line is printable ASCII of at most 32 characters. Nothing is due before the
    fourth card. After it: the Player's then the Banker's Point Count (545.10(a);
    also the order in which 545.9(d) and 543.9(c)(3) reveal them), then whether each
    hand draws or stays (545.10(b)), and once the round is complete the final Point
    Counts with the winning hand or "TIE HAND" (545.12(a)). The last card dealt is
    the one the order of 545.9(c) and 545.10(c) puts last.
    """
    nxt = next_to_draw(player, banker)
    p, b = len(player), len(banker)
    if p + b < 4:
        return ()
    natural = is_natural(player[:2]) or is_natural(banker[:2])
    lines: list[str] = []
    if (p, b) == (2, 2):
        lines += [f"PLAYER {point(player)}", f"BANKER {point(banker)}"]
        if nxt == "player":
            return (*lines, "PLAYER DRAWS")
        if not natural:
            lines.append("PLAYER STAYS")
    if nxt == "banker":
        return (*lines, "BANKER DRAWS")
    if b == 2 and not natural:
        lines.append("BANKER STAYS")
    return (*lines, _result_line(player, banker))


def _result_line(player: Sequence[str], banker: Sequence[str]) -> str:
    outcome = result(player, banker)
    won = "TIE HAND" if outcome == "tie" else f"{outcome.upper()} WINS"
    return f"PLAYER {point(player)} BANKER {point(banker)} {won}"
