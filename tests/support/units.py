"""Reading systemd unit files as systemd does, and systemd's own tools for the tests
(tests/daemon/test_systemd_unit.py, test_systemd_web_unit.py, test_systemd_uplink_unit.py,
test_systemd_floor_unit.py)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

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


def run_tool(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, capture_output=True, text=True, timeout=60, check=False)


def verify_output(unit: Path, tmp_path: Path, text: str | None = None) -> str:
    """What ``systemd-analyze verify`` says of ``unit`` (or of ``text`` under its name),
    with ExecStart= on this checkout's tablectl: verify rejects a command that does not
    exist, and /usr/bin/tablectl is the package's. Empty, with exit 0, for a good one."""
    tablectl = Path(sys.executable).parent / "tablectl"
    assert tablectl.is_file(), f"{tablectl} missing: is the project installed in the venv?"
    source = unit.read_text(encoding="utf-8") if text is None else text
    assert source.count("ExecStart=/usr/bin/tablectl ") == 1, unit
    copy = tmp_path / unit.name
    copy.write_text(source.replace("/usr/bin/tablectl", str(tablectl), 1), encoding="utf-8")
    result = run_tool(systemd_tool("systemd-analyze"), "verify", str(copy))
    said = result.stdout + result.stderr
    return said if result.returncode == 0 else f"exit {result.returncode}\n{said}"


def exposure(unit: Path) -> float:
    """``systemd-analyze security``'s overall exposure of the unit file."""
    result = run_tool(systemd_tool("systemd-analyze"), "security", "--offline=yes", str(unit))
    found = re.search(
        rf"Overall exposure level for {re.escape(unit.name)}: (\d+\.\d)", result.stdout
    )
    assert found, result.stdout[-500:] + result.stderr
    return float(found[1])


@dataclass(frozen=True)
class Accounts:
    """/etc/passwd and /etc/group as systemd-sysusers made them in ``root``."""

    root: Path
    passwd: dict[str, list[str]]  # name: its fields
    groups: dict[str, list[str]]

    def members(self, group: str) -> set[str]:
        return {m for m in self.groups[group][3].split(",") if m}

    def groups_of(self, user: str) -> set[str]:
        """The groups a user is a member of, its primary group left out."""
        return {name for name in self.groups if user in self.members(name)}


def sysusers(conf: Path, tmp_path: Path) -> Accounts:
    """The accounts ``conf`` makes on an empty root under ``tmp_path``."""
    root = tmp_path / "root"
    (root / "etc").mkdir(parents=True)
    result = run_tool(systemd_tool("systemd-sysusers"), f"--root={root}", str(conf))
    assert result.returncode == 0, result.stderr

    def table(name: str) -> dict[str, list[str]]:
        lines = (root / "etc" / name).read_text(encoding="utf-8").splitlines()
        return {fields[0]: fields for fields in (line.split(":") for line in lines)}

    return Accounts(root, table("passwd"), table("group"))
