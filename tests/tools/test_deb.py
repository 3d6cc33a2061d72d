"""The Debian package that ``make deb`` built (``make test`` builds it first): its files
where systemd, udev and dpkg look, its conffile, its maintainer scripts, its virtual
environment run from the unpacked package, and lintian's verdict, each tag lintian
still reports justified below. Installing and purging it under a real systemd is
the systemd-nspawn test's part; this one reads the .deb."""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from controller.cli import _COMMANDS
from controller.version import VERSION
from tests.support.mosquitto import Broker
from tests.support.packaging import expected_commit, expected_version_line, tree_files, tree_modules
from tests.support.paths import ROOT
from tools.debsource import SourceError, main, make_tree, tracked

DEB = ROOT / "dist" / "tablectl.deb"  # make deb's link to dist/tablectl_VERSION_amd64.deb
VENV = "usr/lib/tablectl"
SITE = f"{VENV}/lib/python3.11/site-packages"
UNIT = "lib/systemd/system/tablectl.service"  # where bookworm's dh_installsystemd puts it
WEB_UNIT = "lib/systemd/system/tablectl-web.service"  # the web consoles' (docs/web.md)
UPLINK_UNIT = "lib/systemd/system/tablectl-uplink.service"  # the table's MQTT uplink
FLOOR_UNIT = "lib/systemd/system/tablectl-floor.service"  # the floor box's subscriber
UNITS = (UNIT, WEB_UNIT, UPLINK_UNIT, FLOOR_UNIT)
INSTALLED = {  # the package's path: the checkout's file it must hold, byte for byte
    UNIT: "systemd/tablectl.service",
    WEB_UNIT: "systemd/tablectl-web.service",
    UPLINK_UNIT: "systemd/tablectl-uplink.service",
    FLOOR_UNIT: "systemd/tablectl-floor.service",
    "usr/lib/sysusers.d/tablectl.conf": "systemd/tablectl.sysusers.conf",
    "usr/lib/tmpfiles.d/tablectl.conf": "systemd/tablectl.tmpfiles.conf",
    "usr/lib/udev/rules.d/70-tablectl.rules": "udev/70-tablectl.rules",
    "etc/tablectl/table.toml": "examples/baccarat.toml",
    "usr/share/lintian/overrides/tablectl": "debian/tablectl.lintian-overrides",  # dh_lintian
}
# The only compiled code in the package: the extension modules of the web consoles'
# dependencies (debian/requirements.txt), from their x86_64 manylinux wheels, under
# SITE. Each links only the libraries of LINKED, which ${shlibs:Depends} names.
COMPILED = {
    "aiohttp": [
        "aiohttp/_http_parser.cpython-311-x86_64-linux-gnu.so",
        "aiohttp/_http_writer.cpython-311-x86_64-linux-gnu.so",
        "aiohttp/_websocket/mask.cpython-311-x86_64-linux-gnu.so",
        "aiohttp/_websocket/reader_c.cpython-311-x86_64-linux-gnu.so",
    ],
    "argon2-cffi-bindings": ["_argon2_cffi_bindings/_ffi.abi3.so"],
    "cffi": ["_cffi_backend.cpython-311-x86_64-linux-gnu.so"],
    "frozenlist": ["frozenlist/_frozenlist.cpython-311-x86_64-linux-gnu.so"],
    "multidict": [
        "multidict/_multidict.cpython-311-x86_64-linux-gnu.so",
        "multidict/_testcapi.cpython-311-x86_64-linux-gnu.so",
    ],
    "propcache": ["propcache/_helpers_c.cpython-311-x86_64-linux-gnu.so"],
    "yarl": ["yarl/_quoting_c.cpython-311-x86_64-linux-gnu.so"],
}
# The shuffle monitor's numpy and scipy (controller/shuffle/): their extension modules
# and the shared libraries their wheels bundle in numpy.libs/ and scipy.libs/ (OpenBLAS,
# libgfortran, libquadmath), far too many to list: exactly the ELF files each wheel's
# RECORD names. Only these may carry an RPATH, and only one into their own .libs/.
BUNDLING = ("numpy", "scipy")
LINKED = {  # a NEEDED library of those modules: the bookworm package that has it
    "libc.so.6": "libc6",
    "libm.so.6": "libc6",
    "libpthread.so.0": "libc6",
    "ld-linux-x86-64.so.2": "libc6",
    "libgcc_s.so.1": "libgcc-s1",
    "libstdc++.so.6": "libstdc++6",
    "libz.so.1": "zlib1g",  # the bundled libgfortran's
}
# Every tag lintian 2.116 (bookworm) reports on the package, E, W and I, and why each
# stays. An error tag never stays; a tag not listed, or listed and gone, fails the test.
# (A stale override is reported too: unused-override, not listed.)
JUSTIFIED = {
    "unusual-interpreter": "the entry point's #!/usr/lib/tablectl/bin/python is the "
    "package's own virtual environment (dh-virtualenv), a link to /usr/bin/python3.11 "
    "that lintian does not know; and pyserial's modules and one of scipy's tests (not "
    "executable) begin #!/usr/bin/env python: the wheels' files are shipped as PyPI has them",
    "extra-license-file": "the PyPI dependencies' license files in their .dist-info "
    "metadata, as their wheels carry them; debian/copyright has them all too",
    "package-contains-documentation-outside-usr-share-doc": "the same license files, "
    "Python metadata rather than documentation (lintian's own python/egg/metadata "
    "screen says so of .dist-info)",
    "package-supports-alternative-init-but-no-init.d-script": "no sysvinit script: the "
    "daemon needs systemd (Type=notify, its watchdog, the unit's sandbox, sysusers)",
    "hardening-no-bindnow": "the extension modules of COMPILED are their PyPI wheels' "
    "(pinned by hash), linked by their upstreams without -z now; relinking them would "
    "mean building each from its sdist, with its build tools, instead of the reviewed "
    "wheel (bookworm's own /usr/bin/python3.11, which loads them, lacks it too)",
    "hardening-no-fortify-functions": "the same wheels: cffi's backend, the Argon2 "
    "bindings, aiohttp's HTTP parser and many of numpy's and scipy's modules were "
    "compiled by their upstreams without _FORTIFY_SOURCE, for the same reason not rebuilt",
    "spelling-error-in-binary": "misspelt messages in numpy's and scipy's compiled "
    "modules and OpenBLAS (their wheels' binaries, as upstream built them)",
    "shared-library-lacks-prerequisites": "four of numpy's and scipy's small modules "
    "(test helpers, scipy's _fpumode) that need no library, as their wheels build them",
}

