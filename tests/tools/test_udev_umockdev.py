"""udev/70-tablectl.rules evaluated by udev's own engine: systemd 254's ``udevadm test``
replays events on a table described in umockdev's record format (tests/tools/data/
table.umockdev, written by hand from what these devices show in sysfs), in a private
mount namespace (tests/support/udev_sandbox.py). The table, as plugged in: an
unrelated Prolific PL2303 adapter on ttyUSB0 (port 1-1), the shuffler's FTDI adapter on
ttyUSB1 (1-2), the shoe's on ttyUSB2 (1-3), and the hole-card reader, 1209:0001, on
1-4 (/dev/bus/usb/001/005); the root hub above them all.

What each test asserts comes from udev itself: the properties ``udevadm test``
printed, the lines it logged, and what it did to the private /dev, /run/udev and the
recorded sysfs: the links, the nodes' group and mode, the tags, latency_timer's bytes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.docsteps import blocks, not_shown
from tests.support.paths import ROOT
from tests.support.udev_daemon import apply
from tests.support.udev_sandbox import (
    RULES,
    RULES_DIR,
    TABLE,
    Node,
    Replay,
    missing_tools,
    replay,
)

SHOE_TTY = "/sys/class/tty/ttyUSB2"
SHUFFLER_TTY = "/sys/class/tty/ttyUSB1"
OTHER_TTY = "/sys/class/tty/ttyUSB0"  # the PL2303: no device of the table
READER = "/sys/bus/usb/devices/1-4"
SHOE_PORT = "/sys/bus/usb-serial/devices/ttyUSB2"
SHUFFLER_PORT = "/sys/bus/usb-serial/devices/ttyUSB1"
OTHER_PORT = "/sys/bus/usb-serial/devices/ttyUSB0"
ROOT_0600 = Node(uid=0, gid=0, mode=0o600)  # a node udev left as devtmpfs made it


@pytest.fixture(autouse=True)
def _tools() -> None:
    """Missing tools fail every test here, with the command that provides them."""
    missing = missing_tools()
    assert missing == [], "; ".join(missing)


def untouched_except(done: Replay, *changed: str) -> dict[str, Node]:
    """The nodes other than ``changed``, which must all be as devtmpfs made them."""
    return {path: node for path, node in done.nodes.items() if path not in changed}


def applied(done: Replay) -> list[str]:
    """What udev logged it applied from our rules: "GROUP 20" of "ttyUSB2: FILE:21 GROUP 20"."""
    return [line.split(" ", 2)[2] for line in done.logged(f"{RULES.name}:")]


def names_and_tags_of_nothing(done: Replay) -> None:
    """``done``'s device got nothing from the rules: no link, tag, or ModemManager mark."""
    assert done.returncode == 0
    assert {k: v for k, v in done.properties.items() if k in ("DEVLINKS", "TAGS")} == {}
    assert "ID_MM_DEVICE_IGNORE" not in done.properties
    assert (done.links, done.tags) == ({}, {})
    assert applied(done) == []


def test_udev_reads_the_project_rules_and_nothing_else() -> None:
    # The stock rules (systemd's 99-systemd.rules tags every ttyUSB) must not blur what
    # ours do: the sandbox hides them, and udev's log shows it read our file alone.
    done = replay("add", SHOE_TTY)
    assert done.logged("Reading rules file") == [f"Reading rules file: {RULES_DIR / RULES.name}"]


