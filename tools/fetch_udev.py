"""Fetch systemd 254's ``udevadm`` for ``udevadm verify``, unpacked, not installed.

    python3 -m tools.fetch_udev DEST        (``make udevadm``: DEST is .venv/udev-254)

tests/tools/test_udev.py checks udev/70-tablectl.rules with ``udevadm verify``, which came
with systemd 254; Debian bookworm has 252, bookworm-backports has 254. The ``udev``
package is downloaded with apt from the Debian mirror that this machine's own sources
name, through a private sources list, package lists and cache (the system's sources
and package state are left alone), and unpacked with dpkg-deb: DEST/bin/udevadm.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

SUITE = "bookworm-backports"
MIN_VERSION = 254
APT_DIR = Path("/etc/apt")


class FetchError(Exception):
    """Why udevadm could not be fetched, in one line."""


@dataclass(frozen=True, slots=True)
class Source:
    """One ``deb`` entry of the system's apt sources."""

    uri: str
    suites: tuple[str, ...]
    components: tuple[str, ...]
    signed_by: str | None = None


def one_line_sources(text: str) -> Iterator[Source]:
    """The ``deb`` lines of a sources.list file: ``deb [options] URI SUITE COMPONENT...``."""
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        options: dict[str, str] = {}
        found = re.fullmatch(r"deb\s+\[([^]]*)\]\s+(.*)", line)
        if found:
            options = dict(o.split("=", 1) for o in found.group(1).split() if "=" in o)
            line = "deb " + found.group(2)
        words = line.split()
        if len(words) >= 4 and words[0] == "deb":
            yield Source(words[1], (words[2],), tuple(words[3:]), options.get("signed-by"))


def deb822_sources(text: str) -> Iterator[Source]:
    """The enabled ``deb`` stanzas of a .sources file (a keyring given inline is left out)."""
    for stanza in re.split(r"\n\s*\n", text):
        fields = _fields(stanza)
        if "deb" not in fields.get("types", "").split() or fields.get("enabled") == "no":
            continue
        signed_by = fields.get("signed-by")
        for uri in fields.get("uris", "").split():
            yield Source(
                uri,
                tuple(fields.get("suites", "").split()),
                tuple(fields.get("components", "").split()),
                signed_by if signed_by and "\n" not in signed_by else None,
            )


def _fields(stanza: str) -> dict[str, str]:
    """A deb822 stanza's fields by lower-case name; continuation lines joined by newlines."""
    fields: dict[str, str] = {}
    name = ""
    for line in stanza.splitlines():
        if line.startswith("#"):
            continue
        if line[:1].isspace() and name:
            fields[name] += "\n" + line.strip()
        elif ":" in line:
            key, value = line.split(":", 1)
            name = key.strip().lower()
            fields[name] = value.strip()
    return fields


def system_sources(apt_dir: Path = APT_DIR) -> list[Source]:
    files = [apt_dir / "sources.list", *sorted((apt_dir / "sources.list.d").glob("*"))]
    sources: list[Source] = []
    for path in files:
        if path.suffix == ".sources" and path.is_file():
            sources += deb822_sources(path.read_text(encoding="utf-8"))
        elif (path.suffix == ".list" or path.name == "sources.list") and path.is_file():
            sources += one_line_sources(path.read_text(encoding="utf-8"))
    return sources


def debian_mirror(sources: Sequence[Source], codename: str) -> Source:
    """The source of the release's own main archive (not its security archive)."""
    for source in sources:
        if codename in source.suites and "main" in source.components:
            return source
    raise FetchError(f"no apt source serves {codename} main (looked in {APT_DIR})")


def codename(os_release: Path = Path("/etc/os-release")) -> str:
    found = re.search(r"^VERSION_CODENAME=\"?([a-z]+)", os_release.read_text(), re.MULTILINE)
    if found is None:
        raise FetchError(f"{os_release} names no release codename")
    return found.group(1)


def _run(argv: Sequence[str], cwd: Path | None = None) -> str:
    if shutil.which(argv[0]) is None:
        raise FetchError(f"{argv[0]} is missing: it is needed to fetch udevadm")
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        last = (done.stderr.strip() or done.stdout.strip()).splitlines()[-1:]
        raise FetchError(f"{argv[0]} {argv[-1]} failed: {''.join(last)}")
    return done.stdout


def download(mirror: Source, work: Path) -> Path:
    """The udev package of SUITE, downloaded into ``work`` through private apt state."""
    signed = f" [signed-by={mirror.signed_by}]" if mirror.signed_by else ""
    (work / "sources.list").write_text(f"deb{signed} {mirror.uri} {SUITE} main\n")
    for sub in ("lists/partial", "cache/archives/partial"):
        (work / sub).mkdir(parents=True)
    apt = [
        f"-oDir::Etc::SourceList={work / 'sources.list'}",
        "-oDir::Etc::SourceParts=/nonexistent",
        f"-oDir::State::Lists={work / 'lists'}",
        f"-oDir::Cache={work / 'cache'}",
        # The private directories are ours: no download as the _apt user.
        *(["-oAPT::Sandbox::User=root"] if os.geteuid() == 0 else []),
    ]
    _run(["apt-get", "-qq", *apt, "update"])
    _run(["apt-get", "-qq", *apt, "download", f"udev/{SUITE}"], cwd=work)
    (deb,) = work.glob("udev_*.deb")
    return deb


def check(udevadm: Path) -> int:
    """udevadm's version, once it runs here (no library missing) and has ``verify``."""
    missing = [
        line.split()[0] for line in _run(["ldd", str(udevadm)]).splitlines() if "not found" in line
    ]
    if missing:
        raise FetchError(f"{udevadm} needs libraries this system lacks: {', '.join(missing)}")
    version = _run([str(udevadm), "--version"]).split()[0]
    if int(version) < MIN_VERSION:
        raise FetchError(f"{udevadm} is version {version}; verify needs {MIN_VERSION}")
    return int(version)


def fetch(dest: Path) -> int:
    """Unpack udev from SUITE into ``dest``, where ``bin/udevadm`` appears only once it
    works; its version."""
    mirror = debian_mirror(system_sources(), codename())
    partial = dest.with_name(dest.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    with tempfile.TemporaryDirectory() as work:
        deb = download(mirror, Path(work))
        _run(["dpkg-deb", "-x", str(deb), str(partial)])
    udevadm = partial / "bin" / "udevadm"
    if not udevadm.is_file():
        raise FetchError(f"the udev package of {SUITE} has no bin/udevadm")
    version = check(udevadm)
    shutil.rmtree(dest, ignore_errors=True)
    partial.rename(dest)
    return version


def main(argv: Sequence[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    if len(args) != 1:
        print("usage: python3 -m tools.fetch_udev DEST", file=sys.stderr)
        return 2
    try:
        version = fetch(Path(args[0]).resolve())
    except FetchError as exc:
        print(f"fetch_udev: {exc}", file=sys.stderr)
        return 1
    print(f"udevadm {version} from {SUITE} in {args[0]}/bin/udevadm")
    return 0


if __name__ == "__main__":
    sys.exit(main())
