"""The uplink's messages read back as the floor reads them: a row's message whole, and
everything else refused with one line (controller/uplink/messages.py)."""

from __future__ import annotations

import json

import pytest

from controller.uplink.messages import (
    journal_message,
    offline,
    parse_journal,
    parse_status,
    status_message,
    table_of,
)

BODY = '{"card":"AS","type":"dealt"}'


def test_a_rows_message_reads_back_as_the_row() -> None:
    got = parse_journal(journal_message("BAC-01", 7, "2026-12-02T01:00:00+00:00", BODY, "h7"))
    assert (got.table, got.seq, got.ts, got.hash) == (
        "BAC-01",
        7,
        "2026-12-02T01:00:00+00:00",
        "h7",
    )
    assert got.entry == json.loads(BODY)
    assert table_of("tablectl/BAC-01/journal") == "BAC-01"
    assert table_of("tablectl/BAC-01/other/journal") is None


def test_a_sealed_card_with_a_value_goes_out_withheld() -> None:
    # 551.8(e): the row's message says a row was withheld, never its card.
    body = '{"card":"KH","sealed":true,"type":"dealt"}'
    payload = journal_message("S21-1", 9, "t", body, "h9")
    assert b"KH" not in payload
    got = parse_journal(payload)
    assert got.entry is None and got.event["type"] == "withheld"


def _message(**change: object) -> bytes:
    data = json.loads(journal_message("T1", 3, "t", BODY, "h"))
    data.update(change)
    return json.dumps(data).encode()


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        (b"\xff", "not JSON"),
        (b"[1]", "not a JSON object"),
        (_message(table="../T2"), "no valid table id"),
        (_message(seq=0), "no valid seq"),
        (_message(seq=True), "no valid seq"),
        (_message(hash=None), "no ts, hash or event"),
        (_message(seq=4), "not the events socket's line"),
    ],
)
def test_anything_else_is_one_line(payload: bytes, reason: str) -> None:
    with pytest.raises(ValueError, match=reason) as caught:
        parse_journal(payload)
    assert "\n" not in str(caught.value)


def test_statuses_read_back_and_bad_ones_are_refused() -> None:
    online = parse_status(status_message("T1", {"state": "round over", "seq": 4}))
    assert online == {"table": "T1", "online": True, "state": "round over", "seq": 4}
    assert parse_status(offline("T1")) == {"table": "T1", "online": False}
    for bad, reason in ((b"{}", "not a status"), (b'{"online": true}', "no valid table id")):
        with pytest.raises(ValueError, match=reason):
            parse_status(bad)
