"""``tablectl uplink`` as the tests run it: its configuration file, the venv's
``tablectl`` as a real process with its log in a file, a simulated table writing a real
journal beside it, and the journal's rows read back as another tool would."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tests.support.journal import stored_rows
from tests.support.mosquitto import HOST, Broker

TABLECTL = str(Path(sys.executable).with_name("tablectl"))
FAST_RETRY = {"retry_min_ms": 100, "retry_max_ms": 500}  # back-off in the tests


def toml_value(value: object) -> str:
    return json.dumps(str(value)) if isinstance(value, str | Path) else str(value)


def write_config(path: Path, top: Mapping[str, object], broker: Mapping[str, object],
                 uplink: Mapping[str, object] | None = None) -> Path:  # fmt: skip
    """A TOML configuration from its three parts (values given as they should be)."""
    lines = [f"{k} = {toml_value(v)}" for k, v in top.items()]
    lines += ["[broker]", *(f"{k} = {toml_value(v)}" for k, v in broker.items())]
    if uplink is not None:
        lines += ["[uplink]", *(f"{k} = {toml_value(v)}" for k, v in uplink.items())]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def password_broker(broker: Broker, user: str, password_file: Path) -> dict[str, object]:
    """The [broker] table of a table logging in with a password."""
    password_file.write_text(broker.users[user] + "\n", encoding="utf-8")
    password_file.chmod(0o600)
    return {"host": HOST, "port": broker.port, "cafile": broker.certs.ca, "username": user,
            "password_file": password_file}  # fmt: skip


def cert_broker(broker: Broker, name: str) -> dict[str, object]:
    """The [broker] table of a table logging in with a client certificate (CN ``name``)."""
    cert, key = broker.certs.client(name)
    return {"host": HOST, "port": broker.cert_port, "cafile": broker.certs.ca, "certfile": cert,
            "keyfile": key}  # fmt: skip


def config(folder: Path, table: str, journal: Path, broker: Mapping[str, object],
           **uplink: object) -> Path:  # fmt: skip
    """The configuration of table ``table``'s uplink, its state in ``folder``/state."""
    folder.mkdir(parents=True, exist_ok=True)
    top = {"table_id": table, "journal": journal, "state_dir": folder / "state"}
    return write_config(folder / "uplink.toml", top, broker, {**FAST_RETRY, **uplink})


class UplinkProcess:
    """One ``tablectl uplink --config FILE``, stderr (its log) to a file."""

    def __init__(self, conf: Path, logfile: Path | None = None) -> None:
        self.conf = conf
        self.logfile = logfile or conf.with_suffix(".log")
        with self.logfile.open("ab") as log:
            self.proc = subprocess.Popen(
                [TABLECTL, "uplink", "--config", str(conf)],
                stdout=subprocess.DEVNULL,
                stderr=log,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
            )

    def log(self) -> str:
        return self.logfile.read_text(encoding="utf-8", errors="replace")

    def events(self, name: str) -> list[dict[str, Any]]:
        """The log lines of event ``name``, as JSON."""
        found = []
        for line in self.log().splitlines():
            text = line[3:] if line.startswith("<") else line
            if f'"event": "{name}"' in text:
                found.append(json.loads(text))
        return found

    def wait_log(self, name: str, count: int = 1, timeout: float = 20) -> list[dict[str, Any]]:
        deadline = time.monotonic() + timeout
        while len(found := self.events(name)) < count:
            assert self.proc.poll() is None, (
                f"the uplink exited {self.proc.returncode}:\n{self.log()}"
            )
            assert time.monotonic() < deadline, f"no {count} {name} in:\n{self.log()}"
            time.sleep(0.02)
        return found

    def stop(self, timeout: float = 10, sig: signal.Signals = signal.SIGTERM) -> int:
        """SIGTERM (or ``sig``): its exit status."""
        self.proc.send_signal(sig)
        return self.proc.wait(timeout)

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait(10)

    def __enter__(self) -> UplinkProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc.poll() is None:
            self.kill()


def simulated_table(workdir: Path, *args: str) -> subprocess.Popen[bytes]:
    """``tablectl run --simulate`` writing its journal in ``workdir``/journal.db."""
    return subprocess.Popen(
        [TABLECTL, "run", "--simulate", "--workdir", str(workdir), *args],
        stdout=subprocess.DEVNULL,
        stderr=(workdir.parent / f"{workdir.name}.stderr").open("wb"),
    )


def wait_for_file(path: Path, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.02)


def rows(journal: Path) -> list[tuple[int, str, str, str]]:
    """(seq, ts, body, hash) of every row, read-only."""
    return [(seq, ts, body, digest) for seq, ts, body, _, digest in stored_rows(journal)]


def cursor_of(state_dir: Path) -> dict[str, Any] | None:
    path = state_dir / "cursor.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None
