# Two entry points, both safe on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: demo test quick bench clean tag

# Python keeps each module's compiled bytecode beside it (__pycache__, ignored by git) and
# reuses it. The suite starts some hundred Python processes; with PYTHONDONTWRITEBYTECODE set
# in the environment (as some images and CI runners do), each one compiled the package and
# pytest rewrote every test module again, in every process (docs/performance.md).
export PYTHONDONTWRITEBYTECODE :=

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $(STAMP)

## The main job on the bundled starter material.
demo: $(STAMP)
	$(BIN)/synergy-forge validate missions/starter
	$(BIN)/synergy-forge judge missions/rounds/*.yaml
	$(BIN)/synergy-forge play 1 --seed 1 --bots coop --quiet
	$(BIN)/synergy-forge playtest missions/starter --check --html output/playtest.html
	$(BIN)/synergy-forge build missions/starter --out output

## Lint, the layers' contracts, types and the whole test suite, on every core (pytest-xdist;
## tests/conftest.py keeps a module's tests together but for the modules it spreads, SPREAD).
test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	$(BIN)/mypy synergy_forge
	$(BIN)/python -m pytest -n auto

## The quicker pass while editing: every test not marked slow (tests/conftest.py marks the
## ones that build a kit or start a browser, a cluster or a studio; the others that take seconds
## of CPU carry @pytest.mark.slow). `make test` runs them all.
quick: $(STAMP)
	$(BIN)/python -m pytest -n auto -m "not slow"

## Tag this commit as the release of pyproject.toml's version (v0.1.0), the `rev` that mission
## repositories name in their pre-commit configuration and CI (docs/ci.md).
VERSION := $(shell sed -n 's/^version = "\(.*\)"/\1/p' pyproject.toml)
tag:
	git tag -a "v$(VERSION)" -m "synergy-forge $(VERSION)"

bench: $(STAMP)
	$(BIN)/python bench/bench_judge.py
	$(BIN)/python bench/bench_validate.py
	$(BIN)/python bench/bench_engine.py
	$(BIN)/python bench/bench_build.py
	$(BIN)/python bench/bench_incremental.py
	$(BIN)/python bench/bench_studio.py
	$(BIN)/python bench/bench_table.py
	$(BIN)/python bench/bench_playtest.py

## Everything `make demo` wrote (output/ but its .gitkeep: the kit of each language, its cache
## and records, the playtest report) and the venv.
clean:
	rm -rf $(VENV)
	find output -mindepth 1 -maxdepth 1 ! -name .gitkeep -exec rm -rf {} +
