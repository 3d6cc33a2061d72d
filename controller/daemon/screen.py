"""The live view's screen: one table model's view (controller/tableview) drawn with rich
in at most ``WIDTH`` columns and ``HEIGHT`` lines, one line per row, nothing wrapped.

From the top: the table and its count of rounds; its state and the dealer's current
prompt; the hands with their cards (the hole card a card back until its reveal,
551.8(e)), totals, wagers and, once the round is over, each hand's or seat's outcome
and net; the round's result; each device's health; the last faults, what clearing a
halt needs, and the last refusals; where the log goes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

WIDTH: Final = 80
HEIGHT: Final = 24
CARD_BACK: Final = "▒▒"  # a card dealt face down and not revealed
_SUITS: Final = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
_FIXED: Final = 9  # the lines drawn whatever the table: all but the rows and notes
NOTES: Final = 4  # at most this many lines of faults and refusals
_BETS: Final = {"spanish21": "", "match_the_dealer": "MtD ", "insurance": "ins "}


def _line(text: str | Text, style: str = "") -> Text:
    from rich.text import Text

    line = Text(text, style=style) if isinstance(text, str) else text
    line.no_wrap, line.overflow = True, "ellipsis"
    return line


def _cards(cards: Sequence[object]) -> Text:
    from rich.text import Text

    out = Text()
    for n, card in enumerate(cards):
        if n:
            out.append(" ")
        if not isinstance(card, str) or len(card) != 2:
            out.append(CARD_BACK, style="blue")
        else:
            red = card[1] in "HD"
            out.append(card[0] + _SUITS.get(card[1], card[1]), style="bold red" if red else "bold")
    return out


def _total(hand: Mapping[str, Any]) -> Text:
    from rich.text import Text

    total = hand.get("total")
    if total is None:
        return Text("")
    if hand.get("bust"):
        return Text(f"{total} BUST", style="bold red")
    return Text(f"soft {total}" if hand.get("soft") else str(total))


def _signed(amount: object) -> str:
    text = str(amount)
    return text if text.startswith("-") or text == "0" else f"+{text}"


def _outcome(words: str, net: object) -> Text:
    from rich.text import Text

    style = {"win": "bold green", "lose": "red", "push": "yellow"}.get(words, "")
    return Text(f"{words} {_signed(net)}", style=style)


def _net(amount: object) -> Text:
    from rich.text import Text

    text = _signed(amount)
    return Text(text, style="red" if text.startswith("-") else "bold green" if text != "0" else "")


def _grid() -> Table:
    from rich.table import Table

    grid = Table(box=None, show_header=True, header_style="dim", pad_edge=False, expand=False)
    for name, width in (("", 8), ("cards", 24), ("total", 8), ("wager", 14), ("result", 18)):
        grid.add_column(name, width=width, no_wrap=True, overflow="ellipsis")
    return grid


def _layout(hand: Mapping[str, Any]) -> tuple[int, int]:
    """The dealer first, then the boxes from box 1, each box's hands in turn."""
    place = str(hand["place"])
    return (int(place) if place.isdigit() else 0, int(hand["hand"]))


def _box_wager(view: Mapping[str, Any], hand: Mapping[str, Any]) -> str:
    """The box's wagers on its first hand's row; a Double Down on its hand's row."""
    doubled = f"double {hand['doubled']}" if "doubled" in hand else ""
    if hand["hand"] != 1:
        return doubled
    wagers = [
        f"{_BETS.get(w['bet'], w['bet'] + ' ')}{w['amount']}"
        for w in view["wagers"].get(hand["place"], [])
    ]
    return ", ".join([*wagers, doubled] if doubled else wagers)


def _spanish21_rows(view: Mapping[str, Any]) -> list[tuple[str | Text, ...]]:
    boxes = (view.get("result") or {}).get("boxes", {})
    rows: list[tuple[str | Text, ...]] = []
    dealt = {h["place"] for h in view["hands"]}
    waiting = [{"place": p, "hand": 1, "cards": []} for p in view["wagers"] if p not in dealt]
    hands = sorted([*view["hands"], *waiting], key=_layout)
    for hand in hands:
        place, number = hand["place"], hand["hand"]
        if place == "dealer":
            rows.append(("dealer", _cards(hand["cards"]), _total(hand), "", ""))
            continue
        settled = boxes.get(place, {}).get("hands", [])
        outcome = settled[number - 1] if number <= len(settled) else None
        shown = _outcome(outcome["words"], outcome["net"]) if outcome else ""
        label = f"box {place}" if number == 1 else f"  hand {number}"
        rows.append((label, _cards(hand["cards"]), _total(hand), _box_wager(view, hand), shown))
    return rows


