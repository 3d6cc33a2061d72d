"""docs/compliance.md: every subsection of the chapters the registered games name
(``controller.games``: ch. 543, 545, 551 and § 635a.7) with the tests that prove the
controller enforces it, read from ``@pytest.mark.reg("...")`` markers, so the table
cannot drift from the tests.

    python -m tools.compliance --write docs/compliance.md

The regulation texts are read from tests/spec/regulations, the project's copy of
../shared/regulations (tests/tools/test_spec_copy.py keeps the two identical).
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from controller.games import GAMES
from tools.generated import emit

# Subsections about furniture, paperwork or people rather than anything the
# controller sees; listed with the reason instead of a test.
OUTSIDE = {
    "543.2": "table furniture and layout",
    "545.2": "table furniture and layout",
    "551.2(a)": "table furniture",
    "551.2(b)": "layout printing",
    "551.2(c)": "layout printing",
    "551.2(d)": "drop box and tip box",
    "551.2(f)": "discard rack",
    "551.2(g)": "signage",
    "543.4": "opening inspection of the decks by dealer and floorperson",
    "545.4": "opening inspection of the decks by dealer and floorperson",
    "551.4": "opening inspection of the decks by dealer and floorperson",
    "543.5(b)": "the floorperson's look at the shuffled stack: no device sees it",
    "543.5(d)": "where the cover card goes in at the cut: done by hand before the shoe",
    "545.5(c)": "where the cover card goes in at the cut: done by hand before the shoe",
    "543.12(c)": "the dealer clearing the layout into the discard bucket by hand",
    "545.12(c)": "the dealer clearing the layout into the discard bucket by hand",
    "551.5(b)": "who is offered the cut: people the devices never see",
    "551.5(c)": "who is offered the cut: people the devices never see",
    "551.5(d)": "where the cutting card goes in: no device reports it",
    "551.5(e)": "the dealer's handling of the cut stack off the shoe",
    "551.6(e)": "verbal wagers with cash, confirmed by the dealer and a floorperson",
    "551.7(c)": "verbal wagers with cash, confirmed by the dealer and a floorperson",
    "551.8(a)": "the dealing shoe is the equipment itself: the controller takes cards only from it",
    "551.8(b)": "which hand the dealer uses",
    "551.8(k)": "players handling cards",
    "551.8(l)": "players computing their own point counts",
    "635a.7(r)": "players and spectators handling cards",
    "635a.7(a)": "where the shoe sits on the table",
    "635a.7(b)": "which hand the dealer uses",
}

# A heading starts its line ("§ 545.11. Rules for ...") or ends the chapter's list of
# contents ("... 551.16. Irregularities. § 551.1. Definitions.").
_SECTION = re.compile(r"(?:^(?:58 Pa\. Code )?|\. )§ (\d+a?\.\d+)(?:\. [A-Z][^§]*$| - )")
_LETTER = re.compile(r"^\(([a-z])\) ")
# A subsection glued to the end of a table row in the source ("... 12 to 1(f) A ..."):
# it starts a line of its own.
_GLUED = re.compile(r"(?<=\d)(?=\([a-z]\) [A-Z])")


@dataclass(frozen=True)
class Subsection:
    ident: str
    text: str


def subsections(text: str) -> list[Subsection]:
    """Lettered subsections in order; a section without any is listed whole."""
    out: list[Subsection] = []
    section: str | None = None
    expected = "a"
    found_letter = False
    heading = ""
    lines = _GLUED.sub("\n", text).splitlines()
    for n, line in enumerate(lines):
        head = _SECTION.search(line)
        if head:
            if section is not None and not found_letter:
                out.append(Subsection(section, heading))
            section, heading, expected, found_letter = head.group(1), line, "a", False
            continue
        if section is not None and _opens(lines, n, expected):
            out.append(Subsection(f"{section}({expected})", line))
            expected = chr(ord(expected) + 1)
            found_letter = True
    if section is not None and not found_letter:
        out.append(Subsection(section, heading))
    return out


def _opens(lines: list[str], at: int, expected: str) -> bool:
    """Whether line ``at`` opens subsection ``(expected)``.

    "(i)", "(v)", "(x)" are roman numerals unless they come next in the alphabet and
    no "(ii)", "(vi)", "(xi)" follows them before the letter after them.
    """
    letter = _LETTER.match(lines[at])
    return (
        letter is not None and letter.group(1) == expected and not _roman_run(lines, at, expected)
    )


def _roman_run(lines: list[str], at: int, letter: str) -> bool:
    """Whether the "(i)" / "(v)" / "(x)" on line ``at`` opens a run of roman numerals."""
    if letter not in "ivx":
        return False
    following = f"({letter}i) "
    after = f"({chr(ord(letter) + 1)}) "
    for line in lines[at + 1 :]:
        if line.startswith(following):
            return True
        if line.startswith(after) or _SECTION.search(line):
            return False
    return False


def reg_markers(tests_dir: Path) -> dict[str, list[str]]:
    """Section id -> tests ("folder/file::name", the path under ``tests_dir``, its
    folders included) marked ``@pytest.mark.reg(id, ...)``."""
    found: dict[str, list[str]] = defaultdict(list)
    for path in sorted(tests_dir.rglob("test_*.py")):
        name = path.relative_to(tests_dir).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        module_marks = _module_marks(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith(
                "test"
            ):
                marks = module_marks + [i for d in node.decorator_list for i in _reg_ids(d)]
                for ident in marks:
                    found[ident].append(f"{name}::{node.name}")
    return found


def _module_marks(tree: ast.Module) -> list[str]:
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "pytestmark" for t in stmt.targets
        ):
            values = stmt.value.elts if isinstance(stmt.value, ast.List) else [stmt.value]
            return [i for v in values for i in _reg_ids(v)]
    return []


def _reg_ids(node: ast.expr) -> list[str]:
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "reg"
    ):
        return [
            a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)
        ]
    return []


def _chapter(ident: str) -> str:
    """The chapter of a section or subsection: "635a" for "635a.7(h)"."""
    return ident.split(".")[0]


def chapters() -> tuple[str, ...]:
    """The chapters of every registered game, in the order of their numbers."""
    found = {c for game in GAMES.values() for c in game.chapters}
    return tuple(sorted(found, key=lambda c: int(c.rstrip("a"))))


def _covers(marker: str, ident: str) -> bool:
    """A marker proves its own subsection, and a deeper one proves its parent."""
    return marker == ident or marker.startswith(ident + "(")


_HEADER = (
    "# Compliance: regulation subsections and the tests that prove them",
    "",
    "Generated by `python -m tools.compliance` from the regulation texts and",
    "the `@pytest.mark.reg(...)` markers in `tests/`; `tests/tools/test_compliance.py`",
    "fails when this file is stale. Do not edit by hand.",
    "",
)


def render(
    regulation_texts: list[str], markers: dict[str, list[str]], chapters: Sequence[str]
) -> str:
    """The page: the subsections of ``chapters``, chapter by chapter in that order."""
    subs = _listed(regulation_texts, chapters)
    cells = [_cell(sub.ident, markers) for sub in subs]
    proved = sum(kind == "proved" for kind, _ in cells)
    outside = sum(kind == "outside" for kind, _ in cells)
    lines = [
        *_HEADER,
        f"{len(subs)} subsections: {proved} proved by tests, {outside} outside the "
        f"controller, {len(subs) - proved - outside} without a test yet.",
        "",
        "| subsection | tests |",
        "|---|---|",
        *(f"| {sub.ident} | {cell} |" for sub, (_, cell) in zip(subs, cells, strict=True)),
        "",
    ]
    unknown = _unknown(markers, subs)
    if unknown:
        lines += ["Markers that name no subsection of these texts: " + ", ".join(unknown), ""]
    return "\n".join(lines)


def _listed(regulation_texts: list[str], chapters: Sequence[str]) -> list[Subsection]:
    """The texts' subsections of ``chapters``, chapter by chapter, each in text order."""
    subs = [
        s for text in regulation_texts for s in subsections(text) if _chapter(s.ident) in chapters
    ]
    return sorted(subs, key=lambda s: chapters.index(_chapter(s.ident)))


