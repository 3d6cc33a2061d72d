"""Size and complexity of the package code, as the layout rules count them.

    python -m tools.metrics [--json] [PATH ...]      (default: controller drivers firmware_sim)

A module counts its lines less the lines of its data tables; a function counts from
its ``def`` to its last line; complexity is McCabe's (one, plus one per branch: ``if``,
loops, ``except``, ``case``, a conditional expression, each further operand of
``and``/``or``, each comprehension's ``for`` and ``if``). A data table is an assignment
at module or class level whose value is a literal (a dict, list, tuple or set of
literals, names, calls and lambdas): a transition list or a catalogue is data, not code.

Limits (docs/architecture.md): a module at most ``MODULE_LIMIT`` lines, a function at
most ``FUNCTION_LIMIT``; complexity above ``COMPLEXITY_NOTE`` is listed.
"""

from __future__ import annotations

import argparse
import ast
import json
import subprocess
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

MODULE_LIMIT = 400
FUNCTION_LIMIT = 50
COMPLEXITY_NOTE = 10
DEFAULT_PATHS = ("controller", "drivers", "firmware_sim")

_BRANCHES = (
    ast.If,
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.ExceptHandler,
    ast.IfExp,
    ast.match_case,
)
_LITERALS = (ast.Dict, ast.List, ast.Tuple, ast.Set)
# What a data table may hold besides containers.
_DATA_NODES = (
    *_LITERALS,
    ast.Constant,
    ast.Name,
    ast.Attribute,
    ast.Call,
    ast.Lambda,
    ast.expr_context,
    ast.keyword,
    ast.Starred,
    ast.arguments,
    ast.arg,
    ast.GeneratorExp,
    ast.comprehension,
    ast.JoinedStr,
    ast.FormattedValue,
    ast.BinOp,
    ast.UnaryOp,
    ast.operator,
    ast.unaryop,
    ast.Subscript,
    ast.Compare,
    ast.cmpop,
    ast.BoolOp,
    ast.boolop,
    ast.IfExp,
)


@dataclass(frozen=True)
class Function:
    module: str
    name: str
    line: int
    lines: int
    complexity: int


@dataclass(frozen=True)
class Module:
    path: str
    lines: int  # code lines: the file's lines less its data tables'
    data_lines: int
    largest_class: tuple[str, int]


def complexity(node: ast.AST) -> int:
    """McCabe's number of ``node``'s body, not counting nested functions."""
    count = 1
    for child in _walk_own(node):
        if isinstance(child, _BRANCHES):
            count += 1
        elif isinstance(child, ast.BoolOp):
            count += len(child.values) - 1
        elif isinstance(child, ast.comprehension):
            count += 1 + len(child.ifs)
    return count


def _walk_own(node: ast.AST) -> Iterator[ast.AST]:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        yield child
        yield from _walk_own(child)


def _is_data(value: ast.expr | None) -> bool:
    """A literal table: containers of constants, names, attributes, calls and lambdas,
    with at least one container."""
    if not isinstance(value, _LITERALS):
        return False
    return all(isinstance(n, _DATA_NODES) for n in ast.walk(value))


def _data_lines(body: Sequence[ast.stmt]) -> int:
    lines = 0
    for stmt in body:
        if isinstance(stmt, ast.Assign | ast.AnnAssign) and _is_data(stmt.value):
            lines += (stmt.end_lineno or stmt.lineno) - stmt.lineno + 1
        elif isinstance(stmt, ast.ClassDef):
            lines += _data_lines(stmt.body)
    return lines


def measure(path: Path, root: Path) -> tuple[Module, list[Function]]:
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source, str(path))
    name = str(path.relative_to(root))
    functions = [
        Function(
            name,
            node.name,
            node.lineno,
            (node.end_lineno or node.lineno) - node.lineno + 1,
            complexity(node),
        )
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    ]
    classes = [
        (node.name, (node.end_lineno or node.lineno) - node.lineno + 1 - _data_lines(node.body))
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
    ]
    data = _data_lines(tree.body)
    total = source.count("\n")
    largest = max(classes, key=lambda c: c[1], default=("", 0))
    return Module(name, total - data, data, largest), functions


