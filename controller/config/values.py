"""Reading a TOML table key by key: every value checked for its type, every mistake a
``ConfigError`` naming the file and the key by its dotted path, and every mistake of
the file found, not only the first (``Problems``)."""

from __future__ import annotations

import contextlib
import datetime
import functools
import os
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Final, NoReturn, TypeVar, cast

from controller.config.settings import Account, ConfigError

MAX_ID: Final = 0xFFFF_FFFE  # (uid_t)-1 means "no user" to the kernel
_ACCOUNT = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]{0,31}")  # a user or group name

REQUIRED: Final = object()

# The keys each table may hold, by its dotted name ("" for the file's top level).
Schema = Mapping[str, Sequence[str]]
T = TypeVar("T")


class Reported(ConfigError):
    """A check that failed for problems already kept in ``Problems``."""


class Problems:
    """Every problem found in one file, each one ``ConfigError`` line naming its key, in
    the order found. Checks that do not depend on one another each run (``check``);
    one that needs another's value runs only once that value is good."""

    def __init__(self) -> None:
        self.found: list[str] = []
        self._failures = 0

    def check(self, work: Callable[[], T], placeholder: T) -> T:
        """``work()``'s value; when it fails, its problem kept and ``placeholder`` in its
        place, which the ``together`` block around it never lets out."""
        try:
            return work()
        except ConfigError as exc:
            if isinstance(exc, Reported):
                self._failures += 1
            else:
                self.add(str(exc))
            return placeholder

    def add(self, problem: str) -> None:
        """A problem; one found again (a table read twice) is kept once."""
        self._failures += 1
        if problem not in self.found:
            self.found.append(problem)

    @contextlib.contextmanager
    def together(self) -> Iterator[None]:
        """Checks whose values make one thing: after all of them ran, ``Reported`` if
        any failed, so that no placeholder is built into anything."""
        before = self._failures
        yield
        if self._failures > before:
            raise Reported("reported")

    def error(self, source: str) -> ConfigError:
        """The refusal of the file ``source``: its first problem, saying how many more
        there are and what lists them."""
        first, more = self.found[0], len(self.found) - 1
        if more:
            first += f" (and {more} more: tablectl config check {source} lists them)"
        return ConfigError(first, tuple(self.found))


class Section:
    """One TOML table, read key by key; every error names ``name.key``. A sub-table's
    keys are the ``schema``'s under its dotted name."""

    def __init__(
        self,
        data: Mapping[str, Any],
        name: str,
        source: str,
        schema: Schema,
        problems: Problems | None = None,
    ) -> None:
        self.data = data
        self.name = name
        self.source = source
        self._schema = schema
        self.problems = problems or Problems()
        keys = schema[name]
        for key in data:
            if key not in keys:
                self.problems.add(
                    f"{source}: {self._dotted(key)}: unknown key; expected one of {', '.join(keys)}"
                )

    def check(self, work: Callable[[], T], placeholder: T) -> T:
        return self.problems.check(work, placeholder)

    def together(self) -> contextlib.AbstractContextManager[None]:
        return self.problems.together()

    def fail(self, key: str, detail: str) -> NoReturn:
        raise ConfigError(f"{self.source}: {self._dotted(key)}: {detail}")

    def _dotted(self, key: str) -> str:
        return f"{self.name}.{key}" if self.name else key

    def get(self, key: str, default: object = REQUIRED) -> object:
        if key in self.data:
            return self.data[key]
        if default is REQUIRED:
            self.fail(key, "missing (required)")
        return default

    def table(self, key: str, default: object = REQUIRED) -> Section:
        """A sub-table; ``default`` (an empty table) stands in for one left out."""
        value = self.get(key, default)
        if not isinstance(value, Mapping):
            self.fail(key, f"expected a table, got {shown(value)}")
        data = cast(Mapping[str, Any], value)
        return Section(data, self._dotted(key), self.source, self._schema, self.problems)

    def optional_table(self, key: str) -> Section | None:
        return None if key not in self.data else self.table(key)

    def text(self, key: str, default: object = REQUIRED) -> str:
        value = self.get(key, default)
        if not isinstance(value, str):
            self.fail(key, f"expected a string, got {shown(value)}")
        return value

    def optional_text(self, key: str) -> str | None:
        return None if key not in self.data else self.text(key)

    def whole(self, key: str, default: object = REQUIRED) -> int:
        value = self.get(key, default)
        if not isinstance(value, int) or isinstance(value, bool):
            self.fail(key, f"expected a whole number, got {shown(value)}")
        return value

    def flag(self, key: str, default: object = REQUIRED) -> bool:
        value = self.get(key, default)
        if not isinstance(value, bool):
            self.fail(key, f"expected true or false, got {shown(value)}")
        return value

    def array(self, key: str, default: object = REQUIRED) -> list[object]:
        value = self.get(key, default)
        if not isinstance(value, list):
            self.fail(key, f"expected an array, got {shown(value)}")
        return cast(list[object], value)

    def absolute_path(self, key: str, default: object = REQUIRED) -> str:
        value = self.get(key, default)
        if not isinstance(value, str) or not os.path.isabs(value):
            self.fail(key, f"expected an absolute path, got {shown(value)}")
        return value

    def account(self, key: str, default: object = REQUIRED) -> Account:
        return self._account(key, self.get(key, default))

    def accounts(self, key: str, default: list[Account]) -> tuple[Account, ...]:
        values = self.array(key, default)
        no_account: Account = 0
        with self.together():
            return tuple(
                self.check(functools.partial(self._account, f"{key}[{i}]", v), no_account)
                for i, v in enumerate(values)
            )

    def _account(self, key: str, value: object) -> Account:
        """A user or group: a name, or a number 0 to MAX_ID."""
        if isinstance(value, str) and _ACCOUNT.fullmatch(value):
            return value
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_ID:
            return value
        self.fail(key, f"expected a name or a number 0 to {MAX_ID}, got {shown(value)}")


def shown(value: object) -> str:
    """A value as the error shows it, in TOML's words where Python's would mislead."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, Mapping):
        return "a table"
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    return repr(value)
