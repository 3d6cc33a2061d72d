"""The floor's pieces without a broker: each table's track (duplicates, gaps, a late
row), its state file written atomically, acknowledgements held until it is saved, the
pit across tables fed with real protocol messages (controller/uplink/messages.py) and
its need-first order."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from controller.floor import tracks
from controller.floor.floorpit import NEEDS, FloorPit, need_order
from controller.floor.keeper import DELAY, POLL, Keeper
from controller.floor.tracks import Track
from controller.uplink.messages import journal_message, offline, parse_journal, parse_status

TS = "2026-12-02T02:00:00.000000+00:00"
ALERT = {"type": "shuffle_alert", "shoe": 1, "confidence": 0.99, "failed": ["rising_sequences"],
         "p_values": {"rising_sequences": 2e-5, "chi2": 0.3}}  # fmt: skip


def test_a_track_drops_duplicates_and_records_a_gap_and_its_late_rows() -> None:
    track = Track()
    verdicts = [track.admit(seq) for seq in (7, 8, 8, 3, 12, 10, 12, 9, 11)]
    assert verdicts == [
        "first",  # the floor joins at 7: nothing before it is owed
        "new",
        "duplicate",
        "duplicate",
        "gap",  # 9 to 11 missing
        "recovered",
        "duplicate",
        "recovered",
        "recovered",
    ]
    assert track.seq == 12 and track.missing == [] and track.missing_rows == 0
    track.admit(20)
    assert track.missing == [[13, 19]] and track.missing_rows == 7
    track.admit(15)
    assert track.missing == [[13, 14], [16, 19]]


def test_the_tracks_file_is_replaced_whole_and_read_back(tmp_path: Path) -> None:
    assert tracks.load(tmp_path) == {}
    saved = {"BAC-01": Track(41, "baccarat", [[3, 4]]), "S21-02": Track(2)}
    tracks.save(tmp_path, saved)
    assert tracks.load(tmp_path) == saved
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tracks.json"]  # no temporary left
    (tmp_path / "tracks.json").write_text("{not json", encoding="utf-8")
    try:
        tracks.load(tmp_path)
    except tracks.TrackError as exc:
        assert "tracks.json: unreadable" in str(exc) and "\n" not in str(exc)
    else:
        raise AssertionError("a damaged state file was read")


def _feed(floor: FloorPit, table: str, seq: int, entry: dict[str, object]) -> None:
    body = json.dumps(entry)
    message = parse_journal(journal_message(table, seq, TS, body, "00" * 32))
    floor.on_row(table, seq, message, 0.0)


def _status(floor: FloorPit, table: str, online: bool) -> None:
    payload = (
        json.dumps({"table": table, "online": True, "state": "place your bets"}).encode()
        if online
        else offline(table)
    )
    floor.on_status(table, parse_status(payload), 0.0)


def test_the_pit_orders_tables_by_what_needs_a_floorperson_first() -> None:
    floor = FloorPit()
    at = datetime.fromisoformat(TS).timestamp()
    header = {"type": "journal", "format": 1, "game": "baccarat"}
    names = ("A-quiet", "B-gap", "C-device", "D-fault", "E-halted", "F-offline", "G-quiet")
    for table in (*names, "H-shuffle"):
        _feed(floor, table, 1, {**header, "table": table})
        _status(floor, table, online=True)
    _feed(floor, "C-device", 2, {"type": "device", "event": "device_lost", "device": "shoe"})
    _feed(floor, "D-fault", 2, {"type": "irregularity", "cause": "face_up", "section": "545.10"})
    _feed(floor, "E-halted", 2, {"type": "halt", "cause": "device_lost", "device": "shoe"})
    _feed(floor, "H-shuffle", 2, ALERT)
    _status(floor, "F-offline", online=False)
    tracks_now = {t: Track(1, "baccarat") for t in ("A-quiet", "C-device", "G-quiet")}
    tracks_now["H-shuffle"] = Track(2, "baccarat")
    tracks_now["B-gap"] = Track(9, "baccarat", [[2, 8]])
    views = floor.views(tracks_now, now=at)
    assert [v["table"] for v in views] == [
        "F-offline",
        "E-halted",
        "D-fault",
        "C-device",
        "H-shuffle",
        "B-gap",
        "A-quiet",
        "G-quiet",
    ]
    by_table = {v["table"]: v for v in views}
    assert by_table["E-halted"]["needs"] == ["stopped", "fault"]  # a halt is a fault too
    assert by_table["E-halted"]["state"] == "play stopped: floorperson called"
    assert by_table["C-device"]["devices"] == {"shoe": "lost"}
    assert by_table["B-gap"]["missing"] == [[2, 8]] and by_table["B-gap"]["missing_rows"] == 7
    assert by_table["A-quiet"]["needs"] == [] and by_table["F-offline"]["online"] is False
    assert by_table["H-shuffle"]["needs"] == ["shuffle"]
    assert by_table["H-shuffle"]["shuffle_alert"]["latest"]["failed"] == ["rising_sequences"]
    assert by_table["A-quiet"]["shuffle_alert"] is None
    assert [need_order(v)[0] for v in views] == [0, 1, 2, 3, 4, 5, 6, 6] and len(NEEDS) == 6


def _alert_status(floor: FloorPit, table: str, seq: int, said: object) -> None:
    payload = json.dumps({"table": table, "online": True, "seq": seq, "shuffle_alert": said})
    floor.on_status(table, parse_status(payload.encode()), 0.0)


def test_a_shuffle_alert_from_the_rows_or_from_a_status_as_new_until_acknowledged() -> None:
    floor = FloorPit()
    tracks_now = {"S-rows": Track(3), "S-late": Track(12)}

    def alert_of(table: str) -> object:
        return {v["table"]: v for v in floor.views(tracks_now)}[table]["shuffle_alert"]

    # From row 1: the rows say it, a status of an uplink that does not is no matter.
    _feed(floor, "S-rows", 1, {"type": "journal", "format": 1, "game": "baccarat"})
    _feed(floor, "S-rows", 2, {**ALERT, "shoe": 4})
    _status(floor, "S-rows", online=True)
    rows_said = alert_of("S-rows")
    assert rows_said == {"shoes": [4], "latest": {"shoe": 4, "failed": ["rising_sequences"],
                                                  "p_value": 2e-5, "confidence": 0.99}}  # fmt: skip
    _feed(floor, "S-rows", 3, {"type": "command", "command": "acknowledge_shuffle_alert",
                               "shoe": 4, "login": "fred"})  # fmt: skip
    assert alert_of("S-rows") is None
    # Joined after the alert (its row came before the floor did): the status says it.
    _alert_status(floor, "S-late", 10, rows_said)
    _feed(floor, "S-late", 11, {"type": "shuffled", "shoe": 5})
    assert alert_of("S-late") == rows_said
    (late,) = [v for v in floor.views(tracks_now) if v["table"] == "S-late"]
    assert late["needs"] == ["shuffle"]
    # Its acknowledgement row is newer than the status: the rows' word until the next.
    _feed(floor, "S-late", 12, {"type": "command", "command": "acknowledge_shuffle_alert",
                                "shoe": 4, "login": "fred"})  # fmt: skip
    assert alert_of("S-late") is None
    _alert_status(floor, "S-late", 12, None)
    assert alert_of("S-late") is None
    _alert_status(floor, "S-late", 13, "not an alert")  # a status not of this protocol
    assert alert_of("S-late") is None


def test_a_withheld_row_moves_the_seq_not_the_pit_and_the_game_can_come_later() -> None:
    floor = FloorPit()
    # A card marked sealed that carries a value (551.8(e)): the table withholds it.
    sealed = {
        "type": "device",
        "event": "device_lost",
        "device": "shoe",
        "card": "AS",
        "sealed": True,
    }
    _feed(floor, "S21-01", 5, {"type": "round_end", "round": 1, "void": False})
    _feed(floor, "S21-01", 6, sealed)
    (waiting,) = floor.views({"S21-01": Track(6)})
    assert waiting["game"] is None and "rounds" not in waiting and waiting["seq"] == 6
    floor.know({"S21-01": Track(6, "spanish21")})  # a restarted floor's saved game
    (view,) = floor.views({"S21-01": Track(6, "spanish21")})
    assert view["game"] == "spanish21" and view["rounds"] == 1  # the waiting row counted
    assert view["devices"] == {} and view["needs"] == []  # the withheld row never fed it
    assert "AS" not in json.dumps(view)


def _tend_until(keeper: Keeper, done: Callable[[], bool], timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < deadline, "the keeper never got there"
        keeper.tend()
        time.sleep(keeper.wait())


def test_acknowledgements_wait_for_the_save_and_a_failed_save_holds_them(tmp_path: Path) -> None:
    state = tmp_path / "state"  # missing at first: the save fails, as on a full disk
    acked: list[int] = []
    kept = {"BAC-01": Track(3, "baccarat")}
    keeper = Keeper(state, lambda: {t: k.copy() for t, k in kept.items()}, acked.append)
    for mid in (11, 12, 13):
        keeper.hold(mid)
    keeper.dirty = True
    time.sleep(DELAY)
    keeper.tend()
    assert keeper.wait() == POLL  # a save runs
    _tend_until(keeper, lambda: keeper.wait() != POLL)
    assert acked == [] and keeper.held == 3 and keeper.dirty is True  # not kept: none sent
    state.mkdir()
    _tend_until(keeper, lambda: acked == [11, 12, 13])  # saved after its retry, then sent
    assert tracks.load(state) == kept and keeper.held == 0
    keeper.hold(14)  # a duplicate moves nothing: sent at once
    keeper.tend()
    assert acked == [11, 12, 13, 14]
    kept["BAC-01"].seq = 4
    keeper.hold(15)
    keeper.dirty = True
    keeper.close(connected=True)  # the follower stops: saved, then acknowledged
    assert acked[-1] == 15 and tracks.load(state)["BAC-01"].seq == 4
