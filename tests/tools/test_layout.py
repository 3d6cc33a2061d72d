"""The layout's rules, checked on the code itself (docs/architecture.md): sizes, the
direction of imports, and the tests' own hygiene."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.paths import ROOT
from tools.metrics import FUNCTION_LIMIT, MODULE_LIMIT, scan

PACKAGES = ("controller", "drivers", "firmware_sim")


def _modules(top: str) -> Iterator[tuple[str, Path]]:
    for path in sorted((ROOT / top).rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        yield ".".join(p for p in parts if p != "__init__"), path


def _imports(path: Path) -> set[str]:
    """Every module ``path`` imports, at its top or inside a function."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def _under(name: str, *prefixes: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def test_no_module_or_function_over_the_limits() -> None:
    modules, functions = scan(PACKAGES, ROOT)
    assert [(m.path, m.lines) for m in modules if m.lines > MODULE_LIMIT] == []
    assert [
        (f"{f.module}:{f.line}:{f.name}", f.lines) for f in functions if f.lines > FUNCTION_LIMIT
    ] == []


# Who may not import whom: (importer prefix, forbidden prefixes, except importers).
RULES = (
    ("drivers", ("controller", "firmware_sim", "tools"), ()),
    ("firmware_sim", ("controller", "tools"), ()),
    ("controller.rules", ("drivers", "firmware_sim", "controller.table", "controller.daemon"), ()),
    # The shuffle monitor's statistics are pure like the rules: orders in, verdicts out.
    (
        "controller.shuffle",
        ("drivers", "firmware_sim", "controller.table", "controller.daemon"),
        (),
    ),
    ("controller", ("tools",), ()),
    # The bench and the simulator sit above the controller: only the bench itself and
    # the command line (which loads a command's module when it runs) reach them.
    ("controller", ("firmware_sim", "controller.bench"), ("controller.bench", "controller.cli")),
    # The dealing daemon has no network (its unit allows AF_UNIX and AF_NETLINK only):
    # the broker is the uplink's, a process of its own.
    ("controller.daemon", ("controller.uplink", "paho"), ()),
    # Nor the shuffle monitor's statistics (numpy, scipy: some 75 MB): they are the
    # monitor's own process's (controller/shuffle_watch.py), which the daemon starts.
    ("controller.daemon", ("controller.shuffle", "controller.shuffle_watch", "numpy", "scipy"), ()),
)


@pytest.mark.parametrize(("importer", "forbidden", "allowed"), RULES)
def test_imports_run_one_way(
    importer: str, forbidden: tuple[str, ...], allowed: tuple[str, ...]
) -> None:
    wrong = [
        f"{name} imports {target}"
        for top in PACKAGES
        for name, path in _modules(top)
        if _under(name, importer) and not _under(name, *allowed)
        for target in sorted(_imports(path))
        if _under(target, *forbidden)
    ]
    assert wrong == []


def test_no_test_module_imports_another() -> None:
    wrong = [
        f"{name} imports {target}"
        for name, path in _modules("tests")
        for target in sorted(_imports(path))
        if _under(target, "tests") and not _under(target, "tests.support")
    ]
    assert wrong == []


# The layers' folders; a test module sits in one of them. system: the installed unit
# under a real systemd (booted in systemd-nspawn). web: tablectl web, over HTTP and in a
# real browser. uplink: tablectl uplink with a real Mosquitto. floor: tablectl floor
# on a real Mosquitto. shuffle: the shuffle monitor's statistics (pure functions).
LAYERS = (
    "drivers", "sim", "rules", "table", "stack", "daemon", "tools", "system", "web", "uplink",
    "floor", "shuffle",
)  # fmt: skip


def test_each_test_module_is_in_its_layers_folder() -> None:
    tests = ROOT / "tests"
    assert sorted(p.parent.name for p in tests.glob("*/__init__.py")) == sorted(
        (*LAYERS, "support")
    )
    wrong = [
        str(path.relative_to(tests))
        for path in sorted(tests.rglob("test_*.py"))
        if path.relative_to(tests).parts[0] not in LAYERS
    ]
    assert wrong == []


# What lets a test pass without running what it checks: a skip, a conditional skip,
# a skip when an import fails, an expected failure.
SKIPS = {"skip", "skipif", "importorskip", "xfail", "SkipTest"}


def _skips(path: Path) -> list[str]:
    """Where ``path`` names a way to skip: ``pytest.skip(...)``, ``@pytest.mark.skipif``,
    ``from pytest import importorskip`` and the like."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute) and node.attr in SKIPS:
            found.append(f"{node.lineno}: {node.attr}")
        elif isinstance(node, ast.ImportFrom):
            found += [f"{node.lineno}: {a.name}" for a in node.names if a.name in SKIPS]
    return found


def test_no_test_is_skipped_or_expected_to_fail() -> None:
    wrong = [f"{name}:{where}" for name, path in _modules("tests") for where in _skips(path)]
    assert wrong == [], "a missing tool fails the test with how to get it (Makefile)"
