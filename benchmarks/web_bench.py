"""``tablectl web``'s figures for issue 12's note: the page load time of /dealer, the
latency from a card leaving the simulated shoe to its entry's update being drawn on
/dealer (p50, p99, measured in the browser), and the web process's memory.

A manual Baccarat table (``tablectl run --simulate --manual``) and ``tablectl web
--simulated-devices`` as real processes; Chromium (/usr/bin/chromium) driven by
Playwright. Each card is drawn from /dealer's panel: the time runs in the page from
the click's request to the frame in which ``body[data-seq]`` shows the card's entry.
Usage: python benchmarks/web_bench.py [--cards N]."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

from controller.journal import open_read_only

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as a script: the browser's arguments are the tests'

from tests.support.web import CHROMIUM, CHROMIUM_ARGS  # noqa: E402

PASSWORD = "bench-pass-1"

# In the page: one draw from the panel, the time until the page shows a later entry.
DRAW = """async () => {
  const before = document.body.dataset.seq;
  const csrf = document.querySelector('meta[name="csrf"]').content;
  const t0 = performance.now();
  const shown = new Promise((resolve) => {
    const watch = new MutationObserver(() => {
      if (document.body.dataset.seq !== before) { watch.disconnect(); resolve(); }
    });
    watch.observe(document.body, { attributes: true, attributeFilter: ["data-seq"] });
  });
  await fetch("/api/panel/draw", { method: "POST", headers: { "Content-Type":
    "application/json", "X-CSRF-Token": csrf }, body: "{}" });
  await shown;
  await new Promise((r) => requestAnimationFrame(r));
  return performance.now() - t0;
}"""


def _start(work: Path, port: int) -> tuple[subprocess.Popen[bytes], subprocess.Popen[bytes]]:
    cli = [sys.executable, "-m", "controller.cli"]
    daemon = subprocess.Popen(
        [*cli, "run", "--simulate", "--manual", "--plain", "--workdir", str(work / "t")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    while not (work / "t" / "events.sock").exists():
        time.sleep(0.05)
    users = work / "users.toml"
    subprocess.run(
        [*cli, "web", "passwd", str(users), "bench", "--role", "dealer"],
        input=PASSWORD.encode(),
        check=True,
        capture_output=True,
    )
    web = subprocess.Popen(
        [
            *cli,
            "web",
            "--runtime-dir",
            str(work / "t"),
            "--users",
            str(users),
            "--listen",
            f"127.0.0.1:{port}",
            "--simulated-devices",
            str(work / "t"),
            "--journal",
            str(work / "t" / "journal.db"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert web.stdout is not None and web.stdout.readline().startswith(b"tablectl web:")
    return daemon, web


COMMAND = """async ([name, args]) => {
  const csrf = document.querySelector('meta[name="csrf"]').content;
  const r = await fetch("/api/command", { method: "POST", headers: { "Content-Type":
    "application/json", "X-CSRF-Token": csrf }, body: JSON.stringify({ name, args }) });
  return (await r.json()).outcome;
}"""


def _last_offer(journal: Path) -> dict[str, object]:
    db = open_read_only(journal)
    try:
        (body,) = db.execute(
            'SELECT body FROM rows WHERE body LIKE \'%"type":"offer"%\' ORDER BY seq DESC LIMIT 1'
        ).fetchone()
    finally:
        db.close()
    return dict(json.loads(body))


def _step(page: Page, journal: Path, latencies: list[float], wagered: bool) -> bool:
    """One step of the round by hand: a draw is timed; wagers, offers answered."""
    need = page.get_attribute("body", "data-need")
    before = page.get_attribute("body", "data-seq")
    if need == "card":
        latencies.append(float(page.evaluate(DRAW)))
    elif page.locator("#commands [data-command=offer_answer]").count():
        offer = _last_offer(journal)
        args = {"what": offer["what"], "seat": offer["seat"], "answer": "decline"}
        page.evaluate(COMMAND, ["offer_answer", args])
    elif need == "wagers" and not wagered:
        page.evaluate(COMMAND, ["wager", {"seat": 1, "bet": "banker", "amount": 10}])
        wagered = True
    elif need == "wagers":
        page.evaluate(COMMAND, ["no_more_bets", {}])
        wagered = False
    elif need == "shuffle":
        page.click("[data-panel=shuffle]")
    else:
        page.wait_for_timeout(20)
        return wagered
    page.wait_for_selector(f"body:not([data-seq='{before}'])")
    page.wait_for_timeout(30)
    return wagered


def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def measure(cards: int, port: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        daemon, web = _start(Path(tmp), port)
        try:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page()
            base = f"http://127.0.0.1:{port}"
            page.goto(f"{base}/login?next=/dealer")
            page.fill("input[name=login]", "bench")
            page.fill("input[name=password]", PASSWORD)
            page.click("button[type=submit]")
            page.wait_for_url("**/dealer")
            loads = []
            for _ in range(10):
                t0 = time.perf_counter()
                page.goto(f"{base}/dealer")
                page.wait_for_selector("#link:text-is('live')")
                page.wait_for_selector("#table-state")
                loads.append((time.perf_counter() - t0) * 1000)
            page.click("[data-panel=shuffle]")
            page.wait_for_selector("body[data-need=card]", timeout=20_000)
            latencies: list[float] = []
            journal = Path(tmp) / "t" / "journal.db"
            wagered = False
            while len(latencies) < cards:
                wagered = _step(page, journal, latencies, wagered)
            rss = _rss_kib(web.pid)
            browser.close()
        finally:
            for proc in (web, daemon):
                proc.terminate()
                proc.wait(10)
    ordered = sorted(latencies)
    return {
        "page_load_ms_median": round(statistics.median(loads), 1),
        "cards": len(ordered),
        "card_to_dealer_ms_p50": round(ordered[len(ordered) // 2], 1),
        "card_to_dealer_ms_p99": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))], 1),
        "web_rss_mib": round(rss / 1024, 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=200)
    parser.add_argument("--port", type=int, default=18099)
    args = parser.parse_args()
    print(json.dumps(measure(args.cards, args.port)))
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
