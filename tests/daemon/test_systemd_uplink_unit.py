"""The uplink's unit (systemd/tablectl-uplink.service, docs/operations.md "The uplink"),
checked by systemd's own tools: it is valid and hardened, runs as its own user in group
tablectl (the journal) and nothing else, may write only its cursor's directory, always
comes back, and leaves the dealing daemon's unit without network."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

from controller.uplink import settings
from tests.support.paths import ROOT
from tests.support.units import (
    effective,
    exposure,
    read_unit,
    run_tool,
    setting,
    systemd_tool,
    sysusers,
    verify_output,
)

SYSTEMD = ROOT / "systemd"
UNIT = SYSTEMD / "tablectl-uplink.service"
DAEMON_UNIT = SYSTEMD / "tablectl.service"
SYSUSERS = SYSTEMD / "tablectl.sysusers.conf"
TMPFILES = SYSTEMD / "tablectl.tmpfiles.conf"
EXAMPLE = ROOT / "examples" / "uplink.toml"
CONSOLE_GROUPS = {"tablectl-dealer", "tablectl-floor", "tablectl-events"}


def _unit() -> dict[str, dict[str, list[str]]]:
    return read_unit(UNIT.read_text(encoding="utf-8"))


def test_systemd_analyze_verify_says_nothing_and_would_of_a_bad_unit(tmp_path: Path) -> None:
    assert verify_output(UNIT, tmp_path) == ""
    broken = UNIT.read_text(encoding="utf-8").replace("Restart=always", "Restart=allways")
    assert "allways" in verify_output(UNIT, tmp_path, broken)


def test_the_exposure_score_is_at_most_the_webs() -> None:
    """What is left is its network (PrivateNetwork=, IPAddressDeny= and AF_INET cannot
    be had by a client of a broker named in its configuration), as for the web's."""
    assert exposure(UNIT) <= 1.3


def test_it_runs_as_its_own_user_in_group_tablectl_only(tmp_path: Path) -> None:
    service = _unit()["Service"]
    assert setting(_unit(), "Service", "User") == "tablectl-uplink"
    assert setting(_unit(), "Service", "Group") == "tablectl-uplink"
    assert effective(service["SupplementaryGroups"]) == ["tablectl"]
    accounts = sysusers(SYSUSERS, tmp_path)
    _, _, uid, gid, _, _, shell = accounts.passwd["tablectl-uplink"]
    assert 0 < int(uid) < 1000 and shell == "/usr/sbin/nologin", "a system user"
    assert accounts.groups["tablectl-uplink"][2] == gid
    # In no console group (it uses none of the daemon's sockets), not in dialout.
    assert accounts.groups_of("tablectl-uplink") == {"tablectl"}
    assert "tablectl-uplink" not in accounts.members("dialout")


def test_it_writes_only_its_cursor_and_reads_the_journal(tmp_path: Path) -> None:
    service = _unit()["Service"]
    assert service["ProtectSystem"] == ["strict"]
    assert service["StateDirectory"] == ["tablectl-uplink"]
    assert service["StateDirectoryMode"] == ["0700"]
    assert service["ReadOnlyPaths"] == ["/var/lib/tablectl"]
    assert "ReadWritePaths" not in service
    assert service["PrivateDevices"] == ["yes"]  # group tablectl owns the reader's node
    # The journal's directory: the daemon's, 0750, no write for its group either.
    journal_dir = next(
        line.split() for line in TMPFILES.read_text().splitlines() if " /var/lib/tablectl " in line
    )
    assert journal_dir[3:5] == ["tablectl", "tablectl"]
    assert int(journal_dir[2], 8) & 0o027 == 0


def test_network_to_the_broker_and_nothing_else_is_allowed() -> None:
    service = _unit()["Service"]
    assert set(" ".join(effective(service["RestrictAddressFamilies"])).split()) == {
        "AF_INET",
        "AF_INET6",
        "AF_UNIX",
    }
    assert "PrivateNetwork" not in service
    assert service["CapabilityBoundingSet"] == [""]
    assert service["AmbientCapabilities"] == [""]
    assert service["NoNewPrivileges"] == ["yes"]
    assert effective(service["SystemCallFilter"]) == ["@system-service", "~@privileged @resources"]
    unit = _unit()["Unit"]
    assert unit["Wants"] == ["network-online.target"]
    assert "network-online.target" in " ".join(unit["After"]).split()


