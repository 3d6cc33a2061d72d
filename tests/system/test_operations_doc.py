"""docs/operations.md's procedure, run as written: install the package on a box with
nothing of tablectl, provision the keys, approve the firmware, configure, put the
consoles' logins in their groups, start, check, upgrade, remove and purge.

Which commands: every ```sh block of the page before its reference part ("## What
the unit allows") is marked ``<!-- run: STEP -->`` and a file the technician writes
``<!-- file: NAME -->`` (tests/support/docsteps.py reads them; an unmarked sh block
there is an error). The steps found must be ``STEPS``, in that order: a block taken
out of the page, or out of the test's reach, fails the test. A ```text block after a
run block is what it prints, checked line by line (``…`` stands for anything).

Where: a container of its own (tests/support/nspawn.py), booted here, because the
procedure starts from nothing installed and ends purged (the folder's shared container
has the package installed and configured already). Each block runs there as root in
``WORKDIR``, to which the test copies ``make deb``'s package as a technician copies it
to the box, with stderr in stdout as on a terminal, and must exit 0. What apt-get asks
is answered ``y`` (``ANSWERS``).

What stands for the table's own (the page's table of words in capitals):
``PLACEHOLDERS`` below, and for the devices the firmware simulators
(tests/support/systemd_table.py, ``start_device``), started with the keys step's key
files at the names the udev rules give, with their group and mode, where udev would
(the container has no udev). Each step's own checks beyond the printed lines are its
``BEFORE`` and ``AFTER`` functions. The one step the container cannot run, udev's
reload and trigger, is run by tests/tools/test_udev_umockdev.py with systemd-udevd
(``ELSEWHERE``).
"""

from __future__ import annotations

import os
import re
import subprocess
import tomllib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.support.docsteps import Block, DocError, blocks, not_shown
from tests.support.nspawn import Machine, MachineError, missing_prerequisite
from tests.support.packaging import expected_version_line
from tests.support.paths import ROOT
from tests.support.systemd_table import (
    DEB,
    DEVICES,
    UNIT,
    copy_in,
    deb_version,
    journal,
    show,
    sim_firmware_hash,
    start_device,
    wait_active,
)

DOC = ROOT / "docs" / "operations.md"
REFERENCE = "## What the unit allows"  # the procedure is the page above it
STEPS = (
    "install",
    "check-install",
    "keys",
    "udev-rules",
    "udev-apply",
    "udev-check",
    "firmware",
    "configure",
    "logins",
    "start",
    "check-unit",
    "check-warnings",
    "check-consoles",
    "upgrade",
    "remove",
    "purge",
)
FILES = ("table.toml",)
# The steps another test runs instead of the container, which has no udev (its /sys is
# read-only): each with the test that runs it, on udev's own systemd-udevd.
ELSEWHERE = {"udev-apply": "tests/tools/test_udev_umockdev.py"}
WORKDIR = "/srv/technician"  # where the package was copied to, in the container
JOURNAL = "/var/lib/tablectl/journal.db"

# The page's words in capitals, and what the test puts in their place: fixed values
# here; VERSION is make deb's until the upgrade's package is made; the two hashes are
# what the firmware step printed, once it has run.
DEALER, FLOORPERSON, OUTSIDER = "dana", "frank", "olga"  # OUTSIDER: in no console group
PLACEHOLDERS = (
    "VERSION",
    "SHOE_SERIAL",
    "SHUFFLER_SERIAL",
    "SHOE_FIRMWARE_HASH",
    "SHUFFLER_FIRMWARE_HASH",
    "DEALER",
    "FLOORPERSON",
)
FIXED = {
    "SHOE_SERIAL": "A10K3SHO",  # made up: a pty has no USB serial number
    "SHUFFLER_SERIAL": "A10K3SHU",
    "DEALER": DEALER,
    "FLOORPERSON": FLOORPERSON,
}
ANSWERS = {"install": "y\n", "remove": "y\n", "purge": "y\n"}  # apt-get's "[Y/n]"

# Lines only the container adds, set aside where the page says "no warning": nspawn
# without a network of its own leaves the container no CAP_NET_ADMIN, so systemd
# cannot bring up the loopback of the unit's PrivateNetwork= (the unit uses none).
CONTAINER_ONLY = "Failed to configure loopback network device"


