"""The blocks of a Markdown page that a test runs as written (tests/system/
test_operations_doc.py runs docs/operations.md's procedure with them).

A block for the test is a fenced block right after an HTML comment, which the rendered
page does not show:

    <!-- run: NAME -->     then a ```sh block: commands, run in the page's order
    <!-- file: NAME -->    then a fenced block of any language: a file named NAME

A ```text block right after a run block (blank lines between them allowed) is what its
commands print. ``not_shown`` checks the output against it: each of its lines must be
printed, in that order, other lines may come between them; ``…`` stands for any text,
and a run of white space for any run of white space.

In the part of the page given (the lines before a heading), a ```sh block that is not
marked is an error: every command there is one the test runs.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

_MARK = re.compile(r"<!-- (run|file): ([\w.-]+) -->")
_FENCE = re.compile(r"```(\S*)")


class DocError(Exception):
    """The page's blocks are not as this module reads them; the message says where."""


@dataclass(frozen=True)
class Block:
    kind: str  # "run" or "file"
    name: str
    body: str  # the block's lines, each ending in a newline
    shows: tuple[str, ...]  # for a run block, the lines of the ```text block after it
    line: int  # the line of its opening fence, from 1


@dataclass(frozen=True)
class _Item:
    kind: str  # "run", "file", "fence" or "prose"
    info: str  # the marker's name, or the fence's language
    lines: tuple[str, ...]  # a fence's content
    line: int


def _items(lines: Sequence[str]) -> list[_Item]:
    """The page's markers, fenced blocks and prose lines, in order."""
    items: list[_Item] = []
    i = 0
    while i < len(lines):
        fence = _FENCE.fullmatch(lines[i].rstrip())
        if fence is not None:
            end = next((j for j in range(i + 1, len(lines)) if lines[j].rstrip() == "```"), None)
            if end is None:
                raise DocError(f"line {i + 1}: the fenced block is never closed")
            items.append(_Item("fence", fence[1], tuple(lines[i + 1 : end]), i + 1))
            i = end + 1
            continue
        mark = _MARK.fullmatch(lines[i].strip())
        if mark is not None:
            items.append(_Item(mark[1], mark[2], (), i + 1))
        elif lines[i].strip():
            items.append(_Item("prose", "", (), i + 1))
        i += 1
    return items


def blocks(text: str, *, until: str) -> list[Block]:
    """The marked blocks of ``text`` before its line ``until`` (a heading), in order."""
    lines = text.splitlines()
    if until not in lines:
        raise DocError(f"no line {until!r}: where the blocks end is not found")
    items = _items(lines[: lines.index(until)])
    found: list[Block] = []
    for n, item in enumerate(items):
        if item.kind in ("run", "file"):
            found.append(_marked(item, items[n + 1 : n + 3]))
        elif item.kind == "fence" and item.info == "sh" and (n == 0 or items[n - 1].kind != "run"):
            raise DocError(f"line {item.line}: a sh block without <!-- run: NAME --> before it")
    names = [(block.kind, block.name) for block in found]
    twice = sorted({f"{kind} {name}" for kind, name in names if names.count((kind, name)) > 1})
    if twice:
        raise DocError(f"named twice: {', '.join(twice)}")
    return found


def _marked(mark: _Item, after: Sequence[_Item]) -> Block:
    """The block a marker names: the fence right after it, and for a run block the
    ```text block after that."""
    if not after or after[0].kind != "fence":
        raise DocError(f"line {mark.line}: <!-- {mark.kind}: {mark.info} --> has no block after it")
    body = after[0]
    if mark.kind == "run" and body.info != "sh":
        raise DocError(f"line {body.line}: the block of run {mark.info} is not ```sh")
    shows: tuple[str, ...] = ()
    if (
        mark.kind == "run"
        and len(after) > 1
        and (after[1].kind, after[1].info) == ("fence", "text")
    ):
        shows = after[1].lines
    return Block(mark.kind, mark.info, "".join(f"{x}\n" for x in body.lines), shows, body.line)


def _fold(line: str) -> str:
    return " ".join(line.split())


def not_shown(shows: Sequence[str], output: str) -> str | None:
    """The first line of ``shows`` that ``output`` does not print after the lines
    before it were found, or None when it prints them all."""
    printed = [_fold(line) for line in output.splitlines()]
    at = 0
    for wanted in shows:
        if not wanted.strip():
            continue
        pattern = re.compile(".*".join(re.escape(part) for part in _fold(wanted).split("…")))
        at = next((j + 1 for j in range(at, len(printed)) if pattern.fullmatch(printed[j])), -1)
        if at < 0:
            return wanted
    return None
