"""A real systemd, booted in ``systemd-nspawn`` on a throwaway overlay of this machine's
root, for the tests that prove the unit under systemd (tests/system/).

Nothing on the host changes. ``unshare --mount`` gives the launcher a mount namespace
of its own, where a tmpfs over ``/run`` holds the overlay's upper layer (every write
the container makes) and nspawn's own runtime files; the overlay's lower layer is this
machine's ``/``, read as it is. When nspawn exits, the namespace and its mounts go.
The container gets a machine id of its own (nspawn refuses to link the journals of a
container whose id is the host's) and the host's enabled units that a table box does
not run are masked inside it.

Commands run inside through ``nsenter`` into the container's init's namespaces: the
host runs no systemd, so there is no machined for ``machinectl`` or ``systemd-run -M``,
and ``--register=no --keep-unit`` keeps nspawn off the D-Bus it would need for them.
Stopping sends nspawn SIGTERM, which halts the container cleanly (its units stopped).

The container's systemd enforces ``DevicePolicy=``/``DeviceAllow=`` as on a table box:
it gets the unified cgroup hierarchy (``SYSTEMD_NSPAWN_UNIFIED_HIERARCHY=1``, where
systemd filters devices with a BPF program; under this host's hybrid hierarchy the
container's devices controller is read-only and the policy silently not applied) and
the ``bpf`` system call (``--system-call-filter=bpf``; nspawn's own filter denies it).
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import signal
import subprocess
import time
from pathlib import Path
from types import TracebackType

from tests.support.paths import ROOT

# The host's enabled units a table box does not run: masked inside the container, so
# the boot is quick and starts nothing but systemd's own and the tests' units.
MASKED = (
    "postgresql.service",
    "e2scrub_reap.service",
    "getty@tty1.service",
    "console-getty.service",
    "systemd-timesyncd.service",
    "apt-daily.timer",
    "apt-daily-upgrade.timer",
    "dpkg-db-backup.timer",
    "e2scrub_all.timer",
    "fstrim.timer",
    "man-db.timer",
)

# Runs as root in a mount namespace of its own (unshare): the overlay, then nspawn.
# The checkout is bound read-only at its own path: the tests run its simulators and
# its tablectl inside, and a checkout under /tmp would be hidden by nspawn's own /tmp.
LAUNCHER = """set -e
mount -t tmpfs -o mode=0755 tablectl-nspawn /run
mkdir -p /run/machine/upper /run/machine/work /run/machine/root
mount -t overlay overlay \
  -o lowerdir=/,upperdir=/run/machine/upper,workdir=/run/machine/work /run/machine/root
systemd-id128 new > /run/machine/root/etc/machine-id
for unit in {masked}; do
  ln -sf /dev/null "/run/machine/root/etc/systemd/system/$unit"
done
cd /
exec systemd-nspawn --quiet --directory=/run/machine/root --machine={name} \
  --register=no --keep-unit --system-call-filter=bpf --boot --console=passive \
  --bind-ro={checkout}
