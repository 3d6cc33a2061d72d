"""Real journals for the boards' tests: a simulated table run to its end by
``tablectl run --simulate``, and the journal's rows read as the tests' own oracle
(plain SQLite, not the boards' reader)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from tests.support.cli import tablectl


def simulated_journal(workdir: Path, game: str, rounds: int, seed: int) -> Path:
    """The journal of a simulated table that played ``rounds`` rounds of ``game``."""
    workdir.mkdir(parents=True, exist_ok=True)
    run = tablectl(
        "run", "--simulate", "--game", game, "--rounds", str(rounds), "--pace-ms", "0",
        "--seed", str(seed), "--workdir", str(workdir), "--plain", timeout=120,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert f"stopped after {rounds} rounds" in run.stdout
    return workdir / "journal.db"


def journal_rows(path: Path) -> list[tuple[int, str, dict[str, Any]]]:
    """Every row (seq, ts, entry), read-only."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        rows = db.execute("SELECT seq, ts, body FROM rows ORDER BY seq").fetchall()
    finally:
        db.close()
    return [(int(seq), str(ts), json.loads(body)) for seq, ts, body in rows]


def settled(rows: list[tuple[int, str, dict[str, Any]]]) -> list[dict[str, Any]]:
    """The round_end entries of rounds that were not void."""
    return [e for _, _, e in rows if e.get("type") == "round_end" and e.get("void") is False]
