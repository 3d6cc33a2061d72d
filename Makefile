# Two commands matter (README "Quick start"): `make run` and `make test`.
# Both create the virtual environment in .venv on first use.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: run test lint bench clean

$(VENV)/.created:
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
	  || { echo "tablectl needs Python 3.11 or newer; $(PYTHON) is older" >&2; exit 1; }
	@rm -rf $(VENV)
	@$(PYTHON) -m venv $(VENV) >/dev/null 2>&1 \
	  || { rm -rf $(VENV); [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null \
	       && apt-get update -qq && apt-get install -y -qq python3-venv >/dev/null \
	       && $(PYTHON) -m venv $(VENV); } \
	  || { echo "cannot create a virtual environment: install python3-venv and retry" >&2; exit 1; }
	@touch $@

# An editable install compiles nothing, and with PYTHONDONTWRITEBYTECODE set no start
# writes bytecode either: every start would compile each module from source (about a
# third of the start's time, docs/benchmarks.md). Compiled here once, as an install does;
# a module edited later is compiled again in memory (its bytecode is stale by mtime).
COMPILE = $(BIN)/python -m compileall -q controller drivers firmware_sim

$(VENV)/.installed: $(VENV)/.created pyproject.toml
	$(BIN)/python -m pip install -q -e .
	$(COMPILE)
	@touch $@

$(VENV)/.installed-test: $(VENV)/.created pyproject.toml
	$(BIN)/python -m pip install -q -e '.[test]'
	$(COMPILE)
	@touch $@ $(VENV)/.installed

# The simulated table with its web consoles (README "Quick start"): the daemon on
# simulated devices, and `tablectl web` beside it on WEB (default 127.0.0.1:8080),
# whose URLs and this run's one-time logins are printed first. Its journal, sockets,
# logins and log are kept in WORKDIR (default .run/GAME, said at start).
# MANUAL=1: no robot, the dealer plays from /dealer, the simulated devices act when he
# does. ROUNDS=N stops after N rounds; GAME=spanish21 (or midibaccarat) picks the game;
# PACE_MS=N is the robot dealer's time per action; SEED=N the shoe's.
WORKDIR ?= .run/$(or $(GAME),baccarat)
WEB ?= 127.0.0.1:8080
run: $(VENV)/.installed
	$(BIN)/tablectl run --simulate --workdir $(WORKDIR) --web $(WEB) \
	  $(if $(filter-out 0,$(MANUAL)),--manual) $(if $(ROUNDS),--rounds $(ROUNDS)) \
	  $(if $(GAME),--game $(GAME)) $(if $(PACE_MS),--pace-ms $(PACE_MS)) \
	  $(if $(SEED),--seed $(SEED))

# The suite in TEST_JOBS processes (pytest-xdist), a test file to one process at a time
# (its module fixtures made once): most tests wait on processes, terminals and sockets
# rather than compute, so two share two cores well. TEST_JOBS=0 runs it in one.
TEST_JOBS ?= 2
test: lint systemd-tools systemd-container udevadm umockdev chromium mosquitto deb
	$(BIN)/pytest $(if $(filter-out 0,$(TEST_JOBS)),-n $(TEST_JOBS) --dist loadfile)

# $(call apt_need,CHECK,PACKAGES,WHAT): the tools a test needs. CHECK (shell) holds, or
# PACKAGES are installed from Debian when we are root with apt-get (a fresh machine, CI),
# or one line "WHAT: install PACKAGES and retry" and exit 1 (no comma in the three).
apt_need = @{ $(1); } >/dev/null 2>&1 \
	  || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && apt-get update -qq \
	       && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(2) >/dev/null; } \
	  || { echo "$(3): install $(2) and retry" >&2; exit 1; }

# tests/daemon/test_systemd_unit.py runs systemd-analyze (and systemd-sysusers), and
# tests/daemon/test_logs.py systemd-journald, systemd-cat and journalctl
# (tests/support/journald.py); installed like python3-venv above when missing and we
# are root with apt-get.
.PHONY: systemd-tools
systemd-tools:
	$(call apt_need,command -v systemd-analyze && command -v systemd-cat && command -v journalctl \
	  && test -x /lib/systemd/systemd-journald,systemd,systemd-analyze or journald is missing)

# tests/uplink and tests/floor run a real broker (tests/support/mosquitto.py) with the
# certificates openssl makes; installed the same way when missing.
.PHONY: mosquitto
mosquitto:
	$(call apt_need,command -v mosquitto && command -v mosquitto_passwd && command -v openssl,mosquitto openssl,mosquitto or openssl is missing)

