"""``tablectl web`` over HTTP against a real simulated daemon (``tablectl run
--simulate``, its robot dealing Baccarat): who may see and do what, CSRF, the login
limit, commands reaching the daemon's sockets and journaled with their login, a
refusal's reason and section, ``journal verify``, and HTTPS with a certificate."""

from __future__ import annotations

import http.client
import json
import ssl
import subprocess
import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.web import (
    PASSWORDS,
    Client,
    Web,
    commands_in,
    simulated_daemon,
    users_file,
    web_process,
)


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Web]:
    root = tmp_path_factory.mktemp("web")
    users = users_file(root / "users.toml")
    with (
        simulated_daemon(root / "table", "--pace-ms", "100") as _,
        web_process(root / "table", users) as w,
    ):
        yield w


def test_scoreboard_is_public_and_headers_harden_it(web: Web) -> None:
    status, headers, html = Client(web.base).request("GET", "/scoreboard")
    assert status == 200 and 'data-page="scoreboard"' in html
    assert "default-src 'self'" in headers["Content-Security-Policy"]
    assert headers["X-Frame-Options"] == "DENY" and headers["X-Content-Type-Options"] == "nosniff"
    assert "Strict-Transport-Security" not in headers  # plain http: no HSTS promise


@pytest.mark.parametrize("page", ["/dealer", "/floor", "/pit"])
def test_consoles_need_a_login(web: Web, page: str) -> None:
    status, headers, _ = Client(web.base).request("GET", page)
    assert status == 303 and headers["Location"] == f"/login?next={page}"


def test_login_sets_a_hardened_session_cookie(web: Web) -> None:
    client = Client(web.base)
    status, headers, _ = client.login("dana")
    assert status == 303 and headers["Location"] == "/dealer"
    cookie = headers["Set-Cookie"]
    for flag in ("HttpOnly", "SameSite=Strict", "Secure", "Path=/"):
        assert flag in cookie
    assert "dana" not in cookie  # a random id, the session is the server's
    assert client.request("GET", "/dealer")[0] == 200
    assert client.request("GET", "/floor")[0] == 403  # a dealer's login is not the floor's
    assert client.request("GET", "/pit")[0] == 200


def test_a_wrong_password_is_refused(web: Web) -> None:
    status, headers, html = Client(web.base).login("fred", "wrong")
    assert status == 401 and "Wrong login or password" in html and "Set-Cookie" not in headers


def test_login_from_another_site_is_refused(web: Web) -> None:
    client = Client(web.base)
    status, _, _ = client.request(
        "POST",
        "/login",
        b"login=dana&password=dealer-pass-1",
        {"Content-Type": "application/x-www-form-urlencoded", "Origin": "http://evil.example"},
    )
    assert status == 403


def test_failed_logins_are_limited(tmp_path: Path) -> None:
    # A web of its own: the limit per address covers every login from 127.0.0.1.
    users = users_file(tmp_path / "users.toml")
    with web_process(tmp_path, users, journal=False) as w:
        client = Client(w.base)
        for _ in range(5):
            assert client.login("dana", "nope")[0] == 401
        status, headers, html = client.login("dana", "nope")
        assert status == 429 and 200 < int(headers["Retry-After"]) <= 300
        assert "Too many failed logins" in html
        status, headers, _ = client.login("dana")  # the right password, too late
        assert status == 429 and "Set-Cookie" not in headers


def test_failed_logins_are_limited_per_address(tmp_path: Path) -> None:
    users = users_file(tmp_path / "users.toml")
    with web_process(tmp_path, users, journal=False) as w:
        client = Client(w.base)
        for n in range(5):
            assert client.login(f"guess{n}", "nope")[0] == 401
        status, headers, _ = client.login("dana")  # the right password, too late
        assert status == 429 and "Retry-After" in headers and "Set-Cookie" not in headers


def _dealer(web: Web) -> tuple[Client, str]:
    client = Client(web.base)
    assert client.login("dana")[0] == 303
    return client, client.csrf("/dealer")


def test_a_command_without_the_csrf_token_is_refused_and_never_sent(web: Web) -> None:
    client, _ = _dealer(web)
    status, answer = client.command("new_dealer", {}, None)
    assert status == 403 and "CSRF" in answer["message"]
    status, answer = client.command("new_dealer", {}, "not-the-token")
    assert status == 403
    assert commands_in(web.journal, "new_dealer") == []


