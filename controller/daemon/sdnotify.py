"""Tell systemd how the daemon is doing (sd_notify), with the standard library only.

systemd passes ``NOTIFY_SOCKET`` to a ``Type=notify`` service: the path of an
``AF_UNIX`` datagram socket, or a name in the Linux abstract namespace when it
starts with ``@``. Each notification is one datagram of ``KEY=value`` lines.
Without ``NOTIFY_SOCKET`` (run by hand, under the bench, in tests) every method
is a no-op.

Watchdog: when the unit sets ``WatchdogSec=``, systemd also passes
``WATCHDOG_USEC`` (and ``WATCHDOG_PID``, the process meant to ping).
``watchdog_interval()`` says how often to ping. Send ``WATCHDOG=1`` from the
daemon's main loop, and only after that loop has checked the table's health
(event queue drained, devices answering, journal writable) -- never from a
timer thread: a thread that pings on its own keeps pinging while the main loop
is stuck, which is exactly the hang the watchdog is there to catch.

Sending never blocks and never raises. A datagram socket whose reader does not read
fills (the kernel queues ten datagrams, net.unix.max_dgram_qlen), and a blocking send
would then stop the table's thread until someone reads: every datagram is sent with
MSG_DONTWAIT on a non-blocking socket instead. What cannot be sent now:

- ``STATUS=`` is dropped: only the latest matters, so the latest one unsent is sent
  again once the socket takes datagrams again, and the ones before it are counted.
- ``READY=1``, ``WATCHDOG=1`` and ``STOPPING=1`` are kept (each once) and sent, in the
  order they were asked for, at the next send or ``retry()``, which the daemon's loop
  calls on every pass; ``stopping()`` keeps trying for up to ``STOP_GRACE`` seconds
  while the queue is merely full, since no later pass will come.

An outage (the socket full or gone) is logged once as it begins (``sd_notify_failed``)
and once as it ends (``sd_notify_recovered``, with the statuses dropped and the
notifications delivered late); what is still unsent when the daemon stops is logged
(``sd_notify_undelivered``), so none is lost silently. Only a malformed environment,
found when the notifier is built at start-up, is an error (``NotifyEnvError``), so a
mistyped variable ends in one clear line instead of a daemon that systemd kills later
for never reporting.
"""

from __future__ import annotations

import errno
import os
import socket
import time
from collections.abc import Mapping
from typing import Final

import structlog

from controller.errors import TablectlError

READY: Final = "READY=1"
WATCHDOG: Final = "WATCHDOG=1"
STOPPING: Final = "STOPPING=1"
STOP_GRACE: Final = 0.5  # seconds ``stopping()`` waits for a full queue to drain
_FULL: Final = frozenset({errno.EAGAIN, errno.ENOBUFS})  # full, not gone: worth a wait


class NotifyEnvError(TablectlError):
    """A systemd notification variable holds a value that cannot be used."""

    def __init__(self, variable: str, value: str, reason: str) -> None:
        super().__init__(f"{variable}={value!r}: {reason}")
        self.variable = variable


def _socket_address(value: str) -> bytes:
    if value.startswith("@"):
        # The abstract namespace: the name starts with a NUL byte instead of "@".
        return b"\0" + os.fsencode(value[1:])
    if value.startswith("/"):
        return os.fsencode(value)
    raise NotifyEnvError("NOTIFY_SOCKET", value, "not a socket path (must start with '/' or '@')")


def _watchdog_interval(environ: Mapping[str, str], pid: int) -> float | None:
    usec_text = environ.get("WATCHDOG_USEC")
    if usec_text is None:
        return None
    try:
        usec = int(usec_text)
    except ValueError:
        raise NotifyEnvError("WATCHDOG_USEC", usec_text, "not a whole number") from None
    if usec <= 0:
        raise NotifyEnvError("WATCHDOG_USEC", usec_text, "must be a positive number")
    pid_text = environ.get("WATCHDOG_PID")
    if pid_text is not None:
        try:
            watchdog_pid = int(pid_text)
        except ValueError:
            raise NotifyEnvError("WATCHDOG_PID", pid_text, "not a process id") from None
        if watchdog_pid <= 0:
            raise NotifyEnvError("WATCHDOG_PID", pid_text, "not a process id")
        if watchdog_pid != pid:
            # The watchdog belongs to another process (we were forked or exec'd by it).
            return None
    # Ping at half the timeout, as sd_watchdog_enabled(3) advises, so one late
    # loop iteration does not get the daemon killed.
    return usec / 2_000_000


