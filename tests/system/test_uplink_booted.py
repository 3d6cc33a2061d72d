"""The uplink's unit (systemd/tablectl-uplink.service) as packaged, under the booted
container's systemd (tests/system/conftest.py: the package installed, the table
running): configured as docs/operations.md says, from the package's example, it
forwards the journal the daemon writes to a real Mosquitto on loopback (the host's,
which the container shares) as its own user, writing only its cursor; SIGKILLed it
comes back by itself; without its configuration it stays failed at once."""

from __future__ import annotations

import os
import re
import stat
import time
from collections.abc import Iterator

import pytest

from tests.support.mosquitto import Broker
from tests.support.mqttsub import Subscriber
from tests.support.nspawn import Machine
from tests.support.systemd_table import copy_in, ensure_active, show, wait_until

UNIT = "tablectl-uplink.service"
TABLE = "bac-07"  # the booted table's id (tests/support/systemd_table.py)
JOURNAL = "/var/lib/tablectl/journal.db"
EXAMPLE = "/usr/share/doc/tablectl/examples/uplink.toml"


@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Broker]:
    with Broker(tmp_path_factory.mktemp("broker"), {TABLE: "pw-table", "floor": "pw-floor"}) as b:
        yield b


@pytest.fixture(scope="module")
def configured(machine: Machine, broker: Broker) -> Machine:
    """The table running and the uplink configured, for each test of the module."""
    ensure_active(machine)
    _configure(machine, broker)
    return machine


def _configure(machine: Machine, broker: Broker) -> None:
    """docs/operations.md, "The uplink to the floor's broker": the CA and the password
    installed 0640 for the uplink's group, the example copied and edited."""
    copy_in(machine, broker.certs.ca, "/var/tmp/ca.crt")
    machine.sh(
        "install -m 0640 -o root -g tablectl-uplink /var/tmp/ca.crt /etc/tablectl/uplink/ca.crt\n"
        "printf '%s\\n' pw-table | install -m 0640 -o root -g tablectl-uplink /dev/stdin"
        " /etc/tablectl/uplink/password\n"
        f"install -m 0640 -o root -g tablectl-uplink {EXAMPLE} /etc/tablectl/uplink.toml\n"
        f'sed -i -e \'s/"BAC-01"/"{TABLE}"/\' -e \'s/"mqtt.pit.example"/"127.0.0.1"/\''
        f" -e 's/^port = 8883/port = {broker.port}/' /etc/tablectl/uplink.toml"
    )


def _last_seq(machine: Machine) -> int:
    """The journal's rows, as `tablectl journal verify` counts them (seq runs from 1)."""
    said = machine.run("tablectl", "journal", "verify", JOURNAL).stdout
    found = re.fullmatch(rf"{JOURNAL}: (\d+) rows, chain intact\n", said)
    assert found, said
    return int(found[1])


def _pid(machine: Machine) -> int:
    return int(show(machine, "MainPID", unit=UNIT)["MainPID"])


def test_the_uplink_forwards_the_journal_as_its_own_user(
    configured: Machine, broker: Broker
) -> None:
    machine = configured
    floor = Subscriber(broker, "pw-floor", [f"tablectl/{TABLE}/journal"], "floor-booted")
    try:
        machine.run("systemctl", "start", UNIT, timeout=60)
        last = _last_seq(machine)
        floor.wait_seq(f"tablectl/{TABLE}/journal", last)
        seqs = [m.seq for m in floor.journal(f"tablectl/{TABLE}/journal")]
        assert seqs[:last] == list(range(1, last + 1))
    finally:
        floor.close()
    status = machine.run("cat", f"/proc/{_pid(machine)}/status").stdout
    uid = machine.run("id", "-u", "tablectl-uplink").stdout.strip()
    assert f"\nUid:\t{uid}\t{uid}\t{uid}\t{uid}\n" in status, status
    # Its cursor is the one file it wrote; the journal's are still the daemon's.
    state = machine.path("/var/lib/tablectl-uplink")
    written = [p for p in state.rglob("*") if not p.name.startswith(".")]
    assert written and all(os.stat(p).st_uid == int(uid) for p in [state, *written]), written
    assert stat.S_IMODE(os.stat(state).st_mode) == 0o700
    owners = {os.stat(p).st_uid for p in machine.path("/var/lib/tablectl").iterdir()}
    assert owners == {int(machine.run("id", "-u", "tablectl").stdout)}


def test_a_killed_uplink_comes_back_by_itself(configured: Machine) -> None:
    """Restart=always: SIGKILL is a crash, and the unit restarts it after RestartSec=."""
    machine = configured
    machine.run("systemctl", "start", UNIT, timeout=60)
    before, restarts = _pid(machine), int(show(machine, "NRestarts", unit=UNIT)["NRestarts"])
    machine.run("systemctl", "kill", "--signal=SIGKILL", UNIT)
    wait_until(
        lambda: (
            show(machine, "ActiveState", unit=UNIT)["ActiveState"] == "active"
            and _pid(machine) not in (0, before)
        ),
        15,
        "the uplink never came back",
    )
    assert show(machine, "NRestarts", unit=UNIT)["NRestarts"] == str(restarts + 1)


def test_without_its_configuration_it_stays_failed(configured: Machine) -> None:
    """Exit 2 (RestartPreventExitStatus=2): failed at once with its one line, and no
    restart after RestartSec=."""
    machine = configured
    machine.run("mv", "/etc/tablectl/uplink.toml", "/var/tmp/uplink.toml")
    try:
        machine.run("systemctl", "restart", "--no-block", UNIT)
        wait_until(
            lambda: show(machine, "ActiveState", unit=UNIT)["ActiveState"] == "failed",
            15,
            "the uplink did not fail",
        )
        time.sleep(3)  # RestartSec= is 2 s: a restart would have come by now
        state = show(machine, "ActiveState", "Result", "ExecMainStatus", unit=UNIT)
        assert state == {"ActiveState": "failed", "Result": "exit-code", "ExecMainStatus": "2"}
        said = machine.run("journalctl", "-u", UNIT, "-o", "cat", "-n", "20").stdout
        assert "tablectl: error: /etc/tablectl/uplink.toml: no such configuration file" in said
    finally:
        machine.run("mv", "/var/tmp/uplink.toml", "/etc/tablectl/uplink.toml")
        machine.run("systemctl", "reset-failed", UNIT, check=False)
        machine.run("systemctl", "stop", UNIT, check=False)
