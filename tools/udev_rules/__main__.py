"""``python -m tools.udev_rules FILE...``: one ``FILE:LINE: message`` line per problem."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from tools.udev_rules.parser import check_file


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tools.udev_rules",
        description="Check udev rules files: one FILE:LINE: message per problem, exit 2.",
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help="a udev .rules file")
    args = parser.parse_args(argv)
    status = 0
    for name in args.files:
        try:
            errors = check_file(name)
        except OSError as exc:
            print(f"{name}: cannot read: {exc.strerror or exc}")
            status = 2
            continue
        except UnicodeDecodeError as exc:
            print(f"{name}: not UTF-8 text (byte {exc.start})")
            status = 2
            continue
        for error in errors:
            print(error)
            status = 2
    return status


if __name__ == "__main__":
    sys.exit(main())