# tests/system boots systemd in systemd-nspawn (package systemd-container); installed
# the same way when missing.
.PHONY: systemd-container
systemd-container:
	$(call apt_need,command -v systemd-nspawn,systemd-container,systemd-nspawn is missing)

# tests/tools/test_udev.py runs `udevadm verify` (systemd 254 and later; bookworm has 252) on
# udev/70-tablectl.rules: when it is missing, udev 254 from bookworm-backports is
# unpacked into .venv/udev-254, where the test looks, without installing it (after the
# venv, whose creation empties .venv).
UDEV_DIR := .venv/udev-254
.PHONY: udevadm
udevadm: $(UDEV_DIR)/bin/udevadm
$(UDEV_DIR)/bin/udevadm: | $(VENV)/.created
	$(PYTHON) -m tools.fetch_udev $(UDEV_DIR)

# tests/web drive Debian's Chromium with Playwright (`playwright install` cannot
# download a browser here: the tests launch /usr/bin/chromium); installed from Debian
# like systemd above when missing.
.PHONY: chromium
chromium:
	$(call apt_need,test -x /usr/bin/chromium,chromium,chromium is missing)

# tests/tools/test_udev_umockdev.py replays recorded devices with `umockdev-run` (a fake
# /sys for udevadm test); installed from Debian like systemd above when missing.
.PHONY: umockdev
umockdev:
	$(call apt_need,command -v umockdev-run,umockdev,umockdev-run is missing)

lint: $(VENV)/.installed-test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

# The daemon benchmark plays 1,000 shoes for its memory figure, about 1.5 s each at
# --pace-ms 0 on a 2-vCPU machine (25 minutes): SHOES=N plays N instead.
bench: $(VENV)/.installed-test
	$(BIN)/python benchmarks/link_bench.py
	$(BIN)/python benchmarks/bench_shoe.py
	$(BIN)/python benchmarks/daemon_bench.py $(if $(SHOES),--shoes $(SHOES))

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis build dist .run

# `make deb`: the Debian package, built by Debian's own tools (debhelper, dh-virtualenv:
# debian/, docs/packaging.md) in build/deb from a copy of the tracked files with the
# commit recorded (tools/debsource.py), into dist/ under a fixed name; dist/tablectl.deb
# links to it, and `make deb-path` prints it. Rebuilt when a tracked file or the commit
# changes.
# tests/tools/test_deb.py inspects it and runs lintian on it. The tools are installed
# as for `make systemd-tools` when missing.
DEB_VERSION := $(shell head -n 1 debian/changelog | cut -d ' ' -f 2 | tr -d '()')
DEB_ARCH := $(shell sed -n 's/^Architecture: //p' debian/control)
DEB := dist/tablectl_$(DEB_VERSION)_$(DEB_ARCH).deb
DEB_TREE := build/deb/tablectl-$(DEB_VERSION)
DEB_TOOLS := chrpath debhelper dh-virtualenv dpkg-dev elfutils help2man lintian python3.11 python3.11-venv git
DEB_SOURCES := $(wildcard $(shell git ls-files 2>/dev/null))

.PHONY: deb deb-path deb-tools
deb: $(DEB)
	@echo $(DEB)

deb-path:
	@echo $(DEB)

deb-tools:
	$(call apt_need,dpkg -s $(DEB_TOOLS),$(DEB_TOOLS),a tool of make deb is missing)

# The commit the .deb records: a new one (a commit, or edits making the tree dirty)
# rebuilds it even when no file is newer.
DEB_COMMIT := build/deb-commit
$(DEB_COMMIT): FORCE
	@mkdir -p build && $(PYTHON) -m tools.debsource --commit > $@.new
	@cmp -s $@.new $@ && rm $@.new || mv $@.new $@
.PHONY: FORCE
FORCE:

# The outer make's flags are not debian/rules' (MAKEFLAGS would carry -j and -C).
$(DEB): $(DEB_SOURCES) $(DEB_COMMIT) | deb-tools
	@rm -rf build/deb && mkdir -p build/deb dist
	@$(PYTHON) -m tools.debsource $(DEB_TREE)
	@echo "building $@ (log: build/deb/build.log)"
	@cd $(DEB_TREE) && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
	  dpkg-buildpackage -b -us -uc >../build.log 2>&1 \
	  || { tail -n 40 ../build.log >&2; echo "make deb: dpkg-buildpackage failed: build/deb/build.log" >&2; exit 1; }
	@cp build/deb/$(notdir $@) $@
	@ln -sfn $(notdir $@) dist/tablectl.deb