def test_a_command_from_another_origin_is_refused(web: Web) -> None:
    client, token = _dealer(web)
    status, answer = client.command("new_dealer", {}, token, Origin="http://evil.example")
    assert status == 403 and "Origin" in answer["message"]
    assert commands_in(web.journal, "new_dealer") == []


def test_a_floor_command_from_a_dealer_login_is_refused_by_the_web(web: Web) -> None:
    client, token = _dealer(web)
    status, answer = client.command("permit_wagering", {"player": "p1"}, token)
    assert status == 403
    assert answer["message"] == "permit_wagering is a floor command: a dealer login may not send it"
    time.sleep(0.3)
    assert commands_in(web.journal, "permit_wagering") == []  # never sent to the daemon


def test_a_refused_command_shows_the_tables_reason_and_section(web: Web) -> None:
    client, token = _dealer(web)
    status, answer = client.command("wager", {"seat": 99, "bet": "banker", "amount": 10}, token)
    assert status == 200 and answer["outcome"] == "refused", answer
    assert answer["reason"] and answer["section"]
    journaled = [e for e in commands_in(web.journal, "wager") if e.get("seat") == 99]
    assert journaled, "the daemon journaled the command"


def test_a_bad_field_is_the_apis_error(web: Web) -> None:
    client, token = _dealer(web)
    status, answer = client.command("wager", {"seat": "one"}, token)
    assert (
        status == 200
        and answer["outcome"] == "error"
        and answer["code"] in ("bad_type", "missing_field")
    )


def test_the_floor_verifies_the_journal(web: Web) -> None:
    client = Client(web.base)
    assert client.login("fred")[0] == 303
    token = client.csrf("/floor")
    status, _, text = client.request("POST", "/api/verify", b"{}", {"X-CSRF-Token": token})
    verdict = json.loads(text)
    assert status == 200 and verdict["ok"] and "chain intact" in verdict["text"]
    dealer, dealer_token = _dealer(web)
    assert dealer.request("POST", "/api/verify", b"{}", {"X-CSRF-Token": dealer_token})[0] == 403


def test_logout_ends_the_session(web: Web) -> None:
    client, token = _dealer(web)
    status, _, _ = client.request(
        "POST",
        "/logout",
        f"csrf={token}".encode(),
        {"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert status == 303
    assert client.request("GET", "/dealer")[0] == 303


def test_https_with_a_certificate(tmp_path: Path) -> None:
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
    )
    users = users_file(tmp_path / "users.toml")
    with web_process(
        tmp_path,
        users,
        "--tls-cert",
        str(cert),
        "--tls-key",
        str(key),
        scheme="https",
        journal=False,
    ) as w:
        context = ssl.create_default_context(cafile=str(cert))
        client = Client(w.base, context)
        status, headers, _ = client.request("GET", "/scoreboard")
        assert status == 200 and "max-age" in headers["Strict-Transport-Security"]
        assert client.login("fred")[0] == 303


def _login_from(base: str, address: str, login: str, password: str) -> int:
    """A login POST sent from loopback ``address`` (Linux routes all of 127/8 to lo)."""
    host, port = base.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=15, source_address=(address, 0))
    try:
        body = urllib.parse.urlencode({"login": login, "password": password})
        headers = {"Origin": base, "Content-Type": "application/x-www-form-urlencoded"}
        conn.request("POST", "/login", body, headers)
        return conn.getresponse().status
    finally:
        conn.close()


def test_the_login_limit_counts_per_login_and_per_address_apart(tmp_path: Path) -> None:
    users = users_file(tmp_path / "users.toml")
    with web_process(tmp_path, users, journal=False) as w:
        for _ in range(5):
            assert _login_from(w.base, "127.0.0.1", "dana", "wrong") == 401
        # dana is limited from anywhere; 127.0.0.2 may still log fred in.
        assert _login_from(w.base, "127.0.0.2", "dana", PASSWORDS["dana"][1]) == 429
        assert _login_from(w.base, "127.0.0.2", "fred", PASSWORDS["fred"][1]) == 303
        # 127.0.0.1 is limited for every login.
        assert _login_from(w.base, "127.0.0.1", "fred", PASSWORDS["fred"][1]) == 429
