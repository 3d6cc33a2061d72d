"""``tablectl keygen PATH``: a new device link key (drivers/keys.py, docs/protocol.md
5.6), written whole with mode 0400, never over an existing file."""

from __future__ import annotations

from controller.errors import EXIT_OK, EXIT_USAGE, fail
from drivers.keys import write_key


def keygen(path: str) -> int:
    """Write the key; one line naming the file. The key itself is never printed: it is
    given to the device from the file (docs/protocol.md 5.6)."""
    try:
        write_key(path)  # refuses whatever is at path, a dangling link too
    except FileExistsError:
        return fail(f"{path} exists already: keygen never overwrites a key", EXIT_USAGE)
    except OSError as exc:
        return fail(f"cannot write {path}: {exc.strerror or exc}", EXIT_USAGE)
    print(f"{path}: new link key written (mode 0400)")
    return EXIT_OK