class Notifier:
    """Notifications to systemd; build it with ``Notifier.from_env()``."""

    def __init__(self, address: bytes | None, watchdog_interval: float | None) -> None:
        self._address = address
        self._watchdog_interval = watchdog_interval
        self._pending: list[str] = []  # READY=1, WATCHDOG=1, STOPPING=1 not sent yet
        self._status: str | None = None  # the latest STATUS= not sent yet
        self._failure: OSError | None = None  # the outage under way, if any
        self._dropped = 0  # statuses replaced by a later one during the outage
        self._late: list[str] = []  # notifications held during the outage
        # Per instance, not module level: a logger cached before a test's log
        # capture would hide this notifier's warnings from it.
        self._log = structlog.get_logger("controller.daemon.sdnotify")

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, pid: int | None = None) -> Notifier:
        """Read ``NOTIFY_SOCKET``, ``WATCHDOG_USEC`` and ``WATCHDOG_PID``.

        Raises ``NotifyEnvError`` naming the variable if one is malformed. The
        watchdog variables are ignored when ``NOTIFY_SOCKET`` is unset, since no
        ping could be sent anyway.
        """
        env = os.environ if environ is None else environ
        socket_text = env.get("NOTIFY_SOCKET")
        if not socket_text:
            return cls(None, None)
        address = _socket_address(socket_text)
        return cls(address, _watchdog_interval(env, os.getpid() if pid is None else pid))

    @property
    def enabled(self) -> bool:
        """Whether there is a notification socket to send to."""
        return self._address is not None

    @property
    def unsent(self) -> tuple[str, ...]:
        """The notifications kept for the next try, in order, the latest status last."""
        status = () if self._status is None else (self._status,)
        return (*self._pending, *status)

    def watchdog_interval(self) -> float | None:
        """Seconds between ``WATCHDOG=1`` pings (half of ``WATCHDOG_USEC``).

        ``None`` when no watchdog applies to this process: no ``NOTIFY_SOCKET``,
        no ``WATCHDOG_USEC``, or a ``WATCHDOG_PID`` naming another process.
        """
        return self._watchdog_interval

    def ready(self) -> None:
        """Start-up is complete: systemd marks the unit active."""
        self._keep(READY)

    def status(self, text: str) -> None:
        """A one-line status shown by ``systemctl status``; dropped for a later one
        when it cannot be sent now."""
        if self._address is None:
            return
        if self._status is not None:
            self._dropped += 1
        # A newline would start a second assignment (e.g. a device name with
        # "\nREADY=1" in it), so the text is kept to one line.
        self._status = "STATUS=" + " ".join(text.splitlines())
        self.retry()

    def watchdog(self) -> None:
        """Ping the watchdog; call from the main loop after its health check."""
        self._keep(WATCHDOG)

    def stopping(self) -> None:
        """Shutdown has begun. The last notification: what is still unsent after
        ``STOP_GRACE`` seconds of a full queue (or at once, the socket gone) is logged."""
        self._keep(STOPPING)
        deadline = time.monotonic() + STOP_GRACE
        while self._pending and self._waiting_helps() and time.monotonic() < deadline:
            time.sleep(0.01)
            self.retry()
        if self._pending:
            self._log.error("sd_notify_undelivered", messages=list(self._pending))

    def retry(self) -> None:
        """Send what is kept, in order, until the socket takes no more."""
        while self._pending:
            if not self._send(self._pending[0]):
                return
            self._pending.pop(0)
        if self._status is not None and self._send(self._status):
            self._status = None

    def _keep(self, message: str) -> None:
        if self._address is None:
            return
        if message not in self._pending:
            self._pending.append(message)
            if self._failure is not None:
                self._late.append(message)
        self.retry()

    def _waiting_helps(self) -> bool:
        return self._failure is not None and self._failure.errno in _FULL

    def _send(self, message: str) -> bool:
        """One datagram, never waiting; whether it went."""
        assert self._address is not None
        kind = socket.SOCK_DGRAM | socket.SOCK_CLOEXEC | socket.SOCK_NONBLOCK
        try:
            with socket.socket(socket.AF_UNIX, kind) as sock:
                sock.sendto(message.encode(), socket.MSG_DONTWAIT, self._address)
        except OSError as exc:
            self._failed(exc, message)
            return False
        if self._failure is not None:
            self._log.info(
                "sd_notify_recovered", statuses_dropped=self._dropped, delivered_late=self._late
            )
            self._failure, self._dropped, self._late = None, 0, []
        return True

    def _failed(self, exc: OSError, message: str) -> None:
        # Once per outage: a full or dead socket must not flood the log at every ping.
        if self._failure is None:
            self._log.warning(
                "sd_notify_failed",
                socket=os.fsdecode(self._address or b"").replace("\0", "@", 1),
                error=exc.strerror or type(exc).__name__,
                message=message.partition("=")[0],
            )
            self._late = list(self._pending)
        self._failure = exc
