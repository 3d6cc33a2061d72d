"""Shared fixtures: an in-process device on an in-memory link, the owner of the drivers
a test starts, and simulators as processes; their helpers are in ``tests.support``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import structlog
from pytest_mock import MockerFixture

from drivers import messages as m
from firmware_sim.endpoint import Identity
from tests.support.devices import DEV_NONCE, HOST_NONCE, Drivers, InProcessDevice
from tests.support.sim import Start, launcher


@pytest.fixture
def fixed_nonces(mocker: MockerFixture) -> None:
    """Both ends pick known nonces, so frames can be checked byte for byte."""
    mocker.patch("drivers.device.handshake.secrets.token_bytes", return_value=HOST_NONCE)
    mocker.patch("firmware_sim.endpoint.secrets").token_bytes.return_value = DEV_NONCE


@pytest.fixture
def shoe_device() -> Iterator[InProcessDevice]:
    dev = InProcessDevice(Identity(m.DeviceKind.SHOE, "SIM-SHOE", "SHOE-1", "1.0.0"))
    yield dev
    dev.close()


@pytest.fixture
def drivers() -> Iterator[Drivers]:
    owner = Drivers()
    yield owner
    owner.stop()


@pytest.fixture
def start(tmp_path: Path) -> Iterator[Start]:
    """start(kind, args): a simulator process and a host driving it (``launcher``)."""
    yield from launcher(tmp_path)


@pytest.fixture(autouse=True)
def _fresh_logging() -> Iterator[None]:
    """``tablectl`` commands configure structlog for the whole process (a level filter,
    cached loggers); a test that runs one must not change what the next test logs."""
    yield
    structlog.reset_defaults()
