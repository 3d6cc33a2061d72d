"""The sdist and the wheel as ``python -m build`` makes them (the wheel from the sdist,
where there is no git), and the wheel installed for real into a fresh virtual
environment: every module, the license, the data files a table box needs, and
``tablectl --version`` naming the commit the build came from."""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
import venv
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from controller.cli import _COMMANDS
from controller.version import VERSION
from tests.support.packaging import (
    expected_commit,
    expected_version_line,
    tree_files,
    tree_modules,
)
from tests.support.paths import ROOT

DIST_INFO = f"tablectl-{VERSION}.dist-info"
DATA = f"tablectl-{VERSION}.data/data"
# Each data file of the wheel (under DATA) and the checkout's files it holds.
DATA_FILES = {
    "share/tablectl/systemd": "systemd/tablectl.*",
    "share/tablectl/udev": "udev/*.rules",
    "share/tablectl/examples": "examples/*.toml",
    "share/doc/tablectl": "docs/*.md",
}


@dataclass(frozen=True)
class Built:
    sdist: Path
    wheel: Path


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    out = tmp_path_factory.mktemp("dist")
    result = subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return Built(out / f"tablectl-{VERSION}.tar.gz", out / f"tablectl-{VERSION}-py3-none-any.whl")


def _names(wheel: Path) -> set[str]:
    with zipfile.ZipFile(wheel) as archive:
        return set(archive.namelist())


def _read(wheel: Path, name: str) -> bytes:
    with zipfile.ZipFile(wheel) as archive:
        return archive.read(name)


def test_the_wheel_holds_every_module_of_the_three_packages(built: Built) -> None:
    modules = tree_modules()
    names = _names(built.wheel)
    assert len(modules) > 150, modules  # the tree's 3 packages, not a stray few
    assert [m for m in modules if m not in names] == []
    shipped = {n for n in names if n.endswith(".py")}
    assert sorted(shipped - set(modules)) == []  # no tests/, tools/, setup.py
    print(f"{len(modules)} modules in the tree, {len(shipped)} in the wheel of {len(names)} files")


@pytest.mark.parametrize(
    ("package", "files"), [("web", ["app.js", "style.css"]), ("floor", ["floor.css", "floor.js"])]
)
def test_the_wheel_ships_the_pages_static_files(
    built: Built, package: str, files: list[str]
) -> None:
    static = sorted((ROOT / "controller" / package / "static").iterdir())
    assert [p.name for p in static] == files
    for path in static:
        assert _read(built.wheel, f"controller/{package}/static/{path.name}") == path.read_bytes()


def test_the_wheel_carries_the_license_as_pep_639_says(built: Built) -> None:
    assert _read(built.wheel, f"{DIST_INFO}/licenses/LICENSE") == (ROOT / "LICENSE").read_bytes()
    metadata = _read(built.wheel, f"{DIST_INFO}/METADATA").decode().split("\n\n")[0]
    fields = metadata.splitlines()
    assert "License-Expression: Apache-2.0" in fields
    assert "License-File: LICENSE" in fields
    assert [f for f in fields if f.startswith("License:")] == []  # the old free-text field
    assert "Apache License" in (ROOT / "LICENSE").read_text()


@pytest.mark.parametrize(("where", "pattern"), sorted(DATA_FILES.items()))
def test_the_wheel_ships_the_files_a_table_box_needs(
    built: Built, where: str, pattern: str
) -> None:
    for path in tree_files(pattern):
        assert _read(built.wheel, f"{DATA}/{where}/{path.name}") == path.read_bytes(), path
    assert f"{DATA}/share/doc/tablectl/README.md" in _names(built.wheel)


def test_the_sdist_is_the_whole_source_with_the_commit(built: Built) -> None:
    with tarfile.open(built.sdist) as archive:
        top = f"tablectl-{VERSION}/"
        names = {n.removeprefix(top) for n in archive.getnames()}
        member = archive.extractfile(f"{top}BUILD_COMMIT")
        assert member is not None
        assert member.read().decode().strip() == expected_commit()
    wanted = {"LICENSE", "README.md", "setup.py", "pyproject.toml", "debian/rules"}
    wanted |= {p.relative_to(ROOT).as_posix() for p in tree_files("systemd/*")}
    wanted |= {p.relative_to(ROOT).as_posix() for p in tree_files("udev/*")}
    wanted |= {p.relative_to(ROOT).as_posix() for p in tree_files("examples/*")}
    wanted |= set(tree_modules())
    assert sorted(wanted - names) == []


def test_the_wheel_built_from_the_sdist_records_the_checkouts_commit(built: Built) -> None:
    assert _read(built.wheel, "controller/BUILD_COMMIT").decode().strip() == expected_commit()


@pytest.fixture(scope="module")
def fresh(built: Built, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new virtual environment with the wheel installed, its dependencies from the
    package index: not editable, nothing of the checkout on its path."""
    where = tmp_path_factory.mktemp("fresh") / "venv"
    venv.EnvBuilder(with_pip=True).create(where)
    result = subprocess.run(
        [where / "bin/python", "-m", "pip", "install", "--quiet", str(built.wheel)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return where


def _run(program: Path, *words: str, path: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    if path is not None:
        env["PATH"] = path
    return subprocess.run(
        [str(program), *words], capture_output=True, text=True, timeout=60, env=env, cwd="/"
    )


def test_the_installed_tablectl_prints_its_version_and_commit(fresh: Path, tmp_path: Path) -> None:
    located = _run(fresh / "bin/python", "-c", "import controller; print(controller.__file__)")
    assert located.stdout.startswith(str(fresh / "lib")), located.stdout + located.stderr
    result = _run(fresh / "bin/tablectl", "--version")
    assert (result.returncode, result.stdout, result.stderr) == (
        0,
        expected_version_line(VERSION) + "\n",
        "",
    )
    # The commit is the build's, read from the package: no git needed on the table.
    no_git = _run(fresh / "bin/tablectl", "--version", path=str(tmp_path))
    assert no_git.stdout == result.stdout, no_git.stderr


def test_the_installed_tablectl_lists_every_command(fresh: Path) -> None:
    result = _run(fresh / "bin/tablectl", "--help")
    assert result.returncode == 0, result.stderr
    assert "--version" in result.stdout
    assert [c for c in _COMMANDS if c not in result.stdout] == []


def test_a_checkout_prints_its_own_commit_and_without_git_says_unknown(tmp_path: Path) -> None:
    tablectl = Path(sys.executable).with_name("tablectl")
    result = _run(tablectl, "--version")
    assert (result.returncode, result.stdout) == (0, expected_version_line(VERSION) + "\n")
    no_git = _run(tablectl, "--version", path=str(tmp_path))  # an empty PATH: no git
    assert (no_git.returncode, no_git.stdout, no_git.stderr) == (
        0,
        f"tablectl {VERSION} (unknown commit)\n",
        "",
    )


def test_bad_input_version_with_a_value_is_one_line_and_exit_2() -> None:
    result = _run(Path(sys.executable).with_name("tablectl"), "--version=2")
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 2 and len(lines) == 1, result.stderr
    assert "--version" in lines[0] and "Traceback" not in result.stderr
