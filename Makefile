# Two commands on a fresh machine with only Python 3.11+ and make:
#   make run     install into .venv (first time) and run the bot
#   make test    install into .venv (first time) and run the whole test suite
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run console test lint check bench bench-quick profile clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/referee run

console: $(STAMP)
	$(BIN)/referee console

test: $(STAMP)
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy --strict rules_core
	$(BIN)/mypy bot cogs tests bench

check: lint test

# Benchmarks (docs/PERFORMANCE.md): not part of the test run.
bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[dev,bench]"
	$(BIN)/python -m bench.run --results /tmp/bench.md

bench-quick: $(STAMP)
	$(BIN)/python -m bench.run --quick --results /tmp/bench.md

profile: $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[dev,bench]"
	$(BIN)/python -m bench.profile

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
