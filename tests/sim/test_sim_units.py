"""Firmware simulator pieces without processes: decks, fault specs, the fault layer and
the firmware objects' own rules."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from drivers import codec
from drivers import messages as m
from firmware_sim import decks
from firmware_sim.control import CommandError
from firmware_sim.devices import Pace, ReaderFirmware, ShoeFirmware, ShufflerFirmware
from firmware_sim.endpoint import Identity
from firmware_sim.faults import FaultLayer, FaultSpec, load_faults
from tests.support.devices import KEY

SPANISH_RANKS = "A23456789JQK"


# --------------------------------------------------------------------------- decks


def test_standard_deck_is_every_card_once() -> None:
    cards = decks.deck()
    assert len(cards) == 52
    assert set(cards) == {r + s for r in "A23456789TJQK" for s in "SHDC"}


def test_spanish_deck_has_48_cards_and_no_tens() -> None:
    # 551.3(a)
    cards = decks.deck(spanish=True)
    assert len(cards) == 48 == decks.deck_size(True)
    assert set(cards) == {r + s for r in SPANISH_RANKS for s in "SHDC"}


def test_seeded_shoe_is_the_seeded_shuffle_of_the_decks() -> None:
    shoe = decks.build_shoe(6, spanish=True, rng=decks.make_rng(7), cut_at=20)
    reference = [r + s for s in "SHDC" for r in SPANISH_RANKS] * 6
    random.Random(7).shuffle(reference)
    reference.insert(len(reference) - 20, "CUT")
    assert shoe == reference
    assert shoe[-21] == "CUT"
    assert Counter(c for c in shoe if c != "CUT") == Counter(
        {r + s: 6 for r in SPANISH_RANKS for s in "SHDC"}
    )
    assert decks.build_shoe(6, spanish=True, rng=decks.make_rng(7), cut_at=20) == shoe
    assert decks.build_shoe(6, spanish=True, rng=decks.make_rng(8), cut_at=20) != shoe


def test_unseeded_shoe_uses_os_randomness(mocker: Any) -> None:
    system = mocker.patch("firmware_sim.decks.SystemRandom", wraps=random.SystemRandom)
    first = decks.build_shoe(8, rng=decks.make_rng(None))
    second = decks.build_shoe(8, rng=decks.make_rng(None))
    assert system.call_count == 2
    assert first != second  # 416 cards: equal orders are beyond chance
    decks.make_rng(5)
    assert system.call_count == 2


@pytest.mark.parametrize(("cut_at", "index"), [(0, 52), (1, 51), (52, 0)])
def test_cut_card_position_counts_from_the_end(cut_at: int, index: int) -> None:
    shoe = decks.build_shoe(1, rng=decks.make_rng(1), cut_at=cut_at)
    assert len(shoe) == 53
    assert shoe.index("CUT") == index


@pytest.mark.parametrize(
    ("decks_n", "cut_at", "match"), [(0, None, "1..64"), (65, None, "1..64"), (1, 53, "0..52")]
)
def test_shoe_size_limits(decks_n: int, cut_at: int | None, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        decks.build_shoe(decks_n, rng=decks.make_rng(1), cut_at=cut_at)


def test_tokens_accept_ten_as_10_commas_and_lower_case() -> None:
    assert decks.parse_tokens("AS, 10d kh\ncut\t7C") == ["AS", "TD", "KH", "CUT", "7C"]


@pytest.mark.parametrize("text", ["AS ZZ", "AS 1D", "AS KX", "AS CUT CUT"])
def test_bad_tokens_are_refused(text: str) -> None:
    with pytest.raises(ValueError):
        decks.parse_tokens(text)


def test_stack_file_as_json_or_text(tmp_path: Path) -> None:
    as_json = tmp_path / "a.json"
    as_json.write_text('["AS", "10H", "CUT"]')
    as_text = tmp_path / "a.txt"
    as_text.write_text("AS,10H\nCUT\n")
    assert decks.load_stack_file(str(as_json)) == ["AS", "TH", "CUT"]
    assert decks.load_stack_file(str(as_text)) == ["AS", "TH", "CUT"]


@pytest.mark.parametrize(
    ("content", "match"),
    [('["AS", 5]', "JSON list of card tokens"), ("[AS", "not valid JSON"), ("AS QQ", "not a card")],
)
def test_bad_stack_files_are_refused(tmp_path: Path, content: str, match: str) -> None:
    path = tmp_path / "stack"
    path.write_text(content)
    with pytest.raises(ValueError, match=match):
        decks.load_stack_file(str(path))
    with pytest.raises(ValueError, match="cannot be read"):
        decks.load_stack_file(str(tmp_path / "missing"))


# --------------------------------------------------------------------------- fault specs


def test_fault_spec_round_trip() -> None:
    data = {
        "seed": 4,
        "rates": {"corrupt": 0.1, "drop": 0, "duplicate": 1},
        "script": [{"at_event": 3, "fault": "delay", "delay_ms": 50}],
    }
    spec = FaultSpec.from_json(data)
    assert spec.seed == 4
    assert spec.rates == {"corrupt": 0.1, "drop": 0.0, "duplicate": 1.0}
    assert spec.to_json() == {**data, "rates": spec.rates}


@pytest.mark.parametrize(
    ("data", "match"),
    [
        ([], "JSON object"),
        ({"sed": 1}, "unknown key 'sed'"),
        ({"seed": "1"}, "seed must be an integer"),
        ({"rates": {"flip": 0.1}}, "unknown rate 'flip'"),
        ({"rates": {"drop": 1.5}}, "probability"),
        ({"rates": {"drop": True}}, "probability"),
        ({"script": {}}, "must be a list"),
        ({"script": [{"fault": "drop"}]}, "at_event"),
        ({"script": [{"at_event": 0, "fault": "drop"}]}, "at_event"),
        ({"script": [{"at_event": 1, "fault": "explode"}]}, "fault must be one of"),
        ({"script": [{"at_event": 1, "fault": "delay"}]}, "delay_ms > 0"),
        ({"script": [{"at_event": 1, "fault": "delay", "delay_ms": -1}]}, "delay_ms"),
        ({"script": [{"at_event": 1, "fault": "drop", "when": 1}]}, "unknown key 'when'"),
    ],
)
def test_bad_fault_specs_are_refused(data: object, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        FaultSpec.from_json(data)


def test_faults_file_errors_name_the_file(tmp_path: Path) -> None:
    path = tmp_path / "faults.json"
    path.write_text("{not json")
    with pytest.raises(ValueError, match=f"faults file {path} is not valid JSON"):
        load_faults(str(path))
    path.write_text('{"rates": {"drop": 2}}')
    with pytest.raises(ValueError, match=f"faults file {path}: faults: rate drop"):
        load_faults(str(path))


# --------------------------------------------------------------------------- fault layer


def frame(mtype: int, payload: bytes, seq: int = 0, sequenced: bool = True) -> bytes:
    flags = codec.FLAG_FROM_DEVICE | (codec.FLAG_SEQUENCED if sequenced else 0)
    return codec.assemble(codec.signed_part(flags, seq, 0, mtype, payload), bytes(8))


def event_frame(event_id: int, mtype: int = m.MsgType.CUT_CARD) -> bytes:
    return frame(mtype, m.encode_event_payload(event_id, b""), seq=event_id)


def layer(**spec: Any) -> FaultLayer:
    return FaultLayer(m.DeviceKind.SHOE, FaultSpec.from_json(spec))


def test_no_faults_passes_frames_unchanged() -> None:
    faults = layer()
    f = event_frame(1)
    out = faults.apply(f, 10.0)
    assert [(o.not_before, o.data) for o in out] == [(10.0, f)]


def test_script_hits_only_the_first_transmission_of_its_event() -> None:
    faults = layer(script=[{"at_event": 2, "fault": "drop"}])
    assert len(faults.apply(event_frame(1), 0.0)) == 1
    assert faults.apply(event_frame(2), 0.0) == []
    assert len(faults.apply(event_frame(2), 0.0)) == 1  # the retransmission goes through
    assert faults.counts["dropped"] == 1


def test_script_ignores_frames_without_that_event() -> None:
    faults = layer(script=[{"at_event": 1, "fault": "drop"}])
    status = frame(m.MsgType.STATUS, m.status_body(0, 1, 0))  # a reply: no event id
    heartbeat = frame(m.MsgType.HEARTBEAT, bytes(4), sequenced=False)
    reader_event = frame(m.MsgType.PEEK_RESULT, m.encode_event_payload(1, b"\x01"))
    for f in (status, heartbeat, reader_event):
        assert len(faults.apply(f, 0.0)) == 1
    assert faults.apply(event_frame(1), 0.0) == []


def test_scripted_corrupt_fails_the_frame_check() -> None:
    faults = layer(script=[{"at_event": 1, "fault": "corrupt"}])
    f = event_frame(1)
    (out,) = faults.apply(f, 0.0)
    assert len(out.data) == len(f) and out.data != f
    assert codec.check(out.data) < 0


def test_scripted_delay_duplicate_and_nak() -> None:
    faults = layer(
        script=[
            {"at_event": 1, "fault": "delay", "delay_ms": 250},
            {"at_event": 2, "fault": "duplicate"},
            {"at_event": 3, "fault": "nak"},
        ]
    )
    (delayed,) = faults.apply(event_frame(1), 5.0)
    assert delayed.not_before == pytest.approx(5.25)
    f2 = event_frame(2)
    assert [o.data for o in faults.apply(f2, 6.0)] == [f2, f2]
    assert not faults.take_nak()
    assert len(faults.apply(event_frame(3), 7.0)) == 1
    assert faults.take_nak()
    assert not faults.take_nak()
    assert faults.counts == {"corrupted": 0, "dropped": 0, "duplicated": 1, "delayed": 1, "naks": 1}


def test_rates_replay_identically_for_a_seed() -> None:
    frames = [event_frame(i) for i in range(1, 200)]

    def run(seed: int) -> list[list[bytes]]:
        faults = layer(seed=seed, rates={"drop": 0.2, "corrupt": 0.2, "duplicate": 0.2})
        return [[o.data for o in faults.apply(f, 0.0)] for f in frames]

    first = run(3)
    assert run(3) == first
    assert run(4) != first
    assert sum(1 for out in first if not out) > 10  # drops
    assert sum(1 for out in first if len(out) == 2) > 10  # duplicates
    assert sum(1 for out in first if out and codec.check(out[0]) < 0) > 10  # corruptions


def test_replacing_the_fault_set_takes_effect() -> None:
    faults = layer(rates={"drop": 1.0})
    assert faults.apply(event_frame(1), 0.0) == []
    faults.replace(FaultSpec())
    assert len(faults.apply(event_frame(2), 0.0)) == 1


# --------------------------------------------------------------------------- firmware


def identity(kind: m.DeviceKind) -> Identity:
    return Identity(kind, "SIM", "S-1", "1.0.0")


def shoe(cards: list[str], pace: Pace = Pace.MANUAL) -> ShoeFirmware:
    return ShoeFirmware(
        identity(m.DeviceKind.SHOE),
        KEY,
        lambda _b: None,
        cards=cards,
        rng=random.Random(1),
        pace=pace,
    )


def backlog_types(fw: ShoeFirmware | ReaderFirmware | ShufflerFirmware) -> list[m.MsgType]:
    return [m.MsgType(t) for _id, t, _p in fw.endpoint.backlog]


def test_shoe_draws_cards_cut_and_empty_once() -> None:
    fw = shoe(["AS", "CUT", "TD"])
    fw.start()
    fw.control("face_up", {})
    assert fw.control("draw", {"count": 3}) == {"event_ids": [2, 3, 4, 5]}
    assert backlog_types(fw) == [
        m.MsgType.CARDS_LOADED,
        m.MsgType.CARD_DRAWN,
        m.MsgType.CUT_CARD,
        m.MsgType.CARD_DRAWN,
        m.MsgType.SHOE_EMPTY,
    ]
    payloads = [p[4:] for _id, _t, p in fw.endpoint.backlog]
    assert payloads[0] == m.count_body(2)
    assert payloads[1] == m.card_body("A", "S", True)
    assert payloads[3] == m.card_body("T", "D", False)
    with pytest.raises(CommandError, match="empty"):
        fw.control("draw", {})


def test_shoe_refuses_draws_beyond_its_contents_without_drawing() -> None:
    fw = shoe(["AS", "KD"])
    with pytest.raises(CommandError, match="only 2 cards left"):
        fw.control("draw", {"count": 3})
    assert fw.cards_left == 2


def test_full_backlog_is_reported_once_and_refuses_more_events() -> None:
    fw = shoe(["AS"] * 4100)
    fw.endpoint.backlog_limit = 10
    fw.start()
    fw.control("draw", {"count": 9})
    assert len(fw.endpoint.backlog) == 11
    assert fw.endpoint.backlog[-1][1] == m.MsgType.FAULT
    assert fw.endpoint.backlog[-1][2][4:] == m.fault_body(m.FaultCode.BACKLOG_FULL, 0)
    with pytest.raises(CommandError, match="backlog is full"):
        fw.control("draw", {})
    fw.tick(0.0)
    assert backlog_types(fw).count(m.MsgType.FAULT) == 1
    fw.endpoint.backlog.clear()  # as if the host acknowledged everything
    fw.tick(0.0)
    fw.control("draw", {"count": 10})
    assert backlog_types(fw).count(m.MsgType.FAULT) == 1  # full again: said again


def test_instant_pace_never_runs_ahead_of_the_link_window() -> None:
    fw = shoe(["AS"] * 50, Pace.INSTANT)
    fw.start()
    fw.tick(0.0)
    assert len(fw.endpoint.backlog) == 1  # no session: nothing is dealt
    fw.endpoint.link.establish(bytes(16), bytes(16))
    fw.tick(0.0)
    window = fw.endpoint.link.config.window
    assert fw.endpoint.link.unacked == window  # frames in flight, not yet acknowledged
    assert len(fw.endpoint.backlog) == 1 + window
    fw.tick(0.0)
    assert len(fw.endpoint.backlog) == 1 + window  # nothing more until the link ACKs


def test_realistic_pace_deals_one_card_per_interval_while_connected() -> None:
    fw = shoe(["AS"] * 5, Pace.REALISTIC)
    fw.pace_interval = 1.5
    fw.tick(0.0)
    assert fw.next_deadline() is None
    fw.endpoint.link.establish(bytes(16), bytes(16))
    fw.tick(10.0)
    assert fw.next_deadline() == 11.5
    fw.tick(11.4)
    assert fw.cards_left == 5
    fw.tick(11.5)
    assert fw.cards_left == 4
    assert fw.next_deadline() == 13.0


def test_control_commands_check_names_and_fields() -> None:
    fw = shoe(["AS"])
    with pytest.raises(CommandError, match=r"unknown command 'insert' for a shoe \(known: .*draw"):
        fw.control("insert", {"card": "AS"})
    with pytest.raises(CommandError, match="draw takes no field 'cnt'"):
        fw.control("draw", {"cnt": 1})
    with pytest.raises(CommandError, match='"count" must be an integer'):
        fw.control("draw", {"count": True})
    with pytest.raises(CommandError, match="fault code"):
        fw.control("fault", {"code": 99})
    assert fw.control("fault", {"code": "sensor", "detail": 3}) == {"event_ids": [1]}
    assert fw.endpoint.backlog[0][2][4:] == m.fault_body(m.FaultCode.SENSOR, 3)
    assert fw.status_body() == (m.StatusState.FAULT, 1, 0)


def test_reader_answers_only_for_the_armed_target() -> None:
    # 551.8(e): blackjack yes or no, for an ace up (ten-valued hole card) or a face card up
    fw = ReaderFirmware(identity(m.DeviceKind.READER), KEY, lambda _b: None)
    results = []
    for target, card in [
        (m.PeekTarget.TEN_VALUE, "KS"),
        (m.PeekTarget.TEN_VALUE, "TD"),
        (m.PeekTarget.TEN_VALUE, "AS"),
        (m.PeekTarget.ACE, "AH"),
        (m.PeekTarget.ACE, "QH"),
    ]:
        fw.handle_command(m.MsgType.ARM, bytes((target,)))
        fw.control("insert", {"card": card})
        results.append(fw.endpoint.backlog[-1][2][4:])
        assert fw.target is None  # one peek per arming
    assert results == [b"\x01", b"\x01", b"\x00", b"\x01", b"\x00"]


def test_shuffler_completes_after_its_shuffle_time() -> None:
    fw = ShufflerFirmware(
        identity(m.DeviceKind.SHUFFLER), KEY, lambda _b: None, card_count=96, shuffle_time=2.0
    )
    fw.clock = lambda: 100.0
    fw.control("shuffle", {})
    assert fw.next_deadline() == 102.0
    assert fw.status_body() == (m.StatusState.BUSY, 96, 0)
    fw.tick(101.9)
    assert backlog_types(fw) == [m.MsgType.SHUFFLE_STARTED]
    fw.tick(102.0)
    assert backlog_types(fw)[1:] == [m.MsgType.SHUFFLE_COMPLETED, m.MsgType.BATCH_READY]
    assert fw.next_deadline() is None
