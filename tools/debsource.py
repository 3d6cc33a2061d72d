"""The source tree the Debian package is built from (``make deb``):

    python3 -m tools.debsource DEST
    python3 -m tools.debsource --commit      (prints the commit alone)

DEST (emptied first) gets a copy of every file git tracks in this checkout, as it is in
the working tree (symbolic links as links), and ``BUILD_COMMIT``: the checkout's
``HEAD``, ``-dirty`` when a tracked file differs from it (controller/version.py). The
package is built there, not in the checkout: dpkg-buildpackage writes its results into
the parent directory and its staging tree into debian/, and only what git tracks is
built (no .venv, no stray files). The copy has no .git, so setup.py records the commit
from BUILD_COMMIT and ``tablectl --version`` prints it on the table.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from controller.version import COMMIT_FILE, git_commit

ROOT = Path(__file__).resolve().parent.parent


class SourceError(Exception):
    """Why the tree could not be made, in one line."""


def tracked(root: Path) -> list[Path]:
    """Every path git tracks under ``root`` that the working tree still has."""
    try:
        listing = subprocess.run(
            ["git", "-C", str(root), "ls-files", "-z"], capture_output=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        raise SourceError(f"{root} is not a git checkout git can read ({exc})") from None
    paths = [Path(name) for name in listing.decode().split("\0") if name]
    return [p for p in paths if (root / p).is_symlink() or (root / p).exists()]


def make_tree(root: Path, dest: Path) -> str:
    """Copy ``root``'s tracked files into ``dest`` and record the commit; the commit."""
    commit = git_commit(root)
    if commit is None:
        raise SourceError(f"cannot read the commit of {root}: is git installed?")
    shutil.rmtree(dest, ignore_errors=True)
    for path in tracked(root):
        target = dest / path
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / path, target, follow_symlinks=False)
    (dest / COMMIT_FILE).write_text(commit + "\n", encoding="ascii")
    return commit


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    if len(words) != 1:
        print("usage: python3 -m tools.debsource DEST | --commit", file=sys.stderr)
        return 2
    try:
        if words[0] == "--commit":
            print(git_commit(ROOT) or "unknown")
        else:
            make_tree(ROOT, Path(words[0]))
    except (SourceError, OSError) as exc:
        print(f"tools.debsource: error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
