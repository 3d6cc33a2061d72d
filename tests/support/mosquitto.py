"""A real Mosquitto broker on loopback for the uplink and floor tests.

``Broker(root, users)`` runs Debian's ``mosquitto`` (``make test`` installs it) with
examples/mosquitto/tablectl.conf and its ACL as shipped, but for the paths (made under
``root``) and the two listeners, put on free loopback ports: ``port`` (TLS, user name
and password) and ``cert_port`` (TLS, client certificate whose CN is the user name).
``certs`` makes the test CA, the broker's certificate (for 127.0.0.1 and localhost) and
a client certificate per name, with ``openssl``.

``stop()`` ends the broker as an operator would (SIGTERM: it saves its persistent
sessions and queued messages), ``start()`` runs it again on the same ports and files;
``kill()`` is a crash (SIGKILL: what it had not saved is gone).
"""

from __future__ import annotations

import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

from tests.support.paths import ROOT

EXAMPLE = ROOT / "examples" / "mosquitto"
CONF = EXAMPLE / "tablectl.conf"
ACL = EXAMPLE / "tablectl.acl"
HOST = "127.0.0.1"
STARTED = 10.0  # seconds the broker has to listen


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def _openssl(*args: str, cwd: Path) -> None:
    done = subprocess.run(["openssl", *args], cwd=cwd, capture_output=True, text=True)
    assert done.returncode == 0, f"openssl {args[0]} failed: {done.stderr.strip()}"


class Certs:
    """A test CA in ``folder``: ``ca``, the broker's ``broker.crt``/``broker.key``,
    and ``client(name)`` for a certificate with CN ``name``."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.ca = folder / "ca.crt"
        key = "ec_paramgen_curve:prime256v1"
        _openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", key, "-nodes", "-days", "2",
                 "-subj", "/CN=tablectl test CA", "-keyout", "ca.key", "-out", "ca.crt",
                 cwd=folder)  # fmt: skip
        self.broker = self._signed("broker", "subjectAltName=IP:127.0.0.1,DNS:localhost")

    def _signed(self, name: str, extension: str | None = None) -> tuple[Path, Path]:
        key = "ec_paramgen_curve:prime256v1"
        _openssl("req", "-newkey", "ec", "-pkeyopt", key, "-nodes", "-subj", f"/CN={name}",
                 "-keyout", f"{name}.key", "-out", f"{name}.csr", cwd=self.folder)  # fmt: skip
        sign = ["x509", "-req", "-in", f"{name}.csr", "-CA", "ca.crt", "-CAkey", "ca.key"]
        sign += ["-CAcreateserial", "-days", "2", "-out", f"{name}.crt"]
        if extension is not None:
            (self.folder / f"{name}.ext").write_text(extension + "\n", encoding="utf-8")
            sign += ["-extfile", f"{name}.ext"]
        _openssl(*sign, cwd=self.folder)
        return self.folder / f"{name}.crt", self.folder / f"{name}.key"

    def client(self, name: str) -> tuple[Path, Path]:
        """A client certificate and its key, CN ``name``."""
        cert = self.folder / f"{name}.crt"
        if cert.exists():
            return cert, self.folder / f"{name}.key"
        return self._signed(name)


def _conf(text: str, paths: dict[str, str], ports: list[int], log: Path) -> str:
    """The example's lines with its paths and listeners replaced, a log to ``log``
    (mosquitto flushes its log file line by line, not its stdout)."""
    out = []
    for line in text.splitlines():
        key = line.split(" ", 1)[0]
        if key == "listener":
            line = f"listener {ports.pop(0)} {HOST}"
        elif key in paths:
            line = f"{key} {paths[key]}"
        out.append(line)
    assert not ports, "the example has fewer listeners than the tests expect"
    out += ["user root", f"log_dest file {log}", "log_type all", "connection_messages true"]
    return "\n".join(out) + "\n"


class Broker:
    """Mosquitto with the example configuration, its files under ``root``."""

    def __init__(self, root: Path, users: dict[str, str]) -> None:
        assert shutil.which("mosquitto"), "mosquitto is missing: `make test` installs it"
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self.certs = Certs(root / "certs")
        self.port, self.cert_port = free_port(), free_port()
        self.logfile = root / "mosquitto.log"
        self.users = dict(users)
        self._write_passwords()
        (root / "data").mkdir(exist_ok=True)
        paths = {
            "password_file": str(root / "passwd"),
            "acl_file": str(ACL),
            "persistence_location": f"{root / 'data'}/",
            "cafile": str(self.certs.ca),
            "certfile": str(self.certs.broker[0]),
            "keyfile": str(self.certs.broker[1]),
        }
        ports = [self.port, self.cert_port]
        conf = _conf(CONF.read_text(encoding="utf-8"), paths, ports, self.logfile)
        self.conf = root / "mosquitto.conf"
        self.conf.write_text(conf, encoding="utf-8")
        self.proc: subprocess.Popen[bytes] | None = None

    def _write_passwords(self) -> None:
        passwd = self.root / "passwd"
        passwd.write_text("", encoding="utf-8")
        for user, password in self.users.items():
            done = subprocess.run(["mosquitto_passwd", "-b", str(passwd), user, password],
                                  capture_output=True, text=True)  # fmt: skip
            assert done.returncode == 0, f"mosquitto_passwd: {done.stderr.strip()}"
        passwd.chmod(0o600)

    def start(self) -> Broker:
        assert self.proc is None, "the broker is running"
        with self.logfile.open("ab") as log:
            self.proc = subprocess.Popen(
                ["mosquitto", "-c", str(self.conf)], stdout=log, stderr=subprocess.STDOUT
            )
        deadline = time.monotonic() + STARTED
        while not all(self._listening(p) for p in (self.port, self.cert_port)):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.proc.kill()
                self.proc = None
                raise AssertionError(f"mosquitto did not start:\n{self.log()}")
            time.sleep(0.02)
        return self

    @staticmethod
    def _listening(port: int) -> bool:
        try:
            with socket.create_connection((HOST, port), timeout=0.5):
                return True
        except OSError:
            return False

    def _end(self, sig: signal.Signals) -> None:
        assert self.proc is not None, "the broker is not running"
        self.proc.send_signal(sig)
        self.proc.wait(timeout=20)
        self.proc = None

    def stop(self) -> None:
        """SIGTERM: the broker saves its sessions and queues, then exits."""
        self._end(signal.SIGTERM)

    def kill(self) -> None:
        self._end(signal.SIGKILL)

    def log(self) -> str:
        return self.logfile.read_text(encoding="utf-8", errors="replace")

    def __enter__(self) -> Broker:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        if self.proc is not None:
            self.stop()
