"""Reading one ``KEY{attr} OP "value"`` token of a logical line, as udevd reads it."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from tools.udev_rules.keys import OPERATORS, WHITESPACE
from tools.udev_rules.model import Token


class LineError(Exception):
    """A syntax error that ends the parsing of one logical line."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.message = message


@dataclass(frozen=True, slots=True)
class Logical:
    """A logical line joined from continued physical lines, with each character's line."""

    text: str
    lines: tuple[int, ...]
    last_line: int

    @classmethod
    def join(cls, fragments: Sequence[tuple[str, int]], last_line: int) -> Logical:
        """The line made of (text, physical line) fragments, joined with no space."""
        return cls(
            text="".join(part for part, _ in fragments),
            lines=tuple(n for part, n in fragments for _ in part),
            last_line=last_line,
        )

    def line_at(self, index: int) -> int:
        return self.lines[index] if index < len(self.lines) else self.last_line


class _Scanner:
    """A position in a logical line, moved on by each part of a token read there.
    Errors name the physical line the token starts on."""

    def __init__(self, logical: Logical, start: int) -> None:
        self.logical = logical
        self.text = logical.text
        self.end = len(logical.text)
        self.i = start
        self.line = logical.line_at(start)

    def skip_blanks(self) -> None:
        while self.i < self.end and self.text[self.i] in WHITESPACE:
            self.i += 1

    def key(self) -> str:
        start = self.i
        while self.i < self.end and self.text[self.i] not in WHITESPACE + "={":
            if self.text[self.i] in "+-!:" and self.text[self.i + 1 : self.i + 2] == "=":
                break
            self.i += 1
        key = self.text[start : self.i]
        if not key:
            raise LineError(self.line, f"expected a key, found {self.text[start]!r}")
        if '"' in key:
            raise LineError(self.line, "unbalanced quotes: a value's closing quote is missing")
        return key

    def attribute(self, key: str) -> str | None:
        if self.i >= self.end or self.text[self.i] != "{":
            return None
        close = self.text.find("}", self.i + 1)
        if close < 0:
            raise LineError(self.line, f"{key}: '{{' is never closed by '}}'")
        attr = self.text[self.i + 1 : close]
        self.i = close + 1
        return attr

    def operator(self, key: str) -> str:
        op = next((o for o in OPERATORS if self.text.startswith(o, self.i)), None)
        if op is None:
            raise LineError(
                self.line, f"{key}: expected an operator (== != = += -= :=) after the key"
            )
        self.i += len(op)
        return op

    def prefixes(self) -> str:
        # Up to two prefix letters: e (C escapes in the value) and i (match ignoring case).
        prefixes = ""
        while (
            self.i < self.end
            and self.text[self.i] in "ei"
            and self.text[self.i] not in prefixes
            and len(prefixes) < 2
        ):
            prefixes += self.text[self.i]
            self.i += 1
        return prefixes

    def quoted(self, key: str, op: str, escapes: bool) -> tuple[str, int]:
        """The value between double quotes, its escapes kept as written when ``escapes``,
        and the physical line of its opening quote."""
        if self.i >= self.end or self.text[self.i] != '"':
            raise LineError(
                self.line, f'{key}: the value must be in double quotes, as in {key}{op}"..."'
            )
        quote_line = self.logical.line_at(self.i)
        self.i += 1
        chars: list[str] = []
        while True:
            if self.i >= self.end:
                raise LineError(quote_line, f"{key}: unterminated quote in the value")
            if self.text[self.i] == '"':
                self.i += 1
                return "".join(chars), quote_line
            escaped = self._escape(escapes)
            if escaped is not None:
                chars.append(escaped)
                self.i += 2
            else:
                chars.append(self.text[self.i])
                self.i += 1

    def _escape(self, escapes: bool) -> str | None:
        """The two-character escape at the position, as the value keeps it, or None.
        Without the e prefix the only escape is \\" for a quote."""
        if self.text[self.i] != "\\" or self.i + 1 >= self.end:
            return None
        if escapes:
            return self.text[self.i : self.i + 2]
        return '"' if self.text[self.i + 1] == '"' else None


def scan_token(logical: Logical, start: int) -> tuple[Token, int]:
    """The token that starts at ``start``, and the index just past it."""
    scanner = _Scanner(logical, start)
    key = scanner.key()
    attr = scanner.attribute(key)
    scanner.skip_blanks()
    op = scanner.operator(key)
    scanner.skip_blanks()
    prefixes = scanner.prefixes()
    value, quote_line = scanner.quoted(key, op, "e" in prefixes)
    if "e" in prefixes:
        value = _unescape(value, key, quote_line)
    return Token(key, attr, op, value, scanner.line, "i" in prefixes), scanner.i


_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}
_ESCAPE = re.compile(r"\\(x[0-9a-fA-F]{2}|[0-7]{3}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)", re.DOTALL)


def _unescape(raw: str, key: str, line: int) -> str:
    def one(match: re.Match[str]) -> str:
        code = match.group(1)
        if code in _ESCAPES:
            return _ESCAPES[code]
        if code in "\\\"'":
            return code
        if code[0] in "xuU":
            return chr(int(code[1:], 16))
        if code[0] in "01234567" and len(code) == 3:
            return chr(int(code, 8))
        raise LineError(line, f"{key}: unknown escape '\\{code}' in e-prefixed value")

    return _ESCAPE.sub(one, raw)
