"""One container for the whole folder: booted, tablectl installed and configured, the
simulated devices plugged in. Booting needs root and systemd-nspawn: without them the
tests fail (with how to get them), they never skip."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.nspawn import Machine, MachineError, missing_prerequisite
from tests.support.packaging import expected_version_line
from tests.support.systemd_table import DEVICES, configure, deb_version, install, start_device


@pytest.fixture(scope="session")
def machine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Machine]:
    why = missing_prerequisite()
    if why is not None:
        pytest.fail(f"{why}: these tests must not be skipped")
    booted = Machine(tmp_path_factory.mktemp("nspawn") / "console.log")
    try:
        booted.boot()
        version = install(booted)
        if version != expected_version_line(deb_version()):
            raise MachineError(f"the .deb is stale ({version}): run `make deb`")
        configure(booted)
        for name in DEVICES:
            start_device(booted, name)
    except MachineError as exc:
        booted.stop()
        pytest.fail(f"{exc}\n{booted.console()}")
    yield booted
    booted.stop()
