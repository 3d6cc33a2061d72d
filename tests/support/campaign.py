"""The crash campaign (docs/reliability.md, "Crash campaign"): one table's work
directory, `tablectl run --simulate --pace-ms 0` killed with SIGKILL again and again,
at random times and at aimed points, and after each kill the checks of
tests/support/crashcheck.py. tests/daemon/test_crash_campaign.py runs a short one,
benchmarks/crash_soak.py a long one; both read its ``Tally``.

The kinds of kill (``KINDS``):

* ``random:start``, ``random:ready``: SIGKILL from outside at a random delay after
  the spawn (start-up, the journal's check, the replay, play) or after READY=1;
* ``aimed:*``: the daemon kills itself at a failpoint (drivers/failpoints.py),
  ``journal.committed:TYPE@N``. Where the window is one row wide (the last card of a
  round, the row before its end, the sealed hole card, the first row a restart
  writes), N is found by a *plan*: the same start, with the same seed, on a copy of
  the work directory, played to the end of a few rounds without a kill; its rows say
  which row of that type is the one aimed at. The kill then *landed* when the
  journal it leaves ends with that row;
* ``create:*``: a kill while a fresh table's journal or a key file is created, in a
  work directory of its own.

After every kill: the process died of SIGKILL, no traceback, every row it found
still there unchanged, the chain verifies, no stand-in journaled. After each *check
start* (``--rounds 3`` on the killed journal, which must exit 0): the same, and every
round begun resolved exactly once, a new round played to its normal end, no card
counted twice in a shoe, no device event journaled twice in one run."""

from __future__ import annotations

import itertools
import random
import shutil
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.journal import verify
from tests.support.aims import BY_TYPE, PICKS, PLAN_ROUNDS, failpoint, schedule, twos_before
from tests.support.crashcheck import (
    Reading,
    Stored,
    entries_of,
    events_twice,
    lost_or_changed,
    rows_of,
    stand_ins,
)
from tests.support.workdir import KILLED, Run, Table, tail

# The interrupted round, completed or voided; one the simulated console began before
# the fresh simulators' shoe was loaded (voided by that load); and one played anew.
CHECK_ROUNDS = 3
AIMED_TIMEOUT = 60.0  # seconds for an armed failpoint to fire
VOLATILE = ("seal", "salt", "opened")  # a sealed card's, fresh in every run


@dataclass
class Tally:
    """What a campaign did and found; every count after ``rows`` must be 0."""

    game: str
    seed: int
    kills: Counter[str] = field(default_factory=Counter)  # by kind
    killed: int = 0  # runs that ended with SIGKILL
    aimed: int = 0
    landed: Counter[str] = field(default_factory=Counter)  # aimed kills on their row
    random_landed: Counter[str] = field(default_factory=Counter)  # where random ones fell
    restarts: int = 0  # check starts
    rounds_played: int = 0
    rows: int = 0
    seconds: float = 0.0
    hole_card_twos: list[int] = field(default_factory=list)  # 2s dealt before it
    verify_failures: int = 0
    rows_lost_or_changed: int = 0
    rounds_unresolved: int = 0
    failed_restarts: int = 0
    not_killed: int = 0
    cards_twice: int = 0
    events_twice: int = 0
    stand_ins: int = 0
    tracebacks: int = 0
    unaimed: int = 0  # aimed kills whose plan found no row to aim at
    problems: list[str] = field(default_factory=list)

    @property
    def kills_done(self) -> int:
        return sum(self.kills.values())

    def faults(self) -> dict[str, int]:
        return {
            "verify failures": self.verify_failures,
            "rows lost or changed": self.rows_lost_or_changed,
            "rounds unresolved": self.rounds_unresolved,
            "failed restarts": self.failed_restarts,
            "kills that did not kill": self.not_killed,
            "cards counted twice": self.cards_twice,
            "device events journaled twice": self.events_twice,
            "stand-ins journaled": self.stand_ins,
            "tracebacks": self.tracebacks,
            "aimed kills without a target": self.unaimed,
        }

    def note(self, counter: str, found: list[str], where: str) -> None:
        setattr(self, counter, getattr(self, counter) + len(found))
        self.problems += [f"{where}: {line}" for line in found]


@dataclass
class Aim:
    point: str  # TABLECTL_FAILPOINTS
    kind: str  # the type of the row aimed at
    target: dict[str, Any] | None = None  # the row itself, from the plan


