"""One transaction per input: the rows an input produces are committed together
(``SqliteJournal.transaction``), and the daemon acts on them (a device's
acknowledgement, the API's lines, the watchers) only once they are durable
(``ObservedJournal.batch``)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from controller.journal import SqliteJournal, verify
from controller.journal.checkpoint import read_tail
from controller.journal.observed import ObservedJournal
from tests.support.journal import stored_rows


def test_the_rows_of_a_transaction_are_durable_together_when_it_ends(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    with SqliteJournal(path) as j:
        j.record({"type": "prompt", "text": "before"})
        with j.transaction():
            for n in range(3):
                j.record({"type": "dealt", "n": n})
            assert j.last_seq == 4
            assert len(stored_rows(path)) == 1  # another reader sees none of them yet
            with j.transaction():  # nested: the outer one commits
                j.record({"type": "round_end"})
            assert len(stored_rows(path)) == 1
        assert len(stored_rows(path)) == 5
        tail = read_tail(j.files.tail)
        assert tail is not None and tail.seq == 5
        j.record({"type": "prompt", "text": "after"})
    verdict = verify(path)
    assert verdict.ok and verdict.rows == 6


def test_a_transaction_that_raises_leaves_none_of_its_rows(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    with SqliteJournal(path) as j:
        j.record({"type": "prompt", "text": "kept"})
        with pytest.raises(RuntimeError), j.transaction():
            j.record({"type": "dealt", "n": 1})
            raise RuntimeError("the input failed")
        assert j.last_seq == 1
        j.record({"type": "prompt", "text": "next"})  # the chain goes on from row 1
    assert [r[0] for r in stored_rows(path)] == [1, 2]
    assert verify(path).ok


class Listed(ObservedJournal):
    def __init__(self) -> None:
        super().__init__()
        self.durable: list[str] = []  # what happened, in order
        self.open = False

    def _write(self, entry: Mapping[str, object]) -> object:
        self.durable.append(f"write {entry['type']}" + (" (open)" if self.open else ""))
        return None

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        self.open = True
        yield
        self.open = False
        self.durable.append("commit")


def test_a_batch_acknowledges_then_tells_the_watchers_once_it_has_committed() -> None:
    journal = Listed()
    journal.watchers.append(lambda e: journal.durable.append(f"watch {e['type']}"))
    with journal.batch():
        journal.record({"type": "device"})
        journal.when_durable(lambda: journal.durable.append("ack"))
        journal.record({"type": "dealt"})
        assert journal.counts["dealt"] == 1  # counted at once: the table's thread reads them
    assert journal.durable == [
        "write device (open)",
        "write dealt (open)",
        "commit",
        "ack",
        "watch device",
        "watch dealt",
    ]
    journal.durable.clear()
    journal.record({"type": "prompt"})  # no batch: durable when written
    journal.when_durable(lambda: journal.durable.append("ack"))
    assert journal.durable == ["write prompt", "watch prompt", "ack"]


def test_a_batch_that_raises_tells_nobody() -> None:
    journal = Listed()
    journal.watchers.append(lambda e: journal.durable.append(f"watch {e['type']}"))
    with pytest.raises(RuntimeError), journal.batch():
        journal.record({"type": "device"})
        journal.when_durable(lambda: journal.durable.append("ack"))
        raise RuntimeError("the input failed")
    assert "ack" not in journal.durable and "watch device" not in journal.durable


def test_a_batch_shows_what_it_holds_until_it_commits() -> None:
    journal = Listed()
    assert journal.held == 0 and journal.held_from(0) == []
    with journal.batch():
        journal.record({"type": "device"})
        mark = journal.held
        journal.record({"type": "dealt"})
        journal.record({"type": "round_end"})
        assert journal.held == 3
        assert [e["type"] for e in journal.held_from(mark)] == ["dealt", "round_end"]
    assert journal.held == 0 and journal.held_from(0) == []


def test_rows_of_an_open_transaction_are_inserted_at_its_commit_and_read_as_written(
    tmp_path: Path,
) -> None:
    path = tmp_path / "j.db"
    with SqliteJournal(path) as j:
        with j.transaction():
            j.record({"type": "dealt", "n": 1})
            j.record({"type": "dealt", "n": 2})
            # The same connection reads them (inserted first), another sees none yet.
            assert [r.entry["n"] for r in j.rows()] == [1, 2]
            assert stored_rows(path) == []
            j.record({"type": "dealt", "n": 3})
        assert [r[0] for r in stored_rows(path)] == [1, 2, 3]
    assert verify(path).ok


@pytest.mark.parametrize("count", [1, 6, 64, 65, 200])
def test_a_transaction_is_one_statement_or_begin_rows_commit(tmp_path: Path, count: int) -> None:
    """Up to 64 rows are inserted and committed by one statement, its own transaction;
    more in an explicit one. Either way the same rows, chained, in order."""
    path = tmp_path / "j.db"
    with SqliteJournal(path) as j:
        j.record({"type": "prompt", "text": "before"})
        statements: list[str] = []
        j._db.set_trace_callback(lambda sql: statements.append(sql.split(None, 1)[0].upper()))
        with j.transaction():
            for n in range(count):
                j.record({"type": "dealt", "n": n})
        j._db.set_trace_callback(None)
        one = ["INSERT"]
        assert statements == (one if count <= 64 else ["BEGIN", *["INSERT"] * count, "COMMIT"])
        assert [r.entry.get("n") for r in j.rows(1)] == list(range(count))
    verdict = verify(path)
    assert verdict.ok and verdict.rows == count + 1
