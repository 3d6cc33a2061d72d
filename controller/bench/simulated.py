"""The simulated table ``tablectl run --simulate`` hands the daemon: the firmware
simulators as its devices, and the bench's dealer, players and floorperson as its
console (seeded wagers, basic strategy, the floorperson clearing what a device's return
allows). The daemon takes them as ``controller.daemon.console.SimulatedHardware`` and
``Console``; it imports neither the bench nor the simulators."""

from __future__ import annotations

import contextlib
import secrets
import signal
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import structlog

from controller.bench.devices import simulators
from controller.bench.scenario import DEFAULT_CUT_AT, SPANISH21, BenchError, Scenario
from controller.config import Config, Game, parse_config
from controller.games import GAMES, Rules
from controller.rules.spanish21 import Spanish21Rules
from drivers import messages as m
from drivers.identity import PRODUCT_ID, VENDOR_ID, default_firmware_hash
from drivers.keys import load_key
from drivers.usb import UsbAddress
from firmware_sim.harness import SimError, SimProcess
from firmware_sim.shuffle_models import DEFAULT, ShuffleModel, parse_model

# The dealers, the tables and pyusb are imported when the daemon asks for them, once
# the simulators are spawned: their imports run beside the simulators' start.
if TYPE_CHECKING:
    from controller.bench.dealer import DealerConsole
    from controller.bench.manual import ManualConsole
    from controller.bench.webconsoles import WebConsoles
    from controller.journal.observed import ObservedJournal
    from controller.table.core import Table
    from drivers.device import DeviceDriver
    from firmware_sim.usb_backend import SimUsbBackend

SIMULATION: Final = "<simulation>"  # the source named in errors about simulation_config

log = structlog.get_logger("controller.bench")


class SimulatedTable:
    """A simulated table of ``game`` for the daemon: the simulators in ``workdir`` (by
    default a temporary directory, removed at exit), dealing a shoe seeded by ``seed``
    (by default a random one), played by the bench's autoplay dealer, or by hand
    (``manual``: controller/bench/manual.py)."""

    errors: Final = (SimError, BenchError)

    def __init__(
        self,
        game: Game,
        seed: int | None,
        workdir: str | None,
        *,
        manual: bool = False,
        shuffle_model: str = "random",
    ) -> None:
        self._game = game
        self._shuffle_model = parse_model(shuffle_model)
        self._manual = manual
        self._seed = seed
        self._given = workdir
        self._workdir: Path | None = None
        self._config: Config | None = None
        self._scenario: Scenario | None = None
        self._sims: dict[str, SimProcess] = {}
        self.web: WebConsoles | None = None  # the web consoles beside the table

    def configure(self, cleanup: contextlib.ExitStack) -> Config:
        if self._given is not None:
            self._workdir = Path(self._given).resolve()
        else:
            temporary = tempfile.TemporaryDirectory(prefix="tablectl-")
            self._workdir = Path(cleanup.enter_context(temporary))
        self._config = simulation_config(self._workdir, self._game)
        return self._config

    def _announce_web(self) -> None:
        """The web consoles' logins made and printed before the view takes the
        terminal."""
        if self.web is not None:
            assert self._workdir is not None
            self.web.prepare(self._workdir, sys.stdout)

    def prepare(self) -> None:
        assert self._workdir is not None  # configured first
        self._workdir.mkdir(parents=True, exist_ok=True)
        self._announce_web()

    def start(self, cleanup: contextlib.ExitStack) -> None:
        workdir, config = self._workdir, self._config
        assert workdir is not None and config is not None  # configured first
        self._seed = self._seed if self._seed is not None else secrets.randbits(32)
        self._scenario = autoplay_scenario(config.rules, self._seed, self._shuffle_model)
        key_file = workdir / "shoe.key"
        # A work directory used before keeps its keys: the simulators refuse another.
        key = load_key(str(key_file)) if key_file.exists() else secrets.token_bytes(32)
        self._sims = simulators(self._scenario, workdir, key)
        # The simulators are the table's hardware: the terminal's Ctrl-C is for the
        # daemon, which stops them after its drivers. Blocked while they are spawned,
        # SIGINT stays blocked in them (a child inherits the mask), and one that comes
        # meanwhile reaches the daemon once it is unblocked.
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            for sim in self._sims.values():
                cleanup.callback(sim.stop)
                sim.spawn()  # all at once: each takes a Python start-up
            if self.web is not None:
                self.web.start(cleanup)  # stopped before the simulators
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})

    def ready(self) -> None:
        for sim in self._sims.values():
            sim.wait_ready()
        log.info(
            "simulators_started",
            seed=self._seed,
            devices=sorted(self._sims),
            shuffle_model=str(self._shuffle_model),
        )

    def usb_backend(self) -> SimUsbBackend | None:
        # The simulated reader is reached through pyusb, on the simulator's backend.
        reader = self._sims.get("reader")
        if reader is None:
            return None
        from firmware_sim.usb_backend import SimUsbBackend

        return SimUsbBackend(str(reader.link_path))

    def console(
        self, table: Table, journal: ObservedJournal, drivers: Mapping[str, DeviceDriver]
    ) -> DealerConsole | ManualConsole:
        assert self._scenario is not None and self._workdir is not None  # made at start
        if self._manual:
            from controller.bench.manual import ManualConsole

            return ManualConsole(self._scenario, table, self._sims, self._workdir)
        from controller.bench.runner import dealer_console

        return dealer_console(self._scenario, table, journal, self._sims, drivers)