def _unknown(markers: dict[str, list[str]], subs: Sequence[Subsection]) -> list[str]:
    """The markers that name none of these subsections."""
    return sorted(m for m in markers if not any(_covers(m, s.ident) for s in subs))


def _cell(ident: str, markers: dict[str, list[str]]) -> tuple[str, str]:
    """Whether a subsection is "proved", "outside" the controller or "missing" a test,
    and its cell in the table."""
    tests = sorted({t for m, ts in markers.items() if _covers(m, ident) for t in ts})
    if tests:
        return "proved", "<br>".join(f"`{t}`" for t in tests)
    reason = OUTSIDE.get(ident) or OUTSIDE.get(ident.split("(")[0])
    if reason:
        return "outside", f"outside the controller: {reason}"
    return "missing", "**no test yet**"


def build(regulations: Path, tests_dir: Path) -> str:
    texts = [p.read_text(encoding="utf-8") for p in sorted(regulations.glob("*.txt"))]
    return render(texts, reg_markers(tests_dir), chapters())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tools.compliance")
    root = Path(__file__).resolve().parent.parent
    ap.add_argument("--regulations", type=Path, default=root / "tests" / "spec" / "regulations")
    ap.add_argument("--tests", type=Path, default=root / "tests")
    ap.add_argument("--write", type=Path, help="write here instead of stdout")
    args = ap.parse_args(argv)
    if not args.regulations.is_dir():
        print(f"compliance: error: no regulations folder at {args.regulations}", file=sys.stderr)
        return 2
    return emit(build(args.regulations, args.tests), args.write)


if __name__ == "__main__":
    sys.exit(main())