def _baccarat_rows(view: Mapping[str, Any]) -> list[tuple[str | Text, ...]]:
    rows: list[tuple[str | Text, ...]] = [
        (hand["place"].capitalize(), _cards(hand["cards"]), _total(hand), "", "")
        for hand in view["hands"]
    ]
    seats = (view.get("result") or {}).get("seats", {})
    for seat, wagers in view["wagers"].items():
        wager = ", ".join(f"{w['bet']} {w['amount']}" for w in wagers)
        settled = seats.get(seat)
        shown: str | Text = ""
        if settled:
            shown = _net(settled["net"])
            if settled["vigorish"] not in (None, "0"):
                owed = " owed" if settled["vigorish_deferred"] else ""
                shown.append(f" (vig {settled['vigorish']}{owed})")
        rows.append((f"seat {seat}", "", "", wager, shown))
    return rows


def _result_line(view: Mapping[str, Any]) -> Text:
    result = view.get("result")
    if not result:
        return _line("")
    if result.get("void"):
        reason = result.get("reason") or "void"
        return _line(f"Round {result['round']}: void, wagers returned ({reason})", "bold yellow")
    if "winner" in result:
        natural = " (natural)" if result.get("natural") else ""
        scores = f"Player {result['player_total']}, Banker {result['banker_total']}"
        return _line(f"Round {result['round']}: {result['words']}{natural} · {scores}", "bold")
    bust = " BUST" if result.get("dealer_bust") else ""
    nets = "  ".join(f"box {b} {_signed(r['net'])}" for b, r in result["boxes"].items())
    return _line(f"Round {result['round']}: dealer {result['dealer_total']}{bust} · {nets}", "bold")


def _shuffle_line(alert: Mapping[str, Any]) -> Text:
    """The shuffle monitor's alert, until a floorperson acknowledges it: play goes on."""
    latest = alert["latest"]
    failed = ", ".join(latest["failed"]) or "-"
    shoes = ", ".join(str(s) for s in alert["shoes"])
    return _line(
        f"SHUFFLE ALERT shoe {shoes}: {failed} · floorperson: acknowledge_shuffle_alert",
        "bold magenta",
    )


def _notes(view: Mapping[str, Any]) -> list[Text]:
    lines = [_line(f"to clear: {need}", "bold red") for need in view["clearing"]]
    if view.get("shuffle_alert"):
        lines.append(_shuffle_line(view["shuffle_alert"]))
    for fault in reversed(view["faults"]):
        device = f" ({fault['device']})" if fault.get("device") else ""
        section = f" {fault['section']}" if fault.get("section") else ""
        lines.append(_line(f"fault: {fault['words']}{device}{section}", "red"))
    for refusal in reversed(view["refusals"]):
        section = f" ({refusal['section']})" if refusal.get("section") else ""
        lines.append(_line(f"refused {refusal['what']}: {refusal['reason']}{section}", "yellow"))
    return lines[:NOTES]


def _table(view: Mapping[str, Any], room: int) -> Table:
    """The hands and seats in ``room`` lines at most (a last line counts the rest)."""
    rows = _spanish21_rows(view) if view["game"] == "spanish21" else _baccarat_rows(view)
    grid = _grid()
    shown = rows if len(rows) <= room else rows[: room - 1]
    for row in shown:
        grid.add_row(*row)
    if len(shown) < len(rows):
        grid.add_row(f"+{len(rows) - len(shown)} more", "", "", "", "")
    return grid


def _heading(view: Mapping[str, Any], title: str, status: str) -> list[Text]:
    where = f"shoe {view['shoe'] or '-'} round {view['round'] or '-'}"
    section = f"  ({view['section']})" if view.get("section") else ""
    state = status if status and view["state"] == "starting up" else view["state"]
    return [
        _line(f"{title} · {where} · {view['rounds_words']}", "bold"),
        _line(f"state: {state}", "bold red" if view["halted"] else ""),
        _line(f"prompt: {view['prompt'] or '-'}{section}", "bold yellow"),
    ]


def _footer(log_path: str | None) -> str:
    """Ctrl-C, and where the log goes: a path too long for the line loses its start."""
    footer = "Ctrl-C stops"
    if log_path is None:
        return footer
    room = WIDTH - len(footer) - len(" · log: ")
    shown = log_path if len(log_path) <= room else "…" + log_path[-(room - 1) :]
    return f"{footer} · log: {shown}"


def render(
    view: Mapping[str, Any], title: str, status: str, log_path: str | None, height: int = HEIGHT
) -> Group:
    """The screen for ``view`` (``TableModel.view()``); ``status`` the daemon's own line
    while no entry says anything yet (connecting, stopping)."""
    from rich.console import Group
    from rich.rule import Rule

    notes = _notes(view)
    devices = "  ".join(f"{name} {d['words']}" for name, d in view["devices"].items())
    return Group(
        *_heading(view, title, status),
        Rule(style="dim"),
        _table(view, max(1, height - _FIXED - len(notes))),
        _result_line(view),
        Rule(style="dim"),
        _line(f"devices: {devices or '-'}"),
        *notes,
        _line(_footer(log_path), "dim"),
    )
