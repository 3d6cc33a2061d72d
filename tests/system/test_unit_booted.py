"""The shipped unit (systemd/tablectl.service) under a real systemd, booted in
systemd-nspawn (tests/support/nspawn.py), with the package's files installed and the
devices simulated on ptys; the test's drop-in (tests/support/systemd_table.py,
``DROP_IN``) scales the timings down, nothing else: the ptys need no DeviceAllow=
line, DevicePolicy=closed lets every unit open them.

The tests share the container and run in this file's order; each leaves the unit
active with every device plugged in (``restart_clean``) for the next."""

from __future__ import annotations

import json
import os
import re
import stat
import time
from pathlib import Path

import pytest

from tests.support.nspawn import Machine, MachineError, missing_prerequisite
from tests.support.systemd_table import (
    RESTART_SEC,
    SOCKETS,
    START_TIMEOUT,
    UNIT,
    USERS,
    WATCHDOG_SEC,
    ensure_active,
    hello,
    journal,
    restart_clean,
    show,
    stop_device,
    wait_active,
    wait_until,
)

# The exposure systemd-analyze gives the unit today (docs/operations.md).
MAX_EXPOSURE = 0.6


def test_the_container_boots_in_seconds(machine: Machine) -> None:
    """The boot's time (``pytest -s`` prints it): from the launcher's start to the end
    of the container's boot, and systemd's own count."""
    startup = machine.run("systemd-analyze", "time").stdout.splitlines()[0]
    print(f"\ncontainer booted in {machine.boot_seconds:.2f} s ({startup})")
    assert machine.boot_seconds < 30
    assert machine.run("systemctl", "is-system-running").stdout.strip() == "running"


def test_the_unit_starts_ready_with_a_status(machine: Machine) -> None:
    machine.run("systemctl", "start", UNIT, timeout=60)
    state = wait_active(machine)
    assert state["SubState"] == "running"
    # STATUS= from the daemon: the table's state and each device's health.
    assert "shoe connected" in state["StatusText"], state
    assert "shuffler connected" in state["StatusText"], state
    assert show(machine, "Type", "NotifyAccess") == {"Type": "notify", "NotifyAccess": "main"}


def test_the_shuffle_monitor_runs_in_the_unit_s_sandbox(machine: Machine) -> None:
    """The monitor's own process (controller/shuffle_watch.py: numpy, scipy, OpenBLAS)
    under the unit's sandbox (MemoryDenyWriteExecute=, the system-call filter,
    ProcSubset=pid), as the unit's user: it has read the journal and the status shows
    what it read. Its process starts once the journal holds a shoe's end or an alert;
    this table deals no shoe, so its journal is given an alert, as the unit's user
    with the package's own journal code, as a run that ended with one waiting left it."""
    machine.run("systemctl", "stop", UNIT)
    machine.run("/usr/lib/tablectl/bin/python", "-c", _AN_ALERT, user="tablectl")
    machine.run("systemctl", "start", UNIT, timeout=60)
    wait_active(machine)
    wait_until(lambda: _monitor(machine) == "watching", 60, "the monitor is not watching")
    status = json.loads(
        machine.run("/usr/bin/tablectl", "status", "--json", user="events1").stdout
    )["table"]
    assert status["shuffle_alert"]["shoes"] == [7]
    assert _said(journal(machine), "shuffle_monitor_stopped") == []
    found = machine.run("pgrep", "-u", "tablectl", "-f", "controller.shuffle_watch")
    assert len(found.stdout.split()) == 1, found.stdout
    restart_clean(machine)


_AN_ALERT = """
from controller.journal import SqliteJournal
journal = SqliteJournal("/var/lib/tablectl/journal.db")
journal.record({"type": "shuffle_alert", "shoe": 7, "failed": ["adjacency"],
                "p_values": {"adjacency": 1e-9}, "confidence": 0.99})
journal.close()
"""


def _monitor(machine: Machine) -> object:
    done = machine.run("/usr/bin/tablectl", "status", "--json", user="events1", check=False)
    if done.returncode != 0:
        return None
    return (json.loads(done.stdout).get("table") or {}).get("shuffle_monitor")


def _said(entries: list[dict[str, str]], event: str) -> list[dict[str, str]]:
    return [e for e in entries if f'"{event}"' in e.get("MESSAGE", "")]


