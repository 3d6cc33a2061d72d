"""The simulator as a process: signals, quit, socket ownership, the harness, the command
line and malformed control requests."""

from __future__ import annotations

import json
import os
import queue
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from drivers import messages as m
from drivers.keys import write_key
from firmware_sim.control import MAX_LINE
from firmware_sim.harness import SimError, SimProcess
from tests.support.devices import KEY, Drivers
from tests.support.sim import Host, wait_status

# --------------------------------------------------------------------------- lifecycle


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_signal_removes_link_and_socket(tmp_path: Path, sig: signal.Signals) -> None:
    sim = SimProcess("reader", tmp_path, KEY).start()
    assert sim.link_path.is_symlink() and sim.control_path.exists()
    assert sim.process is not None
    sim.process.send_signal(sig)
    assert sim.process.wait(5) == 0
    assert not sim.link_path.is_symlink() and not sim.control_path.exists()
    sim.stop()


def test_quit_command_ends_the_process(tmp_path: Path) -> None:
    sim = SimProcess("shuffler", tmp_path, KEY).start()
    assert sim.control("quit") == {"ok": True}
    assert sim.process is not None and sim.process.wait(5) == 0
    assert not sim.link_path.is_symlink() and not sim.control_path.exists()
    assert sim.stop() == 0


def test_live_socket_is_refused_and_stale_one_replaced(tmp_path: Path) -> None:
    first = SimProcess("shoe", tmp_path, KEY, ["--cards", "AS"]).start()
    try:
        second = SimProcess("shoe", tmp_path, KEY, ["--cards", "KS"])
        with pytest.raises(SimError, match=r"status 2: .* in use by another simulator"):
            second.start()
        assert first.control("status")["cards_left"] == 1
        assert first.process is not None
        first.process.kill()  # dies without cleaning up
        first.process.wait()
        assert first.link_path.is_symlink() and first.control_path.exists()
        second.start()
        assert second.process is not None
        assert second.control("status")["pid"] == second.process.pid
        assert second.stop() == 0
    finally:
        first.stop()


def test_firmware_hash_follows_identity_and_refusal_shows(tmp_path: Path, drivers: Drivers) -> None:
    args = ["--model", "LAB-7", "--firmware-version=2.1", "--serial", "X9"]
    sim = SimProcess("reader", tmp_path, KEY, args).start()
    try:
        assert sim.control("status")["firmware_hash"] == sim.firmware_hash.hex()
        host = Host(sim, drivers)
        connected = host.one()
        host.stop()
        assert connected == m.DeviceConnected("reader", None, "reader", "LAB-7", "X9", "2.1")
        events: queue.Queue[m.Event] = queue.Queue()
        refusing = drivers.start(sim.driver(events, approved=[]))
        try:
            refused = events.get(timeout=3)
        finally:
            refusing.stop()
        assert isinstance(refused, m.DeviceRefused) and refused.reason == "firmware_not_approved"
        wait_status(sim, "refused", "FIRMWARE_NOT_APPROVED")
    finally:
        assert sim.stop() == 0


# --------------------------------------------------------------------------- command line


