"""What the wheel's and the Debian package's tests (tests/tools/test_wheel.py,
test_deb.py) both check against: the checkout's commit, asked of git here rather than
through controller/version.py, and the modules the three packages have in the tree."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.support.paths import ROOT

PACKAGES = ("controller", "drivers", "firmware_sim")


def git(*words: str) -> str:
    return subprocess.run(
        ["git", "-C", str(ROOT), *words], capture_output=True, text=True, check=True
    ).stdout.strip()


def expected_commit() -> str:
    """``HEAD``, with ``-dirty`` when a tracked file differs from it."""
    head = git("rev-parse", "HEAD")
    return head + ("-dirty" if git("status", "--porcelain", "--untracked-files=no") else "")


def expected_version_line(version: str) -> str:
    head, _, dirty = expected_commit().partition("-")
    extra = ", with uncommitted changes" if dirty else ""
    return f"tablectl {version} (commit {head}{extra})"


def tree_modules() -> list[str]:
    """Every module of the shipped packages, as a path from the checkout's top."""
    return sorted(
        path.relative_to(ROOT).as_posix()
        for top in PACKAGES
        for path in (ROOT / top).rglob("*.py")
        if "__pycache__" not in path.parts
    )


def tree_files(pattern: str) -> list[Path]:
    """The checkout's files matching ``pattern`` (a glob from the top), at least one."""
    found = sorted(ROOT.glob(pattern))
    assert found, f"no file matches {pattern} in {ROOT}"
    return found