def test_the_sockets_belong_to_their_console_groups(machine: Machine) -> None:
    ensure_active(machine)
    uid = int(machine.run("id", "-u", "tablectl").stdout)
    run_dir = os.lstat(machine.path("/run/tablectl"))
    assert (stat.S_IMODE(run_dir.st_mode), run_dir.st_uid) == (0o751, uid)
    for name in SOCKETS:
        st = os.lstat(machine.path(f"/run/tablectl/{name}.sock"))
        gid = int(machine.run("getent", "group", f"tablectl-{name}").stdout.split(":")[2])
        assert stat.S_ISSOCK(st.st_mode), name
        assert (stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid) == (0o660, uid, gid), name
    unset = [e for e in journal(machine) if "api_socket_group_not_set" in e.get("MESSAGE", "")]
    assert unset == []


def test_each_console_user_may_use_its_own_socket_and_no_other(machine: Machine) -> None:
    ensure_active(machine)
    for user, group in USERS.items():
        for name in SOCKETS:
            answer = hello(machine, user, name)
            if group == f"tablectl-{name}":
                reply = answer.get("reply")
                assert isinstance(reply, dict), (user, name, answer)
                assert (reply["type"], reply["socket"]) == ("hello", name), (user, reply)
            else:
                assert answer == {"connect": "PermissionError"}, (user, name, answer)


def test_the_watchdog_is_fed_for_longer_than_watchdog_sec(machine: Machine) -> None:
    ensure_active(machine)
    before = show(machine, "MainPID", "NRestarts", "WatchdogTimestampMonotonic", "WatchdogUSec")
    assert before["WatchdogUSec"] == f"{WATCHDOG_SEC:g}s"
    time.sleep(3 * WATCHDOG_SEC)
    after = show(machine, "MainPID", "NRestarts", "WatchdogTimestampMonotonic", "ActiveState")
    assert after["ActiveState"] == "active"
    assert (after["MainPID"], after["NRestarts"]) == (before["MainPID"], before["NRestarts"])
    # The last WATCHDOG=1 came within the last WatchdogSec, well after the first.
    fed = int(after["WatchdogTimestampMonotonic"]) - int(before["WatchdogTimestampMonotonic"])
    assert fed > 2 * WATCHDOG_SEC * 1_000_000, (before, after)


def test_the_watchdog_restarts_a_daemon_that_stopped_feeding_it(machine: Machine) -> None:
    ensure_active(machine)
    before = show(machine, "MainPID", "NRestarts")
    machine.run("kill", "-STOP", before["MainPID"])
    stopped = time.monotonic()
    wait_until(
        lambda: show(machine, "NRestarts")["NRestarts"] != before["NRestarts"],
        WATCHDOG_SEC + 20,
        "no restart after the daemon stopped feeding the watchdog",
    )
    assert time.monotonic() - stopped >= WATCHDOG_SEC
    after = wait_active(machine)
    assert after["MainPID"] != before["MainPID"]
    messages = [e.get("MESSAGE", "") for e in journal(machine)]
    assert any("Watchdog timeout" in text for text in messages), messages[-10:]


def test_a_warning_is_stored_as_priority_4(machine: Machine) -> None:
    """A peer the daemon refuses (root: the file's mode lets it connect, the daemon's
    check does not) is logged as a warning, and journald keeps it as one. Needs the
    daemon's `<N>` priority prefix (issue 11, JSON lines to journald)."""
    ensure_active(machine)
    assert hello(machine, "root", "dealer")["connect"] == "ok"
    wait_until(
        lambda: _refused(journal(machine)),
        10,
        "no api_peer_refused line in the journal",
    )
    stored = _refused(journal(machine, "--priority=warning"))
    kept_at = sorted({e["PRIORITY"] for e in _refused(journal(machine))})
    assert stored, f"journalctl -p warning lacks the warning, stored at priority {kept_at}"
    assert {e["PRIORITY"] for e in stored} == {"4"}


def _refused(entries: list[dict[str, str]]) -> list[dict[str, str]]:
    return [e for e in entries if "api_peer_refused" in e.get("MESSAGE", "")]


