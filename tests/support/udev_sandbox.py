"""``udevadm test`` on recorded devices, inside a private mount namespace.

udev's own engine (systemd 254's ``udevadm``, unpacked by ``make udevadm``) evaluates
a rules file for one event on one device of a table described in umockdev's record
format (``umockdev-run -d TABLE.umockdev``: a fake /sys built from the description). What
``udevadm test`` does besides printing is real: it creates the links in /dev, changes
the owner and mode of the device node, writes sysfs attributes and fills its database
in /run/udev. So the replay runs in a mount namespace of its own (``unshare
--mount``) with a tmpfs over /dev and /run, the system's rules directories hidden
under empty tmpfs mounts, and /etc/group replaced by a copy that also names the
groups the rules give; the machine's /dev, /run/udev, rules and groups are never
touched. The device nodes are made in that private /dev as the kernel makes them
(root, 0600, the description's major and minor), which is why the description has no
``N:`` lines: umockdev's own stand-in nodes are files or ptys, on which udev applies
nothing.

``replay(action, syspath)`` runs one event and returns what udev printed and logged,
and the state it left: the nodes' owner and mode, the links, the tags, and the
watched sysfs attributes. A watched attribute is emptied before the event: umockdev's
attributes are plain files, where writing "1" over "16" leaves "16" (a sysfs
attribute takes the bytes written as its new value), so afterwards the file holds
exactly what udev wrote, or nothing.

The namespace is built by this module run as a program (``python -m
tests.support.udev_sandbox``, under ``unshare``), which runs itself once more under
``umockdev-run`` for the event.
"""

from __future__ import annotations

import grp
import json
import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support.paths import ROOT

UDEVADM = ROOT / ".venv" / "udev-254" / "bin" / "udevadm"
RULES = ROOT / "udev" / "70-tablectl.rules"
TABLE = ROOT / "tests" / "tools" / "data" / "table.umockdev"
# Where the replay puts the rules: a directory udev reads, inside the private /run.
RULES_DIR = Path("/run/udev/rules.d")
# Every other directory udev 254 reads rules from (and /etc/udev for udev.conf).
HIDDEN = ("/etc/udev", "/usr/local/lib/udev/rules.d", "/usr/lib/udev/rules.d")
# The groups the rules give, added to the private /etc/group when the system lacks them.
GROUPS = ("dialout", "tablectl")
# What the private /dev keeps of the real one.
KEPT_NODES = ("null", "zero", "full", "random", "urandom", "tty")
SCRATCH = Path("/run/.udev-sandbox")
MODULE = "tests.support.udev_sandbox"  # this module, run as a program


@dataclass(frozen=True, slots=True)
class Node:
    """A device node's owner and permission bits after the event."""

    uid: int
    gid: int
    mode: int


@dataclass(frozen=True, slots=True)
class Replay:
    """One ``udevadm test`` run: udev's output and the state it left behind."""

    returncode: int
    properties: dict[str, str]  # the device's properties, as udevadm printed them
    log: list[str]  # udevadm's debug log, one line per entry
    nodes: dict[str, Node]  # every node of the table, by path
    links: dict[str, str]  # every symlink under /dev/tablectl, to its target
    tags: dict[str, list[str]]  # /run/udev/tags: tag -> the ids of the devices tagged
    attributes: dict[str, str]  # each watched sysfs attribute, after the event
    gids: dict[str, int]  # the gid of each of GROUPS inside the namespace

    def logged(self, text: str) -> list[str]:
        return [line for line in self.log if text in line]


def missing_tools() -> list[str]:
    """What a replay needs and this machine lacks, each with how to get it."""
    missing = []
    if not UDEVADM.is_file():
        missing.append(f"{UDEVADM} (udev 254) is missing: run `make test` (or `make udevadm`)")
    if shutil.which("umockdev-run") is None:
        missing.append("umockdev-run is missing: run `make test` (or `make umockdev`)")
    if shutil.which("unshare") is None or shutil.which("mount") is None:
        missing.append("unshare and mount (util-linux) are missing: install util-linux")
    if os.geteuid() != 0:
        missing.append("a private mount namespace needs root: run `make test` as root")
    return missing


def replay(
    action: str,
    syspath: str,
    *,
    rules: Path = RULES,
    table: Path = TABLE,
    watch: tuple[str, ...] = (),
) -> Replay:
    """``udevadm test --action=ACTION SYSPATH`` with ``rules`` alone, on ``table``."""
    request = {
        "action": action,
        "syspath": syspath,
        "rules": str(rules),
        "table": str(table),
        "watch": list(watch),
    }
    argv = ["unshare", "--mount", "--propagation", "private"]
    argv += [sys.executable, "-m", MODULE, "outer", json.dumps(request)]
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.returncode == 0, f"the udev sandbox failed: {done.stderr.strip()}"
    found = json.loads(done.stdout)
    return Replay(
        returncode=found["returncode"],
        properties=_properties(found["stdout"]),
        log=found["stderr"].splitlines(),
        nodes={path: Node(*node) for path, node in found["nodes"].items()},
        links=found["links"],
        tags=found["tags"],
        attributes=found["attributes"],
        gids=found["gids"],
    )


def _properties(stdout: str) -> dict[str, str]:
    """The KEY=VALUE lines udevadm test prints last (its notice before them has no =)."""
    lines = (line.partition("=") for line in stdout.splitlines())
    return {key: value for key, eq, value in lines if eq and key.isupper()}