@dataclass
class Procedure:
    """The procedure as it goes: the container, the placeholders' values known so far,
    and what the steps left for later ones to check."""

    machine: Machine
    tmp: Path
    values: dict[str, str] = field(default_factory=dict)
    seen: dict[str, str] = field(default_factory=dict)

    def substitute(self, text: str, where: str) -> str:
        for word in PLACEHOLDERS:
            if word in text:
                assert word in self.values, f"{where}: {word} is used before it is known"
                text = text.replace(word, self.values[word])
        return text


def procedure() -> list[Block]:
    return blocks(DOC.read_text(encoding="utf-8"), until=REFERENCE)


def test_every_command_of_the_procedure_is_a_step_the_test_runs() -> None:
    found = procedure()
    assert [b.name for b in found if b.kind == "run"] == list(STEPS)
    assert [b.name for b in found if b.kind == "file"] == list(FILES)
    assert set(BEFORE) | set(AFTER) <= set(STEPS) - set(ELSEWHERE)
    for step, test in ELSEWHERE.items():
        assert f'"{step}"' in (ROOT / test).read_text(encoding="utf-8"), f"{test} runs no {step}"
    # The page's table of words in capitals is this test's map, each word used.
    text = DOC.read_text(encoding="utf-8")
    table = text[text.index("| word |") : text.index("### 1.")]
    first_cells = [row.split("|")[1] for row in table.splitlines()[2:] if row.startswith("|")]
    listed = [word for cell in first_cells for word in re.findall(r"`([A-Z_]+)`", cell)]
    assert sorted(listed) == sorted(PLACEHOLDERS)
    used = "".join(b.body + "".join(b.shows) for b in found)
    assert [word for word in PLACEHOLDERS if word not in used] == []


def test_an_unmarked_or_unclosed_block_is_an_error() -> None:
    end = "## End"
    with pytest.raises(DocError, match=r"line 3: a sh block without <!-- run: NAME -->"):
        blocks(f"text\n\n```sh\nrm -rf /\n```\n{end}\n", until=end)
    with pytest.raises(DocError, match="line 1: the fenced block is never closed"):
        blocks(f"```sh\nls\n{end}\n", until=end)
    with pytest.raises(DocError, match="run: a --> has no block after it"):
        blocks(f"<!-- run: a -->\ntext\n```sh\nls\n```\n{end}\n", until=end)
    with pytest.raises(DocError, match="named twice: run a"):
        blocks(
            f"<!-- run: a -->\n```sh\nls\n```\n<!-- run: a -->\n```sh\nls\n```\n{end}", until=end
        )
    marked = blocks(
        f"<!-- run: a -->\n```sh\nls\n```\n\n```text\nx …\n```\n{end}\n```sh\n```", until=end
    )
    assert marked == [Block("run", "a", "ls\n", ("x …",), 2)]


def test_the_printed_lines_are_checked_in_order() -> None:
    shows = ("tablectl … (commit …)", "groups=…(dialout)")
    assert not_shown(shows, "x\ntablectl 0.1.0  (commit ab)\ny\ngroups=20(dialout)\n") is None
    assert not_shown(shows, "groups=20(dialout)\ntablectl 0.1.0 (commit ab)\n") == shows[1]
    assert not_shown(shows, "tablectl 0.1.0\n") == shows[0]


def test_the_procedure_runs_as_written(tmp_path: Path) -> None:
    found = procedure()
    with _booted(tmp_path) as machine:
        run = Procedure(machine, tmp_path, values={**FIXED, "VERSION": deb_version()})
        for block in found:
            if block.kind == "file":
                path = machine.path(f"{WORKDIR}/{block.name}")
                path.write_text(run.substitute(block.body, block.name), encoding="utf-8")
                continue
            if block.name in ELSEWHERE:
                continue
            BEFORE.get(block.name, _nothing)(run)
            output = _run_block(run, block)
            run.seen[block.name] = output
            AFTER.get(block.name, _nothing_after)(run, output)


@contextmanager
def _booted(tmp_path: Path) -> Iterator[Machine]:
    why = missing_prerequisite()
    if why is not None:
        pytest.fail(f"{why}: this test must not be skipped")
    if not DEB.exists():
        pytest.fail(f"{DEB} is missing: run `make deb` (make test builds it first)")
    machine = Machine(tmp_path / "console.log", name="tablectl-ops")
    try:
        machine.boot()
        # A table box has no policy-rc.d; this machine's (Docker's, exit 101) would
        # keep the package's scripts from starting the unit after the upgrade.
        machine.sh(f"rm -f /usr/sbin/policy-rc.d && mkdir -p {WORKDIR}")
    except MachineError as exc:
        machine.stop()
        pytest.fail(f"{exc}\n{machine.console()}")
    try:
        yield machine
    finally:
        machine.stop()