# The tags debian/tablectl.lintian-overrides silences, each entry one file with its own
# justification written above it; lintian's O: lines must be exactly its entries.
JUSTIFIED_OVERRIDES = {
    "library-not-linked-against-libc": "four of numpy's and scipy's modules (lapack_lite, "
    "_dop, _test_multivariate, _matfuncs_expm) link libm, ld.so or their OpenBLAS and call "
    "no function of libc (their undefined symbols: those libraries', Python's and crt's "
    "weak ones); python3.11, which loads them, has libc. Adding a NEEDED entry they do "
    "not use would mean patchelf rewriting the pinned wheels' binaries",
}
OVERRIDES = ROOT / "debian/tablectl.lintian-overrides"


@dataclass(frozen=True)
class Unpacked:
    root: Path
    paths: list[str]  # every path the package installs, as dpkg-deb lists it
    links: dict[str, str]  # a symbolic link's path: its target
    control: Path


def _deb() -> Path:
    assert DEB.exists(), f"{DEB} is missing: run `make deb` (make test builds it first)"
    return DEB.resolve()


def _field(name: str) -> str:
    return subprocess.run(
        ["dpkg-deb", "--field", str(_deb()), name], capture_output=True, text=True, check=True
    ).stdout.strip()


@pytest.fixture(scope="module")
def deb(tmp_path_factory: pytest.TempPathFactory) -> Unpacked:
    where = tmp_path_factory.mktemp("deb")
    root, control = where / "root", where / "control"
    subprocess.run(["dpkg-deb", "--extract", str(_deb()), str(root)], check=True)
    subprocess.run(["dpkg-deb", "--control", str(_deb()), str(control)], check=True)
    listing = subprocess.run(
        ["dpkg-deb", "--contents", str(_deb())], capture_output=True, text=True, check=True
    ).stdout
    links = dict(re.findall(r"^l\S+ +\S+ +\d+ \S+ \S+ \./(\S+) -> (\S+)$", listing, flags=re.M))
    # The environment's interpreter links to ../../../bin/python3.11: give the unpacked
    # tree the system's, as an installed package has it.
    (root / "usr/bin/python3.11").symlink_to("/usr/bin/python3.11")
    paths = re.findall(r"^\S+ +\S+ +\d+ \S+ \S+ \./(\S*)", listing, flags=re.M)
    return Unpacked(root, paths, links, control)


