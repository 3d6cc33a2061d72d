"""tablectl installed in a booted container (``tests.support.nspawn``) as on a table
box: the package's files, the table's configuration and keys, console users, and the
shoe and shuffler simulated on ptys where udev's symlinks would be."""

from __future__ import annotations

import json
import secrets
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from drivers import messages as m
from drivers.identity import DEFAULT_FIRMWARE_VERSION, DEFAULT_MODEL, firmware_hash
from tests.support.nspawn import Machine, MachineError
from tests.support.paths import ROOT

UNIT = "tablectl.service"
DEVICES = ("shoe", "shuffler")
SOCKETS = ("dealer", "floor", "events")
# One console user per socket's group, and one in none of them.
USERS = {f"{name}1": f"tablectl-{name}" for name in SOCKETS} | {"nobody1": None}

# What only the test adds to the shipped unit: its timings, scaled down so that the
# test takes seconds, in the proportion that matters. StartLimitIntervalSec= must hold
# StartLimitBurst= starts that each time out, 5 x (TimeoutStartSec= + RestartSec=), as
# the unit's 10min holds 5 x (60 s + 2 s). No DeviceAllow= line: the simulated devices
# are ptys, which DevicePolicy=closed lets every unit open (systemd's own list: /dev/ptmx
# and char-pts, with /dev/null and the like).
DROP_IN = """\
# tests/system: only for the test, never on a table box.
[Unit]
# 5 x (5 s + 1 s) = 30 s of starts that time out: inside 60 s.
StartLimitIntervalSec=60s
[Service]
WatchdogSec=2s
TimeoutStartSec=5s
RestartSec=1s
"""
WATCHDOG_SEC = 2.0
START_TIMEOUT = 5.0
RESTART_SEC = 1.0

# make deb's package of this checkout (make test builds it first).
DEB = ROOT / "dist" / "tablectl.deb"


def install(machine: Machine) -> str:
    """The package in the container, as on a table box: ``apt-get install`` of the
    .deb (which fetches libusb when the machine lacks it); its maintainer scripts make
    the user, groups and directories. The version line of the installed tablectl."""
    if not DEB.exists():
        raise MachineError(f"{DEB} is missing: run `make deb` (make test builds it first)")
    package = copy_in(machine, DEB, f"/var/tmp/tablectl_{deb_version()}_amd64.deb")
    machine.run(
        "env",
        "DEBIAN_FRONTEND=noninteractive",
        "apt-get",
        "install",
        "--yes",
        "--quiet",
        "--no-install-recommends",
        package,
        timeout=300,
    )
    return machine.run("tablectl", "--version").stdout.strip()


def copy_in(machine: Machine, source: Path, inside: str) -> str:
    """``source`` copied into the container at ``inside`` (its path there). The host's
    paths are not all the container's: a checkout under /tmp, say, is hidden by the
    container's own /tmp."""
    target = machine.path(inside)
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)
    return inside


def deb_version() -> str:
    """The package's version, as the .deb gives it."""
    return subprocess.run(
        ["dpkg-deb", "--field", str(DEB), "Version"], capture_output=True, text=True, check=True
    ).stdout.strip()


def sim_firmware_hash(kind: str) -> str:
    """The firmware hash the simulator of device ``kind`` reports."""
    device = m.DeviceKind[kind.upper()]
    return firmware_hash(device, DEFAULT_MODEL[device], DEFAULT_FIRMWARE_VERSION).hex()


def table_config() -> str:
    """/etc/tablectl/table.toml: a Baccarat table whose devices are udev's paths."""
    devices = "".join(
        f'[devices.{name}]\npath = "/dev/tablectl/{name}"\n'
        f'key_file = "/etc/tablectl/keys/{name}.key"\n'
        f'approved_firmware = ["{sim_firmware_hash(name)}"]\n'
        for name in DEVICES
    )
    sockets = "".join(f'[api.{name}]\ngroup = "tablectl-{name}"\n' for name in SOCKETS)
    return (
        f'[table]\nid = "bac-07"\ngame = "baccarat"\n{devices}'
        '[journal]\npath = "/var/lib/tablectl/journal.db"\n'
        f'[api]\nruntime_dir = "/run/tablectl"\n{sockets}'
    )


def configure(machine: Machine) -> None:
    """The table's configuration and keys (docs/operations.md), the console users, and
    the test's drop-in."""
    key = secrets.token_hex(32)
    users = "".join(
        f"useradd --no-create-home {'-G ' + group + ' ' if group else ''}{user}\n"
        for user, group in USERS.items()
    )
    machine.sh(
        f"""
        for name in {" ".join(DEVICES)}; do
          echo {key} > /etc/tablectl/keys/$name.key
          chown tablectl /etc/tablectl/keys/$name.key
          chmod 0400 /etc/tablectl/keys/$name.key
        done
        cat > /etc/tablectl/table.toml <<'EOF'
{table_config()}EOF
        chown root:tablectl /etc/tablectl/table.toml
        chmod 0640 /etc/tablectl/table.toml
        mkdir -p /etc/systemd/system/{UNIT}.d
        cat > /etc/systemd/system/{UNIT}.d/test.conf <<'EOF'
{DROP_IN}EOF
        systemctl daemon-reload
        {users}
        """
    )


