# fairdie: `make` lists the targets. Newcomers run `make demo` and `make test`;
# both set up what is missing first (system packages, .venv) and nothing else.

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help
MAKEFLAGS += --no-print-directory

# Python keeps the package's bytecode, and pytest its test modules with their asserts
# rewritten, in __pycache__ (ignored by git, removed by make clean), even where the
# environment sets PYTHONDONTWRITEBYTECODE: each test worker, inner pytest session and
# CLI subprocess reads them instead of compiling again.
unexport PYTHONDONTWRITEBYTECODE

PYTHON ?= python3
VENV ?= .venv
PYTEST_ARGS ?=
JOBS ?= 2
# the firmware coverage of the suites: a summary per source file, LCOV and HTML in out/coverage
COVERAGE ?= --fairdie-cov=lcov:out/coverage/firmware.info --fairdie-cov=html:out/coverage/html

VPY := $(VENV)/bin/python
STAMP := $(VENV)/.fairdie-setup-stamp
SIM := harness/fairdie/sim

# Setup re-runs when any of these is newer than the stamp.
SETUP_INPUTS := pyproject.toml setup.py $(SIM)/_build.py $(wildcard $(SIM)/_shim*.[ch]) $(SIM)/_api.h \
	$(SIM)/_noise_api.h $(SIM)/_noise_kernels.c \
	ci/install-system-packages.sh

