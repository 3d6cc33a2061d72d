"""udevd itself, applying the rules as docs/operations.md has a technician install them.

``apply(scripts)`` runs docs/operations.md's blocks of commands (tests/support/
docsteps.py reads them) on the table described in tests/tools/data/table.umockdev,
with systemd 254's ``systemd-udevd`` running (``--debug``, unpacked by ``make udevadm``
in .venv/udev-254, the same binary as ``udevadm``, which runs as udevd by that name),
and returns what each block printed and what udevd left in /dev and /run/udev.

The namespace is tests/support/udev_sandbox.py's (a private /dev with the table's nodes
as the kernel makes them, /run, the groups), and besides: a private /etc (an overlay
over the real one, so /etc/udev may be made where the machine has none) with an empty
tmpfs over /etc/udev, and an empty tmpfs over /usr/lib/udev/rules.d holding the rules
as the package installs them. The commands' ``udevadm`` is udev 254's (first in PATH).

The kernel's part is played here (``Kernel``). umockdev-run's preload library turns
udevd's netlink uevent socket into a Unix socket in the testbed (``UMOCKDEV_DIR/
eventN``); umockdev sends uevents only when a program asks its library to, and a
device's ``uevent`` file is a plain file in the testbed. So what ``udevadm trigger``
writes there (the action) the stand-in reads, puts the file's recorded contents back,
and sends udevd the uevent the kernel sends: ``ACTION@DEVPATH``, then ACTION, DEVPATH,
the device's recorded properties (its ``uevent`` file) and SEQNUM. udevd's broadcast
of each event it processed to libudev listeners fails there (the preload's socket
takes no netlink address), so ``udevadm trigger --settle`` would wait forever;
``udevadm settle`` waits on udevd's queue instead, and works.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support.paths import ROOT
from tests.support.udev_sandbox import (
    SCRATCH,
    TABLE,
    UDEVADM,
    make_nodes,
    mount,
    private_dev,
    private_groups,
    stage_main,
    state,
)

RULES = ROOT / "udev" / "70-tablectl.rules"
PACKAGED = Path("/usr/lib/udev/rules.d")  # where the package installs the rules
HIDDEN = ("/etc/udev", "/usr/local/lib/udev/rules.d", str(PACKAGED))
UDEVD_LOG = SCRATCH / "udevd.log"
MODULE = "tests.support.udev_daemon"
STARTED = 10.0  # seconds udevd has to make its control socket
PROCESSED = 30.0  # seconds udevd has to process the uevents sent to it


@dataclass(frozen=True, slots=True)
class Applied:
    """The blocks run with udevd: what each printed, udevd's log, what it left."""

    outputs: list[tuple[int, str]]  # each block's exit status and output
    log: list[str]  # udevd's debug log
    events: list[str]  # "ACTION DEVPATH" of each uevent the kernel's stand-in sent
    nodes: dict[str, tuple[int, int, int]]  # every node of the table: uid, gid, mode
    links: dict[str, str]  # every symlink under /dev/tablectl, to its target
    gids: dict[str, int]  # the gid of each group the rules give, in the namespace


def apply(scripts: list[str]) -> Applied:
    """Each script (a block's commands, its words in capitals replaced) run in order by
    ``sh -e``, its stderr in its stdout, while udevd runs."""
    request = {"scripts": scripts, "table": str(TABLE)}
    argv = ["unshare", "--mount", "--propagation", "private"]
    argv += [sys.executable, "-m", MODULE, "outer", json.dumps(request)]
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.returncode == 0, f"the udevd sandbox failed: {done.stderr.strip()}"
    found = json.loads(done.stdout)
    return Applied(
        outputs=[(rc, out) for rc, out in found["outputs"]],
        log=found["log"].splitlines(),
        events=found["events"],
        nodes={path: tuple(node) for path, node in found["nodes"].items()},
        links=found["links"],
        gids=found["gids"],
    )


# --- Inside the namespace ------------------------------------------------------------


def private_etc() -> None:
    """/etc writable in the namespace alone; the rules directories empty but for the
    packaged rules."""
    upper, work = SCRATCH / "etc-upper", SCRATCH / "etc-work"
    upper.mkdir()
    work.mkdir()
    mount("-t", "overlay", "-o", f"lowerdir=/etc,upperdir={upper},workdir={work}", "etc", "/etc")
    Path("/etc/udev").mkdir(exist_ok=True)  # in the overlay: the machine's /etc untouched
    if not PACKAGED.is_dir():
        raise SystemExit(f"{PACKAGED} is missing: install udev (or systemd)")
    for hidden in HIDDEN:
        if Path(hidden).is_dir():  # never made here: outside /etc it would be the machine's
            mount("-t", "tmpfs", "-o", "mode=0755", "udev-sandbox", hidden)
    shutil.copyfile(RULES, PACKAGED / RULES.name)