@pytest.mark.parametrize(
    ("syspath", "name", "node"),
    [
        pytest.param(SHOE_TTY, "shoe", "ttyUSB2", id="shoe"),
        pytest.param(SHUFFLER_TTY, "shuffler", "ttyUSB1", id="shuffler"),
    ],
)
@pytest.mark.parametrize("action", ["add", "change"])
def test_each_serial_adapter_gets_its_name_group_mode_and_tag(
    syspath: str, name: str, node: str, action: str
) -> None:
    # "change" is what `udevadm trigger` sends: the links must survive it.
    done = replay(action, syspath)
    assert done.returncode == 0
    gid = done.gids["dialout"]
    assert applied(done) == [f"GROUP {gid}", "MODE 0660", f"Added SYMLINK 'tablectl/{name}'"]
    assert done.properties["DEVLINKS"] == f"/dev/tablectl/{name}"
    assert done.properties["TAGS"] == ":systemd:"
    assert done.properties["ID_MM_DEVICE_IGNORE"] == "1"
    assert done.links == {f"/dev/tablectl/{name}": f"../{node}"}
    minor = node.removeprefix("ttyUSB")
    assert done.tags == {"systemd": [f"c188:{minor}"]}
    assert done.nodes[f"/dev/{node}"] == Node(uid=0, gid=gid, mode=0o660)
    assert set(untouched_except(done, f"/dev/{node}").values()) == {ROOT_0600}


def test_the_reader_gets_its_name_and_its_usbfs_node_goes_to_tablectl() -> None:
    done = replay("add", READER)
    assert done.returncode == 0
    gid = done.gids["tablectl"]
    assert applied(done) == [f"GROUP {gid}", "MODE 0660", "Added SYMLINK 'tablectl/reader'"]
    assert done.properties["DEVLINKS"] == "/dev/tablectl/reader"
    assert done.properties["TAGS"] == ":systemd:"
    assert done.links == {"/dev/tablectl/reader": "../bus/usb/001/005"}
    assert done.tags == {"systemd": ["c189:4"]}
    node = "/dev/bus/usb/001/005"
    assert done.nodes[node] == Node(uid=0, gid=gid, mode=0o660)
    assert set(untouched_except(done, node).values()) == {ROOT_0600}


@pytest.mark.parametrize(
    "syspath",
    [
        pytest.param(OTHER_TTY, id="unrelated-serial-tty"),
        pytest.param("/sys/bus/usb/devices/1-1", id="unrelated-serial-usb-device"),
        pytest.param("/sys/bus/usb/devices/1-4:1.0", id="reader-interface"),
        pytest.param("/sys/bus/usb/devices/usb1", id="root-hub"),
    ],
)
@pytest.mark.parametrize("action", ["add", "bind"])
def test_other_devices_get_nothing(syspath: str, action: str) -> None:
    done = replay(action, syspath)
    names_and_tags_of_nothing(done)
    assert set(done.nodes.values()) == {ROOT_0600}


@pytest.mark.parametrize(
    ("port", "action", "written"),
    [
        pytest.param(SHOE_PORT, "bind", "1", id="shoe-bind"),
        pytest.param(SHUFFLER_PORT, "bind", "1", id="shuffler-bind"),
        pytest.param(SHOE_PORT, "change", "1", id="shoe-change"),
        # At the port's "add" the kernel has not made the file yet (docs/udev.md).
        pytest.param(SHOE_PORT, "add", "", id="shoe-add-writes-nothing"),
    ],
)
def test_ftdi_latency_timer_is_written_at_bind_and_change(
    port: str, action: str, written: str
) -> None:
    attribute = f"{port}/latency_timer"
    done = replay(action, port, watch=(attribute,))
    assert done.returncode == 0
    assert done.attributes == {attribute: written}
    writes = done.logged("ATTR '")
    if written:
        tty = port.rsplit("/", 1)[1]
        assert len(writes) == 1
        assert writes[0].endswith(f"/{tty}/latency_timer' writing '1'")
    else:
        assert writes == []
    assert set(done.nodes.values()) == {ROOT_0600}


def test_a_port_of_another_driver_gets_no_attribute_write() -> None:
    # The PL2303's port: a usb-serial port, but not ftdi_sio's.
    done = replay("bind", OTHER_PORT)
    names_and_tags_of_nothing(done)
    assert done.logged("ATTR") == []


