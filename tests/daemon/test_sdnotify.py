"""sd_notify against real AF_UNIX datagram sockets standing in for systemd's."""

from __future__ import annotations

import os
import secrets
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from pytest_mock import MockerFixture
from structlog.testing import capture_logs

from controller.daemon.sdnotify import STOP_GRACE, Notifier, NotifyEnvError
from controller.errors import TablectlError


def _bound_socket(address: str | bytes) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(address)
    sock.settimeout(2.0)
    return sock


def _assert_nothing_more(sock: socket.socket) -> None:
    sock.setblocking(False)
    with pytest.raises(BlockingIOError):
        sock.recv(4096)
    sock.settimeout(2.0)


@pytest.fixture
def path_socket(tmp_path: Path) -> Iterator[tuple[socket.socket, str]]:
    path = str(tmp_path / "notify")
    sock = _bound_socket(path)
    yield sock, path
    sock.close()


@pytest.fixture
def abstract_socket() -> Iterator[tuple[socket.socket, str]]:
    name = f"tablectl-test-{secrets.token_hex(8)}"
    sock = _bound_socket(b"\0" + name.encode())
    yield sock, "@" + name
    sock.close()


MESSAGES: list[tuple[Callable[[Notifier], None], bytes]] = [
    (Notifier.ready, b"READY=1"),
    (lambda n: n.status("dealing: shoe 3, hand 41"), b"STATUS=dealing: shoe 3, hand 41"),
    (Notifier.watchdog, b"WATCHDOG=1"),
    (Notifier.stopping, b"STOPPING=1"),
]


@pytest.mark.parametrize(("send", "expected"), MESSAGES, ids=["ready", "status", "wd", "stop"])
def test_each_message_arrives_exactly_on_a_path_socket(
    path_socket: tuple[socket.socket, str],
    send: Callable[[Notifier], None],
    expected: bytes,
) -> None:
    sock, path = path_socket
    notifier = Notifier.from_env({"NOTIFY_SOCKET": path})
    assert notifier.enabled
    send(notifier)
    assert sock.recv(4096) == expected
    _assert_nothing_more(sock)


@pytest.mark.parametrize(("send", "expected"), MESSAGES, ids=["ready", "status", "wd", "stop"])
def test_each_message_arrives_exactly_in_the_abstract_namespace(
    abstract_socket: tuple[socket.socket, str],
    send: Callable[[Notifier], None],
    expected: bytes,
) -> None:
    sock, name = abstract_socket
    notifier = Notifier.from_env({"NOTIFY_SOCKET": name})
    send(notifier)
    assert sock.recv(4096) == expected
    _assert_nothing_more(sock)


