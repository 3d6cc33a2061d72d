"""What a command loads: ``tablectl run --config`` up to READY=1 and its stop, and
``tablectl analyze``, each in a real process that lists its ``sys.modules`` as it
exits. A command loads what it uses, nothing it does not (controller/cli.py,
drivers/logs.py, controller/games.py): the production daemon no terminal view (rich),
no bench, no simulator, no odds analysis, no asyncio; ``analyze`` no daemon and no
table engine; a firmware simulator neither the typed events it never decodes
(drivers/messages/__init__.py) nor asyncio."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from drivers.keys import write_key
from tests.support.daemon import NotifySocket, configured_table

# Run ``tablectl ARGS`` (controller.cli.main) and, as the process exits, write every
# module it has loaded to the file named first, one a line.
LISTING = """
import atexit, sys
listing, *words = sys.argv[1:]
def dump():
    with open(listing, "w") as out:
        out.write("\\n".join(sorted(sys.modules)))
atexit.register(dump)
from controller.cli import main
sys.exit(main(words))
"""

# What the production daemon never loads (asyncio: structlog's coroutine methods alone
# use it, drivers/logs.py).
NOT_FOR_A_DAEMON = (
    "rich",
    "pygments",
    "asyncio",
    "controller.bench",
    "firmware_sim",
    "controller.analyze",
    # The shuffle monitor's statistics are its own process's (controller/shuffle_watch.py).
    "numpy",
    "scipy",
    "controller.shuffle",
    "controller.shuffle_watch",
)


def _under(modules: list[str], *prefixes: str) -> list[str]:
    return [m for m in modules if any(m == p or m.startswith(p + ".") for p in prefixes)]


def _tablectl(
    listing: Path, *words: str, env: dict[str, str], main: str = "controller.cli"
) -> subprocess.Popen[str]:
    script = LISTING.replace("controller.cli", main)
    return subprocess.Popen(
        [sys.executable, "-c", script, str(listing), *words],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **env},
    )


def test_a_configured_daemon_loads_no_view_bench_simulator_or_analysis(tmp_path: Path) -> None:
    config, shoe, shuffler = configured_table(tmp_path)
    notify = NotifySocket(tmp_path / "notify.sock")
    listing = tmp_path / "modules.txt"
    try:
        with shoe, shuffler:
            env = {"NOTIFY_SOCKET": str(notify.path), "PYTHONUNBUFFERED": "1"}
            proc = _tablectl(listing, "run", "--config", str(config), env=env)
            try:
                notify.wait_for("READY=1")  # every device connected, the table built
            finally:
                proc.send_signal(signal.SIGTERM)
            _, err = proc.communicate(timeout=30)
    finally:
        notify.close()
    assert proc.returncode == 0, err
    loaded = listing.read_text().split()
    # It did run the table: the drivers, the table engine, the journal, the API.
    assert {"drivers.device.shoe", "controller.table.baccarat.table"} <= set(loaded)
    assert {"controller.journal.store", "controller.api.server"} <= set(loaded)
    assert _under(loaded, *NOT_FOR_A_DAEMON) == []
    assert not any("analysis" in m for m in _under(loaded, "controller.rules"))
    # A Baccarat table: Spanish 21's table engine stays out too.
    assert _under(loaded, "controller.table.spanish21") == []


def test_analyze_loads_the_rules_and_no_daemon_or_table(tmp_path: Path) -> None:
    listing = tmp_path / "modules.txt"
    proc = _tablectl(listing, "analyze", "baccarat", "--decks", "8", env={})
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert out.startswith("baccarat, 8 decks")
    loaded = listing.read_text().split()
    assert "controller.rules.baccarat_analysis" in loaded
    assert _under(loaded, "controller.daemon", "controller.table", "controller.journal") == []
    assert _under(loaded, "rich", "drivers.device", "transitions", "firmware_sim") == []


def test_a_simulator_loads_no_typed_events_or_asyncio(tmp_path: Path) -> None:
    key, link = tmp_path / "shoe.key", tmp_path / "shoe.tty"
    write_key(str(key), bytes(range(32)))
    listing = tmp_path / "modules.txt"
    words = ("shoe", "--link", str(link), "--key-file", str(key), "--cards", "AS KD")
    proc = _tablectl(listing, *words, env={}, main="firmware_sim.cli")
    try:
        deadline = time.monotonic() + 30
        while not link.is_symlink() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)  # its pty is up: it has imported all it needs to serve
    finally:
        proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    loaded = listing.read_text().split()
    assert {"drivers.messages.payloads", "drivers.link.core", "firmware_sim.process"} <= set(loaded)
    assert _under(loaded, "drivers.messages.events", "drivers.messages.decoding") == []
    assert _under(loaded, "asyncio", "rich", "controller", "drivers.device") == []
