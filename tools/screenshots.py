"""The pages' screenshots in docs/screenshots/: each page of ``tablectl web`` at a
desktop's 1920x1080 and a tablet's 1280x800, on simulated tables the robot deals
(Baccarat for /scoreboard and /pit, Spanish 21 for /dealer and /floor), in Chromium
(/usr/bin/chromium) driven by Playwright.

Usage: python -m tools.screenshots [DIR] (default docs/screenshots)."""

from __future__ import annotations

import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import Browser, sync_playwright

from tests.support.web import CHROMIUM, CHROMIUM_ARGS

SIZES = {"desktop": (1920, 1080), "tablet": (1280, 800)}
PAGES = {"baccarat": ("scoreboard", "pit"), "spanish21": ("dealer", "floor")}
LOGINS = {"dealer": "dealer", "floor": "floor", "pit": "floor"}
PASSWORD = "screenshot-pass"


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _table(work: Path, game: str) -> list[subprocess.Popen[bytes]]:
    cli = [sys.executable, "-m", "controller.cli"]
    table = work / game
    daemon = subprocess.Popen(
        [
            *cli,
            "run",
            "--simulate",
            "--plain",
            "--game",
            game,
            "--seed",
            "3",
            "--pace-ms",
            "120",
            "--workdir",
            str(table),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    while not (table / "events.sock").exists():
        time.sleep(0.05)
    return [daemon]


def _web(work: Path, game: str, port: int) -> subprocess.Popen[bytes]:
    cli = [sys.executable, "-m", "controller.cli"]
    users = work / "users.toml"
    for role in ("dealer", "floor"):
        subprocess.run(
            [*cli, "web", "passwd", str(users), role, "--role", role],
            input=PASSWORD.encode(),
            check=True,
            capture_output=True,
        )
    web = subprocess.Popen(
        [
            *cli,
            "web",
            "--runtime-dir",
            str(work / game),
            "--journal",
            str(work / game / "journal.db"),
            "--users",
            str(users),
            "--listen",
            f"127.0.0.1:{port}",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert web.stdout is not None and web.stdout.readline().startswith(b"tablectl web:")
    return web


def _shoot(browser: Browser, base: str, page_name: str, out: Path) -> None:
    for size, (width, height) in SIZES.items():
        page = browser.new_context(viewport={"width": width, "height": height}).new_page()
        if page_name != "scoreboard":
            page.goto(f"{base}/login?next=/{page_name}")
            page.fill("input[name=login]", LOGINS[page_name])
            page.fill("input[name=password]", PASSWORD)
            page.click("button[type=submit]")
            page.wait_for_url(f"**/{page_name}")
        else:
            page.goto(f"{base}/scoreboard")
        page.wait_for_selector("#link:text-is('live')")
        page.wait_for_timeout(1500)
        page.screenshot(path=str(out / f"{page_name}-{size}.png"))
        page.context.close()


def main(argv: list[str]) -> int:
    out = Path(argv[0] if argv else "docs/screenshots")
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for game, pages in PAGES.items():
            work = Path(tmp) / game
            work.mkdir()
            procs = _table(work, game)
            port = _port()
            procs.append(_web(work, game, port))
            try:
                time.sleep(25 if game == "baccarat" else 6)  # rounds on the board
                for name in pages:
                    _shoot(browser, f"http://127.0.0.1:{port}", name, out)
            finally:
                for proc in reversed(procs):
                    proc.terminate()
                    proc.wait(10)
        browser.close()
    print(f"{out}: {', '.join(sorted(p.name for p in out.glob('*.png')))}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