def test_a_sequence_arrives_in_order_from_the_process_environment(
    path_socket: tuple[socket.socket, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    sock, path = path_socket
    monkeypatch.setenv("NOTIFY_SOCKET", path)
    notifier = Notifier.from_env()
    notifier.status("starting")
    notifier.ready()
    notifier.watchdog()
    notifier.stopping()
    received = [sock.recv(4096) for _ in range(4)]
    assert received == [b"STATUS=starting", b"READY=1", b"WATCHDOG=1", b"STOPPING=1"]


def test_status_cannot_smuggle_a_second_assignment(path_socket: tuple[socket.socket, str]) -> None:
    sock, path = path_socket
    Notifier.from_env({"NOTIFY_SOCKET": path}).status("shoe fault\nREADY=1\r\nWATCHDOG=1")
    assert sock.recv(4096) == b"STATUS=shoe fault READY=1 WATCHDOG=1"


def test_status_keeps_non_ascii_text_as_utf8(path_socket: tuple[socket.socket, str]) -> None:
    sock, path = path_socket
    Notifier.from_env({"NOTIFY_SOCKET": path}).status("table 7 — paused")
    assert sock.recv(4096) == "STATUS=table 7 — paused".encode()


@pytest.mark.parametrize("environ", [{}, {"NOTIFY_SOCKET": ""}])
def test_without_notify_socket_nothing_is_sent(
    environ: dict[str, str], mocker: MockerFixture
) -> None:
    opened = mocker.spy(socket, "socket")
    notifier = Notifier.from_env(environ)
    assert not notifier.enabled
    assert notifier.watchdog_interval() is None
    notifier.ready()
    notifier.status("idle")
    notifier.watchdog()
    notifier.stopping()
    assert opened.call_count == 0


def test_unset_process_environment_is_a_no_op(
    monkeypatch: pytest.MonkeyPatch, mocker: MockerFixture
) -> None:
    monkeypatch.delenv("NOTIFY_SOCKET", raising=False)
    monkeypatch.setenv("WATCHDOG_USEC", "not even a number")
    opened = mocker.spy(socket, "socket")
    notifier = Notifier.from_env()
    notifier.ready()
    notifier.watchdog()
    assert not notifier.enabled
    # No socket to ping, so the watchdog variables are not even read.
    assert notifier.watchdog_interval() is None
    assert opened.call_count == 0


def test_relative_notify_socket_is_an_error_naming_the_variable() -> None:
    with pytest.raises(NotifyEnvError, match=r"^NOTIFY_SOCKET='run/notify': ") as caught:
        Notifier.from_env({"NOTIFY_SOCKET": "run/notify"})
    assert caught.value.variable == "NOTIFY_SOCKET"
    assert isinstance(caught.value, TablectlError)


SOCK = {"NOTIFY_SOCKET": "/run/systemd/notify"}


@pytest.mark.parametrize(
    ("extra", "interval"),
    [
        ({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "4242"}, 15.0),
        ({"WATCHDOG_USEC": "30000000"}, 15.0),
        ({"WATCHDOG_USEC": "1"}, 0.0000005),
        ({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "4243"}, None),
        ({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "1"}, None),
        ({"WATCHDOG_PID": "4242"}, None),
        ({}, None),
    ],
    ids=["own-pid", "no-pid", "one-usec", "other-pid", "pid-1", "pid-without-usec", "none"],
)
def test_watchdog_interval_is_half_of_watchdog_usec_for_this_process(
    extra: dict[str, str], interval: float | None
) -> None:
    notifier = Notifier.from_env({**SOCK, **extra}, pid=4242)
    assert notifier.watchdog_interval() == interval


def test_watchdog_pid_defaults_to_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NOTIFY_SOCKET", "/run/systemd/notify")
    monkeypatch.setenv("WATCHDOG_USEC", "8000000")
    monkeypatch.setenv("WATCHDOG_PID", str(os.getpid()))
    assert Notifier.from_env().watchdog_interval() == 4.0
    monkeypatch.setenv("WATCHDOG_PID", str(os.getppid()))
    assert Notifier.from_env().watchdog_interval() is None


@pytest.mark.parametrize(
    ("extra", "variable"),
    [
        ({"WATCHDOG_USEC": "abc"}, "WATCHDOG_USEC"),
        ({"WATCHDOG_USEC": ""}, "WATCHDOG_USEC"),
        ({"WATCHDOG_USEC": "30s"}, "WATCHDOG_USEC"),
        ({"WATCHDOG_USEC": "1.5"}, "WATCHDOG_USEC"),
        ({"WATCHDOG_USEC": "0"}, "WATCHDOG_USEC"),
        ({"WATCHDOG_USEC": "-30000000"}, "WATCHDOG_USEC"),
        ({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "init"}, "WATCHDOG_PID"),
        ({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": ""}, "WATCHDOG_PID"),
        ({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "0"}, "WATCHDOG_PID"),
        ({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "-4242"}, "WATCHDOG_PID"),
    ],
)
def test_bad_watchdog_value_is_one_error_naming_the_variable(
    extra: dict[str, str], variable: str
) -> None:
    with pytest.raises(NotifyEnvError) as caught:
        Notifier.from_env({**SOCK, **extra}, pid=4242)
    assert caught.value.variable == variable
    message = str(caught.value)
    assert message.startswith(f"{variable}={extra[variable]!r}: ")
    assert "\n" not in message


def test_lost_socket_is_logged_once_and_never_raises(tmp_path: Path) -> None:
    path = str(tmp_path / "notify")
    sock = _bound_socket(path)
    notifier = Notifier.from_env({"NOTIFY_SOCKET": path})
    notifier.ready()
    assert sock.recv(4096) == b"READY=1"
    sock.close()
    os.unlink(path)

    with capture_logs() as logs:
        for _ in range(5):
            notifier.watchdog()
        notifier.status("still here")
        notifier.stopping()
    # One warning for the outage, and at the stop one error naming what never went.
    assert [entry["event"] for entry in logs] == ["sd_notify_failed", "sd_notify_undelivered"]
    assert logs[0]["log_level"] == "warning"
    assert logs[0]["socket"] == path
    assert logs[0]["error"]
    assert logs[1]["log_level"] == "error"
    assert logs[1]["messages"] == ["WATCHDOG=1", "STOPPING=1"]


def test_socket_that_comes_back_is_used_again_and_a_new_outage_is_logged(
    tmp_path: Path,
) -> None:
    path = str(tmp_path / "notify")
    notifier = Notifier.from_env({"NOTIFY_SOCKET": path})
    with capture_logs() as logs:
        notifier.watchdog()  # nobody listening yet
        notifier.watchdog()
        sock = _bound_socket(path)
        notifier.watchdog()
        assert sock.recv(4096) == b"WATCHDOG=1"
        sock.close()
        os.unlink(path)
        notifier.watchdog()
        notifier.watchdog()
    assert [entry["event"] for entry in logs] == [
        "sd_notify_failed",
        "sd_notify_recovered",
        "sd_notify_failed",
    ]


def test_lost_abstract_socket_is_logged_with_its_at_name() -> None:
    name = f"@tablectl-test-{secrets.token_hex(8)}"
    notifier = Notifier.from_env({"NOTIFY_SOCKET": name})
    with capture_logs() as logs:
        notifier.ready()
        notifier.ready()
    assert [(entry["event"], entry["socket"]) for entry in logs] == [("sd_notify_failed", name)]


def _fill(path: str) -> int:
    """Send datagrams to ``path`` until its queue is full, as it is when nobody reads
    the socket; how many it holds."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as filler:
        filler.setblocking(False)
        sent = 0
        while True:
            try:
                filler.sendto(b"filler", path)
            except BlockingIOError:
                return sent
            sent += 1


def _drain(sock: socket.socket, count: int) -> None:
    for _ in range(count):
        assert sock.recv(4096) == b"filler"


@pytest.mark.timeout(10)  # a blocking send would hang here: fail, not wait for ever
def test_a_full_queue_never_blocks_drops_statuses_and_keeps_the_rest(
    path_socket: tuple[socket.socket, str],
) -> None:
    sock, path = path_socket
    filled = _fill(path)
    assert filled > 0
    notifier = Notifier.from_env({"NOTIFY_SOCKET": path})
    with capture_logs() as logs:
        started = time.monotonic()
        notifier.ready()
        for n in range(50):
            notifier.status(f"dealing, round {n}")
        notifier.watchdog()
        notifier.watchdog()  # kept once
        notifier.retry()
        assert time.monotonic() - started < 1.0
    assert notifier.unsent == ("READY=1", "WATCHDOG=1", "STATUS=dealing, round 49")
    assert [(e["event"], e["message"]) for e in logs] == [("sd_notify_failed", "READY")]
    _drain(sock, filled)
    with capture_logs() as logs:
        notifier.retry()
    # In the order asked for, the latest status last; nothing else.
    got = [sock.recv(4096) for _ in range(3)]
    assert got == [b"READY=1", b"WATCHDOG=1", b"STATUS=dealing, round 49"]
    _assert_nothing_more(sock)
    assert notifier.unsent == ()
    assert logs == [
        {
            "event": "sd_notify_recovered",
            "log_level": "info",
            "statuses_dropped": 49,
            "delivered_late": ["READY=1", "WATCHDOG=1"],
        }
    ]


@pytest.mark.timeout(10)
def test_stopping_waits_briefly_for_a_full_queue_and_names_what_never_went(
    path_socket: tuple[socket.socket, str],
) -> None:
    _, path = path_socket
    _fill(path)
    notifier = Notifier.from_env({"NOTIFY_SOCKET": path})
    with capture_logs() as logs:
        notifier.ready()
        started = time.monotonic()
        notifier.stopping()
        waited = time.monotonic() - started
    assert STOP_GRACE <= waited < STOP_GRACE + 0.5
    assert [e["event"] for e in logs] == ["sd_notify_failed", "sd_notify_undelivered"]
    assert logs[1]["messages"] == ["READY=1", "STOPPING=1"]


@pytest.mark.timeout(10)
def test_stopping_is_delivered_when_the_queue_drains_within_the_grace(
    path_socket: tuple[socket.socket, str],
) -> None:
    sock, path = path_socket
    filled = _fill(path)
    notifier = Notifier.from_env({"NOTIFY_SOCKET": path})
    notifier.status("stopping (signal SIGTERM)")
    reader = threading.Timer(STOP_GRACE / 4, _drain, (sock, filled))
    reader.start()
    with capture_logs() as logs:
        notifier.stopping()
    reader.join()
    assert [sock.recv(4096) for _ in range(2)] == [
        b"STOPPING=1",
        b"STATUS=stopping (signal SIGTERM)",
    ]
    assert [e["event"] for e in logs] == ["sd_notify_recovered"]
    assert logs[0]["delivered_late"] == ["STOPPING=1"]