def autoplay_scenario(rules: Rules, seed: int, model: ShuffleModel = DEFAULT) -> Scenario:
    """A scenario with no script: a seeded shoe, the shuffler, seeded random wagers and
    basic strategy throughout; the cover or cutting card where the bench puts it by
    default."""
    if isinstance(rules, Spanish21Rules):
        from controller.table.spanish21 import CARDS_PER_DECK

        cut_at = rules.decks * CARDS_PER_DECK // 4  # 551.5(e)
        return Scenario(SPANISH21, rules, None, seed, cut_at, [], shuffle_model=model)
    return Scenario(rules.game, rules, None, seed, DEFAULT_CUT_AT, [], shuffle_model=model)


def simulation_config(workdir: Path, game: Game = "baccarat") -> Config:
    """The configuration ``tablectl run --simulate`` uses without ``--config``.

    Every device is a simulator started as ``SimProcess(name, workdir, key)`` with its
    default model and firmware: the shoe and the shuffler on ``workdir/NAME.tty``, for
    Spanish 21 the reader on the simulator's USB ids; key files ``workdir/NAME.key``
    (which ``SimProcess`` writes), the journal and the sockets in ``workdir``. The rules
    are the game's defaults. The key files are not checked here: they are written when
    the simulators are set up, so call ``load_keys`` after that.
    """

    def approved(kind: m.DeviceKind) -> list[str]:
        return [default_firmware_hash(kind).hex()]

    def serial(kind: m.DeviceKind) -> dict[str, Any]:
        return {
            "path": str(workdir / f"{kind.label}.tty"),
            "key_file": str(workdir / f"{kind.label}.key"),
            "approved_firmware": approved(kind),
        }

    devices: dict[str, Any] = {
        "shoe": serial(m.DeviceKind.SHOE),
        "shuffler": serial(m.DeviceKind.SHUFFLER),
    }
    if game in GAMES and GAMES[game].reader:  # an unknown game: parse_config names it
        devices["reader"] = {
            "usb": str(UsbAddress(VENDOR_ID, PRODUCT_ID)),
            "key_file": str(workdir / "reader.key"),
            "approved_firmware": approved(m.DeviceKind.READER),
        }
    data = {
        "table": {"id": "simulated", "game": game},
        "devices": devices,
        "journal": {"path": str(workdir / "journal.db")},
        "api": {"runtime_dir": str(workdir)},
    }
    return parse_config(data, SIMULATION, check_files=False)