def _run_block(run: Procedure, block: Block) -> str:
    """The block's commands in a shell that stops at the first failure; its output."""
    script = run.substitute(block.body, block.name)
    result = run.machine.run(
        "sh",
        "-ec",
        f"exec 2>&1\ncd {WORKDIR}\n{script}",
        stdin=ANSWERS.get(block.name, ""),
        check=False,
        timeout=300,
    )
    where = f"docs/operations.md:{block.line} ({block.name})"
    assert result.returncode == 0, f"{where} exited {result.returncode}:\n{result.stdout}"
    shows = [run.substitute(line, block.name) for line in block.shows]
    missing = not_shown(shows, result.stdout)
    assert missing is None, f"{where} did not print {missing!r}:\n{result.stdout}"
    return result.stdout


def _nothing(run: Procedure) -> None:
    pass


def _nothing_after(run: Procedure, output: str) -> None:
    pass


def _copy_package(run: Procedure) -> None:
    copy_in(run.machine, DEB, f"{WORKDIR}/tablectl_{deb_version()}_amd64.deb")


def _installed_from_this_checkout(run: Procedure, output: str) -> None:
    """The version line is the one this checkout's package gives (not a stale .deb)."""
    assert output.splitlines()[0] == expected_version_line(deb_version()), output


def _placeholders_replaced(run: Procedure, output: str) -> None:
    rules = run.machine.path("/etc/udev/rules.d/70-tablectl.rules").read_text()
    assert "SHOE0001" not in rules and "SHUF0001" not in rules
    assert rules.count(f'ATTRS{{serial}}=="{FIXED["SHOE_SERIAL"]}"') == 1


def _plug_in_devices(run: Procedure) -> None:
    """What udev does once the rules apply: each device at its name, group dialout,
    mode 0660 (start_device); the simulators hold the keys step's keys."""
    for name in DEVICES:
        start_device(run.machine, name)


def _hashes_printed(run: Procedure, output: str) -> None:
    """Each device's hash as device info printed it: the simulator's own, and not one
    that the package's example configuration approves."""
    kinds = re.findall(r"^kind: (\w+)$", output, re.MULTILINE)
    hashes = re.findall(r"^firmware_hash: ([0-9a-f]{64})$", output, re.MULTILINE)
    assert kinds == list(DEVICES), output
    example = _devices_approved(run.machine)
    for kind, digest in zip(kinds, hashes, strict=True):
        assert digest == sim_firmware_hash(kind)
        assert digest not in example[kind]
        run.values[f"{kind.upper()}_FIRMWARE_HASH"] = digest


def _devices_approved(machine: Machine) -> dict[str, list[str]]:
    """Each device's approved_firmware in the table's configuration as it is now."""
    config = tomllib.loads(machine.path("/etc/tablectl/table.toml").read_text())
    return {name: config["devices"][name]["approved_firmware"] for name in DEVICES}


def _firmware_approved(run: Procedure, output: str) -> None:
    approved = _devices_approved(run.machine)
    assert approved == {n: [run.values[f"{n.upper()}_FIRMWARE_HASH"]] for n in DEVICES}


def _make_logins(run: Procedure) -> None:
    """The logins the box has already: the casino's, not the package's."""
    for login in (DEALER, FLOORPERSON, OUTSIDER):
        run.machine.run("useradd", "--create-home", login)


def _started_once(run: Procedure, output: str) -> None:
    """Active (READY=1) at the first start: both devices accepted by their hashes."""
    state = wait_active(run.machine, timeout=5)
    assert "shoe connected, shuffler connected" in state["StatusText"], state
    assert show(run.machine, "NRestarts")["NRestarts"] == "0"


def _no_warning(run: Procedure, output: str) -> None:
    lines = [line for line in output.splitlines() if CONTAINER_ONLY not in line]
    assert lines in ([], ["-- No entries --"]), output


def _outsider_refused(run: Procedure, output: str) -> None:
    refused = run.machine.run("runuser", "-u", OUTSIDER, "--", "tablectl", "status", check=False)
    assert refused.returncode == 1
    assert refused.stderr == "tablectl: error: /run/tablectl/events.sock: permission denied\n"


