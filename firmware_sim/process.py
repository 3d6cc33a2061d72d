"""One simulated device as an OS process: a pseudo-terminal, a control socket, one loop.

The slave side of the pty is published at a stable path (as udev would) for the
host's ordinary serial driver. Everything runs in a single-threaded select loop
whose timeout comes from the link's and the firmware's next deadlines.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import select
import signal
import time
import tty
from collections.abc import Callable
from types import FrameType

import structlog

from firmware_sim.control import CommandError, ControlServer, Fields, Reply, int_field
from firmware_sim.devices.base import Command, Firmware, dispatch, no_fields
from firmware_sim.faults import FaultSpec
from firmware_sim.logsink import LogSink
from firmware_sim.wire import Wire

__all__ = ["Pty", "Simulator", "Wire"]

log = structlog.get_logger("firmware_sim")

MAX_DURATION_MS = 3_600_000


class Pty:
    """A raw pseudo-terminal whose slave is symlinked at ``link_path``."""

    def __init__(self, link_path: str) -> None:
        self.link_path = link_path
        self.master, self.slave = os.openpty()
        try:
            tty.setraw(self.slave)
            os.set_blocking(self.master, False)
            self.name = os.ttyname(self.slave)
            tmp = f"{link_path}.{os.getpid()}.tmp"
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            os.symlink(self.name, tmp)
            os.replace(tmp, link_path)  # atomic: a host never sees a half-made link
        except BaseException:
            os.close(self.master)
            os.close(self.slave)
            raise

    def close(self) -> None:
        """Unpublish and close: the host's open port fails as if the cable were pulled."""
        with contextlib.suppress(OSError):
            if os.readlink(self.link_path) == self.name:
                os.unlink(self.link_path)
        os.close(self.master)
        os.close(self.slave)


