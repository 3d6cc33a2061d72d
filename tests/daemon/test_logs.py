"""The daemon's log as journald gets it (controller/logformat.py): on stderr, every
line ``<N>`` and one JSON object, N the syslog priority of its level; no local
variable in any traceback (551.8(e)); the live view never on the log's stream. Each
test runs the real ``tablectl run`` with its stderr and stdout in files."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from controller.logformat import PRIORITY
from tests.support.daemon import NotifySocket, log_records
from tests.support.journald import in_journald

SENTINEL = "SENTINEL-7d1f-not-for-the-journal"

# ``tablectl ARGS`` with one function of the table replaced by one that raises, holding
# SENTINEL and the card in its locals: the hole card's ``dealt`` line while it is sealed
# (551.8(e)). Each card is added to the file named first, for the test to look for.
FORCED = """
import sys
from controller.table.spanish21 import hole_card

told, *words = sys.argv[1:]
original = hole_card.HoleCard.dealt

def dealt(self, event):
    fields = original(self, event)
    the_hole_card = event.token
    sentinel = "SENTINEL_HERE"
    with open(told, "a") as out:
        out.write(the_hole_card + "\\n")
    raise RuntimeError("forced internal error")

hole_card.HoleCard.dealt = dealt
from controller.cli import main
sys.exit(main(words))
""".replace("SENTINEL_HERE", SENTINEL)

# ``tablectl ARGS`` whose table loop raises in the main thread, outside the table's
# guard: the uncaught exception Python would print as a traceback of its own.
UNCAUGHT = """
import sys
from controller.daemon import loop

def run(self):
    sentinel = "SENTINEL_HERE"
    raise RuntimeError("forced crash")

