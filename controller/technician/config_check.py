"""``tablectl config check FILE``: every problem of a table's configuration, one line
each naming its key (controller/config/values.py ``Problems``), as the daemon would
meet them at start."""

from __future__ import annotations

from controller.config import ConfigError, ConfigUnreadable, load_config
from controller.errors import EXIT_FAILURE, EXIT_OK, EXIT_USAGE, fail


def config_check(path: str, *, check_files: bool = True) -> int:
    """0 and ``FILE: OK``; 1 with one line per problem on stdout; 2 when the file
    cannot be read at all (one line on stderr)."""
    try:
        config = load_config(path, check_files=check_files)
    except ConfigUnreadable as exc:
        return fail(str(exc), EXIT_USAGE)
    except ConfigError as exc:
        for problem in exc.problems:
            print(" ".join(problem.split()))
        return EXIT_FAILURE
    devices = ", ".join(config.devices.named())
    print(f"{path}: OK ({config.table.game} table {config.table.id}; devices {devices})")
    return EXIT_OK
