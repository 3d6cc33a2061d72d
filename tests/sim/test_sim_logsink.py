"""The simulator's batched JSON log: the same lines structlog's own processors make."""

from __future__ import annotations

import datetime
import json
import os

import structlog
from structlog.processors import ExceptionRenderer, JSONRenderer
from structlog.tracebacks import ExceptionDictTransformer

from firmware_sim import logsink
from firmware_sim.logsink import LogSink, processors


def _read_all(fd: int) -> str:
    os.set_blocking(fd, False)
    chunks = []
    while True:
        try:
            chunks.append(os.read(fd, 65536))
        except BlockingIOError:
            return b"".join(chunks).decode()


def _standard_line(method: str, event_dict: dict[str, object], stamp: str) -> str:
    """What structlog's merge_contextvars (device bound), add_log_level, TimeStamper,
    ExceptionRenderer and JSONRenderer make of one call, the timestamp given."""
    event_dict = dict(event_dict)
    event_dict.setdefault("device", "shoe")
    event_dict = structlog.processors.add_log_level(None, method, event_dict)
    event_dict["timestamp"] = stamp
    event_dict = ExceptionRenderer(ExceptionDictTransformer(show_locals=False))(
        None, method, event_dict
    )
    rendered = JSONRenderer(default=repr)(None, method, event_dict)
    assert isinstance(rendered, str)
    return rendered


def test_lines_are_structlogs_own() -> None:
    read, write = os.pipe()
    try:
        sink = LogSink(write)
        (render,) = processors("shoe")
        calls = [
            ("info", {"event": "event", "type": "CARD_DRAWN", "event_id": 7}),
            ("warning", {"event": "backlog_full", "rates": {"drop": 0.5}, "t": (1, None)}),
            ("warn", {"event": "odd", "text": 'é\n"', "obj": object}),
            ("debug", {"event": "control", "cmd": "status", "device": "other"}),
        ]
        for method, fields in calls:
            args, kwargs = render(None, method, dict(fields))
            assert not kwargs
            sink.msg(*args)
        stamps = [entry["timestamp"] for entry in sink._entries]
        assert sink.due() is not None
        sink.flush()
        assert sink.due() is None
        lines = _read_all(read).splitlines()
    finally:
        os.close(read)
        os.close(write)
    assert len(lines) == len(calls)
    for line, (method, fields), ns in zip(lines, calls, stamps, strict=True):
        assert isinstance(ns, int)
        stamp = json.loads(line)["timestamp"]
        assert line == _standard_line(method, fields, stamp)
        # structlog's TimeStamper(fmt="iso", utc=True) of that moment
        when = datetime.datetime.fromtimestamp(ns / 1e9, datetime.UTC)
        assert abs(datetime.datetime.fromisoformat(stamp) - when).total_seconds() < 1e-5


def test_exception_is_rendered_at_the_call() -> None:
    (render,) = processors("shoe")
    try:
        raise ZeroDivisionError("division by zero")
    except ZeroDivisionError:
        (entry,), _ = render(None, "exception", {"event": "sim_crashed", "exc_info": True})
    assert "exc_info" not in entry
    assert entry["exception"][0]["exc_type"] == "ZeroDivisionError"
    assert entry["level"] == "error"


def test_timestamps_match_isoformat() -> None:
    stamp = logsink._Timestamps()
    for ns in (1_764_600_000_000_000_000, 1_764_600_000_123_456_789, 1_764_600_001_000_001_000):
        when = datetime.datetime.fromtimestamp(ns // 1000 / 1e6, datetime.UTC)
        assert stamp(ns) == when.isoformat().replace("+00:00", "Z")


def test_a_full_batch_is_written_at_once() -> None:
    read, write = os.pipe()
    try:
        sink = LogSink(write)
        (render,) = processors("shoe")
        for n in range(logsink.FLUSH_LINES):
            (entry,), _ = render(None, "info", {"event": "event", "event_id": n})
            sink.msg(entry)
        assert sink.due() is None  # the last line filled the batch: written
        assert len(_read_all(read).splitlines()) == logsink.FLUSH_LINES
    finally:
        os.close(read)
        os.close(write)