def test_a_stop_is_clean(machine: Machine) -> None:
    """systemctl stop: the daemon exits 0 by itself on SIGTERM, nothing is killed, and
    its sockets are gone. systemd says how the main process ended only at debug level
    when it is a success, so the stop is made at that level."""
    ensure_active(machine)
    cursor = journal(machine)[-1]["__CURSOR"]
    machine.run("systemd-analyze", "log-level", "debug")
    started = time.monotonic()
    try:
        machine.run("systemctl", "stop", UNIT)
    finally:
        took = time.monotonic() - started
        machine.run("systemd-analyze", "log-level", "info")
    assert show(machine, "ActiveState", "Result") == {
        "ActiveState": "inactive",
        "Result": "success",
    }
    assert took < 10
    since = [e.get("MESSAGE", "") for e in journal(machine, f"--after-cursor={cursor}")]
    exits = [text for text in since if "Main process exited" in text]
    assert exits == [f"{UNIT}: Main process exited, code=exited, status=0/SUCCESS (success)"]
    assert not [text for text in since if re.search("SIGKILL|Killing|timed out", text)]
    assert sorted(os.listdir(machine.path("/run/tablectl"))) == [
        f".{name}-group" for name in sorted(SOCKETS)
    ]
    restart_clean(machine)


def test_a_missing_device_ends_in_failed_after_five_starts(machine: Machine) -> None:
    """docs/operations.md: a device that is not there keeps each start activating until
    TimeoutStartSec=; systemd restarts it, and the start after StartLimitBurst= (5) of
    them is refused: the unit stays failed (the drop-in's timings, in the unit's
    proportions)."""
    stop_device(machine, "shuffler")
    # Stopped, and its count of starts forgotten: the five are this test's.
    machine.run("systemctl", "stop", UNIT)
    machine.run("systemctl", "reset-failed", UNIT, check=False)
    cursor = journal(machine)[-1]["__CURSOR"]
    started = time.monotonic()
    machine.run("systemctl", "start", "--no-block", UNIT)
    wait_until(
        lambda: show(machine, "ActiveState")["ActiveState"] == "failed",
        6 * (START_TIMEOUT + RESTART_SEC) + 30,
        "the unit never ended failed",
    )
    took = time.monotonic() - started
    since = [e.get("MESSAGE", "") for e in journal(machine, f"--after-cursor={cursor}")]
    starts = [text for text in since if text.startswith("Starting tablectl.service")]
    timeouts = [text for text in since if "start operation timed out" in text]
    assert (len(starts), len(timeouts)) == (5, 5), since
    assert since.count("tablectl.service: Start request repeated too quickly.") == 1, since
    # The fifth restart was scheduled and refused; the result stays the last start's.
    state = show(machine, "Result", "NRestarts", "StartLimitBurst")
    assert state == {"Result": "timeout", "NRestarts": "5", "StartLimitBurst": "5"}
    assert took >= 5 * START_TIMEOUT
    # It stays failed: no start after the refused one.
    time.sleep(START_TIMEOUT + RESTART_SEC)
    assert show(machine, "ActiveState", "NRestarts") == {"ActiveState": "failed", "NRestarts": "5"}
    restart_clean(machine)


def test_the_unit_may_open_no_device_it_does_not_allow(machine: Machine) -> None:
    """DevicePolicy=closed is in force: a device node the unit does not allow (the
    kernel log's, 1:11), though its mode lets group dialout open it, is refused to the
    daemon at its configured path, while root outside the unit opens it."""
    ensure_active(machine)
    stop_device(machine, "shuffler")
    machine.sh(
        "mknod /dev/tablectl/shuffler c 1 11 && chgrp dialout /dev/tablectl/shuffler"
        " && chmod 0660 /dev/tablectl/shuffler && head -c0 /dev/tablectl/shuffler"
    )
    cursor = journal(machine)[-1]["__CURSOR"]
    try:
        machine.run("systemctl", "restart", "--no-block", UNIT)
        wait_until(lambda: _unavailable(machine, cursor), START_TIMEOUT, "no device_unavailable")
        # EPERM, the device filter's answer; the file's mode would give EACCES.
        reasons = [line["reason"] for line in _unavailable(machine, cursor)]
        assert all("[Errno 1] Operation not permitted" in text for text in reasons), reasons
    finally:
        machine.run("systemctl", "stop", UNIT)
        machine.run("rm", "-f", "/dev/tablectl/shuffler")
    restart_clean(machine)


def _unavailable(machine: Machine, cursor: str) -> list[dict[str, str]]:
    lines = []
    for entry in journal(machine, f"--after-cursor={cursor}"):
        text = entry.get("MESSAGE", "")
        start = text.find("{")
        if "device_unavailable" in text and start >= 0:
            lines.append(json.loads(text[start:]))
    return lines


