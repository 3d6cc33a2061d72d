"""``tablectl journal export``: one round, rebuilt from the journal alone for a question
or dispute (551.8(i), § 635a.7(q); 545.12, 543.12 for the Baccarat games).

Every card of the round in the order it left the shoe, with where it went: a box's
hand (split hands as the table split them, ruling R6), the dealer, the Player's or
Banker's Hand, a burn, the discard rack. The hole card shows as sealed until its
reveal, then as the card the reveal released, checked against its seal. Then the
wagers, the decisions, and the result as the ``round_end`` line settled it.

    tablectl journal export --round N [--shoe S] [--json | --text] FILE

Errors (no such file, not a journal, no such round) end in one line and exit 2.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from controller.games import GAMES
from controller.journal import JournalError, Row, open_read_only, verify
from controller.journal.errors import failure
from controller.recovery.inputs import DAEMON_ROWS
from controller.table.seal import opens

EXIT_OK = 0
EXIT_USAGE = 2


class ExportError(Exception):
    """The round cannot be exported; the message is one line."""


def read_rows(path: str | Path) -> list[Row]:
    """A journal's rows, read-only: an export never writes to the table's record."""
    p = Path(path)
    db = open_read_only(p)
    try:
        cursor = db.execute("SELECT seq, ts, body FROM rows ORDER BY seq")
        return [Row(int(seq), str(ts), json.loads(body)) for seq, ts, body in cursor]
    except (sqlite3.DatabaseError, ValueError) as exc:
        raise failure(p, exc) from None
    finally:
        db.close()


def _shoes(rows: Iterable[Row]) -> Iterable[tuple[int, Row]]:
    """Each row with the shoe it belongs to (0 before the first shuffle)."""
    shoe = 0
    for row in rows:
        if row.entry.get("type") == "shuffled":
            shoe = int(row.entry.get("shoe", shoe + 1))
        yield shoe, row


def _window(rows: Sequence[Row], round_no: int, shoe: int | None) -> tuple[int, list[Row]]:
    """The rows of one round: its wagers through its ``round_end`` (or the journal's end,
    for a round still in play)."""
    shoe = _shoe_of(rows, round_no, shoe)
    window: list[Row] = []
    for s, row in _shoes(rows):
        e = row.entry
        if e.get("type") in DAEMON_ROWS:
            continue  # the daemon's (a snapshot of the table's state): no round's
        if s == shoe and e.get("round") == round_no:
            window.append(row)
            if e.get("type") == "round_end":
                break
    return shoe, window


def _shoe_of(rows: Sequence[Row], round_no: int, shoe: int | None) -> int:
    """The shoe of round ``round_no``: ``shoe`` if it has that round, by default the last
    shoe that has it; ExportError when none has."""
    ends = [
        s
        for s, r in _shoes(rows)
        if r.entry.get("type") == "no_more_bets" and r.entry.get("round") == round_no
    ]
    if shoe is None:
        if not ends:
            raise ExportError(f"no round {round_no} in the journal")
        return ends[-1]
    if shoe not in ends:
        raise ExportError(f"no round {round_no} in shoe {shoe}")
    return shoe


def _place(e: dict[str, Any]) -> tuple[str, int]:
    to = e.get("to", e.get("hand"))
    if isinstance(to, int):
        return f"box {to}", int(e.get("hand", 1))
    return str(to), 1


def export_round(rows: Sequence[Row], round_no: int, shoe: int | None = None) -> dict[str, Any]:
    """The round as a dispute needs it, from the journal rows alone."""
    shoe, window = _window(rows, round_no, shoe)
    rebuilt = _Round()
    for row in window:
        rebuilt.read(row)
    return {
        "game": rebuilt.game(),
        "shoe": shoe,
        "round": round_no,
        "rows": [window[0].seq, window[-1].seq] if window else [],
        "wagers": rebuilt.wagers,
        "cards": rebuilt.cards,
        "hands": rebuilt.hands,
        "decisions": rebuilt.decisions,
        "events": rebuilt.notes,
        "result": rebuilt.result,
    }


class _Round:
    """One round rebuilt row by row: its cards in dealing order, each place's hands, the
    wagers and decisions, the rows kept as they are (``notes``) and its ``round_end``.
    ``seals``: the sealed cards by seal, until a row releases them."""

    def __init__(self) -> None:
        self.cards: list[dict[str, Any]] = []
        self.hands: dict[str, list[list[str | None]]] = {}
        self.decisions: list[dict[str, Any]] = []
        self.wagers: list[dict[str, Any]] = []
        self.seals: dict[str, dict[str, Any]] = {}
        self.result: dict[str, Any] | None = None
        self.notes: list[dict[str, Any]] = []

    def read(self, row: Row) -> None:
        step = _STEPS.get(str(row.entry.get("type")))
        if step is not None:
            step(self, row)
        for opened in row.entry.get("opened") or ():
            _release(opened, self.seals)

    def game(self) -> str:
        """The game the ``round_end`` row records; for a round still in play, the game
        its cards were dealt for: a Player's or Banker's Hand is Baccarat's."""
        if self.result is not None:
            return str(self.result.get("game"))
        return (
            "baccarat" if any(c["to"] in ("player", "banker") for c in self.cards) else "spanish21"
        )

    def dealt(self, row: Row) -> None:
        e = row.entry
        where, index = _place(e)
        entry: dict[str, Any] = {"seq": row.seq, "card": e.get("card"), "to": where}
        if where.startswith("box "):
            entry["hand"] = index
        if e.get("sealed"):
            entry.update(sealed=True, face_up=False)
            if e.get("seal"):
                self.seals[str(e["seal"])] = entry
        self.cards.append(entry)
        seats = self.hands.setdefault(where, [[]])
        while len(seats) < index:
            seats.append([])
        seats[index - 1].append(e.get("card"))

    def decision(self, row: Row) -> None:
        e = row.entry
        self.decisions.append(
            {
                k: e[k]
                for k in ("box", "hand", "decision", "amount", "section")
                if k in e and e[k] is not None
            }
        )
        if e.get("decision") == "split":
            seats = self.hands[f"box {e['box']}"]
            at = int(e["hand"]) - 1
            seats.insert(at + 1, [seats[at].pop()])  # ruling R6: right after it

    def wager(self, row: Row) -> None:
        e = row.entry
        self.wagers.append({k: e[k] for k in ("box", "seat", "bet", "amount", "player") if k in e})

    def burn(self, row: Row) -> None:
        self.cards.append({"seq": row.seq, "card": row.entry.get("card"), "to": "burn"})

    def discard(self, row: Row) -> None:
        self.cards.append({"seq": row.seq, "card": row.entry.get("card"), "to": "discard"})

    def irregularity(self, row: Row) -> None:
        if row.entry.get("to") == "discard_rack":
            self.discard(row)
        else:
            self.note(row)

    def reveal(self, row: Row) -> None:
        """The hole card turned over (551.8(h)) or collected (551.8(i)): placed where it
        was dealt; ``read`` checks it against its seal."""
        e = row.entry
        hole = next((c for c in self.cards if c.get("sealed") and c["to"] == "dealer"), None)
        if hole is None:
            return
        hole.update(card=e.get("card"), sealed=False, revealed_at=row.seq)
        dealer = self.hands.get("dealer", [[]])[0]
        if None in dealer:
            dealer[dealer.index(None)] = e.get("card")

    def round_end(self, row: Row) -> None:
        self.result = {k: v for k, v in row.entry.items() if k not in ("type",)}

    def note(self, row: Row) -> None:
        self.notes.append({"seq": row.seq, **row.entry})