# C and C++ under clang-format: the firmwares shipped in the package (the die
# and the test firmwares), the simavr shim and the noise kernels (not the cffi-generated
# _simavr.c and _kernels.c).
# Expanded only when a recipe needs it.
C_SOURCES = $(sort $(shell find harness/fairdie/firmware harness/fairdie/subjects/*/firmware harness/fairdie/subjects/*/host -type f \
	\( -name '*.[ch]' -o -name '*.cpp' \) 2>/dev/null) \
	$(filter-out $(SIM)/_simavr.c $(SIM)/_kernels.c,$(wildcard $(SIM)/*.c $(SIM)/*.h)))

.PHONY: help setup demo test lint lint-beside collect-tests run-tests format firmware bench campaigns clean distclean

help: ## list the targets (default)
	@echo "fairdie make targets:"
	@grep -E '^[a-z]+:.*## ' $(MAKEFILE_LIST) | \
		awk 'BEGIN { FS = ":.*## " } { printf "  make %-10s %s\n", $$1, $$2 }'
	@echo "Variables: PYTEST_ARGS='-k foo' (extra pytest arguments), JOBS=2 (pytest processes), PYTHON=python3 (for .venv),"
	@echo "  COVERAGE='--fairdie-cov=...' (make test's firmware coverage outputs; empty: none)"

setup: ## install missing system packages (apt-get, sudo if not root), create .venv, pip install -e '.[dev]'
	@rm -f $(STAMP)
	@$(MAKE) $(STAMP)

$(STAMP): $(SETUP_INPUTS)
	@bash ci/install-system-packages.sh
	@v=$$($(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null) || v="not found"; \
	$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null || { \
		echo "error: fairdie needs Python >= 3.11 but $(PYTHON) is $$v (set PYTHON=python3.X)" >&2; exit 1; }
	@if ! $(VPY) -c '' 2>/dev/null; then \
		echo "creating $(VENV) with $$(command -v $(PYTHON)) ($$($(PYTHON) --version 2>&1))"; \
		rm -rf $(VENV); \
		$(PYTHON) -m venv $(VENV); \
	fi
	@touch $@.building
	$(VPY) -m pip install --disable-pip-version-check -q -e '.[dev]'
	@# An editable install compiles nothing: compile the package once here, as an
	@# install would, so that no process (test workers, the CLI's subprocesses)
	@# compiles it again, even where PYTHONDONTWRITEBYTECODE is set.
	$(VPY) -m compileall -q harness/fairdie
	@# A copy of the extension under another suffix (say from build_ext --inplace)
	@# would shadow the one just built: keep only files the install wrote.
	@find $(SIM) -maxdepth 1 \( -name '_simavr*.so' -o -name '_kernels*.so' \) ! -newer $@.building -print -delete | \
		sed 's/^/removed stale extension /'
	@mv -f $@.building $@
	@echo "setup done: $(VENV) ready"

demo: $(STAMP) ## set up if needed, then build, press and verify the die (report in out/verify)
	$(VENV)/bin/fairdie demo
	$(VENV)/bin/fairdie build --target die_t13a --out out/build
	$(VENV)/bin/fairdie verify out/build/die.elf --report out/verify

test: $(STAMP) ## set up if needed, then lint beside pytest -m "not slow" -n JOBS (default 2; extra args: PYTEST_ARGS=...), with firmware coverage
	$(if $(COVERAGE),@mkdir -p out/coverage)
	@$(MAKE) -k -j3 lint-beside run-tests

# the linters, in the order they run: make lint shows them, make test runs them beside the tests
LINT = $(VENV)/bin/ruff check harness tests && $(VENV)/bin/ruff format --check harness tests && \
	$(VENV)/bin/mypy && $(VENV)/bin/lint-imports && clang-format --dry-run --Werror $(C_SOURCES)

lint: $(STAMP) ## ruff check, ruff format --check, mypy, lint-imports, clang-format --dry-run
	$(LINT)

# make test's lint runs beside the tests: at first beside their collection, then
# beside the workers. Its output goes to LINT_LOG, and is printed when it fails;
# make test then fails too, once pytest has ended.
LINT_LOG ?= out/lint.log
lint-beside: $(STAMP)
	@mkdir -p $(dir $(LINT_LOG))
	@if { $(LINT); } >$(LINT_LOG) 2>&1; then echo "make lint: passed (its output: $(LINT_LOG))"; \
	else cat $(LINT_LOG); echo "make lint: FAILED (its output: $(LINT_LOG))"; exit 1; fi

# pytest collects the tests once before its workers start, so that they read the
# rewritten modules instead of each rewriting them (its errors, if any, are the
# run's to report)
collect-tests: $(STAMP)
	@$(VPY) -m pytest -q -p no:xdist -p no:cacheprovider --collect-only -m "not slow" >/dev/null 2>&1 || true

run-tests: collect-tests
	$(VPY) -m pytest -m "not slow" -n $(JOBS) --dist loadgroup $(COVERAGE) $(PYTEST_ARGS)

format: $(STAMP) ## apply ruff format and clang-format -i
	$(VENV)/bin/ruff format harness tests
	clang-format -i $(C_SOURCES)

firmware: $(STAMP) ## build the die's variants (direct, charlieplex, seed) and print their sizes
	$(VPY) -m fairdie.toolchain --target die_t13a --variant direct
	$(VPY) -m fairdie.toolchain --target die_t13a --variant charlieplex
	$(VPY) -m fairdie.toolchain --target die_t13a --variant seed

bench: $(STAMP) ## simulator speed benchmark: one run, a table here and its JSON in out/bench.json
	@mkdir -p out
	$(VENV)/bin/fairdie bench --json-out out/bench.json

campaigns: $(STAMP) ## the slow tests (pytest -m slow), then the die's power-cut campaigns G1..G7 and the game's sweep on JOBS processes; JSON to out/
	@mkdir -p out
	$(VPY) -m pytest -m slow -n $(JOBS) --dist loadgroup $(PYTEST_ARGS)
	rc=0; $(VENV)/bin/fairdie faults --campaign all --jobs $(JOBS) --json > out/campaigns.json || rc=$$?; \
		$(VPY) -c 'import json; d = json.load(open("out/campaigns.json")); \
		print({k: d[k] for k in ("cuts", "cycles_covered", "images", "presses", "violations", "seconds")}); \
		print("torn values:", d["torn_values"])'; \
	$(VENV)/bin/fairdie silver-dollar sweep --jobs $(JOBS) --json > out/silver-dollar.json || rc=$$?; \
		$(VPY) -c 'import json; d = json.load(open("out/silver-dollar.json")); \
		print({k: d[k] for k in ("replies", "starts", "players", "passed", "seconds")})'; exit $$rc

clean: ## remove build outputs and caches (keeps .venv; the next run rebuilds the extension)
	rm -rf build dist out .mypy_cache .ruff_cache .pytest_cache .hypothesis harness/*.egg-info
	rm -f $(SIM)/_simavr.c $(SIM)/_simavr.o $(SIM)/_simavr*.so $(SIM)/_kernels.c $(SIM)/_kernels.o $(SIM)/_kernels*.so $(STAMP) $(STAMP).building
	find harness tests -name __pycache__ -type d -prune -exec rm -rf {} +

distclean: clean ## clean, and remove .venv too
	rm -rf $(VENV)
