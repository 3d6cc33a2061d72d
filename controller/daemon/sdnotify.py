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

Sending never raises: if the socket has gone (systemd restarted, the test's
socket closed) the failure is logged once and the daemon goes on. Only a
malformed environment, found when the notifier is built at start-up, is an
error (``NotifyEnvError``), so a mistyped variable ends in one clear line
instead of a daemon that systemd kills later for never reporting.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping

import structlog

from controller.errors import TablectlError


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
        self._failing = False
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

    def watchdog_interval(self) -> float | None:
        """Seconds between ``WATCHDOG=1`` pings (half of ``WATCHDOG_USEC``).

        ``None`` when no watchdog applies to this process: no ``NOTIFY_SOCKET``,
        no ``WATCHDOG_USEC``, or a ``WATCHDOG_PID`` naming another process.
        """
        return self._watchdog_interval

    def ready(self) -> None:
        """Start-up is complete: systemd marks the unit active."""
        self._send("READY=1")

    def status(self, text: str) -> None:
        """A one-line status shown by ``systemctl status``."""
        # A newline would start a second assignment (e.g. a device name with
        # "\nREADY=1" in it), so the text is kept to one line.
        self._send("STATUS=" + " ".join(text.splitlines()))

    def watchdog(self) -> None:
        """Ping the watchdog; call from the main loop after its health check."""
        self._send("WATCHDOG=1")

    def stopping(self) -> None:
        """Shutdown has begun."""
        self._send("STOPPING=1")

    def _send(self, message: str) -> None:
        if self._address is None:
            return
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
                sock.sendto(message.encode(), self._address)
        except OSError as exc:
            # Once per outage: a dead socket must not flood the log at every ping.
            if not self._failing:
                self._failing = True
                self._log.warning(
                    "sd_notify_failed",
                    socket=os.fsdecode(self._address).replace("\0", "@", 1),
                    error=exc.strerror or type(exc).__name__,
                )
            return
        if self._failing:
            self._failing = False
            self._log.info("sd_notify_recovered")