def test_bad_input_ends_in_one_line_and_status_2(tmp_path: Path) -> None:
    key = tmp_path / "k.key"
    write_key(str(key), KEY)
    bad_key = tmp_path / "bad.key"
    bad_key.write_text("abc\n")
    bad_key.chmod(0o400)
    fifo = tmp_path / "fifo.key"
    os.mkfifo(fifo, 0o400)
    not_json = tmp_path / "f1.json"
    not_json.write_text("{seed: 1")
    wrong_shape = tmp_path / "f2.json"
    wrong_shape.write_text('{"rates": {"drop": 0.5, "melt": 0.1}}')
    link = str(tmp_path / "dev.tty")
    common = ["--link", link, "--key-file", str(key)]
    cases: dict[str, tuple[list[str], str]] = {
        "card token": (["shoe", *common, "--cards", "AS ZZ"], "not a card: 'ZZ'"),
        "stack file": (["shoe", *common, "--stack-file", "/nonexistent"], "cannot be read"),
        "mixed shoe": (["shoe", *common, "--cards", "AS", "--seed", "2"], "--seed cannot be"),
        "deck count": (["shuffler", *common, "--decks", "0"], "must be 1..64, not 0"),
        "missing key": (
            ["reader", "--link", link, "--key-file", str(tmp_path / "none")],
            "does not exist",
        ),
        "bad key": (["reader", "--link", link, "--key-file", str(bad_key)], "64 hexadecimal"),
        # Refused unread (drivers/keys.py): a FIFO would block, /dev/zero never end.
        "fifo key": (["reader", "--link", link, "--key-file", str(fifo)], "is a FIFO"),
        "device key": (["reader", "--link", link, "--key-file", "/dev/zero"], "character device"),
        "faults json": (["reader", *common, "--faults", str(not_json)], "is not valid JSON"),
        "faults shape": (["reader", *common, "--faults", str(wrong_shape)], "unknown rate 'melt'"),
        "link dir": (
            ["reader", "--link", str(tmp_path / "no" / "dev"), "--key-file", str(key)],
            "link directory",
        ),
        "option": (["reader", *common, "--pace", "instant"], "unrecognized arguments"),
        "kind": (["printer", *common], "invalid choice: 'printer'"),
        "no link": (["reader", "--key-file", str(key)], "required: --link"),
    }
    procs = {
        name: subprocess.Popen(
            [sys.executable, "-m", "firmware_sim", *argv],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name, (argv, _) in cases.items()
    }
    # The installed entry point behaves the same.
    script = Path(sys.executable).with_name("firmware-sim")
    assert script.exists(), f"{script} missing: install the project (make .venv/.installed-test)"
    procs["entry point"] = subprocess.Popen(
        [str(script), "shoe", *common, "--cards", "AS ZZ"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    cases["entry point"] = ([], "not a card: 'ZZ'")
    for name, proc in procs.items():
        _, err = proc.communicate(timeout=10)
        lines = err.strip().splitlines()
        assert proc.returncode == 2, f"{name}: status {proc.returncode}, stderr {err!r}"
        assert len(lines) == 1 and "Traceback" not in err, f"{name}: {err!r}"
        assert lines[0].startswith("firmware-sim"), f"{name}: {err!r}"
        assert cases[name][1] in lines[0], f"{name}: {err!r}"
    assert not os.path.lexists(link) and not os.path.lexists(link + ".control")


# --------------------------------------------------------------------------- control socket


def test_malformed_control_lines_get_errors_and_keep_the_connection(tmp_path: Path) -> None:
    sim = SimProcess("shoe", tmp_path, KEY, ["--cards", "AS KS"]).start()
    bad = [
        (b"not json", "request is not JSON"),
        (b"\xff\xfe", "request is not JSON"),
        (b"[1, 2]", "a request is a JSON object"),
        (b"{}", 'a request needs a "cmd" string'),
        (b'{"cmd": 5}', 'a request needs a "cmd" string'),
        (b'{"cmd": "dance"}', "unknown command 'dance' for a shoe (known: draw, face_up"),
        (b'{"cmd": "insert", "card": "AS"}', "unknown command 'insert' for a shoe"),
        (b'{"cmd": "draw", "count": "2"}', '"count" must be an integer 1..65535'),
        (b'{"cmd": "draw", "count": 3}', "only 2 cards left in the shoe"),
        (b'{"cmd": "status", "verbose": true}', "status takes no field 'verbose'"),
        (b'{"cmd": "lid"}', '"open" must be true or false'),
        (b'{"cmd": "unplug"}', '"duration_ms" is required'),
        (b'{"cmd": "load", "cards": "AS"}', '"cards" must be a list of card tokens'),
        (b'{"cmd": "fault", "code": "melt"}', '"code" must be a fault code: 1 (JAM)'),
        (b'{"cmd": "faults", "rates": {"drop": 2}}', "rate drop must be a probability 0..1"),
    ]
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(5)
            conn.connect(str(sim.control_path))
            payload = b"\n".join(line for line, _ in bad) + b"\n\n"
            conn.sendall(payload + b'{"cmd": "sta')  # the last request arrives in two parts
            time.sleep(0.05)
            conn.sendall(b'tus"}\n')
            replies = read_lines(conn, len(bad) + 1)
            for (line, expected), reply in zip(bad, replies, strict=False):
                assert reply["ok"] is False, line
                assert expected in str(reply["error"]), (line, reply)
                assert "\n" not in str(reply["error"])
            assert replies[-1]["ok"] is True and replies[-1]["cards_left"] == 2
            conn.sendall(b"x" * (MAX_LINE + 1))
            (too_long,) = read_lines(conn, 1)
            assert "longer than" in str(too_long["error"])
            assert conn.recv(10) == b""  # that client is dropped ...
        assert sim.control("status")["cards_left"] == 2  # ... the simulator carries on
    finally:
        assert sim.stop() == 0


def read_lines(conn: socket.socket, n: int) -> list[dict[str, object]]:
    buf = b""
    while buf.count(b"\n") < n:
        data = conn.recv(65536)
        assert data, "connection closed early"
        buf += data
    return [json.loads(line) for line in buf.splitlines()[:n]]


def test_posted_requests_are_answered_in_order_around_a_request(tmp_path: Path) -> None:
    """``post`` sends without waiting; ``answer`` reads the replies in the order the
    requests went, those ``request`` read on its way to its own kept for it."""
    sim = SimProcess("shoe", tmp_path, KEY, ["--cards", "AS KS QS"]).start()
    try:
        assert sim.answer() is None  # nothing posted
        sim.post("draw", count=1)
        sim.post("draw", count=5)  # refused: three cards in the shoe
        sim.post("draw", count=1)
        assert sim.control("status")["cards_left"] == 1  # past the three posted
        first = sim.answer()
        assert first is not None and len(first["event_ids"]) == 1
        with pytest.raises(SimError, match="only 2 cards left in the shoe"):
            sim.answer()
        third = sim.answer()
        assert third is not None and third["event_ids"] == [first["event_ids"][0] + 1]
        assert sim.answer() is None
    finally:
        assert sim.stop() == 0
