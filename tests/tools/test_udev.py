"""udev/70-tablectl.rules: our parser accepts it and refuses broken rules at the right
line, and replaying it on fake devices gives the names, groups, modes, tags and
attribute writes that docs/udev.md promises."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from drivers.identity import PRODUCT_ID, VENDOR_ID
from tests.support.paths import ROOT
from tools.fetch_udev import deb822_sources, debian_mirror, one_line_sources
from tools.udev_rules import (
    AttributeWrite,
    FakeDevice,
    NotEvaluable,
    Outcome,
    RulesFile,
    evaluate,
    parse,
)

RULES = ROOT / "udev" / "70-tablectl.rules"
# systemd 254's udevadm (verify came with 254), fetched by `make udevadm`.
UDEVADM = ROOT / ".venv" / "udev-254" / "bin" / "udevadm"

FTDI = {"idVendor": "0403", "idProduct": "6001"}
# What udevd writes for an FTDI adapter: on its usb-serial port, where the file lives.
LATENCY_1 = AttributeWrite("usb-serial", "ttyUSB0", "latency_timer", "1")


@pytest.fixture(scope="module")
def shipped() -> RulesFile:
    return parse(RULES.read_text(encoding="utf-8"), str(RULES))


def udevadm_verify(path: Path) -> subprocess.CompletedProcess[str]:
    """udevd's own parser on a rules file: systemd 254's ``udevadm verify``."""
    assert UDEVADM.is_file(), f"{UDEVADM} is missing: run `make test` (or `make udevadm`)"
    # Group tablectl need not exist on the machine that runs the tests.
    argv = [str(UDEVADM), "verify", "--resolve-names=never", "--no-summary", str(path)]
    return subprocess.run(argv, capture_output=True, text=True, check=False)


def ftdi_tty(serial: str, kernel: str = "ttyUSB0", action: str = "add") -> FakeDevice:
    """The tty of an FTDI adapter and its sysfs parents, as ``udevadm info -a`` walks them."""
    return FakeDevice.from_dict(
        {
            "subsystem": "tty",
            "kernel": kernel,
            "action": action,
            "parents": [
                {
                    "subsystem": "usb-serial",
                    "kernel": kernel,
                    "driver": "ftdi_sio",
                    "attrs": {"latency_timer": "16", "port_number": "0"},
                },
                {
                    "subsystem": "usb",
                    "kernel": "1-1:1.0",
                    "driver": "ftdi_sio",
                    "attrs": {"bInterfaceNumber": "00"},
                },
                {
                    "subsystem": "usb",
                    "kernel": "1-1",
                    "driver": "usb",
                    "attrs": {**FTDI, "serial": serial + "\n"},
                },
            ],
        }
    )


def usb_serial_port(action: str, driver: str = "ftdi_sio") -> FakeDevice:
    return FakeDevice.from_dict(
        {
            "subsystem": "usb-serial",
            "kernel": "ttyUSB0",
            "driver": driver,
            "action": action,
            "attrs": {"latency_timer": "16", "port_number": "0"},
            "parents": [
                {"subsystem": "usb", "kernel": "1-1:1.0", "driver": driver},
                {"subsystem": "usb", "kernel": "1-1", "driver": "usb", "attrs": FTDI},
            ],
        }
    )


def reader_node(devtype: str = "usb_device") -> FakeDevice:
    return FakeDevice.from_dict(
        {
            "subsystem": "usb",
            "kernel": "1-2" if devtype == "usb_device" else "1-2:1.0",
            "driver": "usb",
            "env": {"DEVTYPE": devtype},
            "attrs": {"idVendor": f"{VENDOR_ID:04x}", "idProduct": f"{PRODUCT_ID:04x}"},
        }
    )


def errors_of(text: str) -> list[str]:
    return [str(e) for e in parse(text, "t.rules").errors]


def run(text: str, device: FakeDevice) -> Outcome:
    rules = parse(text, "t.rules")
    assert rules.errors == ()
    return evaluate(rules, device)


# --- The shipped file ----------------------------------------------------------------


def test_shipped_rules_parse_without_errors(shipped: RulesFile) -> None:
    assert shipped.errors == ()
    # Shoe, shuffler, reader, latency timer: a rule lost to a parsing slip would show here.
    assert [r.value_of("SYMLINK") for r in shipped.rules] == [
        "tablectl/shoe",
        "tablectl/shuffler",
        "tablectl/reader",
        None,
    ]


def test_udevadm_verify_accepts_the_shipped_file_without_a_word() -> None:
    done = udevadm_verify(RULES)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_udevadm_verify_refuses_a_broken_file(tmp_path: Path) -> None:
    # The same check on a file it must refuse: a udevadm that passes everything fails here.
    bad = tmp_path / "99-bad.rules"
    bad.write_text('SUBSYSTEM="tty", GROUP="dialout"\n', encoding="utf-8")
    done = udevadm_verify(bad)
    assert done.returncode == 1
    assert f"{bad}:1 Invalid operator for SUBSYSTEM." in done.stderr


def test_fetch_finds_the_debian_mirror_in_either_sources_format() -> None:
    # What `make udevadm` reads from /etc/apt to fetch udev 254 from bookworm-backports.
    deb822 = (
        "Types: deb\nURIs: http://mirror.example/debian-security\nSuites: bookworm-security\n"
        "Components: main\n\n"
        "Types: deb\nEnabled: no\nURIs: http://old.example/debian\nSuites: bookworm\n"
        "Components: main\n\n"
        "Types: deb\n# a snapshot\nURIs: http://mirror.example/debian\n"
        "Suites: bookworm bookworm-updates\nComponents: main\nSigned-By: /k.gpg\n"
    )
    one_line = "# x\ndeb [arch=amd64 signed-by=/k.gpg] http://mirror.example/debian bookworm main\n"
    for sources in (list(deb822_sources(deb822)), list(one_line_sources(one_line))):
        mirror = debian_mirror(sources, "bookworm")
        assert (mirror.uri, mirror.signed_by) == ("http://mirror.example/debian", "/k.gpg")


def test_checker_prints_nothing_and_exits_0_on_the_shipped_file() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tools.udev_rules", "udev/70-tablectl.rules"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_checker_exits_2_with_one_line_per_error(tmp_path: Path) -> None:
    bad = tmp_path / "99-bad.rules"
    bad.write_text(
        '# a comment\nSUBSYSTEM=="tty", GROUP=="dialout"\n\nFOO=="x", MODE="0660"\n',
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, "-m", "tools.udev_rules", str(bad)],
        cwd=ROOT,  # tools/ is the repository's, not installed
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert done.stdout.splitlines() == [
        f"{bad}:2: GROUP is an assignment key: it takes =, :=, not ==",
        f"{bad}:4: unknown key 'FOO'",
    ]


def test_checker_reports_an_unreadable_file_in_one_line(tmp_path: Path) -> None:
    missing = tmp_path / "absent.rules"
    done = subprocess.run(
        [sys.executable, "-m", "tools.udev_rules", str(missing)],
        cwd=ROOT,  # tools/ is the repository's, not installed
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert done.stdout == f"{missing}: cannot read: No such file or directory\n"


# --- Refusing bad rules, at the right line -------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            'SUBSYSTEM=="tty", GROUP="dialout"\nSUBSYSTEM=="tty", COLOUR="red"\n',
            "t.rules:2: unknown key 'COLOUR'",
            id="unknown-key",
        ),
        pytest.param(
            'SUBSYSTEM=="tty", symlink+="x"\n',
            "t.rules:1: unknown key 'symlink' (keys are upper case)",
            id="lower-case-key",
        ),
        pytest.param(
            '\n\nSUBSYSTEM=="tty", MODE=="0660"\n',
            "t.rules:3: MODE is an assignment key: it takes =, :=, not ==",
            id="assignment-with-==",
        ),
        pytest.param(
            '# c\nSUBSYSTEM="tty", GROUP="dialout"\n',
            "t.rules:2: SUBSYSTEM is a match key: it takes ==, !=, not =",
            id="match-with-=",
        ),
        pytest.param(
            'SUBSYSTEM=="tty", GROUP+="dialout"\n',
            "t.rules:1: GROUP is an assignment key: it takes =, :=, not +=",
            id="group-with-+=",
        ),
        pytest.param(
            'SUBSYSTEM=="tty", ATTR{latency_timer}+="1"\n',
            "t.rules:1: ATTR is a key: it takes ==, !=, =, not +=",
            id="attr-with-+=",
        ),
        pytest.param(
            'SUBSYSTEM=="tty", \\\n    GROUP="dialout\n',
            "t.rules:2: GROUP: unterminated quote in the value",
            id="unterminated-quote",
        ),
        pytest.param(
            'SUBSYSTEM=="tty", \\\n  KERNEL=="ttyUSB*" \\\n  GROUP="dialout"\n',
            "t.rules:3: missing comma between KERNEL and GROUP",
            id="missing-comma",
        ),
        pytest.param(
            'SUBSYSTEM=="tty",, GROUP="dialout"\n',
            "t.rules:1: more than one comma between two keys",
            id="double-comma",
        ),
        pytest.param(
            'SUBSYSTEM=="tty", GROUP="dialout",\n',
            "t.rules:1: stray comma at the end of the rule",
            id="trailing-comma",
        ),
        pytest.param(
            "SUBSYSTEM=='tty', GROUP=\"dialout\"\n",
            't.rules:1: SUBSYSTEM: the value must be in double quotes, as in SUBSYSTEM=="..."',
            id="single-quotes",
        ),
        pytest.param(
            'SUBSYSTEM=="tty" GROUP\n',
            "t.rules:1: GROUP: expected an operator (== != = += -= :=) after the key",
            id="no-operator",
        ),
        pytest.param(
            'SUBSYSTEM=="tty", ATTRS=="x", GROUP="g"\n',
            "t.rules:1: ATTRS needs an attribute, as in ATTRS{name}",
            id="attrs-without-name",
        ),
        pytest.param(
            'KERNEL{x}=="tty", GROUP="g"\n',
            "t.rules:1: KERNEL takes no {...} attribute",
            id="kernel-with-attribute",
        ),
        pytest.param(
            'SUBSYSTEM=="tty", MODE="rw-rw----"\n',
            "t.rules:1: MODE='rw-rw----': expected an octal mode such as 0660",
            id="symbolic-mode",
        ),
        pytest.param(
            'SUBSYSTEM=="tty", GROUP=i"dialout"\n',
            "t.rules:1: GROUP: the i prefix is only for == and !=",
            id="i-prefix-on-assignment",
        ),
        pytest.param(
            'SUBSYSTEM=="tty", ATTRS{device/serial}=="x", GROUP="g"\n',
            "t.rules:1: ATTRS{device/...}: the device link may go away;"
            " match the parent's own attribute",
            id="attrs-through-device-link",
        ),
        pytest.param(
            'SUBSYSTEM=="tty", KERNEL=="ttyUSB0"\n',
            "t.rules:1: rule has no effect: it only matches",
            id="no-effect",
        ),
        pytest.param(
            'SUBSYSTEM!="tty", GOTO="end"\nGROUP="g"\n',
            't.rules:1: GOTO="end" has no LABEL after it',
            id="goto-without-label",
        ),
        pytest.param(
            'SUBSYSTEM=="tty", \\\n  GROUP="dialout" \\\n',
            "t.rules:2: file ends in a line continuation",
            id="continuation-at-eof",
        ),
        pytest.param(
            'SUBSYSTEM=="tty", SYMLINK+=e"a\\qb"\n',
            "t.rules:1: SYMLINK: unknown escape '\\q' in e-prefixed value",
            id="bad-escape",
        ),
    ],
)
def test_bad_rule_is_refused_at_its_line(text: str, expected: str) -> None:
    assert errors_of(text) == [expected]


def test_a_refused_rule_is_dropped_and_the_rest_still_parse() -> None:
    rules = parse('SUBSYSTEM="tty", GROUP="a"\nSUBSYSTEM=="tty", GROUP="b"\n', "t.rules")
    assert len(rules.errors) == 1
    assert [r.line for r in rules.rules] == [2]


def test_continuations_join_lines_and_skip_comment_lines_inside_them() -> None:
    text = (
        "# heading\n"
        'SUBSYSTEM=="tty", \\\n'
        "# udevd skips this comment even inside the rule\n"
        '    ATTRS{serial}=="A\\"B", \\\n'
        '    SYMLINK+=e"x\\x41y", ENV{K}=i"v"\n'
    )
    # i on an assignment is refused; without it the same text parses to one rule.
    assert errors_of(text) == ["t.rules:5: ENV: the i prefix is only for == and !="]
    rules = parse(text.replace('=i"v"', '="v"'), "t.rules")
    assert rules.errors == ()
    (rule,) = rules.rules
    assert rule.line == 2
    assert [(t.key, t.attr, t.op, t.value, t.line) for t in rule.tokens] == [
        ("SUBSYSTEM", None, "==", "tty", 2),
        ("ATTRS", "serial", "==", 'A"B', 4),
        ("SYMLINK", None, "+=", "xAy", 5),
        ("ENV", "K", "=", "v", 5),
    ]


def test_an_empty_line_ends_a_continuation() -> None:
    # udevd joins the empty line and so ends the rule there; the next line is its own rule.
    rules = parse('SUBSYSTEM=="tty", GROUP="a" \\\n\nKERNEL=="x", MODE="0600"\n', "t.rules")
    assert rules.errors == ()
    assert [r.line for r in rules.rules] == [1, 3]


# --- Replaying the shipped rules on fake devices ------------------------------------


def test_shoe_adapter_gets_its_stable_name_and_dialout(shipped: RulesFile) -> None:
    outcome = evaluate(shipped, ftdi_tty("SHOE0001"))
    assert outcome.device_links == ["/dev/tablectl/shoe"]
    assert (outcome.group, outcome.mode) == ("dialout", "0660")
    assert "systemd" in outcome.tags
    assert outcome.env.get("ID_MM_DEVICE_IGNORE") == "1"
    assert outcome.attribute_writes == []


def test_shuffler_adapter_gets_its_stable_name(shipped: RulesFile) -> None:
    outcome = evaluate(shipped, ftdi_tty("SHUF0001", kernel="ttyUSB1"))
    assert outcome.device_links == ["/dev/tablectl/shuffler"]
    assert (outcome.group, outcome.mode) == ("dialout", "0660")
    assert "systemd" in outcome.tags


def test_a_tty_with_another_serial_gets_nothing(shipped: RulesFile) -> None:
    outcome = evaluate(shipped, ftdi_tty("A50285BI"))
    assert outcome == Outcome()


def test_vendor_product_and_serial_must_hold_on_the_same_parent(shipped: RulesFile) -> None:
    # The shoe's serial on the interface and the ids on the device: not one device.
    device = FakeDevice.from_dict(
        {
            "subsystem": "tty",
            "kernel": "ttyUSB0",
            "parents": [
                {"subsystem": "usb", "kernel": "1-1:1.0", "attrs": {"serial": "SHOE0001"}},
                {"subsystem": "usb", "kernel": "1-1", "attrs": {**FTDI, "serial": "X"}},
            ],
        }
    )
    assert evaluate(shipped, device).matched == []


def test_reader_usb_node_gets_group_tablectl_mode_0660(shipped: RulesFile) -> None:
    outcome = evaluate(shipped, reader_node())
    assert (outcome.group, outcome.mode) == ("tablectl", "0660")
    assert outcome.device_links == ["/dev/tablectl/reader"]
    assert "systemd" in outcome.tags


def test_reader_interface_is_left_alone(shipped: RulesFile) -> None:
    assert evaluate(shipped, reader_node(devtype="usb_interface")) == Outcome(
        env={"DEVTYPE": "usb_interface"}
    )


@pytest.mark.parametrize("action", ["bind", "change"])
def test_latency_timer_is_set_to_1_on_an_ftdi_port(shipped: RulesFile, action: str) -> None:
    outcome = evaluate(shipped, usb_serial_port(action))
    assert outcome.attribute_writes == [LATENCY_1]


@pytest.mark.parametrize(
    ("device", "why"),
    [
        (usb_serial_port("add"), "latency_timer may not exist yet at add"),
        (usb_serial_port("bind", driver="cp210x"), "not an FTDI adapter"),
        (ftdi_tty("SHOE0001", action="change"), "the tty has no latency_timer"),
    ],
)
def test_latency_timer_is_left_alone(shipped: RulesFile, device: FakeDevice, why: str) -> None:
    assert evaluate(shipped, device).attribute_writes == [], why


def test_every_rule_that_names_or_opens_a_device_tags_it_for_systemd(shipped: RulesFile) -> None:
    wanted = [r for r in shipped.rules if r.assignments("SYMLINK") or r.assignments("GROUP")]
    assert len(wanted) == 3
    for rule in wanted:
        tags = [(t.op, t.value) for t in rule.assignments("TAG")]
        assert ("+=", "systemd") in tags, f'rule at line {rule.line} has no TAG+="systemd"'


def test_placeholder_serials_are_marked_for_replacement() -> None:
    text = RULES.read_text(encoding="utf-8")
    comments = "\n".join(line for line in text.splitlines() if line.startswith("#"))
    assert "PLACEHOLDERS" in comments
    for serial in ("SHOE0001", "SHUF0001"):
        assert f'ATTRS{{serial}}=="{serial}"' in text
        assert f'"{serial}"' in comments


# --- The matcher's own semantics ------------------------------------------------------


def plain_tty(**attrs: str) -> FakeDevice:
    return FakeDevice(subsystem="tty", kernel="ttyS0", attrs=attrs)


def test_alternatives_globs_and_case() -> None:
    text = (
        'KERNEL=="ttyUSB*|ttyS[0-3]", SYMLINK+="a"\n'
        'KERNEL=="TTYS0", SYMLINK+="b"\n'
        'KERNEL==i"TTYS0", SYMLINK+="c"\n'
        'KERNEL!="ttyACM*", SYMLINK+="d"\n'
    )
    assert run(text, plain_tty()).symlinks == ["a", "c", "d"]


def test_a_missing_attribute_matches_neither_equal_nor_unequal() -> None:
    text = 'ATTR{x}=="1", SYMLINK+="eq"\nATTR{x}!="1", SYMLINK+="ne"\n'
    assert run(text, plain_tty()).symlinks == []
    assert run(text, plain_tty(x="2")).symlinks == ["ne"]
    assert run(text, plain_tty(x="1 \n")).symlinks == ["eq"]


def test_final_assignment_and_removal() -> None:
    text = (
        'SUBSYSTEM=="tty", GROUP:="first", SYMLINK+="a b c"\n'
        'SUBSYSTEM=="tty", GROUP="second", SYMLINK-="b", TAG+="t1", TAG+="t2"\n'
        'SUBSYSTEM=="tty", TAG-="t1", ENV{P}="x"\n'
        'SUBSYSTEM=="tty", ENV{P}+="y"\n'
    )
    outcome = run(text, plain_tty())
    assert outcome.group == "first"
    assert outcome.symlinks == ["a", "c"]
    assert outcome.tags == {"t2"}
    assert outcome.env == {"P": "x y"}
    assert outcome.matched == [1, 2, 3, 4]


def test_symlink_and_tag_match_what_earlier_rules_assigned() -> None:
    text = (
        'KERNEL=="ttyS0", SYMLINK+="tablectl/x", TAG+="seen"\n'
        'SYMLINK=="tablectl/*", TAG=="seen", GROUP="g"\n'
        'TAG=="other", MODE="0600"\n'
    )
    outcome = run(text, plain_tty())
    assert (outcome.group, outcome.mode, outcome.matched) == ("g", None, [1, 2])


def test_goto_skips_to_its_label() -> None:
    text = (
        'SUBSYSTEM!="usb", GOTO="end"\n'
        'SUBSYSTEM=="tty", GROUP="never"\n'
        'LABEL="end"\n'
        'KERNEL=="ttyS0", MODE="0600"\n'
    )
    outcome = run(text, plain_tty())
    assert (outcome.group, outcome.mode, outcome.matched) == (None, "0600", [1, 3, 4])


def test_attribute_write_through_the_device_link_lands_on_the_parent() -> None:
    text = 'SUBSYSTEM=="tty", DRIVERS=="ftdi_sio", ATTR{device/latency_timer}="1"\n'
    outcome = run(text, ftdi_tty("SHOE0001"))
    assert outcome.attribute_writes == [LATENCY_1]


def test_what_a_fake_device_cannot_answer_is_refused() -> None:
    with pytest.raises(NotEvaluable, match=r"t\.rules:1: PROGRAM needs a real device"):
        run('KERNEL=="ttyS0", PROGRAM="/bin/true", GROUP="g"\n', plain_tty())
    with pytest.raises(NotEvaluable, match=r"t\.rules:1: SYMLINK: substitutions"):
        run('KERNEL=="ttyS0", SYMLINK+="serial-%k"\n', plain_tty())
    # A rule that cannot match anyway is no reason to refuse.
    assert run('KERNEL=="nope", PROGRAM="/bin/true", GROUP="g"\n', plain_tty()).matched == []


def test_a_file_with_errors_is_not_evaluated() -> None:
    with pytest.raises(ValueError, match="has errors"):
        evaluate(parse('KERNEL="x", GROUP="g"\n', "t.rules"), plain_tty())


def test_fake_device_dict_with_an_unknown_field_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown fake-device fields: attributes"):
        FakeDevice.from_dict({"subsystem": "tty", "kernel": "ttyS0", "attributes": {}})
