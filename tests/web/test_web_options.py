"""``tablectl web`` and ``tablectl web passwd``: every bad option or file ends in one
line and a non-zero exit, before anything listens; the users file holds hashes only."""

from __future__ import annotations

import os
import socket
import sqlite3
import subprocess
from pathlib import Path

import pytest

from tests.support.web import PASSWORDS, tablectl, users_file


def _one_line(done: subprocess.CompletedProcess[str], status: int, words: str) -> None:
    assert done.returncode == status, (done.returncode, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("tablectl: error: "), lines
    assert words in lines[0], lines
    assert "Traceback" not in done.stderr


@pytest.fixture
def users(tmp_path: Path) -> Path:
    return users_file(tmp_path / "users.toml")


def web(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return tablectl("web", "--runtime-dir", str(tmp_path), *args)


def test_passwd_writes_an_argon2_hash_never_the_password(users: Path) -> None:
    text = users.read_text()
    for login, (role, password) in PASSWORDS.items():
        assert f"[users.{login}]" in text and f'role = "{role}"' in text
        assert password not in text
    assert text.count("$argon2id$") == 2
    assert users.stat().st_mode & 0o077 == 0  # 0600: the hashes are nobody else's


def test_passwd_again_replaces_the_hash(users: Path) -> None:
    before = users.read_text()
    done = tablectl("web", "passwd", str(users), "dana", "--role", "dealer", stdin="other\n")
    assert done.returncode == 0, done.stderr
    after = users.read_text()
    assert after != before and after.count("[users.dana]") == 1


def test_passwd_without_a_password(tmp_path: Path) -> None:
    done = tablectl("web", "passwd", str(tmp_path / "u.toml"), "dana", "--role", "dealer")
    _one_line(done, 2, "no password on standard input")


def test_passwd_bad_login(tmp_path: Path) -> None:
    done = tablectl(
        "web", "passwd", str(tmp_path / "u.toml"), "Dana!", "--role", "dealer", stdin="x\n"
    )
    _one_line(done, 2, "login 'Dana!'")


def test_passwd_bad_role(tmp_path: Path) -> None:
    done = tablectl("web", "passwd", str(tmp_path / "u.toml"), "dana", "--role", "pit", stdin="x\n")
    assert done.returncode == 2 and "invalid choice: 'pit'" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_no_runtime_dir(tmp_path: Path, users: Path) -> None:
    done = tablectl("web", "--runtime-dir", str(tmp_path / "nope"), "--users", str(users))
    _one_line(done, 2, "no such directory")


def test_journal_missing(tmp_path: Path, users: Path) -> None:
    _one_line(
        web(tmp_path, "--users", str(users), "--journal", str(tmp_path / "j.db")),
        2,
        "no such journal",
    )


def test_journal_not_a_journal(tmp_path: Path, users: Path) -> None:
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.close()
    _one_line(
        web(tmp_path, "--users", str(users), "--journal", str(other)), 2, "not a tablectl journal"
    )


@pytest.mark.parametrize(
    "listen", ["8080", "127.0.0.1:", "127.0.0.1:0", "127.0.0.1:70000", ":80", "h:x"]
)
def test_bad_listen(tmp_path: Path, users: Path, listen: str) -> None:
    _one_line(web(tmp_path, "--users", str(users), "--listen", listen), 2, "not HOST:PORT")


def test_port_taken(tmp_path: Path, users: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        _one_line(
            web(tmp_path, "--users", str(users), "--listen", f"127.0.0.1:{port}"), 1, "--listen"
        )


def test_no_users_option(tmp_path: Path) -> None:
    _one_line(web(tmp_path), 2, "--users FILE is needed")


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (None, "no such users file"),
        ("[users.dana\n", "not TOML"),
        ('[users.dana]\nrole = "pit"\nhash = "$argon2id$x"\n', "role must be dealer or floor"),
        ('[users.dana]\nrole = "dealer"\nhash = "secret"\n', "is not an argon2 hash"),
        (
            '[users.dana]\nrole = "dealer"\nhash = "$argon2id$x"\npassword = "x"\n',
            "unknown key 'password'",
        ),
        ('[users.Dana]\nrole = "dealer"\nhash = "$argon2id$x"\n', "login 'Dana'"),
        ("[users]\n", "no users"),
        ('[logins.dana]\nrole = "dealer"\n', "unknown key 'logins'"),
    ],
)
def test_bad_users_file(tmp_path: Path, text: str | None, words: str) -> None:
    path = tmp_path / "users.toml"
    if text is not None:
        path.write_text(text)
    _one_line(web(tmp_path, "--users", str(path)), 2, words)


def test_tls_cert_without_key(tmp_path: Path, users: Path) -> None:
    _one_line(web(tmp_path, "--users", str(users), "--tls-cert", str(users)), 2, "go together")


def test_tls_missing_files(tmp_path: Path, users: Path) -> None:
    done = web(
        tmp_path,
        "--users",
        str(users),
        "--tls-cert",
        str(tmp_path / "c.pem"),
        "--tls-key",
        str(tmp_path / "k.pem"),
    )
    _one_line(done, 2, "no such file")


def test_tls_not_a_certificate(tmp_path: Path, users: Path) -> None:
    done = web(tmp_path, "--users", str(users), "--tls-cert", str(users), "--tls-key", str(users))
    _one_line(done, 2, "not a usable pair")


def test_simulated_devices_not_a_directory(tmp_path: Path, users: Path) -> None:
    done = web(tmp_path, "--users", str(users), "--simulated-devices", str(tmp_path / "none"))
    _one_line(done, 2, "--simulated-devices")


def _passwd(users: Path, login: str, role: str, password: str) -> int:
    return tablectl(
        "web", "passwd", str(users), login, "--role", role, stdin=f"{password}\n"
    ).returncode


def test_passwd_keeps_the_files_group_and_its_read_permission(tmp_path: Path) -> None:
    """The packaged file is root:tablectl-web 0640 for the web's unit: a new password
    must not leave it readable by root alone."""
    users = tmp_path / "u.toml"
    assert _passwd(users, "dana", "dealer", "a") == 0
    group = 65534 if os.geteuid() == 0 else os.getgid()  # nogroup: another group than ours
    os.chown(users, -1, group)
    os.chmod(users, 0o640)
    assert _passwd(users, "erin", "floor", "b") == 0
    after = users.stat()
    assert (after.st_gid, after.st_mode & 0o777) == (group, 0o640)
    os.chmod(users, 0o600)  # not readable by its group: it stays so
    assert _passwd(users, "dana", "dealer", "c") == 0
    assert users.stat().st_mode & 0o777 == 0o600