# What each kind of row adds to the round; a row of another kind adds nothing.
_STEPS: Final[Mapping[str, Callable[[_Round, Row], None]]] = {
    "dealt": _Round.dealt,
    "decision": _Round.decision,
    "wager": _Round.wager,
    "burn": _Round.burn,
    "discard": _Round.discard,
    "irregularity": _Round.irregularity,
    "reveal": _Round.reveal,
    "round_end": _Round.round_end,
    "peek": _Round.note,
    "insurance": _Round.note,
    "match_the_dealer": _Round.note,
    "settlement": _Round.note,
}


def _release(opened: dict[str, Any], seals: dict[str, dict[str, Any]]) -> None:
    card = seals.get(str(opened.get("seal")))
    if card is not None:
        card["seal_checked"] = opens(
            str(opened.get("seal")), str(opened.get("nonce")), str(opened.get("card"))
        ) and card.get("card") in (None, opened.get("card"))


# --------------------------------------------------------------------------- text

_SEAL_CHECKED: Final[Mapping[object, str]] = {
    True: ", seal checked",
    False: ", SEAL DOES NOT MATCH",
}


def _money(value: object) -> str:
    return str(value)


def text(report: dict[str, Any], source: str = "") -> str:
    """The round as a floorperson or an agent reads it."""
    name = report["game"]
    title = GAMES[name].title if name in GAMES else name
    table = report.get("journal", {}).get("table")
    lines = [
        f"{title}: shoe {report['shoe']}, round {report['round']}"
        + (f", table {table}" if table else "")
        + (f" ({source})" if source else ""),
        *_wager_lines(report["wagers"]),
        "Cards in dealing order:",
        *(_card_line(n, c) for n, c in enumerate(report["cards"], 1)),
        *_decision_lines(report["decisions"]),
        "Hands:",
        *_hand_lines(report["hands"]),
        *_result_lines(report["result"]),
    ]
    return "\n".join(lines) + "\n"


def _wager_lines(wagers: Sequence[dict[str, Any]]) -> list[str]:
    lines = ["Wagers:"] if wagers else []
    for w in wagers:
        who = f"box {w['box']}" if "box" in w else f"seat {w.get('seat')}"
        lines.append(f"  {who} {w['bet']} {_money(w['amount'])}")
    return lines


