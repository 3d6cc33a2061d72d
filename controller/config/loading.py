"""Reading a table's TOML file and checking it whole: its text, each section, and what
it names on this machine."""

from __future__ import annotations

import dataclasses
import functools
import grp
import os
import pwd
import re
import tomllib
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Final

from controller.config import sections
from controller.config.settings import (
    Account,
    Config,
    ConfigError,
    ConfigUnreadable,
    DeviceSettings,
    SocketAccess,
)
from controller.config.values import Problems, Section
from controller.games import Game, Rules, game
from controller.rules.spanish21 import Spanish21Rules
from drivers.keys import KeyFileError, read_key_file

MAX_CONFIG: Final = 1 << 20  # bytes: a table's file is a few hundred
_NO_DEVICES: Final[tuple[DeviceSettings | None, bool]] = (None, True)  # values.Problems
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
        raw, _ = read_key_file(source, "configuration", MAX_CONFIG)  # not a FIFO, not /dev/zero
    except KeyFileError as exc:
        raise ConfigUnreadable(f"{source}: cannot read the configuration: {exc.reason}") from None
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

    ``source`` names it in errors; ``check_files`` as in ``load_config``. The
    ConfigError's message is the first problem; its ``problems``, every one found: a
    section or key that does not depend on a bad one is checked all the same.
    """
    problems = Problems()
    top = Section(data, "", source, sections.SCHEMA, problems)
    config = problems.check(lambda: _sections(top, data, source), None)
    if config is not None and check_files:
        _check_machine(config, problems)
    if problems.found:
        raise problems.error(source)
    assert config is not None  # a section that failed left a problem
    return config


def _sections(top: Section, data: Mapping[str, Any], source: str) -> Config:
    """Each section, checked whether or not another one failed; the game's rules and
    devices once the game is known."""
    with top.together():
        in_force = top.check(lambda: game(sections.game_name(top.table("table"))), None)
        table = top.check(lambda: sections.table(top.table("table")), None)
        rules, devices, reveals = (None, None, True)
        if in_force is not None:
            rules, devices, reveals = _of_game(top, in_force, data, source)
        journal = top.check(lambda: sections.journal(top.table("journal", {})), None)
        api = top.check(lambda: sections.api(top.table("api", {})), None)
        shuffle = top.check(lambda: sections.shuffle(top.table("shuffle", {})), None)
    assert shuffle is not None
    assert in_force is not None and table is not None and journal is not None and api is not None
    assert rules is not None and devices is not None  # together() let no placeholder out
    if isinstance(rules, Spanish21Rules):
        rules = dataclasses.replace(rules, reader_reveals_hole_card=reveals)
    return Config(source, table, rules, devices, journal, api, shuffle)


def _of_game(
    top: Section, in_force: Game, data: Mapping[str, Any], source: str
) -> tuple[Rules | None, DeviceSettings | None, bool]:
    """The ``[rules]`` and the ``[devices]`` of the game in force, each checked."""
    rules = top.check(lambda: sections.rules(in_force, data.get("rules", {}), source), None)
    devices, reveals = top.check(
        lambda: sections.devices(top.table("devices"), in_force), _NO_DEVICES
    )
    return rules, devices, reveals


def _check_machine(config: Config, problems: Problems) -> None:
    """What the configuration names on this machine, as the daemon would meet it: each
    thing on its own."""
    source = config.source
    for name in config.devices.named():
        problems.check(functools.partial(config.load_key, name), None)
    problems.check(lambda: _journal_place(source, config.journal.path), None)
    runtime_dir = config.api.runtime_dir
    if not os.path.isdir(runtime_dir):
        problems.add(f"{source}: api.runtime_dir: {runtime_dir} is not a directory")
    for name, access in config.api.sockets().items():
        for where, account, lookup, what in _accounts(f"{source}: api.{name}", access):
            problems.check(functools.partial(_resolve, where, account, lookup, what), None)


def _accounts(
    where: str, access: SocketAccess
) -> Iterator[tuple[str, Account, Callable[[str], object], str]]:
    """Each user and group a socket names, with where it is named and how it is found."""
    yield f"{where}.group", access.group, grp.getgrnam, "group"
    for i, user in enumerate(access.users):
        yield f"{where}.users[{i}]", user, pwd.getpwnam, "user"
    for i, group in enumerate(access.groups):
        if group != access.group:  # said once, as ``group`` (``groups`` defaults to it)
            yield f"{where}.groups[{i}]", group, grp.getgrnam, "group"


def _journal_place(source: str, journal: str) -> None:
    directory = os.path.dirname(journal)
    if not os.path.isdir(directory):
        raise ConfigError(f"{source}: journal.path: the directory {directory} does not exist")
    if os.path.isdir(journal):
        raise ConfigError(f"{source}: journal.path: {journal} is a directory")


def _resolve(where: str, account: Account, lookup: Callable[[str], object], what: str) -> None:
    """A name must exist here; a number is taken as it is (it may have no name)."""
    if isinstance(account, str):
        try:
            lookup(account)
        except KeyError:
            raise ConfigError(f"{where}: no {what} {account!r} on this machine") from None
