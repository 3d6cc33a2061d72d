"""The configuration of a simulated table (``tablectl run --simulate``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

from controller.config.loading import parse_config
from controller.config.settings import Config, Game
from controller.games import GAMES
from drivers import messages as m
from drivers.identity import PRODUCT_ID, VENDOR_ID, default_firmware_hash
from drivers.usb import UsbAddress

SIMULATION: Final = "<simulation>"  # the source named in errors about simulation_config


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
