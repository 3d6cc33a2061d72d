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

# ROUNDS=N stops after N rounds; GAME=spanish21 (or midibaccarat) picks the game.
run: $(VENV)/.installed
	$(BIN)/tablectl run --simulate $(if $(ROUNDS),--rounds $(ROUNDS)) $(if $(GAME),--game $(GAME))

test: lint systemd-tools udevadm
	$(BIN)/pytest

# tests/daemon/test_systemd_unit.py runs systemd-analyze (and systemd-sysusers), and
# tests/daemon/test_logs.py systemd-journald, systemd-cat and journalctl
# (tests/support/journald.py); installed like python3-venv above when missing and we
# are root with apt-get.
.PHONY: systemd-tools
systemd-tools:
	@{ command -v systemd-analyze && command -v systemd-cat && command -v journalctl \
	   && test -x /lib/systemd/systemd-journald; } >/dev/null \
	  || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null \
	       && apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq systemd >/dev/null; } \
	  || { echo "systemd-analyze, systemd-journald, systemd-cat or journalctl is missing: install systemd and retry" >&2; exit 1; }

# tests/tools/test_udev.py runs `udevadm verify` (systemd 254 and later; bookworm has 252) on
# udev/70-tablectl.rules: when it is missing, udev 254 from bookworm-backports is
# unpacked into .venv/udev-254, where the test looks, without installing it (after the
# venv, whose creation empties .venv).
UDEV_DIR := .venv/udev-254
.PHONY: udevadm
udevadm: $(UDEV_DIR)/bin/udevadm
$(UDEV_DIR)/bin/udevadm: | $(VENV)/.created
	$(PYTHON) -m tools.fetch_udev $(UDEV_DIR)

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
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