loop.TableLoop.run = run
from controller.cli import main
sys.exit(main(sys.argv[1:]))
""".replace("SENTINEL_HERE", SENTINEL)

SIMULATED = ("run", "--simulate", "--pace-ms", "0")


def _spawn(
    tmp_path: Path, argv: list[str], env: dict[str, str] | None = None
) -> subprocess.Popen[bytes]:
    """``argv`` with stdout and stderr each in its own file of ``tmp_path``."""
    out = open(tmp_path / "stdout", "wb")  # noqa: SIM115 - the child writes it
    err = open(tmp_path / "stderr", "wb")  # noqa: SIM115
    try:
        return subprocess.Popen(
            argv, stdout=out, stderr=err, env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})}
        )
    finally:
        out.close()
        err.close()


def _tablectl(
    tmp_path: Path, *words: str, script: str | None = None, timeout: float = 60
) -> tuple[int, str, str]:
    head = (
        [sys.executable, "-m", "controller.cli"]
        if script is None
        else [sys.executable, "-c", script]
    )
    proc = _spawn(tmp_path, [*head, *words])
    code = proc.wait(timeout)
    return code, (tmp_path / "stdout").read_text(), (tmp_path / "stderr").read_text()


def _priorities_match(records: list[tuple[int, dict[str, Any]]]) -> None:
    for priority, record in records:
        assert priority == PRIORITY[record["level"]], record


def test_every_log_line_is_its_priority_then_json_and_stdout_has_none(tmp_path: Path) -> None:
    # A notification socket nobody reads: sd_notify_failed, a warning, once.
    notify = NotifySocket(tmp_path / "notify.sock", reading=False)
    try:
        assert notify.fill() > 0
        argv = [
            sys.executable, "-m", "controller.cli", *SIMULATED, "--game", "spanish21",
            "--rounds", "2", "--seed", "5", "--workdir", str(tmp_path / "t"),
            "--log-level", "debug",
        ]  # fmt: skip
        code = _spawn(tmp_path, argv, env={"NOTIFY_SOCKET": str(notify.path)}).wait(60)
    finally:
        notify.close()
    err = (tmp_path / "stderr").read_text()
    assert code == 0, err
    records = log_records(err)
    _priorities_match(records)
    assert {p for p, _ in records} >= {PRIORITY["warning"], PRIORITY["info"]}
    assert [r["level"] for _, r in records if r["event"] == "sd_notify_failed"] == ["warning"]
    assert [r["rounds"] for _, r in records if r["event"] == "daemon_stopped"] == [2]
    assert (tmp_path / "stdout").read_text() == ""  # not a terminal, no --plain: nothing


def test_the_plain_view_is_on_stdout_alone(tmp_path: Path) -> None:
    code, out, err = _tablectl(
        tmp_path, *SIMULATED, "--rounds", "1", "--seed", "2", "--workdir", str(tmp_path / "t"),
        "--log-level", "info", "--plain",
    )  # fmt: skip
    assert code == 0, err
    records = log_records(err)  # not one plain line among them
    assert any(r["event"] == "journal_opened" for _, r in records)
    lines = out.splitlines()
    assert lines[-1] == "stopped after 1 round"
    assert sum(line.startswith("round_end ") for line in lines) == 1
    assert not [line for line in lines if line.startswith(("<", "{"))]


@pytest.mark.reg("551.8(e)")
def test_an_internal_error_while_the_hole_card_is_sealed_logs_no_locals(tmp_path: Path) -> None:
    told = tmp_path / "hole_card"
    work = tmp_path / "table"
    argv = [
        sys.executable, "-c", FORCED, str(told), *SIMULATED, "--game", "spanish21",
        "--seed", "3", "--workdir", str(work),
    ]  # fmt: skip
    proc = _spawn(tmp_path, argv)
    try:
        deadline = time.monotonic() + 30
        while "table_internal_error" not in (tmp_path / "stderr").read_text():
            assert proc.poll() is None and time.monotonic() < deadline, "no internal error"
            time.sleep(0.05)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)
    err = (tmp_path / "stderr").read_text()
    records = log_records(err)
    _priorities_match(records)
    failures = [(p, r) for p, r in records if r["event"] == "table_internal_error"]
    cards = told.read_text().split()
    assert failures and cards and all(len(card) == 2 for card in cards)
    for priority, failure in failures:
        assert priority == 3
        raised = failure["exception"][0]
        assert raised["exc_value"] == "forced internal error"
        frames = raised["frames"]
        assert "dealt" in [f["name"] for f in frames]  # the traceback is there, frame by frame
        assert not [f for f in frames if "locals" in f]
        line = json.dumps(failure)
        assert not [card for card in cards if repr(card) in line or f'"{card}"' in line]
    assert SENTINEL not in err and "Traceback" not in err


def test_an_uncaught_exception_is_one_critical_line_without_locals(tmp_path: Path) -> None:
    code, _, err = _tablectl(
        tmp_path, *SIMULATED, "--workdir", str(tmp_path / "t"), script=UNCAUGHT
    )
    assert code == 1
    records = log_records(err)
    _priorities_match(records)
    ((priority, crash),) = [(p, r) for p, r in records if r["event"] == "uncaught_exception"]
    assert priority == 2
    raised = crash["exception"][0]  # then what it was raised in (no /dev/tty here)
    assert raised["exc_value"] == "forced crash"
    assert raised["frames"] and not [f for f in raised["frames"] if "locals" in f]
    assert SENTINEL not in err and "Traceback" not in err


def test_a_failed_start_in_journald_is_a_log_line_like_the_others(tmp_path: Path) -> None:
    """systemd names the stream it gives as stderr in JOURNAL_STREAM (systemd.exec(5)):
    there the refusal is an error line, JSON like the rest; a person at a terminal, or
    a script, gets ``tablectl: error: ...``."""
    config = tmp_path / "table.toml"
    config.write_text('[table]\nid = "t1"\ngame = "poker"\n')
    argv = [sys.executable, "-m", "controller.cli", "run", "--config", str(config)]
    (tmp_path / "stderr").touch()
    st = os.stat(tmp_path / "stderr")
    # The file is the one _spawn opens (truncated, the same inode).
    proc = _spawn(tmp_path, argv, env={"JOURNAL_STREAM": f"{st.st_dev}:{st.st_ino}"})
    assert proc.wait(30) == 2
    ((priority, failed),) = log_records((tmp_path / "stderr").read_text())
    assert priority == 3 and failed["event"] == "daemon_failed" and failed["status"] == 2
    assert failed["reason"].startswith(f"{config}: table.game: expected ")
    # Another file than JOURNAL_STREAM's: the line a person reads.
    code, _, err = _tablectl(tmp_path, "run", "--config", str(config))
    assert code == 2 and err.startswith(f"tablectl: error: {config}: table.game: ")
    assert err.count("\n") == 1


def test_journald_takes_each_lines_priority_and_keeps_pure_json(tmp_path: Path) -> None:
    """The daemon as a unit runs it: stdout and stderr one stream to a real journald
    (tests/support/journald.py). Every message is a JSON object (``journalctl -o cat |
    jq`` works), stored at its level's priority, so ``-p warning`` shows the warnings
    and worse and nothing else."""
    notify = NotifySocket(tmp_path / "notify.sock", reading=False)  # sd_notify_failed
    try:
        assert notify.fill() > 0
        args = [
            "controller.cli", *SIMULATED, "--rounds", "2", "--seed", "8",
            "--workdir", str(tmp_path / "t"), "--log-level", "info",
        ]  # fmt: skip
        journal = in_journald(tmp_path / "journal", args, {"NOTIFY_SOCKET": str(notify.path)})
    finally:
        notify.close()
    assert journal.code == 0, journal.entries
    records = [(int(e["PRIORITY"]), json.loads(e["MESSAGE"])) for e in journal.entries]
    _priorities_match(records)
    events = [r["event"] for _, r in records]
    assert "journal_opened" in events and "daemon_stopped" in events  # stdout added none
    warned = [r for p, r in records if p <= PRIORITY["warning"]]
    assert warned and [json.loads(line) for line in journal.warning] == warned


def test_journald_gets_a_failed_start_as_an_error_line(tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    config.write_text('[table]\nid = "t1"\ngame = "poker"\n')
    journal = in_journald(tmp_path / "journal", ["controller.cli", "run", "--config", str(config)])
    assert journal.code == 2
    ((entry,),) = [journal.entries]
    failed = json.loads(entry["MESSAGE"])
    assert (entry["PRIORITY"], failed["event"], failed["status"]) == ("3", "daemon_failed", 2)
    assert failed["reason"].startswith(f"{config}: table.game: ")
    assert journal.warning == [entry["MESSAGE"]]


# What the daemon's process logs instead of Python printing it: a thread that dies, a
# warning, a library's standard logging record, then an uncaught exception.
STRAYS = """
import logging, sys, threading, warnings
from controller.logformat import catch_uncaught, configure_logging

