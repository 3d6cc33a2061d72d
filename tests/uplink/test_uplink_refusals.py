"""What ``tablectl uplink`` does with what it cannot use: a configuration, a file or a
journal that is wrong is one line on stderr and a non-zero exit before anything
connects; a broker that refuses the password or (the ACL) another table's topic is a
clear log line and a retry, the process alive and the cursor where it was."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from controller.journal import SqliteJournal
from controller.uplink.messages import JOURNAL_FILTER, STATUS_FILTER, journal_topic, status_topic
from tests.support.mosquitto import Broker
from tests.support.mqttsub import Subscriber
from tests.support.uplink import (
    FAST_RETRY,
    TABLECTL,
    UplinkProcess,
    config,
    cursor_of,
    password_broker,
    write_config,
)

FLOOR = "floor-secret"
USERS = {"T1": "t1-secret", "T2": "t2-secret", "T3": "t3-secret", "floor": FLOOR}
WRONG = "not-the-password"


@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Broker]:
    with Broker(tmp_path_factory.mktemp("broker"), USERS) as running:
        yield running


def _journal(path: Path, count: int) -> Path:
    with SqliteJournal(path) as journal:
        for n in range(count):
            journal.record({"type": "prompt", "text": f"LINE {n}", "shown": True})
    return path


def test_another_tables_topic_is_refused(broker: Broker, tmp_path: Path) -> None:
    journal = _journal(tmp_path / "journal.db", 30)
    sub = Subscriber(broker, FLOOR, [JOURNAL_FILTER, STATUS_FILTER], "floor-acl")
    # T1's own uplink shows the subscriber receives; T2's logs in as T1 (the ACL: %u).
    own = config(tmp_path / "own", "T1", journal, password_broker(broker, "T1", tmp_path / "p1"))
    other = config(
        tmp_path / "other", "T2", journal, password_broker(broker, "T1", tmp_path / "p2")
    )
    with UplinkProcess(own) as mine, UplinkProcess(other) as theirs:
        sub.wait_seq(journal_topic("T1"), 30)
        refused = theirs.wait_log("uplink_publish_refused", 2)  # and retried
        assert mine.stop() == 0
        assert theirs.proc.poll() is None
        assert theirs.stop() == 0
    assert {(e["topic"], e["seq"], e["code"], e["reason"]) for e in refused} == {
        ("tablectl/T2/journal", 1, 135, "Not authorized")
    }
    assert all(e["cursor"] == 0 for e in refused)
    assert sub.messages(journal_topic("T2")) == sub.messages(status_topic("T2")) == []
    assert cursor_of(tmp_path / "other" / "state") is None  # nothing acknowledged
    assert cursor_of(tmp_path / "own" / "state") is not None
    sub.close()


def test_a_refused_password_is_retried_until_it_is_right(broker: Broker, tmp_path: Path) -> None:
    journal = _journal(tmp_path / "journal.db", 10)
    sub = Subscriber(broker, FLOOR, [journal_topic("T3")], "floor-password")
    password = tmp_path / "password"
    conf = config(tmp_path / "u", "T3", journal, password_broker(broker, "T3", password))
    password.write_text(WRONG + "\n", encoding="utf-8")
    with UplinkProcess(conf) as uplink:
        refused = uplink.wait_log("uplink_connect_refused", 3)  # three tries, still alive
        assert {(e["username"], e["code"]) for e in refused} <= {("T3", 134), ("T3", 135)}
        assert sub.messages() == []
        password.write_text(USERS["T3"] + "\n", encoding="utf-8")  # read again each try
        sub.wait_seq(journal_topic("T3"), 10)
        assert uplink.stop() == 0
    log = uplink.log()
    assert WRONG not in log and USERS["T3"] not in log
    assert "Traceback" not in log
    sub.close()


# ------------------------------------------------------------------ bad input


def _base(tmp: Path, broker: Broker, journal: Path) -> dict[str, dict[str, object]]:
    (tmp / "pw").write_text("secret\n", encoding="utf-8")
    (tmp / "pw").chmod(0o600)
    return {
        "top": {"table_id": "T1", "journal": journal, "state_dir": tmp / "state"},
        "broker": {
            "host": "127.0.0.1",
            "port": broker.port,
            "cafile": broker.certs.ca,
            "username": "T1",
            "password_file": tmp / "pw",
        },
        "uplink": dict(FAST_RETRY),
    }


Edit = Callable[[Path, dict[str, dict[str, object]]], None]


def _garbage(path: Path) -> Path:
    path.write_text("not a certificate nor a journal\n", encoding="utf-8")
    return path


def _forged_cursor(tmp: Path, conf: dict[str, dict[str, object]]) -> None:
    (tmp / "state").mkdir()
    cursor = {"table": "T1", "seq": 2, "hash": "0" * 64}
    (tmp / "state" / "cursor.json").write_text(json.dumps(cursor), encoding="utf-8")


# (case, how the good configuration is spoilt, exit status, what the one line says)
CASES: list[tuple[str, Edit, int, str]] = [
    ("unknown key", lambda t, c: c["top"].update(colour="red"), 2, "colour: unknown key"),
    ("unknown broker key", lambda t, c: c["broker"].update(pasword_file="x"), 2,
     "broker.pasword_file: unknown key"),
    ("bad table id", lambda t, c: c["top"].update(table_id="T1/#"), 2, "table_id: table id 'T1/#'"),
    ("missing cafile", lambda t, c: c["broker"].update(cafile=t / "no-ca.crt"), 2,
     "broker.cafile: "),
    ("cafile not a CA", lambda t, c: c["broker"].update(cafile=_garbage(t / "ca.crt")), 2,
     "the CA, certificate or key cannot be used"),
    ("password file unreadable", lambda t, c: c["broker"].update(password_file=t), 2,
     "broker.password_file: "),
    ("password file open to others", lambda t, c: (t / "pw").chmod(0o644), 2,
     "pw is open to other users (chmod 0400 or 0440)"),
    ("two ways to log in", lambda t, c: c["broker"].update(certfile="c", keyfile="k"), 2,
     "give either username and password_file, or certfile and keyfile"),
    ("window out of range", lambda t, c: c["uplink"].update(window=0), 2, "uplink.window: "),
    ("port not a number", lambda t, c: c["broker"].update(port="8883"), 2, "broker.port: "),
    ("journal missing", lambda t, c: c["top"].update(journal=t / "none.db"), 1,
     "none.db: no such journal"),
    ("not a journal", lambda t, c: c["top"].update(journal=_garbage(t / "text.db")), 1,
     "text.db: the journal is damaged: file is not a database"),
    ("another journal's cursor", _forged_cursor, 1, "another journal's cursor"),
]  # fmt: skip
NOT_TOML = "table_id = \n"


@pytest.fixture(scope="module")
def refused(broker: Broker, tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[int, str]]:
    """Every bad input's ``tablectl uplink``, all at once (each is a process start)."""
    procs: dict[str, subprocess.Popen[str]] = {}
    journal = _journal(tmp_path_factory.mktemp("journal") / "journal.db", 3)
    for case, edit, _, _ in CASES:
        tmp = tmp_path_factory.mktemp("bad")
        conf = _base(tmp, broker, journal)
        edit(tmp, conf)
        path = write_config(tmp / "uplink.toml", conf["top"], conf["broker"], conf["uplink"])
        procs[case] = _start(path)
    tmp = tmp_path_factory.mktemp("bad")
    (tmp / "uplink.toml").write_text(NOT_TOML, encoding="utf-8")
    procs["not TOML"] = _start(tmp / "uplink.toml")
    procs["no such file"] = _start(tmp / "none.toml")
    return {case: _ended(proc) for case, proc in procs.items()}


def _start(conf: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([TABLECTL, "uplink", "--config", str(conf)], text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip


def _ended(proc: subprocess.Popen[str]) -> tuple[int, str]:
    out, err = proc.communicate(timeout=30)
    assert out == ""
    return proc.returncode, err


@pytest.mark.parametrize(
    ("case", "status", "says"),
    [(case, status, says) for case, _, status, says in CASES]
    + [
        ("not TOML", 2, "uplink.toml: not TOML: "),
        ("no such file", 2, "no such configuration file"),
    ],
)
def test_bad_input_is_one_line_and_an_exit(
    refused: dict[str, tuple[int, str]], case: str, status: int, says: str
) -> None:
    code, err = refused[case]
    assert code == status, err
    assert err.startswith("tablectl: error: ") and err.count("\n") == 1, err
    assert says in err
