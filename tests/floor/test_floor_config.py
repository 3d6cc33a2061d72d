"""``tablectl floor``'s configuration: each mistake is one line on stderr and a non-zero
exit (2 for the file, 1 for an address already taken), before anything connects."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from controller.floor.settings import SettingsError, load
from tests.support.cli import tablectl
from tests.support.floor import users_file
from tests.support.mosquitto import Certs

GOOD = """client_id = "floor-1"
state_dir = "{root}/state"
[broker]
host = "127.0.0.1"
port = 8883
cafile = "{root}/ca.crt"
username = "floor"
password_file = "{root}/password"
[web]
listen = "127.0.0.1:{port}"
users = "{root}/users.toml"
"""


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("floorconf")
    (root / "ca.crt").write_bytes(Certs(root / "certs").ca.read_bytes())
    (root / "not-a-ca.crt").write_text("not a certificate\n", encoding="utf-8")
    (root / "password").write_text("secret\n", encoding="utf-8")
    (root / "empty").write_text("", encoding="utf-8")
    users_file(root / "users.toml")
    return root


def _write(root: Path, text: str, name: str = "floor.toml") -> Path:
    path = root / name
    path.write_text(text.format(root=root, port=8090), encoding="utf-8")
    return path


def test_a_good_file_is_read(root: Path) -> None:
    settings = load(_write(root, GOOD))
    assert settings.client_id == "floor-1" and settings.broker.password == "secret"
    assert settings.web is not None and settings.web.port == 8090
    assert {u.role for u in settings.web.users.values()} == {"dealer", "floor"}


BAD = {
    "unknown key": (GOOD + "colour = 1\n", "unknown key 'colour'"),
    "unknown broker key": (
        GOOD.replace("port = 8883", "port = 8883\nqos = 2"),
        "[broker] unknown key 'qos'",
    ),
    "not TOML": ("client_id = \n", "not TOML"),
    "bad client id": (GOOD.replace('"floor-1"', '"floor 1"'), "client_id 'floor 1'"),
    "bad port": (GOOD.replace("port = 8883", "port = 0"), "port must be a whole number"),
    "no CA": (GOOD.replace("/ca.crt", "/nothere.crt"), "cafile"),
    "no credentials": (
        GOOD.replace('username = "floor"\n', ""),
        "username and password_file (or certfile and keyfile)",
    ),
    "both credentials": (
        GOOD.replace('username = "floor"', 'username = "floor"\ncertfile = "{root}/ca.crt"'),
        "certfile and keyfile go together",
    ),
    "empty password": (GOOD.replace("/password", "/empty"), "is empty"),
    "bad listen": (GOOD.replace("127.0.0.1:{port}", "{port}"), "listen '8090'"),
    "no users file": (GOOD.replace("/users.toml", "/nobody.toml"), "users"),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_each_mistake_is_one_line(root: Path, name: str) -> None:
    text, said = BAD[name]
    with pytest.raises(SettingsError) as caught:
        load(_write(root, text, f"{name.replace(' ', '-')}.toml"))
    message = str(caught.value)
    assert said in message and "\n" not in message


def test_the_command_says_it_in_one_line_and_exits_2(root: Path) -> None:
    missing = tablectl("floor", "--config", str(root / "absent.toml"))
    assert missing.returncode == 2
    assert missing.stderr == f"tablectl: error: {root / 'absent.toml'}: no such file\n"
    unknown = tablectl("floor", "--config", str(_write(root, GOOD + "colour = 1\n", "u.toml")))
    assert unknown.returncode == 2 and unknown.stderr.count("\n") == 1
    assert "unknown key 'colour'" in unknown.stderr and "Traceback" not in unknown.stderr


def test_a_ca_file_that_is_no_certificate_is_one_line_and_exit_2(root: Path) -> None:
    path = _write(root, GOOD.replace("/ca.crt", "/not-a-ca.crt"), "ca.toml")
    done = tablectl("floor", "--config", str(path))
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith(f"tablectl: error: {path}: [broker] cafile {root}/not-a-ca.crt")


def test_an_address_taken_is_one_line_and_exit_1(root: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        path = root / "taken.toml"
        path.write_text(GOOD.format(root=root, port=port), encoding="utf-8")
        done = tablectl("floor", "--config", str(path))
    assert done.returncode == 1, done.stderr
    errors = [line for line in done.stderr.splitlines() if "tablectl: error:" in line]
    assert errors == [
        f"tablectl: error: {path}: [web] listen 127.0.0.1:{port}: Address already in use"
    ]