def scan(paths: Sequence[str], root: Path) -> tuple[list[Module], list[Function]]:
    modules: list[Module] = []
    functions: list[Function] = []
    for top in paths:
        base = root / top
        for path in [base] if base.is_file() else sorted(base.rglob("*.py")):
            module, funcs = measure(path, root)
            modules.append(module)
            functions.extend(funcs)
    return modules, functions


def report(modules: Sequence[Module], functions: Sequence[Function]) -> dict[str, object]:
    largest = max(modules, key=lambda m: m.lines)
    biggest_class = max(modules, key=lambda m: m.largest_class[1])
    longest = max(functions, key=lambda f: f.lines)
    knottiest = max(functions, key=lambda f: f.complexity)
    return {
        "modules": len(modules),
        "functions": len(functions),
        "largest_module": [largest.path, largest.lines],
        "largest_class": [
            f"{biggest_class.path}:{biggest_class.largest_class[0]}",
            biggest_class.largest_class[1],
        ],
        "longest_function": [f"{longest.module}:{longest.name}", longest.lines],
        "highest_complexity": [f"{knottiest.module}:{knottiest.name}", knottiest.complexity],
        "modules_over_limit": [[m.path, m.lines] for m in modules if m.lines > MODULE_LIMIT],
        "functions_over_limit": [
            [f"{f.module}:{f.line}:{f.name}", f.lines]
            for f in functions
            if f.lines > FUNCTION_LIMIT
        ],
        "complexity_over_note": sum(1 for f in functions if f.complexity > COMPLEXITY_NOTE),
    }


_TOPS = ("controller", "drivers", "firmware_sim", "tools")
_LIST = f"print('\\n'.join(sorted(m for m in sys.modules if m.split('.')[0] in {_TOPS!r})))"


def loaded_by(module: str) -> list[str]:
    """The project's modules a fresh interpreter has loaded after importing ``module``."""
    code = f"import sys, importlib; importlib.import_module({module!r}); {_LIST}"
    return _run(code)


def loaded_by_command(words: Sequence[str]) -> list[str]:
    """The project's modules a fresh interpreter has loaded after running ``tablectl
    WORDS`` (its exit status ignored: a command that fails at once still shows what it
    imported to get there)."""
    code = (
        "import sys, contextlib, io; from controller.cli import main\n"
        "quiet = io.StringIO()\n"
        "with contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):\n"
        f"    try: main({list(words)!r})\n"
        "    except SystemExit: pass\n"
        f"{_LIST}"
    )
    return _run(code)


def _run(code: str) -> list[str]:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return out.stdout.split()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tools.metrics", description=__doc__.split("\n")[0]
    )
    parser.add_argument("paths", nargs="*", default=list(DEFAULT_PATHS))
    parser.add_argument("--json", action="store_true", help="one JSON object")
    parser.add_argument("--all", action="store_true", help="every function over the limits")
    parser.add_argument(
        "--loaded",
        metavar="MODULE",
        help="list the project's modules loaded by importing MODULE, and nothing else",
    )
    parser.add_argument(
        "--command",
        metavar="WORDS",
        help="list the project's modules loaded by running `tablectl WORDS`, and nothing else",
    )
    args = parser.parse_args(argv)
    if args.loaded or args.command:
        loaded = loaded_by(args.loaded) if args.loaded else loaded_by_command(args.command.split())
        print("\n".join(loaded))
        return 0
    root = Path.cwd()
    modules, functions = scan(args.paths, root)
    result = report(modules, functions)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    _print(result)
    if args.all:
        for f in sorted(functions, key=lambda f: -f.complexity):
            if f.complexity > COMPLEXITY_NOTE:
                print(f"complexity {f.complexity:3d}  {f.module}:{f.line}:{f.name}")
    return 0


def _print(result: dict[str, object]) -> None:
    for key, value in result.items():
        if isinstance(value, list) and value and isinstance(value[0], list):
            print(f"{key}: {len(value)}")
            for item in value:
                print(f"    {item[0]}  {item[1]}")
        else:
            print(f"{key}: {value}")


if __name__ == "__main__":
    sys.exit(main())