def _newer_package(run: Procedure) -> None:
    """make deb's package with the next version and its files unchanged; what is
    running before it, for the checks after."""
    version = f"{deb_version()}+1"
    tree = run.tmp / "repack"
    subprocess.run(["dpkg-deb", "-R", str(DEB), str(tree)], check=True)
    control = tree / "DEBIAN" / "control"
    control.write_text(re.sub(r"(?m)^Version: .*$", f"Version: {version}", control.read_text()))
    newer = run.machine.path(f"{WORKDIR}/tablectl_{version}_amd64.deb")
    subprocess.run(
        ["dpkg-deb", "-Zgzip", "-z1", "--build", str(tree), str(newer)],
        check=True,
        capture_output=True,
    )
    run.values["VERSION"] = version
    run.seen["pid"] = show(run.machine, "MainPID")["MainPID"]
    run.seen["cursor"] = journal(run.machine)[-1]["__CURSOR"]
    run.seen["journal"] = str(os.stat(run.machine.path(JOURNAL)).st_ino)


def _upgraded_in_order(run: Procedure, output: str) -> None:
    """The daemon stopped before the first file was unpacked and started after the
    last: a new process, on the configuration and the journal kept, that serves the
    consoles."""
    entries = journal(run.machine, f"--after-cursor={run.seen['cursor']}")
    stopped = _when(entries, "Stopped tablectl.service")
    started = _when(entries, "Started tablectl.service")
    unpacked = _unpacked_ns(run.machine)
    assert stopped < min(unpacked) <= max(unpacked) < started, (stopped, unpacked, started)
    assert show(run.machine, "MainPID")["MainPID"] != run.seen["pid"]
    assert 'id = "bac-07"' in run.machine.path("/etc/tablectl/table.toml").read_text()
    assert str(os.stat(run.machine.path(JOURNAL)).st_ino) == run.seen["journal"]
    status = run.machine.run("runuser", "-u", DEALER, "--", "tablectl", "status").stdout
    assert "devices: shoe connected, shuffler connected" in status, status


def _when(entries: list[dict[str, str]], prefix: str) -> int:
    """The time of the one entry whose message starts ``prefix``, in nanoseconds."""
    times = [e["__REALTIME_TIMESTAMP"] for e in entries if e.get("MESSAGE", "").startswith(prefix)]
    assert len(times) == 1, (prefix, [e.get("MESSAGE") for e in entries])
    return int(times[0]) * 1000


def _unpacked_ns(machine: Machine) -> list[int]:
    """When dpkg wrote each of the package's files (their change times)."""
    listed = machine.run("dpkg", "-L", "tablectl").stdout.split()
    paths = [machine.path(p) for p in listed if p.startswith("/usr/lib/tablectl/")]
    return [os.lstat(p).st_ctime_ns for p in paths if p.is_file() and not p.is_symlink()]


def _removed(run: Procedure, output: str) -> None:
    assert show(run.machine, "LoadState", "ActiveState") == {
        "LoadState": "not-found",
        "ActiveState": "inactive",
    }
    assert not os.path.lexists(run.machine.path("/usr/bin/tablectl"))


def _purged_but_the_journal(run: Procedure, output: str) -> None:
    """/etc/tablectl and the unit's enablement gone; the journal whole."""
    assert not os.path.lexists(run.machine.path("/etc/tablectl"))
    wants = "/etc/systemd/system/multi-user.target.wants/" + UNIT
    assert not os.path.lexists(run.machine.path(wants))
    # Verified by this checkout's tablectl, in the container: the package's is gone.
    checkout = str(ROOT / ".venv" / "bin" / "tablectl")
    verify = run.machine.run(checkout, "journal", "verify", JOURNAL)
    assert re.fullmatch(r"/var/lib/tablectl/journal\.db: \d+ rows, chain intact\n", verify.stdout)


BEFORE: dict[str, Callable[[Procedure], None]] = {
    "install": _copy_package,
    "udev-check": _plug_in_devices,
    "logins": _make_logins,
    "upgrade": _newer_package,
}
AFTER: dict[str, Callable[[Procedure, str], None]] = {
    "check-install": _installed_from_this_checkout,
    "udev-rules": _placeholders_replaced,
    "firmware": _hashes_printed,
    "configure": _firmware_approved,
    "start": _started_once,
    "check-warnings": _no_warning,
    "check-consoles": _outsider_refused,
    "upgrade": _upgraded_in_order,
    "remove": _removed,
    "purge": _purged_but_the_journal,
}
