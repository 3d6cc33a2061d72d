"""How many bad inputs the suite tries, by kind: the test cases (parametrized cases
counted one by one) whose names say they feed the controller something it must refuse
in one line. ``python -m tools.bad_inputs`` collects the suite (``pytest
--collect-only``), runs nothing, and prints a table; the figures in docs/reliability.md
come from it. A kind's patterns are matched against ``module::test`` node ids."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Final

# (kind, the test modules, words one of which names a test that tries it). A case
# counts for the first kind it matches; the words name tests by what they feed.
AMOUNT = "amounts not chips (ruling R16)"
JOURNAL_WORDS = (
    "refused damage kill broken lost truncated torn flipped unreadable cannot full_disk "
    "read_only acknowledged_past no_fresh no_database"
)
KINDS: Final = (
    (f"{AMOUNT}: table", r"table/test_table_amounts", "not_chips"),
    (f"{AMOUNT}: bench scenarios", r"stack/test_bench_amounts", "not_chips"),
    (f"{AMOUNT}: API and tablectl send", r"daemon/test_(api|client)", "amount"),
    (f"{AMOUNT}: chip unit, maximum", r"rules/test_amounts", "not_a_sane"),
    (
        "API requests",
        r"daemon/test_api",
        "bad malformed wrong_socket unknown_command without_version over_long not_allowed",
    ),
    ("API connection floods", r"daemon/test_(api|daemon)", "simultaneous_connects"),
    ("configuration files", r"daemon/test_config", "bad_input"),
    ("rules in a configuration", r"rules/test_\w+_rules", "rules_refused"),
    ("bench scenarios", r"stack/test_bench\w*", "bad malformed huge_value"),
    ("tablectl command lines", r"daemon/test_(cli|client)", "bad_input"),
    (
        "technician commands, key files",
        r"daemon/test_technician",
        "bad_input refused refuses_to_overwrite another_key without_the_device",
    ),
    (
        "journal files damaged or unusable",
        r"daemon/test_journal_(damage|start|errors)",
        JOURNAL_WORDS,
    ),
    ("replays that cannot proceed", r"[\w/]+", "cannot_be_replayed cannot_proceed does_not_replay"),
    ("systemd environment", r"daemon/test_(sdnotify|daemon)", "bad_watchdog bad_notify"),
    (
        "tablectl web options, users files",
        r"web/test_web_options",
        "bad without missing not_a no_runtime no_users taken",
    ),
    (
        "tablectl uplink configurations, broker refusals",
        r"uplink/test_uplink_refusals",
        "bad_input refused",
    ),
    (
        "tablectl floor configurations, broker refusals, messages",
        r"floor/test_floor_(config|stack)",
        "mistake one_line ca_file address_taken refused_password duplicates_are_dropped",
    ),
)


def pattern(modules: str, words: str) -> re.Pattern[str]:
    """Node ids of a test in ``modules`` whose name holds one of ``words``."""
    return re.compile(rf"tests/{modules}\.py::\w*({'|'.join(words.split())})")


def collected(args: Sequence[str]) -> list[str]:
    """The suite's node ids, as ``pytest --collect-only -q`` lists them."""
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", *args],
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    return [line for line in out.splitlines() if "::" in line]


def counted(ids: Iterable[str]) -> Counter[str]:
    compiled = [(kind, pattern(modules, words)) for kind, modules, words in KINDS]
    counts: Counter[str] = Counter()
    for node in ids:
        kind = next((k for k, tried in compiled if tried.search(node)), None)
        if kind is not None:
            counts[kind] += 1
    return counts


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.bad_inputs", description=__doc__)
    parser.add_argument("pytest_args", nargs="*", help="passed to pytest (default: the suite)")
    options, rest = parser.parse_known_args(argv)
    counts = counted(collected([*options.pytest_args, *rest]))
    if not counts:
        print("python -m tools.bad_inputs: error: no test collected", file=sys.stderr)
        return 1
    print("| kind of bad input | cases |\n|---|---|")
    for kind, _, _ in KINDS:
        print(f"| {kind} | {counts[kind]} |")
    print(f"| **all** | {sum(counts.values())} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