def outer(request: dict[str, Any]) -> dict[str, Any]:
    """Build the namespace, run udevd and the blocks under umockdev-run, collect."""
    mount("-t", "tmpfs", "-o", "mode=0755", "udev-sandbox", "/run")
    SCRATCH.mkdir()
    private_dev()
    private_etc()
    gids = private_groups()
    nodes = make_nodes(Path(request["table"]))
    (SCRATCH / "tmp").mkdir()
    env = {**os.environ, "TMPDIR": str(SCRATCH / "tmp")}
    argv = ["umockdev-run", "-d", request["table"], "--"]
    argv += [sys.executable, "-m", MODULE, "inner", json.dumps(request)]
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=False, env=env)
    if done.returncode != 0:
        raise SystemExit(f"umockdev-run failed ({done.returncode}): {done.stderr.strip()}")
    found = state(nodes)
    del found["tags"]
    log = UDEVD_LOG.read_text(encoding="utf-8")
    return {**json.loads(done.stdout), **found, "gids": gids, "log": log}


class Kernel:
    """The kernel's part: a write to a device's ``uevent`` file becomes that uevent."""

    def __init__(self, table: Path) -> None:
        text = table.read_text(encoding="utf-8")
        devpaths = [line[3:] for line in text.splitlines() if line.startswith("P: ")]
        self.files = {d: Path(f"/sys{d}/uevent") for d in devpaths}
        self.recorded = {d: f.read_bytes() for d, f in self.files.items()}
        self.sent: list[str] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def __enter__(self) -> Kernel:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _watch(self) -> None:
        while not self._stop.is_set():
            self.poll()
            time.sleep(0.005)

    def poll(self) -> int:
        """Send a uevent for each file written since the last poll; how many."""
        count = 0
        with self._lock:
            for devpath, path in self.files.items():
                count += self._poll_one(devpath, path)
        return count

    def _poll_one(self, devpath: str, path: Path) -> int:
        written = path.read_bytes()
        if written == self.recorded[devpath]:
            return 0
        path.write_bytes(self.recorded[devpath])
        self._send(devpath, (written.split() or [b""])[0].decode())
        return 1

    def _send(self, devpath: str, action: str) -> None:
        props = [f"ACTION={action}", f"DEVPATH={devpath}"]
        props += self.recorded[devpath].decode().splitlines()
        props.append(f"SEQNUM={len(self.sent) + 1}")
        message = f"{action}@{devpath}\0".encode() + b"".join(p.encode() + b"\0" for p in props)
        for path in glob.glob(f"{os.environ['UMOCKDEV_DIR']}/event[0-9]*"):
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
                try:
                    sock.connect(path)
                    sock.send(message)
                except (ConnectionRefusedError, FileNotFoundError):
                    pass  # a closed listener's socket (a udev worker's, gone)
        self.sent.append(f"{action} {devpath}")


def _start_udevd() -> subprocess.Popen[bytes]:
    with UDEVD_LOG.open("wb") as log:
        udevd = subprocess.Popen(
            ["systemd-udevd", "--debug"], executable=UDEVADM, stdout=log, stderr=log
        )
    deadline = time.monotonic() + STARTED
    while not Path("/run/udev/control").exists():
        if udevd.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"systemd-udevd did not start: {UDEVD_LOG.read_text()}")
        time.sleep(0.01)
    return udevd


def _run(script: str) -> tuple[int, str]:
    path = f"{UDEVADM.parent}:{os.environ['PATH']}"
    done = subprocess.run(
        ["sh", "-ec", f"exec 2>&1\n{script}"],
        env={**os.environ, "PATH": path},
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    return done.returncode, done.stdout


def _wait_processed(sent: int) -> None:
    """Until udevd's log has every uevent sent so far processed. ``udevadm settle`` may
    answer before udevd has read a datagram the stand-in has just sent (its ping and the
    uevent come on different sockets), and a worker stopped in the middle of an event
    leaves its half-made link (``.#reader...``) behind."""
    wanted = {f"Device processed (SEQNUM={n}," for n in range(1, sent + 1)}
    deadline = time.monotonic() + PROCESSED
    while True:
        log = UDEVD_LOG.read_text(encoding="utf-8")
        missing = sorted(w for w in wanted if w not in log)
        if not missing:
            return
        if time.monotonic() > deadline:
            raise SystemExit(f"udevd never processed: {', '.join(missing)}")
        time.sleep(0.01)


def inner(request: dict[str, Any]) -> dict[str, Any]:
    """Under umockdev-run: udevd and the kernel's stand-in, the blocks in order."""
    udevd = _start_udevd()
    try:
        with Kernel(Path(request["table"])) as kernel:
            outputs = []
            for script in request["scripts"]:
                outputs.append(_run(script))
                # What the stand-in had yet to send for this block (the kernel sends
                # it before the write returns), then udevd's queue emptied.
                time.sleep(0.05)
                kernel.poll()
                subprocess.run([str(UDEVADM), "settle"], check=True, timeout=60)
                _wait_processed(len(kernel.sent))
    finally:
        udevd.terminate()
        udevd.wait(timeout=10)
    return {"outputs": outputs, "events": kernel.sent}


def main(argv: list[str]) -> int:
    return stage_main("tests.support.udev_daemon", argv, outer, inner)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
