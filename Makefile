# judgelab: `make run` and `make test` set up .venv when needed, then do their job.
PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# Benchmark files: the checksum-verified mirror beside the project when there is one.
export JUDGELAB_DATA_MIRROR ?= $(abspath $(wildcard ../shared/datasets))

.PHONY: setup browser run test test-fast lint lock clean

$(STAMP): requirements.lock requirements-nodeps.txt pyproject.toml judgelab/bootstrap.py
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python judgelab/bootstrap.py  # the locked pip; llama.cpp for a portable CPU baseline
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --require-hashes -r requirements.lock
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --require-hashes --no-deps -r requirements-nodeps.txt
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	touch $(STAMP)

setup: $(STAMP)  ## create .venv from the hash-locked requirements
	@$(BIN)/python judgelab/bootstrap.py  # ~0.1 s: rebuilds llama.cpp if the venv's is not portable

run: setup  ## run the default studies on the embedded judge: rating (sentiment, toxicity) + accuracy
	$(BIN)/judgelab run studies/all.toml

browser:  ## Debian's Chromium for the report's browser test (installed when run as root)
	@command -v chromium >/dev/null || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null \
		&& apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium \
		>/dev/null; } || echo "chromium is not installed: the browser test will be skipped"

test: setup browser  ## the whole test suite, slow end-to-end runs included, on two workers
	$(BIN)/python -m pytest -n 2 --dist loadfile --no-loadscope-reorder

test-fast: setup  ## skip the end-to-end runs
	$(BIN)/python -m pytest -n 2 -m "not slow"

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

lock:  ## re-resolve requirements.lock from pyproject.toml (pins with hashes)
	$(BIN)/pip-compile pyproject.toml --extra dev --generate-hashes --allow-unsafe --strip-extras -o requirements.lock

clean:  ## remove run outputs (not the venv)
	rm -rf data/raw data/warehouse data/store data/judgelab.duckdb .prefect