def _card_line(n: int, c: dict[str, Any]) -> str:
    shown = c["card"] if c["card"] is not None else "??"
    where = c["to"] + (f" hand {c['hand']}" if "hand" in c else "")
    extra = ""
    if c.get("sealed"):
        extra = "  (hole card, sealed: never turned over)"
    elif "revealed_at" in c:
        checked = _SEAL_CHECKED.get(c.get("seal_checked"), "")
        extra = f"  (hole card, sealed until row {c['revealed_at']}{checked})"
    return f"  {n:3d}. {shown:3s} {where}{extra}"


def _decision_lines(decisions: Sequence[dict[str, Any]]) -> list[str]:
    lines = ["Decisions:"] if decisions else []
    for d in decisions:
        amount = f" {_money(d['amount'])}" if "amount" in d else ""
        lines.append(f"  box {d['box']} hand {d['hand']}: {d['decision']}{amount}")
    return lines


def _hand_lines(hands: dict[str, list[list[str | None]]]) -> list[str]:
    lines = []
    for where, seats in hands.items():
        for i, seat in enumerate(seats, 1):
            name = where + (f" hand {i}" if len(seats) > 1 else "")
            lines.append(f"  {name}: " + " ".join(c if c else "??" for c in seat))
    return lines


def _result_lines(res: dict[str, Any] | None) -> list[str]:
    if res is None:
        return ["Result: none recorded (the round was in play when the journal ends)"]
    if res.get("void"):
        return [f"Result: VOID ({res.get('reason')}); returned: {res.get('returned')}"]
    head = f"Result: dealer {res['dealer_total']}" if "dealer_total" in res else "Result:"
    return [head, *_box_results(res), *_seat_results(res)]


def _box_results(res: dict[str, Any]) -> list[str]:
    """Spanish 21: each box's hands as the round settled them."""
    return [
        f"  box {box} hand {i}: {h.get('total')} {h.get('outcome')} {_money(h.get('net'))}"
        for box, b in sorted((res.get("boxes") or {}).items())
        for i, h in enumerate(b.get("hands", []), 1)
    ]


def _seat_results(res: dict[str, Any]) -> list[str]:
    """Baccarat: the Player's and Banker's Hands, the result and each seat's net."""
    lines = []
    for hand in ("player", "banker"):
        if hand in res:
            lines.append(f"  {hand}: {' '.join(res[hand])} ({res.get(hand + '_total')})")
    if "result" in res:
        lines.append(f"  result: {res['result']}")
    for seat, b in sorted((res.get("seats") or {}).items()):
        lines.append(f"  seat {seat}: {_money(b.get('net'))}")
    return lines


# --------------------------------------------------------------------------- command


def add_parser(subparsers: argparse._SubParsersAction[Any]) -> argparse.ArgumentParser:
    """``export`` under ``tablectl journal``."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "export", help="rebuild one round's hands from the journal, for a dispute"
    )
    parser.add_argument("--round", type=int, required=True, metavar="N", dest="round_no")
    parser.add_argument("--shoe", type=int, metavar="S", help="default: the last with round N")
    form = parser.add_mutually_exclusive_group()
    form.add_argument("--json", action="store_const", const="json", dest="form")
    form.add_argument("--text", action="store_const", const="text", dest="form")
    parser.add_argument("file", help="the journal (an SQLite file)")
    return parser


def run(args: argparse.Namespace, out: Any = None) -> int:
    """Print the round; one line on stderr and exit 2 when it cannot be had."""
    out = out or sys.stdout
    try:
        rows = read_rows(args.file)
        report = export_round(rows, args.round_no, args.shoe)
        verdict = verify(args.file)
    except (JournalError, ExportError) as exc:
        print(f"tablectl: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    report["journal"] = {
        "file": str(args.file),
        "chain": "intact" if verdict.ok else list(verdict.problems),
        **_header(rows),
    }
    if args.form == "json":
        out.write(json.dumps(report, indent=2, sort_keys=True) + "\n")
    else:
        out.write(text(report, str(args.file)))
        if not verdict.ok:
            out.write("Journal chain: " + "; ".join(verdict.problems) + "\n")
    return EXIT_OK


def _header(rows: Sequence[Row]) -> dict[str, Any]:
    """The table and game the journal's header (row 1) names; nothing for a journal
    written before there were headers."""
    first = rows[0].entry if rows else {}
    if first.get("type") != "journal":
        return {}
    return {"table": first.get("table"), "game": first.get("game")}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def main_export(argv: Sequence[str] | None = None) -> int:
    """``tablectl journal export`` on its own (the cli calls ``add_parser`` / ``run``)."""
    parser = _Parser(prog="tablectl journal")
    sub = parser.add_subparsers(dest="journal_command", required=True, parser_class=_Parser)
    add_parser(sub)
    return run(parser.parse_args(argv))
