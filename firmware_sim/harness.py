"""Run simulators as child processes from tests, benchmarks and the bench CLI.

with SimProcess("shoe", tmp_path, key, ["--cards", "AS KD"]) as sim:
    drv = sim.driver(events)
    ...
    sim.control("draw", count=2)
    sim.post("draw", count=2)  # the reply read later: sim.answer()
"""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import IO, TYPE_CHECKING, Any

from drivers import messages as m
from drivers.identity import DEFAULT_FIRMWARE_VERSION, DEFAULT_MODEL, firmware_hash
from drivers.keys import KeyFileError, load_key, write_key
from firmware_sim.control import SimControl, SimError

# The host's drivers are imported by ``driver`` alone: spawning simulators needs none.
if TYPE_CHECKING:
    from drivers.device import DeviceDriver, DriverConfig

__all__ = ["SimControl", "SimError", "SimProcess"]

KINDS = tuple(k.label for k in m.DeviceKind)


class SimProcess:
    """One ``python -m firmware_sim KIND`` child with its key, link and control socket in
    ``workdir``. Its JSON log goes to ``NAME.log``, its stderr to ``NAME.stderr``."""

    def __init__(
        self,
        kind: str,
        workdir: Path,
        key: bytes,
        args: Sequence[str] = (),
        name: str | None = None,
    ) -> None:
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
        self.kind = kind
        self.name = name or kind
        self.workdir = Path(workdir)
        self.key = key
        self.args = tuple(args)
        self.link_path = self.workdir / f"{self.name}.tty"
        self.control_path = self.workdir / f"{self.name}.control"
        self.key_path = self.workdir / f"{self.name}.key"
        self.log_path = self.workdir / f"{self.name}.log"
        self.stderr_path = self.workdir / f"{self.name}.stderr"
        self.process: subprocess.Popen[bytes] | None = None
        self._control: SimControl | None = None
        self._files: list[IO[bytes]] = []
        self._parent_w: int | None = None  # the simulator's stdin pipe (--exit-with-parent)
        self._write_key()

    def _write_key(self) -> None:
        if not self.key_path.exists():
            write_key(str(self.key_path), self.key)
            return
        try:
            same = load_key(str(self.key_path)) == self.key
        except KeyFileError as exc:
            raise SimError(str(exc)) from None
        if not same:
            raise SimError(f"{self.key_path} already holds a different key")

    @property
    def firmware_hash(self) -> bytes:
        """Hash of the firmware this simulator reports, for the approved list."""
        kind = m.DeviceKind[self.kind.upper()]
        model = _option(self.args, "--model") or DEFAULT_MODEL[kind]
        version = _option(self.args, "--firmware-version") or DEFAULT_FIRMWARE_VERSION
        return firmware_hash(kind, model, version)

    def start(self, timeout: float = 10.0) -> SimProcess:
        """Spawn the simulator; return once its port exists and its control socket answers."""
        self.spawn()
        return self.wait_ready(timeout)

    def spawn(self) -> None:
        """Start the simulator's process without waiting for it (``wait_ready``), so that
        several can come up at once."""
        if self.process is not None and self.process.poll() is None:
            raise SimError(f"{self.name} simulator is already running")
        self._close_files()
        cmd = [
            sys.executable,
            "-m",
            "firmware_sim",
            self.kind,
            "--link",
            str(self.link_path),
            "--control",
            str(self.control_path),
            "--key-file",
            str(self.key_path),
            *self.args,
        ]
        out = open(self.log_path, "ab")  # noqa: SIM115 - the child keeps writing after return
        err = open(self.stderr_path, "wb")  # noqa: SIM115
        self._files = [out, err]
        # The simulator stops when this pipe ends: when we stop it, or die.
        parent_r, self._parent_w = os.pipe()
        try:
            self.process = subprocess.Popen(
                [*cmd, "--exit-with-parent"], stdin=parent_r, stdout=out, stderr=err
            )
        finally:
            os.close(parent_r)

    def wait_ready(self, timeout: float = 10.0) -> SimProcess:
        """Return once the spawned simulator's port exists and its control socket answers."""
        if self.process is None:
            raise SimError(f"{self.name} simulator was never started")
        deadline = time.monotonic() + timeout
        while True:
            rc = self.process.poll()
            if rc is not None:
                self._close_files()
                raise SimError(f"{self.name} simulator exited with status {rc}: {self._stderr()}")
            if self.link_path.is_symlink():
                try:
                    # Another simulator may still answer on these paths: check it is ours.
                    if self.control("status").get("pid") == self.process.pid:
                        return self
                except SimError:
                    if self._control is not None:
                        self._control.close()
                    self._control = None
            if time.monotonic() >= deadline:
                self.stop()
                raise SimError(f"{self.name} simulator did not come up within {timeout} s")
            time.sleep(0.01)

    def control(self, cmd: str, **fields: object) -> dict[str, Any]:
        """One control request; SimError with the simulator's one-line reason if refused."""
        return self._client().request(cmd, **fields)

    def post(self, cmd: str, **fields: object) -> None:
        """One control request sent without waiting for its reply (``answer``)."""
        self._client().post(cmd, **fields)

    def answer(self) -> dict[str, Any] | None:
        """The reply to the oldest request posted (``SimControl.answer``)."""
        return self._client().answer()

    def _client(self) -> SimControl:
        if self._control is None:
            self._control = SimControl(self.control_path)
        return self._control

    def driver(
        self,
        events: queue.Queue[m.Event],
        *,
        config: DriverConfig | None = None,
        approved: Sequence[bytes] | None = None,
    ) -> DeviceDriver:
        """A host driver (not started) for this simulator's port, approving its firmware."""
        from drivers.device import DRIVERS
        from drivers.transport import SerialTransport

        cls = DRIVERS[m.DeviceKind[self.kind.upper()]]
        path = str(self.link_path)
        return cls(
            self.name,
            lambda: SerialTransport(path),
            self.key,
            events,
            approved if approved is not None else [self.firmware_hash],
            config=config,
        )

    def stop(self, timeout: float = 5.0) -> int | None:
        """SIGTERM, then SIGKILL after ``timeout``; the exit status (None if never started)."""
        if self._control is not None:
            self._control.close()
            self._control = None
        proc = self.process
        if proc is None:
            return None
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self._close_files()
        return proc.returncode

    def _stderr(self) -> str:
        try:
            lines = self.stderr_path.read_text(errors="replace").strip().splitlines()
        except OSError:
            return "no stderr"
        return lines[-1] if lines else "no stderr"

    def _close_files(self) -> None:
        for fh in self._files:
            fh.close()
        self._files = []
        if self._parent_w is not None:
            os.close(self._parent_w)
            self._parent_w = None

    def __enter__(self) -> SimProcess:
        if self.process is None:
            self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


def _option(args: Sequence[str], name: str) -> str | None:
    """The last value given for ``name`` (``--name V`` or ``--name=V``) in ``args``."""
    value = None
    for i, arg in enumerate(args):
        if arg == name and i + 1 < len(args):
            value = args[i + 1]
        elif arg.startswith(name + "="):
            value = arg[len(name) + 1 :]
    return value
