"""The floor box's unit (systemd/tablectl-floor.service, docs/operations.md "The floor
box"), checked by systemd's own tools: valid and hardened, its own user, which reads
the web's logins but has none of the daemon's console groups, writes only its own
state, and always comes back."""

from __future__ import annotations

import os
import stat
import tomllib
from pathlib import Path

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
UNIT = SYSTEMD / "tablectl-floor.service"
SYSUSERS = SYSTEMD / "tablectl.sysusers.conf"
TMPFILES = SYSTEMD / "tablectl.tmpfiles.conf"
EXAMPLE = ROOT / "examples" / "floor.toml"
USER = "tablectl-pit"


def _unit() -> dict[str, dict[str, list[str]]]:
    return read_unit(UNIT.read_text(encoding="utf-8"))


def test_systemd_analyze_verify_says_nothing_and_would_of_a_bad_unit(tmp_path: Path) -> None:
    assert verify_output(UNIT, tmp_path) == ""
    broken = UNIT.read_text(encoding="utf-8").replace("PrivateDevices=yes", "PrivateDevices=oui")
    assert "oui" in verify_output(UNIT, tmp_path, broken)


def test_the_exposure_score_is_at_most_the_webs() -> None:
    assert exposure(UNIT) <= 1.3


def test_its_user_reads_the_logins_and_is_in_no_console_group(tmp_path: Path) -> None:
    """Not user tablectl-floor: sysusers would give it group tablectl-floor, which the
    daemon's floor.sock admits for the floorperson's commands (docs/api.md)."""
    assert setting(_unit(), "Service", "User") == USER
    assert setting(_unit(), "Service", "Group") == USER
    groups = set(" ".join(effective(_unit()["Service"]["SupplementaryGroups"])).split())
    assert groups == {"tablectl-web", "tablectl"}
    accounts = sysusers(SYSUSERS, tmp_path)
    _, _, uid, gid, _, _, shell = accounts.passwd[USER]
    assert 0 < int(uid) < 1000 and shell == "/usr/sbin/nologin", "a system user"
    assert accounts.groups[USER][2] == gid
    assert accounts.groups_of(USER) == groups
    for console in ("tablectl-dealer", "tablectl-floor", "tablectl-events"):
        assert accounts.groups[console][2] != gid, console
    # The logins file it reads is the web's, in a group it is in.
    logins = next(ln.split() for ln in TMPFILES.read_text().splitlines() if "web-users" in ln)
    assert logins[1:5] == ["/etc/tablectl/web-users.toml", "0640", "root", "tablectl-web"]
    assert tomllib.loads(EXAMPLE.read_text())["web"]["users"] == logins[1]


def test_it_writes_only_its_state_and_cannot_reach_a_tables_files() -> None:
    """Group tablectl lets it enter /etc/tablectl; on a box that is also a table, what
    else that group reads (the journal, the keys' directory, table.toml, the sockets'
    directory) is out of its mount namespace."""
    service = _unit()["Service"]
    assert service["ProtectSystem"] == ["strict"]
    assert service["StateDirectory"] == ["tablectl-floor"]
    assert service["StateDirectoryMode"] == ["0700"]
    assert "ReadWritePaths" not in service
    assert service["PrivateDevices"] == ["yes"]
    hidden = set(" ".join(service["InaccessiblePaths"]).split())
    assert hidden == {
        "-/var/lib/tablectl",
        "-/etc/tablectl/keys",
        "-/etc/tablectl/table.toml",
        "-/run/tablectl",
    }
    assert tomllib.loads(EXAMPLE.read_text())["state_dir"] == "/var/lib/tablectl-floor"


def test_network_and_no_privilege() -> None:
    service = _unit()["Service"]
    assert set(" ".join(effective(service["RestrictAddressFamilies"])).split()) == {
        "AF_INET",
        "AF_INET6",
        "AF_UNIX",
    }
    assert service["CapabilityBoundingSet"] == [""]
    assert service["NoNewPrivileges"] == ["yes"]
    assert effective(service["SystemCallFilter"]) == ["@system-service", "~@privileged @resources"]
    # A port it may bind without CAP_NET_BIND_SERVICE.
    port = int(tomllib.loads(EXAMPLE.read_text())["web"]["listen"].rpartition(":")[2])
    assert port >= 1024
    assert _unit()["Unit"]["Wants"] == ["network-online.target"]


def test_it_always_comes_back_but_not_from_a_bad_configuration() -> None:
    unit = _unit()
    assert setting(unit, "Service", "Restart") == "always"
    assert setting(unit, "Service", "RestartSec") == "2s"
    assert setting(unit, "Unit", "StartLimitIntervalSec") == "0"
    assert setting(unit, "Service", "RestartPreventExitStatus") == "2"
    exec_start = setting(unit, "Service", "ExecStart")
    assert exec_start == "/usr/bin/tablectl floor --config /etc/tablectl/floor.toml"


def test_its_configuration_and_credentials_are_for_its_group_alone(tmp_path: Path) -> None:
    accounts = sysusers(SYSUSERS, tmp_path)
    etc = accounts.root / "etc/tablectl"
    written = [etc / "floor.toml", etc / "floor/password", etc / "floor/ca.crt"]
    for path in written:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x\n")
        path.chmod(0o644)
    result = run_tool(
        systemd_tool("systemd-tmpfiles"), f"--root={accounts.root}", "--create", str(TMPFILES)
    )
    assert result.returncode == 0, result.stderr
    gid = int(accounts.groups[USER][2])
    for path, mode in [(etc / "floor", 0o750), *((p, 0o640) for p in written)]:
        st = os.stat(path)
        assert (stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid) == (mode, 0, gid), path
