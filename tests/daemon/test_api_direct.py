"""The table's thread sends a subscriber's lines itself when the API's I/O thread is
not at work (controller/api/server.py ``_send``): no wake-up of the I/O thread for a
client that keeps up, and never a wait for the I/O thread (what a socket does not take
at once is left to the I/O thread: tests/daemon/test_api_fanout.py). Real Unix
sockets."""

from __future__ import annotations

import json
import os
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pytest_mock import MockerFixture

from controller.api import Access, ApiServer

TIMEOUT = 5.0
ME = Access(uids=(os.getuid(),))


class Subscriber:
    """A connection to events.sock, subscribed: its lines as JSON, one at a time."""

    def __init__(self, server: ApiServer) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(TIMEOUT)
        self.sock.connect(str(server.path("events")))
        self._lines = self.sock.makefile("rb")
        self.sock.sendall(b'{"v":1,"op":"subscribe"}\n')
        assert self.recv()["type"] == "subscribed"

    def recv(self) -> dict[str, Any]:
        line = self._lines.readline()
        assert line, "the server closed the connection"
        message: dict[str, Any] = json.loads(line)
        return message


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ApiServer]:
    made = ApiServer(tmp_path, lambda command, ticket: True, dealer=ME, floor=ME, events=ME)
    made.start()
    yield made
    made.close()


def _settled(server: ApiServer) -> None:
    """Once the I/O thread has finished the turn in which it answered a request: it
    holds the lock for the whole turn, then sleeps in its selector."""
    with server._lock:
        pass


def _entry(n: int) -> dict[str, Any]:
    return {"type": "prompt", "round": n, "text": "PLACE YOUR BETS"}


def test_a_subscriber_that_keeps_up_gets_every_line_without_a_wake_of_the_io_thread(
    server: ApiServer, mocker: MockerFixture
) -> None:
    client = Subscriber(server)
    _settled(server)
    wakes = mocker.spy(server._inbox, "wake")
    for seq in range(1, 201):  # rows outside a transaction: each sent as published
        server.publish(seq, _entry(seq))
    for seq in range(201, 251):  # a transaction's rows: sent together at its wake
        server.publish(seq, _entry(seq), wake=False)
    server.wake()
    got = [client.recv() for _ in range(250)]
    assert [m["seq"] for m in got] == list(range(1, 251))
    assert [m["entry"]["round"] for m in got] == list(range(1, 251))
    assert wakes.call_count == 0


def test_while_the_io_thread_is_at_work_publish_does_not_wait_and_the_lines_follow(
    server: ApiServer,
) -> None:
    client = Subscriber(server)
    _settled(server)
    published = threading.Event()

    def table() -> None:
        for seq in range(1, 21):
            server.publish(seq, _entry(seq))
        published.set()

    with server._lock:  # as the I/O thread holds it while it serves a request
        thread = threading.Thread(target=table)
        thread.start()
        assert published.wait(TIMEOUT), "publish waited for the I/O thread"
        client.sock.setblocking(False)
        with pytest.raises(BlockingIOError):
            client.sock.recv(1)  # nothing sent meanwhile: the lines wait in the inbox
        client.sock.settimeout(TIMEOUT)
    thread.join(TIMEOUT)
    assert [client.recv()["seq"] for _ in range(20)] == list(range(1, 21))  # woken, it sends
