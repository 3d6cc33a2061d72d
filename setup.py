"""Records the git commit a build came from, for ``tablectl --version``
(controller/version.py); everything else is in pyproject.toml.

The wheel gets ``controller/BUILD_COMMIT``; the sdist gets ``BUILD_COMMIT`` at its top,
which a wheel built from the sdist (no git there) copies. An editable install writes
nothing: it runs the checkout's files, whose commit ``--version`` asks git for.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

ROOT = Path(__file__).resolve().parent


def _version_module():  # type: ignore[no-untyped-def]
    # By its path: importing the package would import the package's dependencies.
    path = ROOT / "controller" / "version.py"
    spec = importlib.util.spec_from_file_location("_tablectl_version", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _commit() -> str | None:
    version = _version_module()
    return version.git_commit(ROOT) or version.read_commit(ROOT / version.COMMIT_FILE)


def _write_commit(directory: Path) -> None:
    commit = _commit()
    if commit is not None:  # else --version says "unknown commit"
        (directory / _version_module().COMMIT_FILE).write_text(commit + "\n", encoding="ascii")


class BuildPy(build_py):
    def run(self) -> None:
        super().run()
        if not self.editable_mode:
            _write_commit(Path(self.build_lib) / "controller")


class Sdist(sdist):
    def make_release_tree(self, base_dir: str, files: list[str]) -> None:
        super().make_release_tree(base_dir, files)
        _write_commit(Path(base_dir))


setup(cmdclass={"build_py": BuildPy, "sdist": Sdist})