def test_the_exposure_score_is_at_most_today_s(machine: Machine) -> None:
    out = machine.run("systemd-analyze", "security", UNIT, "--no-pager").stdout
    found = re.search(r"Overall exposure level for tablectl\.service: (\d+\.\d)", out)
    assert found, out[-500:]
    assert float(found[1]) <= MAX_EXPOSURE, out


# Run inside the container by its own python (the package's): log in as ARGV[1] with
# ARGV[2], then POST ARGV[3] with the session's CSRF token and print the JSON answer.
WEB_CLIENT = r"""
import json, sys, urllib.error, urllib.parse, urllib.request
base = "http://127.0.0.1:8080"
class Keep(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *a, **k):
        return None
opener = urllib.request.build_opener(Keep())
def call(method, path, body=None, headers={}):
    req = urllib.request.Request(base + path, data=body, method=method)
    for k, v in {"Origin": base, **headers}.items():
        req.add_header(k, v)
    try:
        with opener.open(req, timeout=10) as r:
            return r.status, r.headers, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read().decode()
login, password, path, body = sys.argv[1:5]
form = urllib.parse.urlencode({"login": login, "password": password}).encode()
status, headers, _ = call("POST", "/login", form,
                          {"Content-Type": "application/x-www-form-urlencoded"})
assert status == 303, status
cookie = {"Cookie": headers["Set-Cookie"].split(";", 1)[0]}
page = call("GET", "/" + ("dealer" if login == "dana" else "floor"), None, cookie)[2]
csrf = page.split('<meta name="csrf" content="', 1)[1].split('"', 1)[0]
status, _, text = call("POST", path, body.encode(), {**cookie, "X-CSRF-Token": csrf,
                       "Content-Type": "application/json"})
print(json.dumps({"status": status, "answer": json.loads(text)}))
"""


def _web(machine: Machine, login: str, path: str, body: dict[str, object]) -> dict[str, object]:
    out = machine.run(
        "/usr/lib/tablectl/bin/python",
        "-c",
        WEB_CLIENT,
        login,
        f"pw-of-{login}",
        path,
        json.dumps(body),
    ).stdout
    answer: dict[str, object] = json.loads(out)
    return answer


def test_the_web_unit_reaches_the_daemon_by_its_sockets_and_reads_the_journal(
    machine: Machine,
) -> None:
    """tablectl-web.service (docs/web.md) as packaged: logins written with `tablectl web
    passwd` into the file tmpfiles made, a dealer's command through dealer.sock
    journaled with the login, and /floor's `journal verify` reading the journal the
    daemon writes, under ReadOnlyPaths=."""
    ensure_active(machine)
    users = "/etc/tablectl/web-users.toml"
    for login, role in (("dana", "dealer"), ("fred", "floor")):
        machine.run(
            "tablectl", "web", "passwd", users, login, "--role", role, stdin=f"pw-of-{login}\n"
        )
    st = os.stat(machine.path(users))
    gid = int(machine.run("getent", "group", "tablectl-web").stdout.split(":")[2])
    assert (stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid) == (0o640, 0, gid)
    machine.run("systemctl", "start", "tablectl-web.service", timeout=60)
    probe = "import urllib.request as u; u.urlopen('http://127.0.0.1:8080/scoreboard', timeout=2)"
    python = "/usr/lib/tablectl/bin/python"
    wait_until(
        lambda: machine.run(python, "-c", probe, check=False).returncode == 0,
        30,
        "tablectl-web answering",
    )
    done = _web(machine, "dana", "/api/command", {"name": "call_floor", "args": {}})
    assert done["status"] == 200, done
    verified = _web(machine, "fred", "/api/verify", {})
    assert verified["status"] == 200 and verified["answer"]["ok"] is True, verified  # type: ignore[index]
    logged = [
        e
        for e in journal(machine, "-u", "tablectl-web.service")
        if "web_command" in e.get("MESSAGE", "")
    ]
    assert logged, "the web logged no command"
    assert show(machine, "ActiveState", unit="tablectl-web.service")["ActiveState"] == "active"
    machine.run("systemctl", "stop", "tablectl-web.service", timeout=60)


def test_without_systemd_nspawn_the_boot_fails_with_how_to_get_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The fixture turns this line into a failure (tests/system/conftest.py), never a
    skip."""
    monkeypatch.setenv("PATH", str(tmp_path))
    why = missing_prerequisite()
    assert why is not None
    assert why.startswith("systemd-nspawn not found: `make systemd-container` installs it")
    with pytest.raises(MachineError, match="systemd-nspawn not found"):
        Machine(tmp_path / "console.log").boot()
