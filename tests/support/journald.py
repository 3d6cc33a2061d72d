"""A command run as systemd runs a service's, its stdout and stderr one stream to a
real systemd-journald, which parses each line's ``<N>`` prefix; and what the journal
then holds, as ``journalctl`` shows it.

The journald is the machine's own binary, started in a private mount namespace
(``unshare -m``) on tmpfs over /run/systemd, /run/log and /var/log/journal, and
/dev/null over /dev/kmsg: its sockets and files are the test's alone, and the
machine's journal and kernel log are not touched.
``systemd-cat`` connects the command to the journald's stream socket, as systemd does
for a unit (StandardOutput=journal, StandardError=inherit), and the command is handed
JOURNAL_STREAM naming that stream, as systemd.exec(5) says.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

JOURNALD = Path("/lib/systemd/systemd-journald")
IDENTIFIER = "tablectl"

# Run "$@" in the namespace's journald; write what the journal holds to $OUT.
_SCRIPT = r"""
set -eu
mount -t tmpfs tmpfs /run/systemd
mkdir -p /run/log /var/log/journal
mount -t tmpfs tmpfs /run/log
mount -t tmpfs tmpfs /var/log/journal
mount --bind /dev/null /dev/kmsg  # the machine's kernel log is neither read nor written
"$JOURNALD" >"$OUT/journald.log" 2>&1 &
journald=$!
trap 'kill $journald' EXIT
for _ in $(seq 200); do [ -S /run/systemd/journal/stdout ] && break; sleep 0.05; done
set +e
systemd-cat -t "$IDENTIFIER" "$@"
echo $? >"$OUT/exit"
set -e
journalctl --sync
journalctl -t "$IDENTIFIER" -o json >"$OUT/journal.json"
journalctl -t "$IDENTIFIER" -p warning -o cat >"$OUT/warning.txt"
"""

# The command, handed JOURNAL_STREAM for the stream its stderr is (systemd's contract).
_WITH_JOURNAL_STREAM = (
    "import os, sys\n"
    "st = os.fstat(2)\n"
    "os.environ['JOURNAL_STREAM'] = f'{st.st_dev}:{st.st_ino}'\n"
    "os.execv(sys.executable, [sys.executable, *sys.argv[1:]])\n"
)


@dataclass(frozen=True)
class Journal:
    code: int  # the command's exit status
    entries: list[dict[str, Any]]  # its lines as journalctl -o json gives them
    warning: list[str]  # journalctl -p warning -o cat: the messages of priority 4 or less


def tools_missing() -> str | None:
    """What this machine lacks for ``in_journald``, in one line; None when nothing."""
    missing = [tool for tool in ("unshare", "systemd-cat", "journalctl") if not shutil.which(tool)]
    if not JOURNALD.is_file():
        missing.append(str(JOURNALD))
    if not missing:
        return None
    return f"{', '.join(missing)} missing: run `make systemd-tools` (as root)"


def in_journald(
    out: Path, args: list[str], env: dict[str, str] | None = None, timeout: float = 90
) -> Journal:
    """``python -m ARGS...`` (e.g. ``controller.cli run ...``) as a service whose stdout
    and stderr are journald's; what the journal holds of it."""
    problem = tools_missing()
    assert problem is None, problem
    out.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-c", _WITH_JOURNAL_STREAM, "-m", *args]
    subprocess.run(
        ["unshare", "-m", "bash", "-c", _SCRIPT, "journald", *command],
        check=True,
        timeout=timeout,
        env={
            **os.environ,
            "PYTHONUNBUFFERED": "1",
            "JOURNALD": str(JOURNALD),
            "IDENTIFIER": IDENTIFIER,
            "OUT": str(out),
            **(env or {}),
        },
    )
    lines = (out / "journal.json").read_text().splitlines()
    return Journal(
        int((out / "exit").read_text()),
        [json.loads(line) for line in lines],
        (out / "warning.txt").read_text().splitlines(),
    )