def test_the_deb_is_the_checkouts_commit(deb: Unpacked) -> None:
    recorded = (deb.root / SITE / "controller/BUILD_COMMIT").read_text().strip()
    assert recorded == expected_commit(), "the .deb is stale: run `make deb`"
    assert (_field("Package"), _field("Version"), _field("Architecture")) == (
        "tablectl",
        VERSION,
        "amd64",  # its compiled dependencies are x86_64 wheels (docs/packaging.md)
    )


def test_the_deb_holds_every_module_and_the_environment_runs(deb: Unpacked) -> None:
    missing = [m for m in tree_modules() if not (deb.root / SITE / m).is_file()]
    assert missing == []
    python = deb.root / VENV / "bin/python"
    version = subprocess.run(
        [python, "-I", "-m", "controller.cli", "--version"], capture_output=True, text=True
    )
    assert version.stdout == expected_version_line(VERSION) + "\n", version.stderr
    helped = subprocess.run(
        [python, "-I", "-m", "controller.cli", "--help"], capture_output=True, text=True
    )
    assert helped.returncode == 0 and [c for c in _COMMANDS if c not in helped.stdout] == []
    # What postinst does: compile the environment's bytecode, every module compiling.
    compiled = subprocess.run(
        [python, "-m", "compileall", "-q", deb.root / VENV / "lib"], capture_output=True
    )
    assert compiled.returncode == 0, compiled.stdout