def test_rules_naming_another_serial_leave_the_shoe_unnamed(tmp_path: Path) -> None:
    # The same replay with the shoe's serial changed in the rules: what the tests above
    # see comes from the rules given, not from the sandbox.
    rules = tmp_path / RULES.name
    rules.write_text(
        RULES.read_text(encoding="utf-8").replace("SHOE0001", "SHOE9999"), encoding="utf-8"
    )
    done = replay("add", SHOE_TTY, rules=rules)
    names_and_tags_of_nothing(done)
    assert done.nodes["/dev/ttyUSB2"] == ROOT_0600


# --- The procedure's commands, with udevd ---------------------------------------------

OPERATIONS = ROOT / "docs" / "operations.md"
PROCEDURE_END = "## What the unit allows"  # the procedure is the page above it
# The words of docs/operations.md's udev steps, as the table's adapters have them.
SERIALS = {"SHOE_SERIAL": "SHOE0001", "SHUFFLER_SERIAL": "SHUF0001"}


def _words(text: str) -> str:
    for word, value in SERIALS.items():
        text = text.replace(word, value)
    return text


def procedure_steps(*names: str) -> list[tuple[str, list[str]]]:
    """The named run blocks of docs/operations.md's procedure, their words replaced:
    each one's commands and the lines it prints."""
    found = blocks(OPERATIONS.read_text(encoding="utf-8"), until=PROCEDURE_END)
    steps = {block.name: block for block in found if block.kind == "run"}
    return [(_words(steps[n].body), [_words(line) for line in steps[n].shows]) for n in names]


def test_the_procedure_s_reload_and_trigger_make_udevd_name_the_devices() -> None:
    # docs/operations.md, step 4: the rules' copy into /etc/udev/rules.d, then its
    # udev-apply block (udevadm control --reload, trigger, settle) with systemd-udevd
    # running; udev-check before it (no names yet) and after it.
    names = ("udev-rules", "udev-check", "udev-apply", "udev-check")
    steps = procedure_steps(*names)
    done = apply([script for script, _ in steps])
    (rules_rc, rules_out), before, (apply_rc, apply_out), (check_rc, check_out) = done.outputs
    assert (rules_rc, not_shown(steps[0][1], rules_out)) == (0, None), rules_out
    assert before[0] != 0 and "/dev/tablectl/" in before[1], before
    assert apply_rc == 0, apply_out
    assert (check_rc, not_shown(steps[3][1], check_out)) == (0, None), check_out
    # udevd started on the packaged file; after the reload it read the technician's
    # copy alone, which takes the packaged file's place.
    assert "Received udev control message (RELOAD)" in done.log, "udevd had no reload"
    reload = done.log.index("Received udev control message (RELOAD)")
    read = [(n > reload, line) for n, line in enumerate(done.log) if "Reading rules" in line]
    assert read == [
        (False, "Reading rules file: /usr/lib/udev/rules.d/70-tablectl.rules"),
        (True, "Reading rules file: /etc/udev/rules.d/70-tablectl.rules"),
    ]
    # The trigger's "change", through the kernel's stand-in, for every device.
    assert sorted(done.events) == sorted(f"change {p}" for p in _devpaths())
    assert done.links == {
        "/dev/tablectl/reader": "../bus/usb/001/005",
        "/dev/tablectl/shoe": "../ttyUSB2",
        "/dev/tablectl/shuffler": "../ttyUSB1",
    }
    dialout, tablectl = done.gids["dialout"], done.gids["tablectl"]
    named = {
        "/dev/ttyUSB2": (0, dialout, 0o660),
        "/dev/ttyUSB1": (0, dialout, 0o660),
        "/dev/bus/usb/001/005": (0, tablectl, 0o660),
    }
    assert {p: n for p, n in done.nodes.items() if p in named} == named
    others = {p: n for p, n in done.nodes.items() if p not in named}
    assert "/dev/ttyUSB0" in others  # the PL2303
    assert set(others.values()) == {(0, 0, 0o600)}
    assert [line for line in done.log if line.startswith("ttyUSB0:") and RULES.name in line] == []


def _devpaths() -> list[str]:
    text = TABLE.read_text(encoding="utf-8")
    return [line[3:] for line in text.splitlines() if line.startswith("P: ")]
