"""The web consoles' unit (systemd/tablectl-web.service, docs/web.md), checked by
systemd's own tools: it is valid, hardened, runs as its own user with the consoles'
groups only, and leaves the dealing daemon's unit without network."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.support.paths import ROOT
from tests.support.units import effective, read_unit, setting, systemd_tool

SYSTEMD = ROOT / "systemd"
WEB_UNIT = SYSTEMD / "tablectl-web.service"
DAEMON_UNIT = SYSTEMD / "tablectl.service"
SYSUSERS = SYSTEMD / "tablectl.sysusers.conf"
SOCKET_GROUPS = {"tablectl-dealer", "tablectl-floor", "tablectl-events"}


def _service() -> dict[str, list[str]]:
    return read_unit(WEB_UNIT.read_text(encoding="utf-8"))["Service"]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, capture_output=True, text=True, timeout=60, check=False)


def test_systemd_analyze_verify_says_nothing(tmp_path: Path) -> None:
    """Verified with ExecStart= on this checkout's tablectl (/usr/bin/tablectl is the
    package's): verify rejects a command that does not exist."""
    tablectl = Path(sys.executable).parent / "tablectl"
    assert tablectl.is_file(), f"{tablectl} missing: is the project installed in the venv?"
    text = WEB_UNIT.read_text(encoding="utf-8")
    assert text.count("ExecStart=/usr/bin/tablectl web ") == 1
    copy = tmp_path / "tablectl-web.service"
    copy.write_text(text.replace("/usr/bin/tablectl", str(tablectl), 1), encoding="utf-8")
    result = _run(systemd_tool("systemd-analyze"), "verify", str(copy))
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    # ... and would say something of a bad one.
    copy.write_text(copy.read_text().replace("ProtectSystem=strict", "ProtectSystem=strickt"))
    broken = _run(systemd_tool("systemd-analyze"), "verify", str(copy))
    assert "strickt" in broken.stdout + broken.stderr


def test_the_exposure_score_is_at_most_1_3() -> None:
    """What a process that must serve TCP can reach: the rest of the score is its
    network (PrivateNetwork=, IPAddressDeny= and AF_INET cannot be had by a server)."""
    result = _run(systemd_tool("systemd-analyze"), "security", "--offline=yes", str(WEB_UNIT))
    found = re.search(r"Overall exposure level for tablectl-web\.service: (\d+\.\d)", result.stdout)
    assert found, result.stdout[-500:] + result.stderr
    assert float(found[1]) <= 1.3, result.stdout


def test_it_reaches_the_daemon_by_its_sockets_and_no_device() -> None:
    service = _service()
    assert setting({"Service": service}, "Service", "User") == "tablectl-web"
    groups = set(" ".join(effective(service["SupplementaryGroups"])).split())
    # The three sockets' groups, and tablectl for reading the journal: no dialout.
    assert groups == SOCKET_GROUPS | {"tablectl"}
    assert service["PrivateDevices"] == ["yes"]  # tablectl's group owns the reader's node
    assert service["ReadOnlyPaths"] == ["/var/lib/tablectl"]
    assert service["CapabilityBoundingSet"] == [""]
    assert service["NoNewPrivileges"] == ["yes"]
    assert effective(service["RestrictAddressFamilies"]) == ["AF_UNIX AF_INET AF_INET6"]
    exec_start = setting({"Service": service}, "Service", "ExecStart")
    assert exec_start is not None and "--runtime-dir /run/tablectl" in exec_start


def test_the_dealing_daemon_keeps_no_network() -> None:
    """Issue 12: the consoles are served by their own process, so the daemon's unit is
    unchanged: still no network at all."""
    daemon = read_unit(DAEMON_UNIT.read_text(encoding="utf-8"))["Service"]
    assert daemon["PrivateNetwork"] == ["yes"]
    assert daemon["IPAddressDeny"] == ["any"]
    assert effective(daemon["RestrictAddressFamilies"]) == ["AF_UNIX AF_NETLINK"]


def test_sysusers_makes_the_web_user_a_member_of_its_groups(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "etc").mkdir(parents=True)
    result = _run(systemd_tool("systemd-sysusers"), f"--root={root}", str(SYSUSERS))
    assert result.returncode == 0, result.stderr
    members = {
        fields[0]: fields[3].split(",")
        for fields in (line.split(":") for line in (root / "etc/group").read_text().splitlines())
    }
    passwd = {
        line.split(":")[0]: line.split(":")
        for line in (root / "etc/passwd").read_text().splitlines()
    }
    assert passwd["tablectl-web"][6] == "/usr/sbin/nologin"
    for group in SOCKET_GROUPS | {"tablectl"}:
        assert "tablectl-web" in members[group], group
    assert "tablectl-web" not in members["dialout"]