configure_logging("warning")
catch_uncaught()

def dies():
    sentinel = "SENTINEL_HERE"
    raise ValueError("thread failed")

thread = threading.Thread(target=dies, name="driver-shoe")
thread.start()
thread.join()
warnings.warn("old api", DeprecationWarning, stacklevel=1)
logging.getLogger("usb.core").warning("device %s gone", "1209:0001")
logging.getLogger("usb.core").debug("not shown")
sentinel = "SENTINEL_HERE"
raise SystemError("the end")
""".replace("SENTINEL_HERE", SENTINEL)


def test_what_python_would_print_itself_is_one_log_line_each(tmp_path: Path) -> None:
    proc = _spawn(tmp_path, [sys.executable, "-W", "always", "-c", STRAYS])
    assert proc.wait(30) == 1
    err = (tmp_path / "stderr").read_text()
    records = log_records(err)
    _priorities_match(records)
    events = [(r["event"], r["level"]) for _, r in records]
    assert events == [
        ("thread_died", "critical"),
        ("python_warning", "warning"),
        ("library_log", "warning"),
        ("uncaught_exception", "critical"),
    ]
    died, warned, library, crash = (r for _, r in records)
    assert died["thread"] == "driver-shoe"
    assert died["exception"][0]["exc_value"] == "thread failed"
    assert (warned["category"], warned["message"]) == ("DeprecationWarning", "old api")
    assert (library["logger"], library["message"]) == ("usb.core", "device 1209:0001 gone")
    assert crash["exception"][0]["exc_type"] == "SystemError"
    assert SENTINEL not in err and "Traceback" not in err