def _steady(entry: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in entry.items() if k not in VOLATILE}


class Campaign:
    """``kills`` kills or more of ``game`` in ``base``, seeded by ``seed``."""

    def __init__(self, game: str, seed: int, base: Path, kills: int) -> None:
        self.game = game
        self.base = base
        self.rng = random.Random(seed)
        self.tally = Tally(game, seed)
        self.steps = schedule(game, kills, self.rng)
        self.logs = base / "logs"
        self.main = Table(game, base / "table", self.logs)
        self.tables = [self.main]
        self.seen: set[str] = set()

    def run(self, progress: Callable[[str], None] | None = None) -> Tally:
        began = time.monotonic()
        for n, step in enumerate(self.steps, 1):
            where = f"{self.game} --seed {self.tally.seed}, step {n} ({' then '.join(step)})"
            if progress:
                progress(where)
            table = self.main
            if step[0].startswith("create:"):
                table = Table(self.game, self.base / f"create-{n}", self.logs)
                self.tables.append(table)
            if not self._step(table, step, where):
                break  # a table that does not restart: nothing more to learn from it
        self._finish()
        self.tally.seconds = time.monotonic() - began
        return self.tally

    def _note(self, counter: str, found: list[str], where: str) -> None:
        """Each problem once: a whole journal is read again after each kill."""
        new = [line for line in found if line not in self.seen]
        self.seen.update(new)
        self.tally.note(counter, new, where)

    def _step(self, table: Table, step: tuple[str, ...], where: str) -> bool:
        previous = rows_of(table.journal)
        for kind in step:
            seed = self.rng.randrange(1, 2**31)
            here = f"{where}: {kind} at --seed {seed}"
            aim = self._aim(table, kind, seed, here)
            if aim is None and not kind.startswith("random:"):
                continue
            table.starts.append(len(previous))
            rows_before = previous
            run = self._kill(table, kind, seed, aim)
            self.tally.kills[kind] += 1
            here += f" ({aim.point})" if aim else ""
            previous = self._after_kill(table, kind, run, previous, here)
            if aim is None:
                self._fell(previous, rows_before)
            else:
                self._landed(kind, aim, run, previous)
        return self._check_start(table, previous, where)

    def _aim(self, table: Table, kind: str, seed: int, where: str) -> Aim | None:
        if kind.startswith("random:"):
            return None
        if kind.startswith("create:"):
            return Aim(kind.removeprefix("create:"), kind)
        if kind in BY_TYPE:
            row, most = BY_TYPE[kind]
            return Aim(f"journal.committed:{row}@{self.rng.randint(1, most)}", row)
        return self._plan(table, kind, seed, where)

    def _plan(self, table: Table, kind: str, seed: int, where: str) -> Aim | None:
        """The same start on a copy of the work directory, not killed: its rows say
        which row of a type is the one ``kind`` aims at."""
        copy = Table(self.game, self.base / "plan", self.logs)
        for rounds in PLAN_ROUNDS:
            shutil.rmtree(copy.workdir)
            shutil.copytree(table.workdir, copy.workdir, ignore=shutil.ignore_patterns("*.sock"))
            start = len(rows_of(copy.journal))
            run = copy.run(seed, "--rounds", str(rounds))
            entries = entries_of(rows_of(copy.journal))
            at = PICKS[kind](entries, start, self.rng) if run.code == 0 else None
            if at is not None:
                if kind == "aimed:hole-card":
                    self.tally.hole_card_twos.append(twos_before(entries, at))
                return Aim(failpoint(entries, start, at), entries[at]["type"], entries[at])
        # The campaign's own fault, not the table's: reported all the same.
        self._note("unaimed", [f"the plan (exit {run.code}) holds no row to aim at"], where)
        return None

    def _kill(self, table: Table, kind: str, seed: int, aim: Aim | None) -> Run:
        if aim is not None:
            self.tally.aimed += 1
            return table.run(seed, failpoint=aim.point, timeout=AIMED_TIMEOUT)
        ready = kind == "random:ready"
        delay = self.rng.uniform(0.0, 0.8) if ready else self.rng.uniform(0.05, 1.6)
        return table.kill_after(seed, delay, ready)

    def _landed(self, kind: str, aim: Aim | None, run: Run, rows: list[Stored]) -> None:
        """An aimed kill landed where it was aimed: the journal ends with the row."""
        if aim is None or run.code != KILLED:
            return
        if kind.startswith("create:"):
            landed = len(rows) <= 1  # nothing but the new journal's header
        else:
            last = entries_of(rows[-1:])
            landed = bool(last) and last[0]["type"] == aim.kind
            if aim.target is not None and landed:
                landed = _steady(last[0]) == _steady(aim.target)
        self.tally.landed[kind] += landed

    def _fell(self, rows: list[Stored], previous: list[Stored]) -> None:
        """Where a random kill fell: before the start wrote its first row (its check of
        the journal, the replay), in a round, or between two."""
        if len(rows) == len(previous):
            self.tally.random_landed["before its first row"] += 1
        elif Reading(self.game).read(entries_of(rows)).rounds.open:
            self.tally.random_landed["in a round"] += 1
        else:
            self.tally.random_landed["between rounds"] += 1

    def _after_kill(
        self, table: Table, kind: str, run: Run, previous: list[Stored], where: str
    ) -> list[Stored]:
        """The journal as the kill left it, checked against the one before the kill."""
        if run.code == KILLED:
            self.tally.killed += 1
        elif kind.startswith("random:"):  # it exited before the kill came
            self._note("failed_restarts", [f"exited {run.code} by itself: {tail(run.err)}"], where)
        else:
            self._note("not_killed", [f"exit {run.code}, not SIGKILL: {tail(run.err)}"], where)
        return self._journal_checks(table, run, previous, where)

    def _journal_checks(
        self, table: Table, run: Run, previous: list[Stored], where: str
    ) -> list[Stored]:
        if "Traceback" in run.err:
            self._note("tracebacks", [f"a traceback: {tail(run.err)}"], where)
        rows = rows_of(table.journal)
        self._note("rows_lost_or_changed", lost_or_changed(previous, rows), where)
        if rows:
            verdict = verify(table.journal)
            self._note("verify_failures", list(verdict.problems), where)
        self._note("stand_ins", stand_ins(rows[len(previous) :]), where)
        return rows

    def _check_start(self, table: Table, previous: list[Stored], where: str) -> bool:
        """The start after the kill, left to stop on its own: it must exit 0, resolve
        every round and play a new one to its end."""
        table.starts.append(len(previous))
        run = table.run(self.rng.randrange(1, 2**31), "--rounds", str(CHECK_ROUNDS), timeout=120)
        self.tally.restarts += 1
        where = f"{where}, check start"
        if run.code != 0:
            self._note("failed_restarts", [f"exit {run.code}: {tail(run.err)}"], where)
            return False
        rows = self._journal_checks(table, run, previous, where)
        entries = entries_of(rows)
        reading = Reading(self.game).read(entries)
        self._note("rounds_unresolved", reading.unresolved(), where)
        self._note("cards_twice", reading.cards_twice(), where)
        bounds = [*table.starts[table.checked :], len(entries)]
        for first, end in itertools.pairwise(bounds):
            self._note("events_twice", events_twice(entries[first:end], first + 1), where)
        table.checked = len(table.starts)
        fresh = [n for n, e in enumerate(entries, 1) if e["type"] == "journal"]
        played = reading.played_since(len(previous) + 1)
        wrong = [] if played else ["no round played to its normal end after the restart"]
        if fresh != [1]:
            wrong.append(f"journal header rows at {fresh}: a fresh start over a used table")
        wrong += [f"left behind: {p.name}" for p in table.workdir.glob(".*")]
        self._note("failed_restarts", wrong, where)
        return not wrong

    def _finish(self) -> None:
        """`tablectl journal verify` on each table's journal; the figures."""
        for table in self.tables:
            rows = rows_of(table.journal)
            self.tally.rows += len(rows)
            self.tally.rounds_played += sum(
                1 for e in entries_of(rows) if e["type"] == "round_end" and not e.get("void")
            )
            if not rows:
                continue
            done = subprocess.run(
                [sys.executable, "-m", "controller.cli", "journal", "verify", str(table.journal)],
                capture_output=True,
                text=True,
                timeout=120,
            )
            if done.returncode != 0:
                said = tail(done.stdout + done.stderr)
                found = [f"journal verify exit {done.returncode}: {said}"]
                self._note("verify_failures", found, f"{self.game} {table.workdir.name}")
