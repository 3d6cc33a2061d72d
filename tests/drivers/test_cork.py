"""The cork (``DeviceDriver.cork``): what the table's thread sends while it handles one
input and commits it goes out in one write, after the commit, in the order it was sent;
another thread's frame sends what is kept first; a lost link loses nothing."""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Iterator

import pytest

from drivers import codec
from drivers import messages as m
from drivers.device import ShoeDriver, corked
from drivers.device.sessions import SessionPoller
from drivers.errors import NotConnected
from tests.support.devices import KEY, Drivers, InProcessDevice, next_event
from tests.support.ptydevice import SHOE, PtyShoe, SpiedPort


@pytest.fixture(params=["own thread", "session poller"])
def pty_shoe(
    drivers: Drivers, request: pytest.FixtureRequest
) -> Iterator[tuple[PtyShoe, ShoeDriver, queue.Queue[m.Event], list[bytes]]]:
    """The shoe's driver on a real pty, its session on the driver's own thread or on a
    ``SessionPoller``'s, as the daemon runs it (drivers/device/sessions.py)."""
    shoe = PtyShoe()
    writes: list[bytes] = []
    events: queue.Queue[m.Event] = queue.Queue()
    driver = ShoeDriver(
        "shoe",
        lambda: SpiedPort(shoe.path, writes),
        KEY,
        events,
        [SHOE.firmware_hash],
        sessions=SessionPoller() if request.param == "session poller" else None,
    )
    drivers.start(driver)
    next_event(events, m.DeviceConnected)
    yield shoe, driver, events, writes
    drivers.stop()
    shoe.close()


def frames(data: bytes) -> list[tuple[int, int]]:
    """(message type, sequence number) of every frame in ``data``."""
    decoded, skipped = codec.Decoder().feed(data)
    assert not skipped
    return [(f.type, f.seq) for f in decoded]


def wait_until(done: object, timeout: float = 3.0) -> None:
    end = time.monotonic() + timeout
    while not done():  # type: ignore[operator]
        assert time.monotonic() < end, "not within the time allowed"
        time.sleep(0.005)


def test_one_cards_prompts_and_its_acknowledgement_go_out_in_one_write(
    pty_shoe: tuple[PtyShoe, ShoeDriver, queue.Queue[m.Event], list[bytes]],
) -> None:
    shoe, driver, events, writes = pty_shoe
    card = shoe.emit(m.MsgType.CARD_DRAWN, m.card_body("A", "S", False))
    assert next_event(events, m.CardDrawn).event_id == card
    wait_until(lambda: not shoe.endpoint.link.unacked)  # the card's link ACK is in
    before, reads_before = len(writes), len(shoe.reads)
    with corked([driver]):
        driver.display("PLAYER DRAWS")
        driver.display("BANKER DRAWS")
        driver.commit(card)
        assert len(writes) == before  # nothing written while corked
    assert shoe.commands.get(timeout=2) == (m.MsgType.DISPLAY, b"PLAYER DRAWS")
    assert shoe.commands.get(timeout=2) == (m.MsgType.DISPLAY, b"BANKER DRAWS")
    wait_until(lambda: not shoe.endpoint.backlog)  # the EVENT_ACK arrived
    (written,) = writes[before:]
    display, event_ack = m.MsgType.DISPLAY, m.MsgType.EVENT_ACK
    assert [t for t, _ in frames(written)] == [display, display, event_ack]
    # On the device's side of the pty, the three frames came in one read.
    assert next(frames(r) for r in shoe.reads[reads_before:] if frames(r)) == frames(written)


def test_another_threads_frame_sends_what_is_kept_first(
    pty_shoe: tuple[PtyShoe, ShoeDriver, queue.Queue[m.Event], list[bytes]],
) -> None:
    shoe, driver, events, writes = pty_shoe
    first = shoe.emit(m.MsgType.CARD_DRAWN, m.card_body("A", "S", False))
    next_event(events, m.CardDrawn)
    wait_until(lambda: not shoe.endpoint.link.unacked)
    before = len(writes)
    with corked([driver]):
        driver.display("PLAYER DRAWS")
        # Another thread's EVENT_ACK: after the kept prompt, in the same write.
        other = threading.Thread(target=driver.commit, args=(first,))
        other.start()
        other.join()
        assert shoe.commands.get(timeout=2) == (m.MsgType.DISPLAY, b"PLAYER DRAWS")
        wait_until(lambda: not shoe.endpoint.backlog)
        (written,) = writes[before:]
        assert [t for t, _ in frames(written)] == [m.MsgType.DISPLAY, m.MsgType.EVENT_ACK]
        # The I/O thread's acknowledgement of a card that comes in meanwhile sends the
        # prompt kept since (the prompt's frame carries it) before the cork ends.
        driver.display("BANKER DRAWS")
        shoe.emit(m.MsgType.CARD_DRAWN, m.card_body("2", "S", False))
        next_event(events, m.CardDrawn)
        assert shoe.commands.get(timeout=2) == (m.MsgType.DISPLAY, b"BANKER DRAWS")
        wait_until(lambda: not shoe.endpoint.link.unacked)
        during = len(writes)
    assert len(writes) == during  # nothing was left for the end of the cork
    sent = [f for w in writes[before:] for f in frames(w) if f[0] != m.MsgType.ACK]
    assert [seq for _, seq in sent] == sorted(seq for _, seq in sent)  # in send order
    assert shoe.endpoint.link.stats.out_of_order == 0
    assert shoe.endpoint.link.stats.duplicates == 0


def test_a_link_lost_while_corked_loses_nothing(drivers: Drivers) -> None:
    dev = InProcessDevice(SHOE)
    events: queue.Queue[m.Event] = queue.Queue()
    driver = drivers.start(ShoeDriver("shoe", dev.factory, KEY, events, [SHOE.firmware_hash]))
    try:
        next_event(events, m.DeviceConnected)
        ids = [dev.emit(m.MsgType.CARD_DRAWN, m.card_body(r, "S", False)) for r in "A2"]
        assert [next_event(events, m.CardDrawn).event_id for _ in ids] == ids
        with corked([driver]):
            driver.display("PLAYER DRAWS")  # kept: the link is up
            driver.commit(ids[0])
            dev.unplug()
            next_event(events, m.DeviceLost)
            next_event(events, m.DeviceUnavailable)  # the session is over: trying again
            with pytest.raises(NotConnected):  # as without a cork
                driver.display("BANKER DRAWS")
        dev.replug()
        next_event(events, m.DeviceConnected)
        # The handshake acknowledged the commit made while corked; the card not
        # committed is kept by the device and replayed, and not delivered again.
        wait_until(lambda: [e[0] for e in dev.endpoint.backlog] == [ids[1]])
        driver.commit(ids[1])
        wait_until(lambda: not dev.endpoint.backlog)
        assert events.empty()
        assert dev.commands.empty()  # the prompt kept when the link went is not sent late
    finally:
        drivers.stop()
        dev.close()
