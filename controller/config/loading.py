"""Reading a table's TOML file and checking it whole: its text, each section, and what
it names on this machine."""

from __future__ import annotations

import dataclasses
import grp
import os
import pwd
import re
import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from controller.config import sections
from controller.config.settings import Account, Config, ConfigError
from controller.config.values import Section
from controller.games import game
from controller.rules.spanish21 import Spanish21Rules

_TOML_AT = re.compile(r"(?P<msg>.*) \(at line (?P<line>\d+), column (?P<col>\d+)\)")
_TOML_AT_END = re.compile(r"(?P<msg>.*) \(at end of document\)")


def load_config(path: str | os.PathLike[str], *, check_files: bool = True) -> Config:
    """The validated configuration in ``path``; ConfigError with one line otherwise.

    ``check_files`` also checks what the file names on this machine: the key files
    (``load_keys``), the journal's directory, the runtime directory and the groups.
    Without it only the file itself is checked (for examples written for another box).
    """
    source = str(path)
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise ConfigError(
            f"{source}: cannot read the configuration: {exc.strerror or exc}"
        ) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise ConfigError(f"{source}:{line}: not UTF-8 text (TOML files are UTF-8)") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(_toml_error(source, text, str(exc))) from None
    return parse_config(data, source, check_files=check_files)


def _toml_error(source: str, text: str, message: str) -> str:
    """``FILE:LINE:COLUMN: invalid TOML: REASON`` from tomllib's message."""
    at = _TOML_AT.fullmatch(message)
    if at is not None:
        return f"{source}:{at['line']}:{at['col']}: invalid TOML: {at['msg']}"
    end = _TOML_AT_END.fullmatch(message)
    if end is not None:
        last = text.count("\n") + (0 if text.endswith("\n") else 1)
        return f"{source}:{max(last, 1)}: invalid TOML: {end['msg']} at the end of the file"
    return f"{source}: invalid TOML: {message}"


def parse_config(data: Mapping[str, Any], source: str, *, check_files: bool = True) -> Config:
    """Validate a parsed configuration (a TOML document as ``tomllib`` returns it).

    ``source`` names it in errors; ``check_files`` as in ``load_config``.
    """
    top = Section(data, "", source, sections.SCHEMA)
    table = sections.table(top.table("table"))
    in_force = game(table.game)
    rules = sections.rules(in_force, data.get("rules", {}), source)
    devices, reveals = sections.devices(top.table("devices"), in_force)
    if isinstance(rules, Spanish21Rules):
        rules = dataclasses.replace(rules, reader_reveals_hole_card=reveals)
    journal = sections.journal(top.table("journal", {}))
    api = sections.api(top.table("api", {}))
    config = Config(source, table, rules, devices, journal, api)
    if check_files:
        _check_machine(config)
    return config


def _check_machine(config: Config) -> None:
    """What the configuration names on this machine, as the daemon would meet it."""
    config.load_keys()
    source = config.source
    journal = config.journal.path
    directory = os.path.dirname(journal)
    if not os.path.isdir(directory):
        raise ConfigError(f"{source}: journal.path: the directory {directory} does not exist")
    if os.path.isdir(journal):
        raise ConfigError(f"{source}: journal.path: {journal} is a directory")
    runtime_dir = config.api.runtime_dir
    if not os.path.isdir(runtime_dir):
        raise ConfigError(f"{source}: api.runtime_dir: {runtime_dir} is not a directory")
    for name, access in config.api.sockets().items():
        where = f"{source}: api.{name}"
        _resolve(f"{where}.group", access.group, grp.getgrnam, "group")
        for i, user in enumerate(access.users):
            _resolve(f"{where}.users[{i}]", user, pwd.getpwnam, "user")
        for i, group in enumerate(access.groups):
            _resolve(f"{where}.groups[{i}]", group, grp.getgrnam, "group")


def _resolve(where: str, account: Account, lookup: Callable[[str], object], what: str) -> None:
    """A name must exist here; a number is taken as it is (it may have no name)."""
    if isinstance(account, str):
        try:
            lookup(account)
        except KeyError:
            raise ConfigError(f"{where}: no {what} {account!r} on this machine") from None
