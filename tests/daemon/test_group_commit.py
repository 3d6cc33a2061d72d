"""Group commit through the real stack (simulators on pseudo-terminals, the real
drivers and link, the SQLite journal on disk): the device events queued behind one
share its transaction, and still no event is acknowledged to its device before the
rows it produced are durable, as another connection to the journal sees them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from controller.journal import SqliteJournal, verify
from tests.support.daemon import finish

# `tablectl run` with two witnesses: each device acknowledgement first looks for its
# event's row through a second, read-only connection (only committed rows are there),
# and each commit counts the device rows it makes durable.
WATCHED = """
import atexit, json, sqlite3, sys
from pathlib import Path
from controller import cli
from controller.journal import store
from drivers.device.driver import DeviceDriver
workdir = Path(sys.argv[sys.argv.index("--workdir") + 1])
seen = {"acks": 0, "early": [], "device_rows_per_commit": []}
reader = []

def durable(device, event_id):
    if not reader:
        path = workdir / "journal.db"
        reader.append(sqlite3.connect(f"file:{path}?mode=ro", uri=True))
    like = f'%"event_id":{event_id}%'
    found = reader[0].execute("SELECT body FROM rows WHERE body LIKE ?", (like,))
    entries = [json.loads(body) for (body,) in found]
    return any(
        e.get("type") == "device" and e.get("device") == device and e.get("event_id") == event_id
        for e in entries
    )

ack = DeviceDriver.commit
def checked_ack(self, event_id):
    seen["acks"] += 1
    if not durable(self.name, event_id):
        seen["early"].append([self.name, event_id])
    ack(self, event_id)
DeviceDriver.commit = checked_ack

commit = store.SqliteJournal._commit
def counted_commit(self):
    devices = sum('"type":"device"' in row[2] for row in self._rows)
    commit(self)
    seen["device_rows_per_commit"].append(devices)
store.SqliteJournal._commit = counted_commit

out = workdir / "witness.json"
atexit.register(lambda: out.write_text(json.dumps(seen)))
sys.exit(cli.main(["run", *sys.argv[1:]]))
"""


def test_grouped_events_are_acknowledged_only_after_their_commit(tmp_path: Path) -> None:
    run = ("--simulate", "--rounds", "60", "--pace-ms", "0", "--seed", "3")
    proc = subprocess.Popen(
        [sys.executable, "-c", WATCHED, *run, "--workdir", str(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    code, _out, err = finish(proc, timeout=120)
    assert code == 0, err
    seen = json.loads((tmp_path / "witness.json").read_text())
    assert seen["early"] == []  # no event acknowledged before its row was durable
    with SqliteJournal(tmp_path / "journal.db") as journal:
        entries = [row.entry for row in journal.rows()]
    cards = sum(e.get("event") == "card_drawn" for e in entries if e["type"] == "device")
    assert seen["acks"] >= cards > 60 * 4
    # A round's four first cards are drawn at once: some commits hold several of them.
    assert max(seen["device_rows_per_commit"]) >= 2
    assert verify(tmp_path / "journal.db").ok