def test_it_always_comes_back_but_not_from_a_bad_configuration() -> None:
    """Store-and-forward: a crash is restarted after a short pause, without a start
    limit; a configuration it cannot run with (exit 2, docs/cli.md) stays failed with
    its one line, rather than ConditionPathExists= skipping a table's uplink silently."""
    unit = _unit()
    assert setting(unit, "Service", "Restart") == "always"
    assert setting(unit, "Service", "RestartSec") == "2s"
    assert setting(unit, "Unit", "StartLimitIntervalSec") == "0"
    assert setting(unit, "Service", "RestartPreventExitStatus") == "2"
    assert not [key for key in unit["Unit"] if key.startswith(("Condition", "Assert"))]
    exec_start = setting(unit, "Service", "ExecStart")
    assert exec_start == "/usr/bin/tablectl uplink --config /etc/tablectl/uplink.toml"


def test_a_bad_configuration_is_the_exit_the_unit_does_not_restart(tmp_path: Path) -> None:
    """RestartPreventExitStatus=2 holds for what a technician can get wrong, and only
    that: the uplink's own exit for a missing configuration is 2, with one line."""
    missing = tmp_path / "uplink.toml"
    ran = subprocess.run(
        [Path(sys.executable).parent / "tablectl", "uplink", "--config", missing],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert (ran.returncode, ran.stdout) == (2, "")
    assert ran.stderr.splitlines() == [f"tablectl: error: {missing}: no such configuration file"]


def test_the_example_is_what_the_uplink_reads_in_the_units_places(tmp_path: Path) -> None:
    """examples/uplink.toml loads with the uplink's own loader (its credentials' paths
    put under tmp_path), and names the unit's state directory and the daemon's journal."""
    text = EXAMPLE.read_text(encoding="utf-8")
    assert text.count("/etc/tablectl/uplink/") == 4  # cafile, password_file, certfile, keyfile
    for name in ("ca.crt", "password"):
        (tmp_path / name).write_text("x\n")
        (tmp_path / name).chmod(0o640)  # as tmpfiles makes them (the test below)
    copy = tmp_path / "uplink.toml"
    copy.write_text(text.replace("/etc/tablectl/uplink/", f"{tmp_path}/"), encoding="utf-8")
    loaded = settings.load(copy)
    assert loaded.state_dir == Path("/var/lib") / _unit()["Service"]["StateDirectory"][0]
    assert loaded.journal.parent == Path(_unit()["Service"]["ReadOnlyPaths"][0])
    assert loaded.broker.username == loaded.table_id
    assert loaded.broker.password_file == tmp_path / "password"


def test_its_configuration_and_credentials_are_for_its_group_alone(tmp_path: Path) -> None:
    """systemd-tmpfiles on a root with the files a technician writes: each 0640
    root:tablectl-uplink, their directory 0750, whatever mode they were written with."""
    accounts = sysusers(SYSUSERS, tmp_path)
    etc = accounts.root / "etc/tablectl"
    written = [etc / "uplink.toml", etc / "uplink/password", etc / "uplink/ca.crt"]
    for path in written:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x\n")
        path.chmod(0o644)
    result = run_tool(
        systemd_tool("systemd-tmpfiles"), f"--root={accounts.root}", "--create", str(TMPFILES)
    )
    assert result.returncode == 0, result.stderr
    gid = int(accounts.groups["tablectl-uplink"][2])
    for path, mode in [(etc / "uplink", 0o750), *((p, 0o640) for p in written)]:
        st = os.stat(path)
        assert (stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid) == (mode, 0, gid), path


def test_the_dealing_daemon_keeps_no_network() -> None:
    """Issue 13: the journal goes to the broker from this process, so the daemon's unit
    is unchanged: still no network at all."""
    daemon = read_unit(DAEMON_UNIT.read_text(encoding="utf-8"))["Service"]
    assert daemon["PrivateNetwork"] == ["yes"]
    assert daemon["IPAddressDeny"] == ["any"]
    assert effective(daemon["RestrictAddressFamilies"]) == ["AF_UNIX AF_NETLINK"]