def start_device(machine: Machine, name: str) -> None:
    """The simulator of device ``name`` as a unit of its own (``sim-NAME``), its pty
    at /dev/tablectl/NAME given group dialout and mode 0660, as udev gives a ttyUSB."""
    link = f"/dev/tablectl/{name}"
    machine.run("mkdir", "-p", "/dev/tablectl", "/run/tablectl-sim")
    machine.run(
        "systemd-run",
        f"--unit=sim-{name}",
        f"--working-directory={ROOT}",
        "--quiet",
        "--",
        sys.executable,
        "-m",
        "firmware_sim",
        name,
        "--link",
        link,
        "--control",
        f"/run/tablectl-sim/{name}.control",
        "--key-file",
        f"/etc/tablectl/keys/{name}.key",
        "--decks",
        "8",
    )
    wait_until(lambda: machine.path(link).is_symlink(), 20, f"{link} never appeared")
    machine.sh(f't=$(readlink -f {link}); chgrp dialout "$t"; chmod 0660 "$t"')


def stop_device(machine: Machine, name: str) -> None:
    """The device unplugged: its simulator stopped, its link gone."""
    machine.run("systemctl", "stop", f"sim-{name}")
    wait_until(lambda: not machine.path(f"/dev/tablectl/{name}").is_symlink(), 10, name)


def show(machine: Machine, *properties: str, unit: str = UNIT) -> dict[str, str]:
    """``systemctl show`` of the unit's ``properties``."""
    out = machine.run("systemctl", "show", unit, "-p", ",".join(properties)).stdout
    return dict(line.partition("=")[::2] for line in out.splitlines())


def wait_until(check: Callable[[], object], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() >= deadline:
            raise AssertionError(f"after {timeout} s: {what}")
        time.sleep(0.1)


def wait_active(machine: Machine, timeout: float = 30) -> dict[str, str]:
    """The unit's state once it is active (READY=1 received)."""
    state: dict[str, str] = {}

    def active() -> bool:
        state.update(show(machine, "ActiveState", "SubState", "StatusText", "MainPID"))
        if state["ActiveState"] == "failed":
            raise AssertionError(f"{UNIT} failed: {journal(machine)[-5:]}")
        return state["ActiveState"] == "active"

    wait_until(active, timeout, f"{UNIT} not active: {state}")
    return state


def ensure_active(machine: Machine) -> dict[str, str]:
    """The unit active with every device plugged in (as an earlier test that failed
    half-way may not have left it), and its state."""
    if show(machine, "ActiveState")["ActiveState"] != "active":
        restart_clean(machine)
    return wait_active(machine)


def journal(machine: Machine, *options: str) -> list[dict[str, str]]:
    """The unit's journal entries since boot (``journalctl -o json``)."""
    out = machine.run("journalctl", "-u", UNIT, "-o", "json", "--no-pager", *options).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


CONNECT = """
import json, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(10)
try:
    s.connect(sys.argv[1])
except OSError as exc:
    print(json.dumps({"connect": exc.__class__.__name__}))
    sys.exit(0)
try:
    s.sendall(b'{"v":1,"op":"hello"}\\n')
    line = s.makefile().readline()
except OSError:  # the daemon refused the peer and closed
    line = ""
print(json.dumps({"connect": "ok", "reply": json.loads(line) if line else None}))
"""


def hello(machine: Machine, user: str, socket_name: str) -> dict[str, object]:
    """What ``user`` gets connecting to the socket and sending ``hello``: the connect's
    error class, or the reply (None when the daemon closed without one)."""
    out = machine.run(
        "/usr/bin/python3", "-c", CONNECT, f"/run/tablectl/{socket_name}.sock", user=user
    ).stdout
    result: dict[str, object] = json.loads(out)
    return result


def restart_clean(machine: Machine) -> None:
    """Every device plugged in and the unit started afresh, its failures forgotten."""
    for name in DEVICES:
        if show(machine, "ActiveState", unit=f"sim-{name}.service")["ActiveState"] != "active":
            machine.run("systemctl", "reset-failed", f"sim-{name}.service", check=False)
            start_device(machine, name)
    machine.run("systemctl", "reset-failed", UNIT, check=False)
    machine.run("systemctl", "restart", UNIT, check=False)
    wait_active(machine)