def test_the_packaged_environment_plays_a_simulated_table(deb: Unpacked, tmp_path: Path) -> None:
    """Its dependencies as pinned run the whole stack: the drivers over pyserial and
    pyusb, the table's transitions machine, structlog, the journal."""
    played = subprocess.run(
        [deb.root / VENV / "bin/python", "-I", "-m", "controller.cli", "run", "--simulate",
         "--game", "spanish21", "--rounds", "1", "--pace-ms", "0", "--plain",
         "--workdir", tmp_path / "table"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert played.returncode == 0, played.stderr[-2000:]
    assert played.stdout.splitlines()[-1] == "stopped after 1 round"


def test_usr_bin_tablectl_is_the_environments_command(deb: Unpacked) -> None:
    assert deb.links["usr/bin/tablectl"] == "../lib/tablectl/bin/tablectl"
    entry = (deb.root / VENV / "bin/tablectl").read_text().splitlines()[0]
    assert entry == f"#!/{VENV}/bin/python"
    # Nothing else to run: no pip, no activate scripts, no dependency's commands.
    assert sorted(p.name for p in (deb.root / VENV / "bin").iterdir()) == [
        "python",
        "python3",
        "python3.11",
        "tablectl",
    ]
    assert [p for p in (deb.root / SITE).iterdir() if p.name.startswith(("pip", "setup"))] == []


def _elf_files(deb: Unpacked) -> list[Path]:
    files = [p for p in deb.root.rglob("*") if p.is_file() and not p.is_symlink()]
    return [p for p in files if p.read_bytes()[:4] == b"\x7fELF"]


def test_no_bytecode_and_no_compiled_code_but_the_dependencies(deb: Unpacked) -> None:
    assert len(deb.paths) > 500, deb.paths
    assert [p for p in deb.paths if p.endswith(".pyc") or "__pycache__" in p] == []
    # Nothing of tablectl's own is built for one machine: the ELF files are exactly
    # the compiled dependencies' extension modules, each where its wheel puts it.
    found = sorted(p.relative_to(deb.root).as_posix() for p in _elf_files(deb))
    listed = [m for ms in COMPILED.values() for m in ms] + _bundling_elves(deb)
    assert found == sorted(f"{SITE}/{m}" for m in listed)


def _bundling_elves(deb: Unpacked) -> list[str]:
    """The compiled files of numpy's and scipy's wheels, as their RECORD lists them."""
    names = []
    for dist in BUNDLING:
        (record,) = (deb.root / SITE).glob(f"{dist}-*.dist-info/RECORD")
        rows = [line.split(",")[0] for line in record.read_text().splitlines()]
        names += [r for r in rows if r.endswith(".so") or ".so." in r.rsplit("/", 1)[-1]]
    return names


def _search_path(elf: Path, dynamic: str) -> list[Path]:
    """Where the loader looks for elf's libraries besides the system's: its RPATH,
    allowed in numpy's and scipy's files alone and only into their .libs/."""
    site = next(p for p in elf.parents if p.name == "site-packages")
    where = elf.relative_to(site).as_posix()
    # (debian/rules removes the one RUNPATH scipy's wheel has: its build machine's.)
    runpath = re.findall(r"\((?:RPATH|RUNPATH)\)\s+Library r(?:un)?path: \[(\S+)\]", dynamic)
    if not runpath:  # a bundled library loaded by one whose RPATH is its directory
        return [elf.parent] if where.split("/")[0].endswith(".libs") else []
    assert where.split("/")[0].removesuffix(".libs") in BUNDLING and "RUNPATH" not in dynamic
    dirs = [Path(d.replace("$ORIGIN", str(elf.parent))).resolve() for d in runpath[0].split(":")]
    assert {d.relative_to(site).as_posix() for d in dirs} <= {"numpy.libs", "scipy.libs"}, where
    return dirs


def test_the_compiled_modules_link_only_what_depends_names(deb: Unpacked) -> None:
    depends = {d.strip().split()[0] for d in _field("Depends").split(",")}
    for elf in _elf_files(deb):
        dynamic = subprocess.run(
            ["readelf", "--dynamic", elf], capture_output=True, text=True, check=True
        ).stdout
        needed = re.findall(r"\(NEEDED\)\s+Shared library: \[(\S+)\]", dynamic)
        # A library a wheel bundles is beside elf, or where its RPATH says.
        bundled = [n for n in needed if any((d / n).is_file() for d in _search_path(elf, dynamic))]
        system = [n for n in needed if n not in bundled]
        assert [n for n in system if n not in LINKED] == [], (elf, needed)
        # Some of numpy's own test modules link nothing at all.
        assert needed or elf.relative_to(deb.root / SITE).parts[0] in BUNDLING, elf
        # dh_shlibdeps (${shlibs:Depends}) named the package of each.
        assert {LINKED[n] for n in system} <= depends, (elf, needed, depends)


def test_the_environment_hashes_passwords_and_serves_http(deb: Unpacked) -> None:
    """The web consoles' dependencies as packaged, their compiled modules in use:
    an Argon2 hash made and checked, an aiohttp server answering its client."""
    ran = subprocess.run(
        [deb.root / VENV / "bin/python", "-I", "-c", WEB_STACK],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert ran.stdout.split() == ["argon2id", "aiohttp._http_parser", "200", "tablectl"]


def test_the_environment_runs_the_shuffle_monitors_statistics(deb: Unpacked) -> None:
    """numpy and scipy as packaged: the monitor's tests on a shoe, and a linear solve
    by each wheel's OpenBLAS, loaded from the package's numpy.libs/ and scipy.libs/."""
    ran = subprocess.run(
        [deb.root / VENV / "bin/python", "-I", "-c", SHUFFLE_STATS],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr[-2000:]
    lines = ran.stdout.splitlines()
    assert lines[0].split() == ["position_uniformity", "spearman", "adjacency", "rising_sequences"]
    assert lines[1] == "solved"
    site = (deb.root / SITE).as_posix()
    assert sorted(p.removeprefix(site + "/").split("-")[0] for p in lines[2:]) == [
        "numpy.libs/libscipy_openblas64_",
        "scipy.libs/libscipy_openblas",
    ], lines


# Run by the packaged interpreter (python -I): what it prints, the test checks.
SHUFFLE_STATS = """
import random
import numpy as np, scipy.integrate, scipy.linalg
from controller.shuffle.stats import all_tests

rack = [rank + suit for _ in range(8) for rank in "A23456789TJQK" for suit in "SHDC"]
shoe = random.Random(14).sample(rack, len(rack))
results = all_tests(rack, shoe)
assert all(0.0 <= r.p_value <= 1.0 for r in results), results
print(*(r.name for r in results))
a = np.arange(1.0, 10.0).reshape(3, 3) + 10 * np.eye(3)
b = np.ones(3)
assert np.allclose(a @ np.linalg.solve(a, b), b) and np.allclose(a @ scipy.linalg.solve(a, b), b)
# Two of the modules that link no libc (debian/tablectl.lintian-overrides), at work.
assert np.allclose(scipy.linalg.expm(np.diag([1.0, 2.0])), np.diag(np.exp([1.0, 2.0])))
ode = scipy.integrate.ode(lambda t, y: -y).set_integrator("dopri5").set_initial_value([1.0])
assert np.isclose(ode.integrate(1.0)[0], np.exp(-1.0), rtol=1e-6)
print("solved")
maps = open("/proc/self/maps").read().split()
print(*sorted({m for m in maps if "openblas" in m}), sep="\\n")
"""

WEB_STACK = """
import asyncio
import aiohttp, aiohttp.http_parser, argon2
from aiohttp import web

hasher = argon2.PasswordHasher()
hashed = hasher.hash("s3cret")
assert hasher.verify(hashed, "s3cret")
print(hashed.split("$")[1])
print(aiohttp.http_parser.HttpRequestParser.__module__)

async def main():
    app = web.Application()
    app.router.add_get("/", lambda request: web.Response(text="tablectl"))
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    async with aiohttp.ClientSession() as session:
        async with session.get(f"http://127.0.0.1:{port}/") as answer:
            print(answer.status, await answer.text())
    await runner.cleanup()

asyncio.run(main())
"""


def test_the_environment_publishes_to_mosquitto_over_tls(deb: Unpacked, tmp_path: Path) -> None:
    """The uplink's client library as packaged (paho-mqtt, pinned in
    debian/requirements.txt) against a real broker with the shipped configuration and
    ACL: a table's QoS 1 message on its own topic reaches the floor's subscriber."""
    with Broker(tmp_path / "broker", {"BAC-01": "pw-table", "floor": "pw-floor"}) as broker:
        ran = subprocess.run(
            [deb.root / VENV / "bin/python", "-I", "-c", MQTT_STACK,
             str(broker.port), str(broker.certs.ca)],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert ran.stdout.split() == ["2.2.0", "tablectl/BAC-01/journal", "1", "row-1"]


# Run by the packaged interpreter with the broker's port and CA: what it prints, the
# test checks (the floor subscribes, then the table publishes).
MQTT_STACK = """
import queue, sys
import paho.mqtt
from paho.mqtt.client import CallbackAPIVersion, Client

port, ca = int(sys.argv[1]), sys.argv[2]
got, subscribed = queue.Queue(), queue.Queue()

def client(user, password):
    c = Client(CallbackAPIVersion.VERSION2, client_id=user + "-deb-test")
    c.username_pw_set(user, password)
    c.tls_set(ca_certs=ca)
    c.connect("127.0.0.1", port)
    c.loop_start()
    return c

floor = client("floor", "pw-floor")
floor.on_message = lambda c, u, m: got.put((m.topic, m.qos, m.payload.decode()))
floor.on_subscribe = lambda c, u, mid, codes, p: subscribed.put(codes)
floor.subscribe("tablectl/+/journal", qos=1)
assert not subscribed.get(timeout=10)[0].is_failure
table = client("BAC-01", "pw-table")
table.publish("tablectl/BAC-01/journal", b"row-1", qos=1).wait_for_publish(timeout=10)
print(paho.mqtt.__version__)
print(*got.get(timeout=10))
for c in (table, floor):
    c.disconnect()
    c.loop_stop()
"""


@pytest.mark.parametrize(("path", "source"), sorted(INSTALLED.items()))
def test_each_file_is_where_its_tool_looks(deb: Unpacked, path: str, source: str) -> None:
    assert (deb.root / path).read_bytes() == (ROOT / source).read_bytes()


def test_the_table_config_is_a_conffile(deb: Unpacked) -> None:
    assert (deb.control / "conffiles").read_text().split() == ["/etc/tablectl/table.toml"]


def test_docs_examples_and_the_man_page(deb: Unpacked) -> None:
    doc = deb.root / "usr/share/doc/tablectl"
    for path in [*tree_files("docs/*.md"), ROOT / "README.md"]:
        assert (doc / path.name).read_bytes() == path.read_bytes(), path
    for path in tree_files("examples/*.toml"):
        assert (doc / "examples" / path.name).read_bytes() == path.read_bytes(), path
    for path in tree_files("examples/mosquitto/*"):  # the broker's, as it is installed
        shipped = doc / "examples/mosquitto" / path.name
        assert shipped.read_bytes() == path.read_bytes(), path
    assert "Apache-2.0" in (doc / "copyright").read_text()
    # Each unit's Documentation= names a file the package has, uncompressed.
    for name in UNITS:
        unit = (deb.root / name).read_text()
        pages = re.findall(r"^Documentation=file:(\S+)$", unit, flags=re.M)
        assert pages and [p for p in pages if not (deb.root / p.lstrip("/")).is_file()] == []
    man = subprocess.run(
        ["zcat", deb.root / "usr/share/man/man1/tablectl.1.gz"], capture_output=True, text=True
    ).stdout
    assert expected_version_line(VERSION) in man and "/usr/share/doc/tablectl" in man


def test_the_dependencies_are_the_interpreter_libusb_sysusers_and_libc() -> None:
    depends = [d.strip() for d in _field("Depends").split(",")]
    assert "python3.11" in depends and "libusb-1.0-0" in depends
    assert [d for d in depends if d.startswith("libc6 (>= ")], depends  # ${shlibs:Depends}
    assert [d for d in depends if d.startswith("systemd |")], depends


def _script(deb: Unpacked, name: str) -> str:
    return (deb.control / name).read_text()


def test_postinst_makes_the_user_then_the_directories_then_the_unit(deb: Unpacked) -> None:
    postinst = _script(deb, "postinst")
    steps = [
        "-m compileall -q /usr/lib/tablectl/lib",
        'systemd-sysusers ${DPKG_ROOT:+--root="$DPKG_ROOT"} tablectl.conf',
        "--create tablectl.conf",
        "systemctl --system daemon-reload",
    ]
    at = [postinst.find(step) for step in steps]
    assert -1 not in at and at == sorted(at), dict(zip(steps, at, strict=True))
    # Installed disabled (dh_installsystemd --no-enable): enabled again only if it was.
    lines = [ln.strip() for ln in postinst.splitlines() if ln.strip() and ln.strip()[0] != "#"]
    enables = [i for i, ln in enumerate(lines) if ln.startswith("deb-systemd-helper enable")]
    assert enables and all("was-enabled" in lines[i - 1] for i in enables)


def test_the_daemon_stops_before_an_upgrade_unpacks_and_on_remove(deb: Unpacked) -> None:
    """Never running on a mix of two releases' modules (dh_installsystemd
    --no-restart-after-upgrade): the new preinst stops it, postinst starts it."""
    preinst, prerm = _script(deb, "preinst"), _script(deb, "prerm")
    for name in (Path(unit).name for unit in UNITS):
        stop = f"deb-systemd-invoke stop '{name}'"
        assert '[ "$1" = upgrade ]' in preinst and stop in preinst
        assert '[ "$1" = remove ]' in prerm and stop in prerm
        assert f"deb-systemd-invoke start '{name}'" in _script(deb, "postinst")
    assert "find /usr/lib/tablectl -name __pycache__" in prerm


def test_postrm_purges_the_config_keeps_a_journal_and_the_unit_state(deb: Unpacked) -> None:
    postrm = _script(deb, "postrm")
    assert "rm -rf /etc/tablectl" in postrm
    assert "rmdir --ignore-fail-on-non-empty /var/lib/tablectl" in postrm
    assert "deb-systemd-helper purge 'tablectl.service'" in postrm


def _written_overrides() -> dict[tuple[str, str], str]:
    """debian/tablectl.lintian-overrides' entries, (tag, [file]): the comment line right
    above each, its justification."""
    lines = OVERRIDES.read_text().splitlines()
    entries = {}
    for at, line in enumerate(lines):
        if line.startswith("tablectl: "):
            assert at > 0 and lines[at - 1].startswith("# "), f"no justification: {line}"
            tag, pointer = line.removeprefix("tablectl: ").split(" ", 1)
            assert re.fullmatch(r"\[[^*]+\]", pointer), f"not one file: {line}"
            entries[tag, pointer] = lines[at - 1].removeprefix("# ")
    return entries


def test_lintian_reports_no_error_and_only_the_justified_tags() -> None:
    # Shown, an overridden error would make lintian exit 2 (--fail-on error counts it):
    # its exit says only that it ran, the E: lines whether an error is left.
    result = subprocess.run(
        ["lintian", "--display-info", "--show-overrides", "--fail-on", "none", str(_deb())],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    reported = re.findall(r"^([EWI]): tablectl: (\S+)", result.stdout, flags=re.M)
    assert result.returncode == 0, result.stdout + result.stderr  # 1: lintian failed
    assert [tag for kind, tag in reported if kind == "E"] == [], result.stdout
    assert sorted({tag for _, tag in reported}) == sorted(JUSTIFIED), result.stdout
    # Overridden: exactly the entries written, each used, each with its justification
    # (lintian's N: lines above the O: line), of the tags justified here.
    shown = re.findall(r"((?:^N: .*\n)*)^O: tablectl: (\S+) (\[\S+\])$", result.stdout, flags=re.M)
    overridden = {
        (tag, at): " ".join(re.findall(r"^N: (.*)$", why, flags=re.M)) for why, tag, at in shown
    }
    written = _written_overrides()
    assert overridden == written, result.stdout
    assert {tag for tag, _ in written} == set(JUSTIFIED_OVERRIDES)


def test_nothing_is_executable_but_the_command(deb: Unpacked) -> None:
    """No module of the environment is a command (debian/rules clears the execute bits
    numpy's wheel sets: lintian would have the package depend on python3 for them)."""
    files = [p for p in deb.root.rglob("*") if p.is_file() and not p.is_symlink()]
    executable = [p.relative_to(deb.root).as_posix() for p in files if p.stat().st_mode & 0o111]
    assert executable == [f"{VENV}/bin/tablectl"]


def test_the_changelog_names_the_version_the_wheel_has() -> None:
    first = (ROOT / "debian/changelog").read_text().splitlines()[0]
    assert first.startswith(f"tablectl ({VERSION}) ")


def test_the_source_tree_is_the_tracked_files_and_the_commit(tmp_path: Path) -> None:
    dest = tmp_path / "src"
    assert make_tree(ROOT, dest) == expected_commit()
    copied = {p.relative_to(dest).as_posix() for p in dest.rglob("*") if not p.is_dir()}
    assert copied == {p.as_posix() for p in tracked(ROOT)} | {"BUILD_COMMIT"}
    assert (dest / "BUILD_COMMIT").read_text() == expected_commit() + "\n"
    unit = dest / "debian/tablectl.service"  # dh_installsystemd's name for systemd/'s unit
    assert unit.is_symlink() and unit.read_bytes() == (ROOT / INSTALLED[UNIT]).read_bytes()


def test_bad_input_debsource_outside_a_checkout_or_with_no_dest_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SourceError, match="cannot read the commit"):
        make_tree(tmp_path, tmp_path / "dest")
    assert main([]) == 2
    assert main([str(ROOT / "LICENSE" / "dest")]) == 1  # a file where a folder must go
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 2 and lines[0].startswith("usage:") and "error:" in lines[1], lines
