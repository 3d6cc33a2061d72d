"""Reading systemd unit files as systemd does, and systemd's own tools for the tests
(tests/daemon/test_systemd_unit.py, tests/daemon/test_systemd_web_unit.py)."""

from __future__ import annotations

import shutil

import pytest

Unit = dict[str, dict[str, list[str]]]


def read_unit(text: str) -> Unit:
    """A systemd unit as {section: {key: [every assignment, in order]}}.

    Keys may repeat (DeviceAllow=), so configparser, which keeps one value per
    key, will not do.
    """
    sections: Unit = {}
    current: dict[str, list[str]] | None = None
    pending = ""
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not pending and (not line or line[0] in "#;"):
            continue
        if line.endswith("\\"):
            pending += line[:-1].rstrip() + " "
            continue
        line, pending = pending + line, ""
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1], {})
            continue
        key, sep, value = line.partition("=")
        if not sep or current is None:
            raise ValueError(f"line {number}: not a key=value line inside a section: {raw!r}")
        current.setdefault(key.strip(), []).append(value.strip())
    return sections


def effective(values: list[str]) -> list[str]:
    """What systemd keeps of a list setting: an empty assignment clears the ones before."""
    kept: list[str] = []
    for value in values:
        kept = [] if value == "" else [*kept, value]
    return kept


def setting(unit: Unit, section: str, key: str) -> str | None:
    """A single-valued setting: the last assignment wins."""
    values = unit.get(section, {}).get(key)
    return values[-1] if values else None


def systemd_tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.fail(
            f"{name} not found: install systemd (apt-get install systemd; "
            "`make test` does it when run as root) -- these checks must not be skipped"
        )
    return path
