"""One I/O thread for every session on a serial port (drivers/device/sessions.py), on
real pseudo-terminals: two devices' sessions are served by the one poller thread and
each delivers its events in order; heartbeats keep both up past the lost-link time;
a session that fails ends alone and its driver reconnects onto the poller; a driver
that stops leaves the others running."""

from __future__ import annotations

import queue
import time
from collections.abc import Iterator

import pytest

from drivers import messages as m
from drivers.device import ShoeDriver
from drivers.device.sessions import SessionPoller
from drivers.transport import SerialTransport
from firmware_sim.endpoint import Identity
from tests.support.devices import KEY, Drivers, next_event
from tests.support.ptydevice import PtyShoe

A = Identity(m.DeviceKind.SHOE, "SIM-SHOE", "SHOE-A", "1.0.0")
B = Identity(m.DeviceKind.SHOE, "SIM-SHOE", "SHOE-B", "1.0.0")


class Plugged:
    """A device on a pty that can be pulled out and replaced by a new one at another
    path; the driver's transport opens whichever is plugged in now."""

    def __init__(self, identity: Identity) -> None:
        self.identity = identity
        self.device = PtyShoe(identity)

    def transport(self) -> SerialTransport:
        return SerialTransport(self.device.path)

    def replace(self) -> None:
        self.device.close()
        self.device = PtyShoe(self.identity)

    def card(self, rank: str) -> int:
        return self.device.emit(m.MsgType.CARD_DRAWN, m.card_body(rank, "S", False))


@pytest.fixture
def pair(drivers: Drivers) -> Iterator[tuple[SessionPoller, list[tuple[Plugged, ShoeDriver]]]]:
    poller = SessionPoller()
    made = []
    for name, identity in (("a", A), ("b", B)):
        plugged = Plugged(identity)
        events: queue.Queue[m.Event] = queue.Queue()
        driver = ShoeDriver(
            name, plugged.transport, KEY, events, [identity.firmware_hash], sessions=poller
        )
        driver.events = events  # type: ignore[attr-defined]
        drivers.start(driver)
        next_event(events, m.DeviceConnected)
        made.append((plugged, driver))
    yield poller, made
    drivers.stop()
    for plugged, _ in made:
        plugged.device.close()


def _events(driver: ShoeDriver) -> queue.Queue[m.Event]:
    return driver.events  # type: ignore[attr-defined,no-any-return]


def _wait(done: object, what: str, timeout: float = 3.0) -> None:
    end = time.monotonic() + timeout
    while not done():  # type: ignore[operator]
        assert time.monotonic() < end, what
        time.sleep(0.005)


def test_two_sessions_share_one_thread_and_each_delivers_in_order(
    pair: tuple[SessionPoller, list[tuple[Plugged, ShoeDriver]]],
) -> None:
    poller, ((a, drv_a), (b, drv_b)) = pair
    assert poller._thread is not None and poller._thread.is_alive()
    # Both sessions on the poller's one thread. A driver says it is connected before it
    # hands its session over, so the second may still be on its way to the poller.
    _wait(lambda: len(poller._served()) == 2, "both sessions served")
    sent_a = [a.card(r) for r in "A23456"]
    sent_b = [b.card(r) for r in "789TJQ"]
    for driver, sent in ((drv_a, sent_a), (drv_b, sent_b)):
        got = [next_event(_events(driver), m.CardDrawn) for _ in sent]
        assert [e.event_id for e in got] == sent
        driver.commit(sent[-1])
    _wait(lambda: not a.device.endpoint.backlog and not b.device.endpoint.backlog, "acked")


def test_heartbeats_keep_both_sessions_up_past_the_lost_link_time(
    pair: tuple[SessionPoller, list[tuple[Plugged, ShoeDriver]]],
) -> None:
    _, sessions = pair
    time.sleep(2.5)  # two and a half lost-link times (1.0 s) with nothing but heartbeats
    for plugged, driver in sessions:
        assert driver.connected.is_set()
        while not _events(driver).empty():
            assert not isinstance(_events(driver).get_nowait(), m.DeviceLost)
        assert plugged.device.endpoint.link.established
        assert driver.link_stats["frames_rx"] >= 5  # the device's heartbeats, answered


def test_a_failed_session_ends_alone_and_its_driver_reconnects_onto_the_poller(
    pair: tuple[SessionPoller, list[tuple[Plugged, ShoeDriver]]],
) -> None:
    poller, ((a, drv_a), (b, drv_b)) = pair
    thread = poller._thread
    a.replace()  # the port goes away under the session: a read fails
    lost = next_event(_events(drv_a), m.DeviceLost)
    assert lost.device == "a"
    card = b.card("K")  # the other session is still served meanwhile
    assert next_event(_events(drv_b), m.CardDrawn).event_id == card
    next_event(_events(drv_a), m.DeviceConnected, timeout=5.0)
    _wait(lambda: len(poller._served()) == 2, "a's new session on the poller")
    assert poller._thread is thread  # b's kept it running throughout
    card = a.card("Q")
    assert next_event(_events(drv_a), m.CardDrawn).event_id == card


def test_a_driver_that_stops_leaves_the_other_session_running(
    pair: tuple[SessionPoller, list[tuple[Plugged, ShoeDriver]]],
) -> None:
    poller, ((_, drv_a), (b, drv_b)) = pair
    drv_a.stop()
    assert drv_a._thread is not None and not drv_a._thread.is_alive()
    _wait(lambda: len(poller._served()) == 1, "a's session ended")
    card = b.card("9")
    assert next_event(_events(drv_b), m.CardDrawn).event_id == card
    drv_b.stop()
    _wait(lambda: poller._thread is None, "the poller's thread ended with its last session")


def test_a_send_from_another_thread_wakes_the_poller_for_its_retransmit_timer(
    pair: tuple[SessionPoller, list[tuple[Plugged, ShoeDriver]]],
) -> None:
    """The table's thread sends a prompt while the poller waits on a heartbeat's
    deadline: the send's earlier retransmit timer wakes it (the transport's wake-up
    pipe), so a frame the device did not acknowledge goes again within the RTO, not at
    the next heartbeat (0.5 s away, with the device silent)."""
    _, ((a, drv_a), _) = pair
    _wait(lambda: not a.device.endpoint.link.unacked, "the handshake's frames acknowledged")
    before = drv_a.link_stats["retransmits"]
    with a.device.lock:  # the device reads nothing meanwhile: no ACK, no heartbeat
        drv_a.display("PLAYER DRAWS")  # type: ignore[attr-defined]
        time.sleep(0.3)  # rto_max 0.25 s
        retransmitted = drv_a.link_stats["retransmits"] - before
    assert retransmitted >= 1
    assert a.device.commands.get(timeout=2) == (m.MsgType.DISPLAY, b"PLAYER DRAWS")
    time.sleep(0.2)
    assert a.device.commands.empty()  # the copies were one prompt to the device