"""

# What a command inside sees: no test's environment leaks in.
ENV = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8"}


class MachineError(Exception):
    """The container cannot be booted or does not answer; the message says why."""


def missing_prerequisite() -> str | None:
    """Why a container cannot be booted here (one line), or None."""
    if os.geteuid() != 0:
        return "booting systemd in systemd-nspawn needs root"
    for tool in ("systemd-nspawn", "unshare", "nsenter"):
        if shutil.which(tool) is None:
            return f"{tool} not found: `make systemd-container` installs it (apt-get, as root)"
    return None


class Machine:
    """One booted container: ``boot()``, then ``run()`` commands in it, ``stop()``."""

    def __init__(self, console: Path, name: str = "tablectl-test") -> None:
        self.console_path = console
        self.name = name
        self.process: subprocess.Popen[bytes] | None = None
        self.leader = 0  # the container's init, as the host sees its pid
        self.boot_seconds = 0.0

    def __enter__(self) -> Machine:
        self.boot()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def boot(self, timeout: float = 60.0) -> float:
        """Start the container and wait until its systemd has finished booting; the
        seconds that took (from the launcher's start)."""
        why = missing_prerequisite()
        if why is not None:
            raise MachineError(why)
        script = LAUNCHER.format(
            masked=" ".join(MASKED), name=self.name, checkout=shlex.quote(str(ROOT))
        )
        started = time.monotonic()
        with open(self.console_path, "wb") as console:
            self.process = subprocess.Popen(
                ["unshare", "--mount", "--propagation", "private", "sh", "-c", script],
                stdin=subprocess.DEVNULL,
                stdout=console,
                stderr=subprocess.STDOUT,
                env={**ENV, "SYSTEMD_NSPAWN_UNIFIED_HIERARCHY": "1"},
            )
        deadline = started + timeout
        self.leader = self._wait_for_leader(deadline)
        # Until systemd listens on its private socket, systemctl cannot ask it: it
        # says nothing on stdout, or "offline"; then --wait waits for the boot's end.
        while True:
            state = self.run("systemctl", "is-system-running", "--wait", check=False)
            if state.stdout.strip() not in ("", "offline") or time.monotonic() >= deadline:
                break
            time.sleep(0.05)
        if state.stdout.strip() not in ("running", "degraded"):
            raise MachineError(
                f"the container did not boot: {state.stdout.strip()!r} {state.stderr.strip()}"
            )
        self.boot_seconds = time.monotonic() - started
        return self.boot_seconds

    def _wait_for_leader(self, deadline: float) -> int:
        """The pid of the container's init: the child of nspawn (which the launcher's
        shell became), once it runs systemd."""
        assert self.process is not None
        nspawn = self.process.pid
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise MachineError(
                    f"systemd-nspawn exited {self.process.returncode}: {self.console()}"
                )
            try:
                children = Path(f"/proc/{nspawn}/task/{nspawn}/children").read_text().split()
                if children and Path(f"/proc/{children[0]}/comm").read_text().strip() == "systemd":
                    return int(children[0])
            except (FileNotFoundError, ProcessLookupError):
                pass
            time.sleep(0.05)
        raise MachineError(f"no systemd in the container: {self.console()}")

    def console(self) -> str:
        """What nspawn and the container's systemd printed, the last lines."""
        try:
            text = self.console_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""
        return "\n".join(text.splitlines()[-20:])

    def run(
        self,
        *argv: str,
        user: str | None = None,
        stdin: str | None = None,
        check: bool = True,
        timeout: float = 60.0,
    ) -> subprocess.CompletedProcess[str]:
        """``argv`` inside the container (as ``user`` with that user's groups, or root);
        with ``check``, a non-zero exit raises ``MachineError`` with its stderr."""
        if not self.leader:
            raise MachineError("the container is not booted")
        as_user = (
            ()
            if user is None
            else ("setpriv", f"--reuid={user}", f"--regid={user}", "--init-groups", "--")
        )
        command = ["nsenter", f"--target={self.leader}", "--all", "--", *as_user, *argv]
        result = subprocess.run(
            command,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=timeout,
            env=ENV,
            check=False,
        )
        if check and result.returncode != 0:
            raise MachineError(
                f"{' '.join(argv)!r} exited {result.returncode} in the container: "
                f"{result.stderr.strip() or result.stdout.strip()}"
            )
        return result

    def sh(self, script: str, *, check: bool = True, timeout: float = 60.0) -> str:
        """A shell script run by root inside the container; its stdout."""
        return self.run("sh", "-ec", script, check=check, timeout=timeout).stdout

    def path(self, inside: str) -> Path:
        """A path inside the container, as the host reaches it (through its init's
        root, so the container's mounts are crossed as it sees them)."""
        return Path(f"/proc/{self.leader}/root") / inside.lstrip("/")

    def stop(self, timeout: float = 60.0) -> int:
        """Halt the container (nspawn's SIGTERM: systemd stops every unit) and wait for
        nspawn; its exit status. A container that does not halt in ``timeout`` is
        killed, and that is an error."""
        if self.process is None:
            return 0
        process, leader, self.process, self.leader = self.process, self.leader, None, 0
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                return process.wait(timeout)
            except subprocess.TimeoutExpired:
                # The container's init killed ends every process of its PID namespace,
                # and then nspawn (SIGTERM before init set up its handlers is lost).
                if leader:
                    with contextlib.suppress(ProcessLookupError):  # it just ended
                        os.kill(leader, signal.SIGKILL)
                process.kill()
                process.wait()
                raise MachineError(f"the container did not halt within {timeout} s") from None
        return process.returncode