class Simulator:
    """Runs one firmware behind a pty until SIGTERM, SIGINT or the "quit" command."""

    def __init__(
        self,
        firmware: Firmware,
        wire: Wire,
        *,
        link_path: str,
        control_path: str,
        trace_path: str | None = None,
        parent_fd: int | None = None,
        clock: Callable[[], float] = time.monotonic,
        log_sink: LogSink | None = None,
    ) -> None:
        self.firmware = firmware
        self._log = log_sink
        # A pipe from the parent that it never writes to: its end (EOF) means the parent
        # is gone, even killed outright, and the simulator must not outlive it.
        self._parent_fd = parent_fd
        self.endpoint = firmware.endpoint
        self.wire = wire
        self.link_path = link_path
        self._trace_path = trace_path
        if trace_path is not None:
            wire.card_writes = {}
        self._clock = clock
        self._stopping = False
        self._replug_at: float | None = None
        self._sessions = 0
        self._established = False
        self._refused: str | None = None
        self.commands: dict[str, Command] = {
            **firmware.commands,
            "status": no_fields(self._status),
            "unplug": Command(self._cmd_unplug, frozenset({"duration_ms"})),
            "silent": Command(self._cmd_silent, frozenset({"duration_ms"})),
            "faults": Command(self._cmd_faults, frozenset({"seed", "rates", "script"})),
            "quit": no_fields(self._cmd_quit),
        }
        # Signals first: one arriving while the port is being set up still cleans up.
        self._catch_signals()
        self.pty: Pty | None = None
        self._open(control_path, link_path)

    def _catch_signals(self) -> None:
        """SIGTERM and SIGINT stop the loop, and wake its select through a pipe."""
        self._wake_r, self._wake_w = os.pipe()
        for fd in (self._wake_r, self._wake_w):
            os.set_blocking(fd, False)
        signal.set_wakeup_fd(self._wake_w)
        # The loop's own descriptors, read every turn besides the port and the control's.
        self._own_fds = [self._wake_r]
        if self._parent_fd is not None:
            self._own_fds.append(self._parent_fd)
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, self._on_signal)

    def _open(self, control_path: str, link_path: str) -> None:
        """The control socket, then the port; what is open is closed again if either fails."""
        try:
            self.control = ControlServer(control_path, self._on_control)
        except ValueError:
            self._close_wake()
            raise
        try:
            self.pty = Pty(link_path)
        except OSError as exc:
            self._close()
            raise ValueError(f"cannot publish the port at {link_path}: {exc.strerror}") from None

    # ------------------------------------------------------------------ loop

    def run(self) -> None:
        try:
            self.firmware.start()
            ident = self.endpoint.identity
            log.info(
                "sim_started",
                kind=ident.kind.label,
                serial=ident.serial,
                link=self.link_path,
                tty=self.pty.name if self.pty else None,
                control=self.control.path,
            )
            self._service()
            while not self._stopping:
                self._step()
        finally:
            self._close()
        log.info("sim_stopped")

    def _step(self) -> None:
        now = self._clock()
        master = self.pty.master if self.pty is not None else None
        readable, writable = self._select(now, master)
        if self._wake_r in readable:
            with contextlib.suppress(BlockingIOError):
                os.read(self._wake_r, 64)
        if self._parent_gone(readable):
            log.info("sim_parent_gone")
            self._stopping = True
            return
        # The port first: a control command (unplug) may close it.
        if master is not None and master in readable:
            self._read_port(master)
        for fd in readable:
            if fd not in (master, self._wake_r, self._parent_fd):
                self.control.on_readable(fd)
        for fd in writable:
            if fd != master:
                self.control.on_writable(fd)
        self._service()

    def _select(self, now: float, master: int | None) -> tuple[list[int], list[int]]:
        """Wait for input, room on the port for a due frame, or the next deadline."""
        readers = self.control.read_fds()
        readers += self._own_fds
        writers = self.control.write_fds()
        if master is not None:
            readers.append(master)
            if self.wire.ready(now):
                writers.append(master)
        timeout = self._next_deadline(now) - now
        readable, writable, _ = select.select(readers, writers, [], max(timeout, 0.0))
        return readable, writable

    def _parent_gone(self, readable: list[int]) -> bool:
        parent = self._parent_fd
        return parent is not None and parent in readable and not os.read(parent, 64)

    def _service(self) -> None:
        """Timers and output, after any input."""
        now = self._clock()
        if self.pty is None and self._replug_at is not None and now >= self._replug_at:
            self._replug()
        self.endpoint.poll()
        self.firmware.tick(now)
        while self.wire.faults.take_nak():
            if self.endpoint.established:
                self.endpoint.link.send_nak()
        if self.pty is not None:
            self.wire.flush(self.pty.master, now)
        # Control replies last: the frames a command made are on the port before the
        # client hears back, and both wake the host at the end of this turn's work.
        self.control.flush()
        self._note_session()
        log_due = self._log.due() if self._log is not None else None
        if log_due is not None and now >= log_due:
            self._log.flush()  # type: ignore[union-attr]

    def _next_deadline(self, now: float) -> float:
        deadline = self.endpoint.link.next_deadline()
        log_due = self._log.due() if self._log is not None else None
        timers = (self.firmware.next_deadline(), self._replug_at, self.wire.next_release(), log_due)
        for when in timers:
            # A due wire head waits for the port to be writable, not for the clock.
            if when is not None and now < when < deadline:
                deadline = when
        return deadline

    def _read_port(self, fd: int) -> None:
        try:
            data = os.read(fd, 65536)
        except BlockingIOError:
            return
        if self._clock() < self.wire.silent_until:
            return  # a silent device hears nothing
        self.endpoint.receive(data)

    def _note_session(self) -> None:
        ep = self.endpoint
        if ep.sessions != self._sessions:
            self._sessions = ep.sessions
            log.info("host_connected", session=ep.sessions, replay=len(ep.backlog))
        elif self._established and not ep.established:
            log.info("host_session_ended", session=ep.sessions, backlog=len(ep.backlog))
        self._established = ep.established
        if ep.refused != self._refused:
            self._refused = ep.refused
            if ep.refused is not None:
                log.warning("refused_by_host", reason=ep.refused)

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        self._stopping = True

    def _close(self) -> None:
        if self._trace_path is not None:
            self.wire.save_trace(self._trace_path)
        if self.pty is not None:
            self.pty.close()
            self.pty = None
        self.control.close()
        self._close_wake()

    def _close_wake(self) -> None:
        signal.set_wakeup_fd(-1)
        os.close(self._wake_r)
        os.close(self._wake_w)

    def _replug(self) -> None:
        self._replug_at = None
        self.pty = Pty(self.link_path)
        log.info("replugged", tty=self.pty.name)

    # ------------------------------------------------------------------ control

    def _on_control(self, cmd: str, fields: Fields) -> Reply:
        # Fields stay out of the log: "insert" names a hole card.
        (log.debug if cmd == "status" else log.info)("control", cmd=cmd)
        return dispatch(self.commands, cmd, fields, self.firmware.kind)

    def _status(self) -> Reply:
        ep = self.endpoint
        ident = ep.identity
        return {
            "kind": ident.kind.label,
            "pid": os.getpid(),
            "serial": ident.serial,
            "firmware_hash": ident.firmware_hash.hex(),
            "connected": ep.established,
            "sessions": ep.sessions,
            "next_event_id": ep.next_event_id,
            "backlog": len(ep.backlog),
            "refused": ep.refused,
            "plugged": self.pty is not None,
            "tty": self.pty.name if self.pty is not None else None,
            "silent": self._clock() < self.wire.silent_until,
            "link": dataclasses.asdict(ep.link.stats),
            "wire_faults": dict(self.wire.faults.counts),
            **self.firmware.status(),
        }

    def _cmd_unplug(self, fields: Fields) -> Reply:
        duration = int_field(fields, "duration_ms", 0, MAX_DURATION_MS)
        if self.pty is None:
            raise CommandError("already unplugged")
        self.pty.close()
        self.pty = None
        self.wire.clear()
        # The link session dies with the cable; the backlog and event ids survive.
        self.endpoint.drop_session()
        self._replug_at = self._clock() + duration / 1000
        log.info("unplugged", duration_ms=duration)
        return {}

    def _cmd_silent(self, fields: Fields) -> Reply:
        duration = int_field(fields, "duration_ms", 0, MAX_DURATION_MS)
        self.wire.silent_until = self._clock() + duration / 1000
        self.wire.clear()
        log.info("silent", duration_ms=duration)
        return {}

    def _cmd_faults(self, fields: Fields) -> Reply:
        try:
            spec = FaultSpec.from_json(dict(fields))
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        self.wire.faults.replace(spec)
        log.info("faults_replaced", rates=dict(spec.rates), script=len(spec.script))
        return {}

    def _cmd_quit(self) -> Reply:
        self._stopping = True
        return {}