def device_nodes(table: Path) -> dict[str, tuple[str, int, int]]:
    """Each node the description's devices have: path -> (subsystem, major, minor)."""
    nodes = {}
    for block in table.read_text(encoding="utf-8").split("\n\n"):
        env = dict(line[3:].split("=", 1) for line in block.splitlines() if line.startswith("E: "))
        if "DEVNAME" in env and "MAJOR" in env:
            nodes[env["DEVNAME"]] = (env["SUBSYSTEM"], int(env["MAJOR"]), int(env["MINOR"]))
    return nodes


# --- Inside the namespace ------------------------------------------------------------


def mount(*args: str) -> None:
    subprocess.run(["mount", *args], check=True, capture_output=True)


def private_dev() -> None:
    """A tmpfs over /dev with only KEPT_NODES of the real one, bound in."""
    real = SCRATCH / "dev"
    real.mkdir(parents=True)
    mount("--bind", "/dev", str(real))
    mount("-t", "tmpfs", "-o", "mode=0755", "udev-sandbox", "/dev")
    for name in KEPT_NODES:
        if (real / name).exists():
            (Path("/dev") / name).touch()
            mount("--bind", str(real / name), f"/dev/{name}")
    subprocess.run(["umount", str(real)], check=True)


def private_rules(rules: Path) -> None:
    """A tmpfs over /run holding ``rules`` alone; every other rules directory emptied."""
    for hidden in HIDDEN:
        if Path(hidden).is_dir():
            mount("-t", "tmpfs", "-o", "mode=0755", "udev-sandbox", hidden)
    RULES_DIR.mkdir(parents=True)
    shutil.copyfile(rules, RULES_DIR / rules.name)


def private_groups() -> dict[str, int]:
    """/etc/group with GROUPS added where missing (a free system gid each); their gids."""
    text = Path("/etc/group").read_text(encoding="utf-8")
    gids = {g.gr_name: g.gr_gid for g in grp.getgrall()}
    free = (gid for gid in range(999, 99, -1) if gid not in gids.values())
    for name in GROUPS:
        if name not in gids:
            gids[name] = next(free)
            text += f"{name}:x:{gids[name]}:\n"
    copy = SCRATCH / "group"
    copy.write_text(text, encoding="utf-8")
    mount("--bind", str(copy), "/etc/group")
    return {name: gids[name] for name in GROUPS}


def make_nodes(table: Path) -> list[str]:
    """The table's device nodes in the private /dev, as devtmpfs makes them."""
    for path, (subsystem, major, minor) in device_nodes(table).items():
        kind = stat.S_IFBLK if subsystem == "block" else stat.S_IFCHR
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        os.mknod(path, kind | 0o600, os.makedev(major, minor))
    return list(device_nodes(table))


def state(nodes: list[str]) -> dict[str, Any]:
    """What udev left in the private /dev and /run/udev."""
    found: dict[str, Any] = {"nodes": {}, "links": {}, "tags": {}}
    for path in nodes:
        st = os.stat(path)
        found["nodes"][path] = (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode))
    links = Path("/dev/tablectl")
    if links.is_dir():
        found["links"] = {str(p): os.readlink(p) for p in sorted(links.iterdir())}
    tags = Path("/run/udev/tags")
    if tags.is_dir():
        found["tags"] = {t.name: sorted(i.name for i in t.iterdir()) for t in tags.iterdir()}
    return found


def outer(request: dict[str, Any]) -> dict[str, Any]:
    """Build the namespace, run the event under umockdev-run, collect the state."""
    mount("-t", "tmpfs", "-o", "mode=0755", "udev-sandbox", "/run")
    SCRATCH.mkdir()
    private_dev()
    private_rules(Path(request["rules"]))
    gids = private_groups()
    nodes = make_nodes(Path(request["table"]))
    argv = ["umockdev-run", "-d", request["table"], "--"]
    argv += [sys.executable, "-m", MODULE, "inner", json.dumps(request)]
    # umockdev-run's testbed goes in the private /run too: gone with the namespace.
    (SCRATCH / "tmp").mkdir()
    env = {**os.environ, "TMPDIR": str(SCRATCH / "tmp")}
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=False, env=env)
    if done.returncode != 0:
        raise SystemExit(f"umockdev-run failed ({done.returncode}): {done.stderr.strip()}")
    return {**json.loads(done.stdout), **state(nodes), "gids": gids}


def inner(request: dict[str, Any]) -> dict[str, Any]:
    """Under umockdev-run: empty the watched attributes, run the event, read them back."""
    for attribute in request["watch"]:
        Path(attribute).write_text("", encoding="utf-8")
    argv = [str(UDEVADM), "test", f"--action={request['action']}", request["syspath"]]
    env = {**os.environ, "SYSTEMD_LOG_LEVEL": "debug"}
    done = subprocess.run(argv, capture_output=True, text=True, check=False, env=env)
    return {
        "returncode": done.returncode,
        "stdout": done.stdout,
        "stderr": done.stderr,
        "attributes": {a: Path(a).read_text(encoding="utf-8") for a in request["watch"]},
    }


Stage = Callable[[dict[str, Any]], dict[str, Any]]


def stage_main(module: str, argv: list[str], outer: Stage, inner: Stage) -> int:
    """``python -m MODULE outer|inner REQUEST``: the namespace's builder (outer) or what
    runs in it (inner) on the JSON ``REQUEST``; its findings as JSON on stdout."""
    if len(argv) != 2 or argv[0] not in ("outer", "inner"):
        print(f"usage: python -m {module} outer|inner REQUEST", file=sys.stderr)
        return 2
    request = json.loads(argv[1])
    found = outer(request) if argv[0] == "outer" else inner(request)
    print(json.dumps(found))
    return 0


def main(argv: list[str]) -> int:
    return stage_main("tests.support.udev_sandbox", argv, outer, inner)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
