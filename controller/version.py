"""``tablectl --version``: the release and the git commit the code was built from.

Regulated equipment must say exactly what it runs. The commit comes from, in order:

1. the git checkout this package sits in (``pip install -e .``, ``make run``): its
   ``HEAD``, the code that runs being the checkout's own files;
2. ``BUILD_COMMIT`` beside this module, written by the build (setup.py) from the
   checkout it built, or from the sdist's copy of that file when there was no git;
3. otherwise ``unknown commit``: a missing ``git`` never fails the command.

A commit followed by ``-dirty`` was built from a tree whose tracked files differed
from it. setup.py loads this module by its path, without importing the package.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

VERSION = "0.1.0"  # pyproject.toml reads it from here (tool.setuptools.dynamic)

COMMIT_FILE = "BUILD_COMMIT"
_COMMIT = re.compile(r"[0-9a-f]{40}(-dirty)?")
_HERE = Path(__file__).resolve().parent


def git_commit(tree: Path) -> str | None:
    """``HEAD`` of the git checkout at ``tree`` (``-dirty`` when a tracked file differs
    from it), or None: no checkout there, no git, or git failed."""
    import subprocess

    if not (tree / ".git").exists():
        return None

    def git(*words: str) -> str:
        return subprocess.run(
            ["git", "-C", str(tree), *words],
            capture_output=True,
            text=True,
            check=True,
            timeout=10,
        ).stdout.strip()

    try:
        head = git("rev-parse", "--verify", "HEAD")
        changed = git("status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.SubprocessError):
        return None
    commit = f"{head}-dirty" if changed else head
    return commit if _COMMIT.fullmatch(commit) else None


def read_commit(path: Path) -> str | None:
    """The commit recorded in ``path`` (a BUILD_COMMIT file), or None."""
    try:
        text = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return text if _COMMIT.fullmatch(text) else None


def commit() -> str | None:
    """The commit this code came from, or None when nothing says."""
    return git_commit(_HERE.parent) or read_commit(_HERE / COMMIT_FILE)


def describe(found: str | None) -> str:
    """``tablectl 0.1.0 (commit 0123...)``, or ``(unknown commit)``."""
    if found is None:
        return f"tablectl {VERSION} (unknown commit)"
    head, _, dirty = found.partition("-")
    extra = ", with uncommitted changes" if dirty else ""
    return f"tablectl {VERSION} (commit {head}{extra})"


class VersionAction(argparse.Action):
    """``--version``: print ``describe(commit())`` and exit 0. The commit is looked up
    only when the option is given, never on every start."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        kwargs.setdefault("help", "print the version and the git commit it was built from")
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> NoReturn:
        print(describe(commit()))  # on stdout, as argparse's own version action does
        parser.exit(0)
