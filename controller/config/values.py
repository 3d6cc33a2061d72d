"""Reading a TOML table key by key: every value checked for its type, every mistake a
``ConfigError`` naming the file and the key by its dotted path."""

from __future__ import annotations

import datetime
import os
import re
from collections.abc import Mapping, Sequence
from typing import Any, Final, NoReturn, cast

from controller.config.settings import Account, ConfigError

MAX_ID: Final = 0xFFFF_FFFE  # (uid_t)-1 means "no user" to the kernel
_ACCOUNT = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]{0,31}")  # a user or group name

REQUIRED: Final = object()

# The keys each table may hold, by its dotted name ("" for the file's top level).
Schema = Mapping[str, Sequence[str]]


class Section:
    """One TOML table, read key by key; every error names ``name.key``. A sub-table's
    keys are the ``schema``'s under its dotted name."""

    def __init__(self, data: Mapping[str, Any], name: str, source: str, schema: Schema) -> None:
        self.data = data
        self.name = name
        self.source = source
        self._schema = schema
        keys = schema[name]
        for key in data:
            if key not in keys:
                self.fail(key, f"unknown key; expected one of {', '.join(keys)}")

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
        return Section(cast(Mapping[str, Any], value), self._dotted(key), self.source, self._schema)

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
        return tuple(self._account(f"{key}[{i}]", v) for i, v in enumerate(values))

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
